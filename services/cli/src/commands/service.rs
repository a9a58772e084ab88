//! One stage as its own process on Kafka (`gleaner fetch`, `clean`, ...),
//! built from the registry in its place in `[pipeline] stages`.

use crate::args::{Common, Kafka};
use crate::commands::brokers;
use crate::commands::{config, init_logs};
use crate::stages;
use clap::Args;
use gleaner_core::cpu::CpuPool;
use gleaner_core::registry::StageContext;
use gleaner_core::{Config, Topic};
use std::path::PathBuf;
use std::process::ExitCode;

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
    if cfg.kafka.instance.is_empty() {
        // One instance of a stage per machine (or container) by default,
        // under a name that a restart there reclaims.
        let host = gleaner_kafka::host_name();
        cfg.kafka.instance = if gleaner_core::config::is_instance_name(&host) {
            host
        } else {
            "1".into()
        };
    }
    let registry = stages::registry();
    let flow = stages::flow(&cfg, &registry)?;
    // `clean+extract`: consecutive stages as one service (chain.rs).
    let names: Vec<&str> = name.split('+').collect();
    let placed = if names.len() > 1 {
        flow.chain(&names)
            .map_err(|e| crate::commands::bad_input(format!("{e:#}")))?
    } else {
        vec![flow.get(name).ok_or_else(|| {
            let names = flow.names();
            let guess = gleaner_core::registry::nearest(name, &names)
                .map(|n| format!("; did you mean {n:?}?"))
                .unwrap_or_default();
            crate::commands::bad_input(format!(
                "stage {name:?} is not in [pipeline] stages ({}){guess}",
                names.join(", ")
            ))
        })?]
    };
    // A chain answers to its first stage's name: its group, its status,
    // its namesakes.
    let name = placed[0].spec.name();
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
    let mut stop = gleaner_core::shutdown::shutdown_signal();
    // Before the stage is built: an instance that waits for a namesake to
    // go rebuilds its state (dedup's window, the fetched set) only when it
    // takes over, from what the other left.
    if !gleaner_kafka::wait_for_no_namesake(&cfg, &brokers, name, &mut stop).await {
        return Ok(());
    }
    // A stage with one active instance (dedup, stories) waits as a standby
    // while another is active, and builds its state when it takes over.
    let active_since = if placed[0].spec.single_active() {
        match gleaner_kafka::wait_to_be_active(&cfg, &brokers, name, &mut stop).await? {
            Some(since) => Some(since),
            None => return Ok(()),
        }
    } else {
        None
    };
    let mut built = Vec::with_capacity(placed.len());
    for p in &placed {
        built.push(p.build(&ctx).await?);
        gleaner_core::metrics::describe(p.spec.metrics());
    }
    let stage = chained(
        built,
        &placed,
        cfg.run.worker_count(),
        cfg.kafka.max_record_bytes,
    );
    gleaner_core::metrics::describe(gleaner_kafka::metrics::METRICS);
    if let Some(addr) = &kafka.metrics {
        crate::metrics_server::serve(addr).await?;
    }
    gleaner_kafka::run_stage(stage, &cfg, &brokers, stop, active_since).await
}

/// The built stages of a chain as one (a single stage as itself), each
/// handing the next its outputs on the topic between them (records past
/// `max_record_bytes` dead letters of the stage that made them).
fn chained(
    built: Vec<gleaner_core::Wired>,
    placed: &[&gleaner_core::registry::Placed],
    workers: usize,
    max_record_bytes: usize,
) -> gleaner_core::Wired {
    let mut stages = built.into_iter().zip(placed).rev();
    let (mut wired, _) = stages.next().expect("a service runs a stage");
    for (first, p) in stages {
        let link = p.output.expect("a stage with a next one writes a topic");
        wired = gleaner_core::chain::chain(first, wired, link, workers, Some(max_record_bytes));
    }
    if placed.len() > 1 {
        let names: Vec<&str> = placed.iter().map(|p| p.spec.name()).collect();
        tracing::info!(
            stages = names.join("+"),
            "stages run as one service: the topics between them are not written"
        );
    }
    wired
}

/// The options of `gleaner fetch`.
#[derive(Args)]
pub struct FetchCmd {
    /// Fetch private, loopback and reserved addresses (default: fetch.allow_private).
    #[arg(long)]
    pub allow_private: bool,
    /// Keep the seen-URL set here, so a restart does not fetch completed URLs again.
    #[arg(long, value_name = "DIR")]
    pub state: Option<PathBuf>,
    #[command(flatten)]
    pub kafka: Kafka,
    #[command(flatten)]
    pub common: Common,
}

/// The options of `gleaner clean`.
#[derive(Args)]
pub struct CleanCmd {
    #[command(flatten)]
    pub kafka: Kafka,
    #[command(flatten)]
    pub common: Common,
}

/// The options of `gleaner summarize`.
#[derive(Args)]
pub struct SummarizeCmd {
    #[command(flatten)]
    pub kafka: Kafka,
    #[command(flatten)]
    pub common: Common,
}

/// The options of `gleaner index`.
#[derive(Args)]
pub struct IndexCmd {
    /// Data directory (default: run.data_dir, "gleaner-data").
    #[arg(long)]
    pub data: Option<PathBuf>,
    #[command(flatten)]
    pub kafka: Kafka,
    #[command(flatten)]
    pub common: Common,
}

/// The options of `gleaner stage`.
#[derive(Args)]
pub struct StageCmd {
    /// The stage's name in [pipeline] stages, or consecutive stages joined
    /// by + to run as one service (fetch+clean+extract).
    pub name: String,
    /// Data directory (the index stage keeps its index in DIR/index).
    #[arg(long)]
    pub data: Option<PathBuf>,
    /// State directory, for a stage that keeps state across restarts (fetch).
    #[arg(long, value_name = "DIR")]
    pub state: Option<PathBuf>,
    /// Fetch private, loopback and reserved addresses (default: fetch.allow_private).
    #[arg(long)]
    pub allow_private: bool,
    #[command(flatten)]
    pub kafka: Kafka,
    #[command(flatten)]
    pub common: Common,
}

impl FetchCmd {
    pub async fn run(self) -> anyhow::Result<ExitCode> {
        let place = Place {
            state: self.state,
            allow_private: self.allow_private,
            ..Place::default()
        };
        serve_stage("fetch", &self.common, &self.kafka, place).await
    }
}

impl CleanCmd {
    pub async fn run(self) -> anyhow::Result<ExitCode> {
        serve_stage("clean", &self.common, &self.kafka, Place::default()).await
    }
}

impl SummarizeCmd {
    pub async fn run(self) -> anyhow::Result<ExitCode> {
        serve_stage("summarize", &self.common, &self.kafka, Place::default()).await
    }
}

impl IndexCmd {
    pub async fn run(self) -> anyhow::Result<ExitCode> {
        let place = Place {
            data: self.data,
            ..Place::default()
        };
        serve_stage("index", &self.common, &self.kafka, place).await
    }
}

impl StageCmd {
    pub async fn run(self) -> anyhow::Result<ExitCode> {
        let place = Place {
            data: self.data,
            state: self.state,
            allow_private: self.allow_private,
        };
        serve_stage(&self.name, &self.common, &self.kafka, place).await
    }
}

/// The stage called `name` as a service, with info logs.
pub async fn serve_stage(
    name: &str,
    common: &Common,
    kafka: &Kafka,
    place: Place,
) -> anyhow::Result<ExitCode> {
    init_logs("info");
    run(name, config(common)?, kafka, place).await?;
    Ok(ExitCode::SUCCESS)
}
