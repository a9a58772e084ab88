//! The options several subcommands share.

use clap::Args;
use std::path::PathBuf;

#[derive(Args, Clone)]
pub struct Common {
    /// Configuration file (default: the bundled pipelines.toml).
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,
}

/// What a seed carries besides its URL.
#[derive(Args, Clone, Default)]
pub struct SeedOptions {
    /// Fetch the seeds again every SECS seconds (the fetch service keeps the schedule in --state; `gleaner run` keeps running).
    #[arg(long = "every", value_name = "SECS")]
    pub every_secs: Option<u64>,
    /// With --every: revisit sooner when new links appeared, later when none did.
    #[arg(long)]
    pub adaptive: bool,
    /// Follow only links matching this URL pattern (`*` is a wildcard, else a prefix); repeatable.
    #[arg(long, value_name = "PATTERN")]
    pub allow: Vec<String>,
    /// Do not follow links matching this URL pattern; repeatable.
    #[arg(long, value_name = "PATTERN")]
    pub deny: Vec<String>,
}

#[derive(Args, Clone)]
pub struct Kafka {
    /// Kafka bootstrap servers (default: kafka.brokers from the config).
    #[arg(long, env = "GLEANER_BROKERS")]
    pub brokers: Option<String>,
    /// Serve Prometheus metrics (GET /metrics) and health (GET /health:
    /// 200 when the stage owns partitions and reaches the broker, 503 with
    /// the reason otherwise) on this address.
    #[arg(long, value_name = "ADDR")]
    pub metrics: Option<String>,
    /// This instance's name in its stage's consumer group (default:
    /// kafka.instance, else the host name); each instance of one stage
    /// needs its own.
    #[arg(long, value_name = "NAME")]
    pub instance: Option<String>,
}
