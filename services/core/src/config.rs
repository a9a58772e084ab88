//! The configuration, read from `pipelines.toml`. Core reads the sections
//! that are its own (`[pipeline]`, `[topics]`, `[kafka]`, `[run]`); every
//! other section belongs to a stage or a command, which reads it with
//! [`Config::section`] into a type of its own crate ([`Section`]). A section
//! or key left out takes its default; an unknown key is an error, and so is
//! a section no stage or command claims ([`Config::check_sections`]).

use anyhow::Context;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The settings of one section of pipelines.toml, owned by the crate that
/// reads them. `#[serde(default, deny_unknown_fields)]` on the type keeps a
/// left-out key at its default and refuses a misspelt one.
pub trait Section: Serialize + DeserializeOwned + Default {
    /// The section's name: `[fetch]` is "fetch".
    const NAME: &'static str;

    /// Checks what the types alone do not (a share within 0..=1, ...).
    fn validate(&self) -> anyhow::Result<()> {
        Ok(())
    }
}

/// Refuses a setting below its least sensible value (`("fetch.concurrency",
/// value, 1)`): a zero where a count, a size or a time must be there would
/// not fail, it would quietly do nothing (no request ever sent, every page
/// cut to nothing, no repost ever found).
pub fn ensure_at_least(settings: &[(&str, i64, i64)]) -> anyhow::Result<()> {
    for &(name, value, least) in settings {
        anyhow::ensure!(
            value >= least,
            "{name} must be at least {least} (got {value})"
        );
    }
    Ok(())
}

/// A [`Section`] type as a value, for a registry to check a config against
/// every section it knows: `&SectionOf::<FetchSettings>::NEW`.
pub struct SectionOf<S>(std::marker::PhantomData<fn() -> S>);

impl<S> SectionOf<S> {
    pub const NEW: Self = SectionOf(std::marker::PhantomData);
}

/// What a registry needs of a section without knowing its type.
pub trait SectionCheck: Send + Sync {
    fn name(&self) -> &'static str;
    /// The section as `cfg` sets it, defaults filled in, or why it is wrong.
    fn effective(&self, cfg: &Config) -> anyhow::Result<toml::Value>;
}

