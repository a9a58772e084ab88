//! The configuration, read from `pipelines.toml`. This crate's copy (the
//! repository root links to it) is the documented default and is compiled
//! in, so a run with no `--config` behaves exactly as that file says.

use anyhow::Context;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The default configuration, documented line by line.
pub const DEFAULT_TOML: &str = include_str!("../pipelines.toml");

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    pub pipeline: Pipeline,
    pub topics: Topics,
    pub kafka: Kafka,
    pub run: Run,
    pub fetch: Fetch,
    pub extract: Extract,
    pub dedup: Dedup,
    pub summarize: Summarize,
    pub index: Index,
    pub serve: Serve,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pipeline {
    /// The stages in flow order, by name (see `gleaner_core::registry`).
    pub stages: Vec<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Topics {
    pub seeds: String,
    pub frontier: String,
    pub pages: String,
    pub cleaned: String,
    pub articles: String,
    pub unique: String,
    pub duplicates: String,
    pub summarized: String,
    pub rules: String,
    pub dead_letter: String,
    /// Defaulted, so that a config written before it existed still loads.
    #[serde(default = "default_status_topic")]
    pub status: String,
}

fn default_status_topic() -> String {
    "gleaner.status".into()
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Kafka {
    pub brokers: String,
    pub group_prefix: String,
    pub compression: String,
    pub max_record_bytes: usize,
    pub batch_max: usize,
    pub partitions: i32,
    pub replication: i32,
    /// This instance's name in its stage's group (static membership).
    pub instance: String,
    pub session_timeout_ms: u64,
    /// Exit after this long without partitions while the input waits (0: never).
    pub unassigned_exit_ms: u64,
    /// Records per partition of the output topics the replay guard reads back.
    pub replay_check_records: usize,
    /// Longest a consumer's fetch waits at the broker for records to arrive.
    #[serde(default = "default_fetch_wait_ms")]
    pub fetch_wait_ms: u64,
    /// librdkafka's idempotent producer (no duplicate from its own retries).
    #[serde(default = "default_idempotence")]
    pub idempotence: bool,
}

fn default_idempotence() -> bool {
    true
}

fn default_fetch_wait_ms() -> u64 {
    20
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Run {
    pub data_dir: String,
    pub channel_capacity: usize,
    /// Workers of each stage that can have several; 0: one per core.
    pub workers: usize,
    /// Steps of niceness below the rest of the process at which clean and
    /// extract run (0: none), so that the stages after them go first.
    #[serde(default = "default_intake_nice")]
    pub intake_nice: i32,
    pub progress_interval_ms: u64,
}

fn default_intake_nice() -> i32 {
    5
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fetch {
    pub user_agent: String,
    pub connect_timeout_ms: u64,
    pub total_timeout_ms: u64,
    pub max_redirects: usize,
    pub max_body_bytes: usize,
    pub per_host_delay_ms: u64,
    pub per_host_concurrency: usize,
    pub defer_after_ms: u64,
    pub concurrency: usize,
    pub default_depth: u32,
    pub max_links_per_page: usize,
    pub respect_robots: bool,
    pub follow_sitemaps: bool,
    pub robots_cache_secs: u64,
    pub allow_private: bool,
    pub bloom_capacity: usize,
    pub bloom_fp_rate: f64,
    pub strip_params: Vec<String>,
    pub max_retries: u32,
    pub retry_base_ms: u64,
    pub max_retry_after_secs: u64,
    pub block_window: usize,
    pub block_ratio: f64,
    pub error_pause_after: u32,
    pub pause_secs: u64,
    pub max_pause_secs: u64,
    pub proxies: Vec<String>,
    pub proxy_bench_secs: u64,
    pub cookies: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Extract {
    pub extractor: String,
    pub min_text_chars: usize,
    pub max_link_share: f64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Dedup {
    /// Least share of one article's TF-IDF weight on words the other has.
    pub threshold: f64,
    /// Least share of the shorter text's word 4-grams found in the other.
    pub containment: f64,
    pub window_count: usize,
    pub window_age_secs: u64,
    /// Terms kept in each article's vector.
    pub vector_terms: usize,
    /// Shingle hashes kept in each article's sketch.
    pub sketch_size: usize,
    /// Of those, how many (the smallest) are looked up and indexed.
    pub index_keys: usize,
    /// Articles with fewer distinct words (not stop words, not numbers)
    /// are never compared.
    pub min_content_words: usize,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SummaryLength {
    pub name: String,
    #[serde(default)]
    pub sentences: Option<usize>,
    #[serde(default)]
    pub words: Option<usize>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Summarize {
    pub engine: String,
    pub http_url: String,
    pub http_timeout_ms: u64,
    pub http_retries: u32,
    pub lengths: Vec<SummaryLength>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Index {
    pub writer_heap_bytes: usize,
    /// In `gleaner run`: commit at most this often.
    pub commit_interval_ms: u64,
    pub snippet_chars: usize,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Serve {
    pub listen: String,
}

impl Config {
    /// The compiled-in default (the repository's `pipelines.toml`).
    pub fn default_config() -> Self {
        Self::from_toml(DEFAULT_TOML).expect("the bundled pipelines.toml parses")
    }

    /// Parses a full configuration; every section must be present, so a
    /// misspelt key is an error rather than a silently ignored option.
    pub fn from_toml(text: &str) -> anyhow::Result<Self> {
        let cfg: Config = toml::from_str(text)?;
        cfg.validate()?;
        Ok(cfg)
    }

    /// Reads `path`, or the default when `path` is `None`.
    pub fn load(path: Option<&Path>) -> anyhow::Result<Self> {
        match path {
            None => Ok(Self::default_config()),
            Some(p) => {
                let text = std::fs::read_to_string(p)
                    .with_context(|| format!("reading config {}", p.display()))?;
                Self::from_toml(&text).with_context(|| format!("parsing config {}", p.display()))
            }
        }
    }

    /// Checks values the types alone do not (also after command-line overrides).
    pub fn validate(&self) -> anyhow::Result<()> {
        anyhow::ensure!(
            (0.0..=1.0).contains(&self.dedup.threshold),
            "dedup.threshold must be within 0..=1"
        );
        anyhow::ensure!(
            self.fetch.bloom_fp_rate > 0.0 && self.fetch.bloom_fp_rate < 1.0,
            "fetch.bloom_fp_rate must be within (0, 1)"
        );
        anyhow::ensure!(
            self.run.channel_capacity > 0,
            "run.channel_capacity must be > 0"
        );
        anyhow::ensure!(self.kafka.batch_max > 0, "kafka.batch_max must be > 0");
        anyhow::ensure!(
            !self.kafka.instance.is_empty()
                && self
                    .kafka
                    .instance
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c)),
            "kafka.instance must be a non-empty name of letters, digits, '-', '_' or '.' (got {:?})",
            self.kafka.instance
        );
        anyhow::ensure!(
            matches!(self.summarize.engine.as_str(), "extractive" | "http"),
            "summarize.engine must be \"extractive\" or \"http\""
        );
        for l in &self.summarize.lengths {
            anyhow::ensure!(
                l.sentences.is_some() != l.words.is_some(),
                "summary length {:?} needs exactly one of sentences or words",
                l.name
            );
        }
        Ok(())
    }

    /// The broker's name for a topic: from `[topics]` for the built-in
    /// ones, `gleaner.<name>` for a topic a added stage writes.
    pub fn topic_name(&self, t: Topic) -> String {
        let n = &self.topics;
        match t {
            Topic::SEEDS => n.seeds.clone(),
            Topic::FRONTIER => n.frontier.clone(),
            Topic::PAGES => n.pages.clone(),
            Topic::CLEANED => n.cleaned.clone(),
            Topic::ARTICLES => n.articles.clone(),
            Topic::UNIQUE => n.unique.clone(),
            Topic::DUPLICATES => n.duplicates.clone(),
            Topic::SUMMARIZED => n.summarized.clone(),
            Topic::RULES => n.rules.clone(),
            Topic::DEAD_LETTER => n.dead_letter.clone(),
            Topic::STATUS => n.status.clone(),
            other => format!("gleaner.{}", other.short()),
        }
    }
}

/// A topic of the flow, by its short name (`pages`, `dead-letter`); the
/// broker's name comes from the configuration ([`Config::topic_name`]).
/// A stage added to the pipeline names its own output topic with
/// [`Topic::named`], so adding a stage needs no change here.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Topic(&'static str);

impl Topic {
    pub const SEEDS: Topic = Topic("seeds");
    pub const FRONTIER: Topic = Topic("frontier");
    pub const PAGES: Topic = Topic("pages");
    pub const CLEANED: Topic = Topic("cleaned");
    pub const ARTICLES: Topic = Topic("articles");
    pub const UNIQUE: Topic = Topic("unique");
    pub const DUPLICATES: Topic = Topic("duplicates");
    pub const SUMMARIZED: Topic = Topic("summarized");
    pub const RULES: Topic = Topic("rules");
    pub const DEAD_LETTER: Topic = Topic("dead-letter");
    pub const STATUS: Topic = Topic("status");

    /// The topics of the built-in stages.
    pub const BUILT_IN: [Topic; 11] = [
        Topic::SEEDS,
        Topic::FRONTIER,
        Topic::PAGES,
        Topic::CLEANED,
        Topic::ARTICLES,
        Topic::UNIQUE,
        Topic::DUPLICATES,
        Topic::SUMMARIZED,
        Topic::RULES,
        Topic::DEAD_LETTER,
        Topic::STATUS,
    ];

    /// The topic with this short name, for a stage that writes its own.
    pub const fn new(short: &'static str) -> Topic {
        Topic(short)
    }

    /// The topic with a short name known only at run time. Names are interned: a program names
    /// a handful of topics, each kept once for its whole life.
    pub fn named(short: &str) -> Topic {
        if let Some(t) = Topic::BUILT_IN.into_iter().find(|t| t.0 == short) {
            return t;
        }
        static NAMES: std::sync::OnceLock<
            std::sync::Mutex<std::collections::HashSet<&'static str>>,
        > = std::sync::OnceLock::new();
        let mut names = crate::sync::Locked::locked(NAMES.get_or_init(Default::default));
        match names.get(short) {
            Some(name) => Topic(name),
            None => {
                let name: &'static str = Box::leak(short.to_string().into_boxed_str());
                names.insert(name);
                Topic(name)
            }
        }
    }

    /// The short name, for progress lines and file names.
    pub fn short(self) -> &'static str {
        self.0
    }
}

impl std::fmt::Display for Topic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bundled_config_parses() {
        let c = Config::default_config();
        assert_eq!(c.topic_name(Topic::PAGES), "gleaner.pages");
        assert_eq!(c.topic_name(Topic::named("counted")), "gleaner.counted");
        assert_eq!(Topic::named("pages"), Topic::PAGES);
        assert_eq!(Topic::named("counted"), Topic::named("counted"));
        assert!(c.fetch.max_body_bytes >= 4 << 20);
    }

    #[test]
    fn unknown_keys_are_rejected() {
        let bad = DEFAULT_TOML.replace("[dedup]", "[dedup]\nthreshhold = 0.5");
        assert!(Config::from_toml(&bad).is_err());
    }
}
