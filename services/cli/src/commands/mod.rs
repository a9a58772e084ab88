//! One module per subcommand; main.rs parses and dispatches.

pub mod dedup;
pub mod eval;
pub mod extract;
pub mod run;
pub mod search;
pub mod seed;
pub mod serve;
pub mod service;
pub mod status;
pub mod topics;

use crate::Kafka;
use gleaner_core::Config;
use std::path::PathBuf;

/// Logs on stderr, coloured only on a terminal and without NO_COLOR (a
/// log file gets no escape codes).
pub fn init_logs(default: &str) {
    use std::io::IsTerminal;
    let filter = tracing_subscriber::EnvFilter::try_from_env("GLEANER_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    let colour = std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(colour)
        .try_init();
}

pub fn data_dir(cfg: &Config, data: Option<PathBuf>) -> PathBuf {
    data.unwrap_or_else(|| PathBuf::from(&cfg.run.data_dir))
}

pub fn brokers(cfg: &Config, k: &Kafka) -> String {
    k.brokers
        .clone()
        .unwrap_or_else(|| cfg.kafka.brokers.clone())
}
