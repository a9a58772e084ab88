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
use gleaner_core::config::{SectionCheck, SectionOf};
use gleaner_core::registry::StageSpec;
use gleaner_core::Config;
use std::path::{Path, PathBuf};

pub use crate::bad_input::{bad_input, BadInput};

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

/// A whole number as a user types one (`--limit`, `?limit=`); one too
/// large for the machine stands as its largest, so that a range check
/// after it says what the range is, and a limit that large means all.
pub fn whole_number(v: &str) -> Option<usize> {
    match v.parse() {
        Ok(n) => Some(n),
        Err(_) if !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()) => Some(usize::MAX),
        Err(_) => None,
    }
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

/// The sections of pipelines.toml besides core's: each stage's, and the
/// commands' own.
pub fn sections(registry: &[&dyn StageSpec]) -> Vec<&'static dyn SectionCheck> {
    let mut known: Vec<&'static dyn SectionCheck> =
        registry.iter().filter_map(|s| s.settings()).collect();
    known.push(&SectionOf::<serve::ServeSettings>::NEW);
    known
}

/// The configuration at `path` (or the defaults), every section checked:
/// a misspelt key or section is an error here, not a surprise later.
pub fn load_config(path: Option<&Path>) -> anyhow::Result<Config> {
    let cfg = Config::load(path)?;
    let checked = cfg.check_sections(&sections(&crate::stages::registry()));
    match path {
        Some(p) => checked.map_err(|e| e.context(format!("parsing config {}", p.display())))?,
        None => checked?,
    }
    Ok(cfg)
}

/// The configuration `--config` names (else the defaults), every section
/// checked; a bad one is bad input.
pub fn config(common: &crate::args::Common) -> anyhow::Result<Config> {
    load_config(common.config.as_deref()).map_err(|e| bad_input(format!("{e:#}")))
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The documented pipelines.toml is what the code does with no config:
    /// every section it writes equals its owner's defaults, and every
    /// section a stage or command owns is documented there.
    #[test]
    fn the_documented_config_is_the_defaults() {
        let text = include_str!("../../../../pipelines.toml");
        let documented = Config::from_toml(text).unwrap();
        let defaults = Config::default_config();
        // Core's sections; the stages are compared below.
        let core = |c: &Config| {
            let mut c = c.clone();
            c.sections.clear();
            c.pipeline.stages = None;
            toml::Value::try_from(c).unwrap()
        };
        assert_eq!(core(&documented), core(&defaults));
        // Written out for the reader; left out, the order is the same.
        let listed = documented.pipeline.stages.clone().unwrap();
        let names: Vec<String> = crate::stages::registry()
            .iter()
            .map(|s| s.name().to_string())
            .collect();
        assert_eq!(listed, names, "[pipeline] stages");
        let known = sections(&crate::stages::registry());
        for section in &known {
            assert!(
                documented.sections.contains_key(section.name()),
                "[{}] is not documented in pipelines.toml",
                section.name()
            );
            assert_eq!(
                section.effective(&documented).unwrap(),
                section.effective(&defaults).unwrap(),
                "[{}] in pipelines.toml differs from its defaults in code",
                section.name()
            );
        }
        documented.check_sections(&known).unwrap();
    }
}
