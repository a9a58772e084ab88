//! One stage as its own process on Kafka (`gleaner fetch`, `clean`, ...),
//! built from the registry in its place in `[pipeline] stages`.

use crate::commands::brokers;
use crate::{stages, Kafka};
use gleaner_core::cpu::CpuPool;
use gleaner_core::registry::StageContext;
use gleaner_core::{Config, Topic};
use std::path::PathBuf;

/// What a service is given besides its configuration.
#[derive(Default)]
pub struct Place {
    pub data: Option<PathBuf>,
    pub state: Option<PathBuf>,
    pub allow_private: bool,
}

pub async fn run(name: &str, mut cfg: Config, kafka: &Kafka, place: Place) -> anyhow::Result<()> {
    if let Some(instance) = &kafka.instance {
        cfg.kafka.instance = instance.clone();
        cfg.validate()?;
    }
    let registry = stages::registry();
    let flow = stages::flow(&cfg, &registry)?;
    let placed = flow.get(name).ok_or_else(|| {
        anyhow::anyhow!(
            "stage {name:?} is not in [pipeline] stages ({})",
            flow.names().join(", ")
        )
    })?;
    let brokers = brokers(&cfg, kafka);
    let ctx = StageContext {
        data: place
            .data
            .unwrap_or_else(|| PathBuf::from(&cfg.run.data_dir)),
        state: place.state,
        allow_private: place.allow_private,
        long_running: true,
        bus: std::sync::Arc::new(gleaner_kafka::KafkaState {
            brokers: brokers.clone(),
            cfg: cfg.clone(),
        }),
        intake: CpuPool::blocking(),
        input: Topic::SEEDS,
        kind: Topic::SEEDS,
        output: None,
        cfg: cfg.clone(),
    };
    let stage = placed.build(&ctx).await?;
    gleaner_core::metrics::describe(placed.spec.metrics());
    gleaner_core::metrics::describe(gleaner_kafka::metrics::METRICS);
    if let Some(addr) = &kafka.metrics {
        crate::metrics_server::serve(addr).await?;
    }
    let stop = gleaner_core::shutdown::shutdown_signal();
    gleaner_kafka::run_stage(stage, &cfg, &brokers, stop).await
}