impl<S: Section> SectionCheck for SectionOf<S> {
    fn name(&self) -> &'static str {
        S::NAME
    }
    fn effective(&self, cfg: &Config) -> anyhow::Result<toml::Value> {
        let s: S = cfg.section()?;
        Ok(toml::Value::try_from(s)?)
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct Config {
    pub pipeline: Pipeline,
    pub topics: Topics,
    pub kafka: Kafka,
    pub run: Run,
    /// Every other section as written, read by its owner with
    /// [`Config::section`].
    #[serde(flatten)]
    pub sections: toml::Table,
}

/// The sections core reads itself.
const CORE_SECTIONS: [&str; 4] = ["pipeline", "topics", "kafka", "run"];

#[derive(Debug, Clone, Serialize, Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
pub struct Pipeline {
    /// The stages in flow order, by name (see `gleaner_core::registry`);
    /// left out: every stage the binary knows, in the order it lists them.
    pub stages: Option<Vec<String>>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
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
    pub skipped: String,
    pub status: String,
    pub story_log: String,
    pub summary_cache: String,
}

impl Default for Topics {
    fn default() -> Self {
        let name = |t: &str| format!("gleaner.{t}");
        Topics {
            seeds: name("seeds"),
            frontier: name("frontier"),
            pages: name("pages"),
            cleaned: name("cleaned"),
            articles: name("articles"),
            unique: name("unique"),
            duplicates: name("duplicates"),
            summarized: name("summarized"),
            rules: name("rules"),
            dead_letter: name("dead-letter"),
            skipped: name("skipped"),
            status: name("status"),
            story_log: name("story-log"),
            summary_cache: name("summary-cache"),
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Kafka {
    pub brokers: String,
    pub group_prefix: String,
    pub compression: String,
    pub max_record_bytes: usize,
    pub batch_max: usize,
    /// Batches whose outputs may be unacknowledged while the next is handled.
    pub batches_in_flight: usize,
    /// How long the producer gathers records into one request.
    pub linger_ms: u64,
    pub partitions: i32,
    pub replication: i32,
    /// This instance's name in its stage's group (static membership);
    /// empty: the machine's host name.
    pub instance: String,
    pub session_timeout_ms: u64,
    /// Exit after this long without partitions while the input waits (0: never).
    pub unassigned_exit_ms: u64,
    /// Records per partition of the output topics the replay guard reads back.
    pub replay_check_records: usize,
    /// Longest a consumer's fetch waits at the broker for records to arrive.
    pub fetch_wait_ms: u64,
    /// librdkafka's idempotent producer (no duplicate from its own retries).
    pub idempotence: bool,
    /// Pages' HTML written compressed (zstd, base64) as `html_zstd`.
    pub compress_pages: bool,
}

/// Whether `name` can name an instance in its group (and in
/// `group.instance.id`): letters, digits, '-', '_' and '.'.
pub fn is_instance_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
}

/// The values pipelines.toml documents (a test in the binary checks that
/// the file and these agree).
impl Default for Kafka {
    fn default() -> Self {
        Kafka {
            brokers: "127.0.0.1:9092".into(),
            group_prefix: "gleaner".into(),
            compression: "none".into(),
            max_record_bytes: 5_000_000,
            batch_max: 64,
            batches_in_flight: 4,
            linger_ms: 5,
            partitions: 4,
            replication: 1,
            instance: String::new(),
            session_timeout_ms: 45_000,
            unassigned_exit_ms: 60_000,
            replay_check_records: 256,
            fetch_wait_ms: 100,
            idempotence: false,
            compress_pages: true,
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Run {
    pub data_dir: String,
    pub channel_capacity: usize,
    /// Workers of each stage that can have several; 0: one per core.
    pub workers: usize,
    /// Steps of niceness below the rest of the process at which clean and
    /// extract run (0: none), so that the stages after them go first.
    pub intake_nice: i32,
    pub progress_interval_ms: u64,
}

impl Run {
    /// Workers of each map stage: `workers`, or one per core when 0.
    pub fn worker_count(&self) -> usize {
        match self.workers {
            0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
            n => n,
        }
    }
}

impl Default for Run {
    fn default() -> Self {
        Run {
            data_dir: "gleaner-data".into(),
            channel_capacity: 16,
            workers: 0,
            intake_nice: 5,
            progress_interval_ms: 1000,
        }
    }
}

impl Config {
    /// Every default: what a run with no `--config` uses.
    pub fn default_config() -> Self {
        Self::default()
    }

    /// Parses a configuration. Core's sections are read and checked here;
    /// the others are kept for their owners ([`Config::section`]).
    pub fn from_toml(text: &str) -> anyhow::Result<Self> {
        let cfg: Config = toml::from_str(text)?;
        cfg.validate()?;
        Ok(cfg)
    }

    /// Reads `path`, or the defaults when `path` is `None`.
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

    /// The section `S` owns, defaults filled in, checked.
    pub fn section<S: Section>(&self) -> anyhow::Result<S> {
        let s: S = match self.sections.get(S::NAME) {
            None => S::default(),
            Some(v) => v
                .clone()
                .try_into()
                .map_err(|e| anyhow::anyhow!("[{}]: {e}", S::NAME))?,
        };
        s.validate().with_context(|| format!("[{}]", S::NAME))?;
        Ok(s)
    }

    /// Replaces the section `S` owns (a command-line flag overriding it).
    pub fn set_section<S: Section>(&mut self, s: &S) -> anyhow::Result<()> {
        self.sections
            .insert(S::NAME.to_string(), toml::Value::try_from(s)?);
        Ok(())
    }

    /// Checks every section `known` owns, and refuses one nobody owns (a
    /// misspelt `[fecth]` would otherwise be silently ignored).
    pub fn check_sections(&self, known: &[&dyn SectionCheck]) -> anyhow::Result<()> {
        for name in self.sections.keys() {
            anyhow::ensure!(
                known.iter().any(|k| k.name() == name),
                "unknown section [{name}] (known: {})",
                CORE_SECTIONS
                    .iter()
                    .copied()
                    .chain(known.iter().map(|k| k.name()))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
        for k in known {
            k.effective(self)?;
        }
        Ok(())
    }

    /// Checks values the types alone do not (also after command-line overrides).
    pub fn validate(&self) -> anyhow::Result<()> {
        anyhow::ensure!(
            self.run.channel_capacity > 0,
            "run.channel_capacity must be > 0"
        );
        anyhow::ensure!(self.kafka.batch_max > 0, "kafka.batch_max must be > 0");
        ensure_at_least(&[
            ("kafka.partitions", i64::from(self.kafka.partitions), 1),
            ("kafka.replication", i64::from(self.kafka.replication), 1),
            (
                "kafka.max_record_bytes",
                self.kafka.max_record_bytes as i64,
                1024,
            ),
            (
                "kafka.session_timeout_ms",
                self.kafka.session_timeout_ms as i64,
                1,
            ),
        ])?;
        anyhow::ensure!(
            self.kafka.batches_in_flight > 0,
            "kafka.batches_in_flight must be > 0"
        );
        anyhow::ensure!(
            self.kafka.instance.is_empty() || is_instance_name(&self.kafka.instance),
            "kafka.instance must be a name of letters, digits, '-', '_' or '.' (got {:?})",
            self.kafka.instance
        );
        Ok(())
    }

    /// The broker's name for a topic: from `[topics]` for the built-in
    /// ones; for a topic an added stage writes, `<name>` after the seeds
    /// topic's prefix (`gleaner.<name>` by default).
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
            Topic::SKIPPED => n.skipped.clone(),
            Topic::STATUS => n.status.clone(),
            Topic::STORY_LOG => n.story_log.clone(),
            Topic::SUMMARY_CACHE => n.summary_cache.clone(),
            // A stage's own topic shares the seeds topic's prefix, so a
            // flow renamed as a whole ("test1.seeds", ...) keeps it apart.
            other => {
                let prefix = n.seeds.strip_suffix("seeds").unwrap_or("gleaner.");
                format!("{prefix}{}", other.short())
            }
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
    pub const SKIPPED: Topic = Topic("skipped");
    pub const STATUS: Topic = Topic("status");
    /// Stories created and merged (the stories stage writes it; the index
    /// reads it, so a merged story's reports take the surviving id).
    pub const STORY_LOG: Topic = Topic("story-log");
    /// Summaries a remote engine made, by a key of what was asked
    /// (compacted): read back whole when summarize starts.
    pub const SUMMARY_CACHE: Topic = Topic("summary-cache");

    /// The topics of the built-in stages.
    pub const BUILT_IN: [Topic; 14] = [
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
        Topic::SKIPPED,
        Topic::STATUS,
        Topic::STORY_LOG,
        Topic::SUMMARY_CACHE,
    ];

    /// Topics that keep only the latest record per key.
    pub const COMPACTED: [Topic; 2] = [Topic::RULES, Topic::SUMMARY_CACHE];

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

    #[derive(Debug, Serialize, Deserialize, PartialEq)]
    #[serde(default, deny_unknown_fields)]
    struct Knobs {
        share: f64,
        name: String,
    }

    impl Default for Knobs {
        fn default() -> Self {
            Knobs {
                share: 0.5,
                name: "k".into(),
            }
        }
    }

    impl Section for Knobs {
        const NAME: &'static str = "knobs";
        fn validate(&self) -> anyhow::Result<()> {
            anyhow::ensure!(
                (0.0..=1.0).contains(&self.share),
                "share must be within 0..=1"
            );
            Ok(())
        }
    }

    #[test]
    fn defaults_and_topic_names() {
        let c = Config::default_config();
        assert_eq!(c.topic_name(Topic::PAGES), "gleaner.pages");
        assert_eq!(c.topic_name(Topic::DEAD_LETTER), "gleaner.dead-letter");
        assert_eq!(c.topic_name(Topic::named("counted")), "gleaner.counted");
        let mut renamed = c.clone();
        renamed.topics.seeds = "test7.seeds".into();
        assert_eq!(renamed.topic_name(Topic::named("counted")), "test7.counted");
        assert_eq!(Topic::named("pages"), Topic::PAGES);
        assert_eq!(Topic::named("counted"), Topic::named("counted"));
        assert_eq!(c.kafka.batch_max, 64);
    }

    #[test]
    fn a_section_left_out_or_partly_written_takes_its_defaults() {
        let c = Config::from_toml("[kafka]\nbatch_max = 8\n[knobs]\nname = \"x\"\n").unwrap();
        assert_eq!(c.kafka.batch_max, 8);
        assert_eq!(c.kafka.partitions, 4, "the rest of [kafka] defaulted");
        assert_eq!(c.run.channel_capacity, 16, "[run] defaulted");
        let k: Knobs = c.section().unwrap();
        assert_eq!((k.share, k.name.as_str()), (0.5, "x"));
        let none: Knobs = Config::default_config().section().unwrap();
        assert_eq!(none, Knobs::default());
    }

    #[test]
    fn unknown_keys_and_sections_and_bad_values_are_rejected() {
        assert!(Config::from_toml("[kafka]\nbatch_mx = 8\n").is_err());
        // A zero that would quietly do nothing is named with its least value.
        let e = format!(
            "{:#}",
            Config::from_toml("[kafka]\npartitions = 0\n").unwrap_err()
        );
        assert!(
            e.contains("kafka.partitions must be at least 1 (got 0)"),
            "{e}"
        );
        let c = Config::from_toml("[knobs]\nshaer = 0.5\n").unwrap();
        let e = c.section::<Knobs>().unwrap_err().to_string();
        assert!(e.contains("[knobs]") && e.contains("shaer"), "{e}");
        let known: [&dyn SectionCheck; 1] = [&SectionOf::<Knobs>::NEW];
        assert!(c.check_sections(&known).is_err());
        let c = Config::from_toml("[knobs]\nshare = 2.0\n").unwrap();
        let e = format!("{:#}", c.check_sections(&known).unwrap_err());
        assert!(e.contains("share must be within"), "{e}");
        let c = Config::from_toml("[knbos]\nshare = 0.2\n").unwrap();
        let e = c.check_sections(&known).unwrap_err().to_string();
        assert!(
            e.contains("unknown section [knbos]") && e.contains("knobs"),
            "{e}"
        );
    }

    #[test]
    fn a_section_set_in_code_is_read_back() {
        let mut c = Config::default_config();
        c.set_section(&Knobs {
            share: 0.25,
            name: "y".into(),
        })
        .unwrap();
        assert_eq!(c.section::<Knobs>().unwrap().share, 0.25);
    }
}
