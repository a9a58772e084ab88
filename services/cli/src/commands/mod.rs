//! One module per subcommand, each with its options as a struct and its
//! own `run`; main.rs lists them. Shared here: the exit status of bad
//! input, logs, the config and the data directory.

pub mod dedup;
pub mod eval;
mod eval_bench;
mod eval_meta;
mod eval_set;
pub mod eval_summaries;
pub mod extract;
pub mod report;
pub mod run;
pub mod search;
pub mod seed;
pub mod serve;
pub mod service;
pub mod status;
pub mod stories;
pub mod topics;

use crate::args::Kafka;
use gleaner_core::Config;
use std::path::PathBuf;

/// Bad usage or input (a missing seed file, a URL without a scheme, an
/// unknown config key): the command exits with status 2, other errors 1.
#[derive(Debug)]
pub struct BadInput(pub String);

impl std::fmt::Display for BadInput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BadInput {}

pub fn bad_input(msg: impl Into<String>) -> anyhow::Error {
    anyhow::Error::new(BadInput(msg.into()))
}

/// The lines an offline command reads: standard input for `-`, else the
/// file (one that cannot be opened is bad input).
pub fn open_input(path: &std::path::Path) -> anyhow::Result<Box<dyn std::io::BufRead + Send>> {
    if path.as_os_str() == "-" {
        return Ok(Box::new(std::io::BufReader::with_capacity(
            1 << 20,
            std::io::stdin(),
        )));
    }
    let f = std::fs::File::open(path).map_err(|e| bad_input(format!("{}: {e}", path.display())))?;
    Ok(Box::new(std::io::BufReader::with_capacity(1 << 20, f)))
}

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

/// The configuration `--config` names (else the defaults), every section
/// checked; a bad one is bad input.
pub fn config(common: &crate::args::Common) -> anyhow::Result<Config> {
    crate::stages::load_config(common.config.as_deref()).map_err(|e| bad_input(format!("{e:#}")))
}

/// `--extractor`, else the config's.
pub fn extractor_of(
    cfg: &Config,
    flag: Option<&str>,
) -> anyhow::Result<gleaner_extract::Extractor> {
    match flag {
        Some(name) => name.parse(),
        None => cfg
            .section::<gleaner_extract::ExtractSettings>()?
            .extractor
            .parse(),
    }
}

pub fn data_dir(cfg: &Config, data: Option<PathBuf>) -> PathBuf {
    data.unwrap_or_else(|| PathBuf::from(&cfg.run.data_dir))
}

/// The index directories to search: `DATA/index`, or with `--shard` each
/// shard given (a data directory of an index instance, or its index
/// directory itself), searched as one index.
pub fn index_dirs(data: &std::path::Path, shards: &[PathBuf]) -> Vec<PathBuf> {
    if shards.is_empty() {
        return vec![data.join("index")];
    }
    shards
        .iter()
        .map(|s| {
            if s.join("meta.json").exists() || s.file_name().is_some_and(|n| n == "index") {
                s.clone()
            } else {
                s.join("index")
            }
        })
        .collect()
}

pub fn brokers(cfg: &Config, k: &Kafka) -> String {
    k.brokers
        .clone()
        .unwrap_or_else(|| cfg.kafka.brokers.clone())
}

/// Fails within `gleaner_kafka::REACH_WAIT`, saying so, when no broker
/// answers at `brokers` (a one-shot command would otherwise wait a minute
/// or more without a word).
pub async fn broker_reachable(brokers: &str) -> anyhow::Result<()> {
    let b = brokers.to_string();
    tokio::task::spawn_blocking(move || {
        gleaner_kafka::check_reachable(&b, gleaner_kafka::REACH_WAIT)
    })
    .await?
}
