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
        brokers: Some(brokers.clone()),
        intake: CpuPool::blocking(),
        input: Topic::SEEDS,
        kind: Topic::SEEDS,
        output: None,
        cfg: cfg.clone(),
    };
    let stage = placed.build(&ctx).await?;
    gleaner_core::metrics::describe(placed.spec.metrics());
    if let Some(addr) = &kafka.metrics {
        gleaner_core::metrics::serve(addr).await?;
    }
    let stop = gleaner_core::kafka::shutdown_signal();
    gleaner_core::kafka::run_stage(stage, &cfg, &brokers, stop).await
}
