//! The stage registry: every stage describes itself once (its name, the
//! topic it writes for the next stage, what it can read, its config section
//! and how it starts, state rebuild included) in its own crate, and both
//! `gleaner run` and the one-stage-per-process services are built from those
//! descriptions in the order `[pipeline] stages` gives.
//!
//! Topics follow the order: each stage reads the topic of the stage before
//! it (the first reads `seeds`) and writes its own, so moving summarize
//! before dedup, or adding a stage, is a change of that list alone.

use crate::config::{Config, SectionCheck, Topic};
use crate::cpu::CpuPool;
use crate::stage::{Stage, Wired, Wiring};
use async_trait::async_trait;
use std::path::PathBuf;
use std::sync::Arc;

/// A record read back from a topic: its key and its value (`None` for a
/// tombstone).
pub type Record = (Option<String>, Option<Vec<u8>>);

/// What a bus keeps of its topics, for a stage rebuilding its state when it
/// starts. Blocking: call it off the async runtime.
pub trait BusState: Send + Sync {
    /// The last `per_partition` records of every partition of `topic`,
    /// oldest first within a partition; `i64::MAX` reads a compacted topic
    /// whole.
    fn read(&self, topic: Topic, per_partition: i64) -> anyhow::Result<Vec<Record>>;

    /// The values of [`BusState::read`], tombstones left out.
    fn tail(&self, topic: Topic, per_partition: i64) -> anyhow::Result<Vec<Vec<u8>>> {
        Ok(self
            .read(topic, per_partition)?
            .into_iter()
            .filter_map(|(_, v)| v)
            .collect())
    }
}

/// The in-process bus keeps what the run writes to its sink files in the
/// data directory (`DATA/<topic>.jsonl`): a stage rebuilds its state from
/// them as it would from the tail of a topic. A topic with no sink file
/// reads as empty.
#[derive(Debug, Default, Clone)]
pub struct InProcess {
    pub sink_dir: Option<PathBuf>,
}

impl BusState for InProcess {
    fn read(&self, topic: Topic, per_partition: i64) -> anyhow::Result<Vec<Record>> {
        let Some(dir) = &self.sink_dir else {
            return Ok(Vec::new());
        };
        let path = dir.join(format!("{}.jsonl", topic.short()));
        let file = match std::fs::File::open(&path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => {
                return Err(anyhow::Error::new(e).context(format!("reading {}", path.display())))
            }
        };
        // One partition: the file's last lines, oldest first.
        let keep = usize::try_from(per_partition.max(0)).unwrap_or(usize::MAX);
        let mut tail: std::collections::VecDeque<Vec<u8>> = std::collections::VecDeque::new();
        for line in std::io::BufRead::split(std::io::BufReader::new(file), b'\n') {
            let line = line?;
            if line.is_empty() {
                continue;
            }
            if tail.len() == keep {
                tail.pop_front();
            }
            if keep > 0 {
                tail.push_back(line);
            }
        }
        Ok(tail.into_iter().map(|v| (None, Some(v))).collect())
    }
}

/// What a stage is given when it is built.
#[derive(Clone)]
pub struct StageContext {
    pub cfg: Config,
    /// The topic of the stage before it in `[pipeline] stages`.
    pub input: Topic,
    /// What that topic carries, named by the built-in topic of that kind
    /// (`articles`, `summarized`): a stage that passes messages on keeps
    /// the kind of its input.
    pub kind: Topic,
    /// The topic it writes for the next stage (its [`StageSpec::output`]).
    pub output: Option<Topic>,
    /// The data directory (`--data`, else `run.data_dir`): the index lives here.
    pub data: PathBuf,
    /// Where a stage keeps durable state across restarts (fetch's `--state`).
    pub state: Option<PathBuf>,
    /// Fetch private, loopback and link-local addresses.
    pub allow_private: bool,
    /// A long-running process (a service, or `gleaner run --follow`): work
    /// that must wait (a paused host) waits rather than failing.
    pub long_running: bool,
    /// What the bus keeps, for a stage that rebuilds its state at start
    /// (dedup's window from its output's tail, extract's site rules): the
    /// same calls in-process and on Kafka.
    pub bus: Arc<dyn BusState>,
    /// Where the stages that take pages in (clean, extract) run their CPU
    /// work: in `gleaner run`, threads that yield to the later stages
    /// (`run.intake_nice`); elsewhere tokio's blocking threads.
    pub intake: CpuPool,
}

#[async_trait]
pub trait StageSpec: Send + Sync {
    /// The name in `[pipeline] stages`, the subcommand, the consumer group.
    fn name(&self) -> &'static str;

    /// One line for `--help`.
    fn about(&self) -> &'static str;

    /// Its section of pipelines.toml, when it has settings
    /// (`Some(&SectionOf::<MySettings>::NEW)`): the binary checks it when
    /// the config loads; the stage reads it with `ctx.cfg.section()`.
    fn settings(&self) -> Option<&'static dyn SectionCheck> {
        None
    }

    /// The topic it writes for the next stage; `None` ends the flow.
    fn output(&self) -> Option<Topic>;

    /// The kinds of message it reads, named by the built-in topic that
    /// carries them (`articles`); empty: any kind.
    fn reads(&self) -> &'static [Topic];

    /// Why its inputs may give no output (its errors' reasons), for the run
    /// report's labels and hints.
    fn reasons(&self) -> &'static [crate::outcome::Reason] {
        &[]
    }

    /// The metrics it records (its crate's `metrics.rs`), described to the
    /// recorder when the binary starts it.
    fn metrics(&self) -> &'static [crate::metrics::Metric] {
        &[]
    }

    /// Topics it reads besides its place's input (fetch: its own frontier;
    /// extract: the rules).
    fn side_inputs(&self) -> &'static [Topic] {
        &[]
    }

    /// Topics it writes besides its output (fetch: the frontier; dedup:
    /// duplicates), dead-letter and skipped aside.
    fn side_outputs(&self) -> &'static [Topic] {
        &[]
    }

    /// Topics it rebuilds its state from at start, through [`BusState`]:
    /// `gleaner run` keeps them in the data directory so that the next run
    /// goes on where this one stopped.
    fn state_topics(&self) -> &'static [Topic] {
        &[]
    }

    /// Whether its output carries the same kind of message as its input
    /// (a stage that filters, counts or annotates and passes messages on).
    fn passes_through(&self) -> bool {
        false
    }

    /// Whether one instance must see all of its input, as dedup and
    /// stories do (they compare across every host). On Kafka one instance
    /// of such a stage is active and the others wait as standbys, one of
    /// which takes over (and builds its state then) when it stops.
    fn single_active(&self) -> bool {
        false
    }

    /// Side inputs that every instance reads whole, whatever partitions of
    /// its input it owns (the index: the story log, as each index instance
    /// writes a shard of its own and applies every merge to it; extract:
    /// the site rules). On Kafka each instance reads them apart from its
    /// group (`kafka` runner).
    fn every_instance_reads(&self) -> &'static [Topic] {
        &[]
    }

    /// Builds the stage, rebuilding its state first where it has any.
    async fn build(&self, ctx: &StageContext) -> anyhow::Result<Box<dyn Stage>>;
}

/// A stage in its place in the flow.
pub struct Placed<'a> {
    pub spec: &'a dyn StageSpec,
    pub input: Topic,
    pub kind: Topic,
    pub output: Option<Topic>,
}

/// The flow `[pipeline] stages` describes, checked against the registry.
pub struct Flow<'a> {
    pub stages: Vec<Placed<'a>>,
}

impl<'a> Flow<'a> {
    /// Places the stages named in `order`, or says clearly why they cannot
    /// run in that order.
    pub fn new(order: &[String], registry: &[&'a dyn StageSpec]) -> anyhow::Result<Self> {
        anyhow::ensure!(!order.is_empty(), "[pipeline] stages is empty");
        let known: Vec<&str> = registry.iter().map(|s| s.name()).collect();
        let mut stages: Vec<Placed<'a>> = Vec::new();
        // What the current topic carries, named by a built-in topic.
        let (mut input, mut kind) = (Topic::SEEDS, Topic::SEEDS);
        for (i, name) in order.iter().enumerate() {
            let Some(&spec) = registry.iter().find(|s| s.name() == name) else {
                anyhow::bail!(
                    "[pipeline] stages: unknown stage {name:?}{} (known: {})",
                    nearest(name, &known)
                        .map(|n| format!("; did you mean {n:?}?"))
                        .unwrap_or_default(),
                    known.join(", ")
                );
            };
            anyhow::ensure!(
                !stages.iter().any(|p| p.spec.name() == spec.name()),
                "[pipeline] stages: {name:?} appears twice"
            );
            if let Some(last) = stages.last() {
                anyhow::ensure!(
                    last.output.is_some(),
                    "[pipeline] stages: {name:?} cannot follow {:?}, which writes no topic",
                    last.spec.name()
                );
            }
            let reads = spec.reads();
            anyhow::ensure!(
                reads.is_empty() || reads.contains(&kind),
                "[pipeline] stages: {name:?} reads {} but {} gives it {kind}",
                reads
                    .iter()
                    .map(|t| t.short())
                    .collect::<Vec<_>>()
                    .join(" or "),
                if i == 0 {
                    "the start of the flow".to_string()
                } else {
                    format!("{:?}", order[i - 1])
                }
            );
            let output = spec.output();
            if let Some(out) = output {
                anyhow::ensure!(
                    !stages.iter().any(|p| p.output == Some(out)) && out != Topic::SEEDS,
                    "[pipeline] stages: two stages write {out}"
                );
            }
            stages.push(Placed {
                spec,
                input,
                kind,
                output,
            });
            if let (Some(out), false) = (output, spec.passes_through()) {
                kind = out;
            }
            input = output.unwrap_or(input);
        }
        Ok(Flow { stages })
    }

    /// The stages' names, in flow order.
    pub fn names(&self) -> Vec<&'static str> {
        self.stages.iter().map(|p| p.spec.name()).collect()
    }

    /// The placed stage called `name`.
    pub fn get(&self, name: &str) -> Option<&Placed<'a>> {
        self.stages.iter().find(|p| p.spec.name() == name)
    }

    /// The stages `names` names, to run as one service (`chain.rs`), or
    /// why they cannot be: they must follow one another in the flow, none
    /// may be a stage with one active instance (dedup and stories, which
    /// rebuild their state from their own output), and no stage may need a
    /// topic between two of them (the link, which a chain does not write)
    /// beyond the next one reading it.
    pub fn chain(&self, names: &[&str]) -> anyhow::Result<Vec<&Placed<'a>>> {
        let joined = names.join("+");
        let mut placed: Vec<&Placed<'a>> = Vec::with_capacity(names.len());
        for name in names {
            let at = self
                .stages
                .iter()
                .position(|p| p.spec.name() == *name)
                .ok_or_else(|| {
                    anyhow::anyhow!(
                        "{joined}: stage {name:?} is not in [pipeline] stages ({})",
                        self.names().join(", ")
                    )
                })?;
            if let Some(last) = placed.last() {
                anyhow::ensure!(
                    at > 0 && std::ptr::eq(&self.stages[at - 1], *last),
                    "{joined}: {name:?} does not follow {:?} in [pipeline] stages ({}); only stages next to each other run as one",
                    last.spec.name(),
                    self.names().join(", ")
                );
            }
            placed.push(&self.stages[at]);
        }
        anyhow::ensure!(placed.len() >= 2, "{joined}: a chain is two stages or more");
        if let Some(p) = placed.iter().find(|p| p.spec.single_active()) {
            anyhow::bail!(
                "{joined}: {:?} runs alone: one instance of it is active, and it rebuilds its state from its own output",
                p.spec.name()
            );
        }
        for pair in placed.windows(2) {
            let link = pair[0]
                .output
                .expect("a stage that has a next writes a topic");
            for p in &self.stages {
                let needs = p.spec.state_topics().contains(&link)
                    || p.spec.side_inputs().contains(&link)
                    || p.spec.every_instance_reads().contains(&link);
                anyhow::ensure!(
                    !needs,
                    "{joined}: {:?} reads {link} (its state or a side input), which {:?} and {:?} as one would not write",
                    p.spec.name(),
                    pair[0].spec.name(),
                    pair[1].spec.name()
                );
            }
        }
        Ok(placed)
    }

    /// The topic the last stage reads: what ends up in the index.
    pub fn last_input(&self) -> Topic {
        self.stages.last().map_or(Topic::SEEDS, |p| p.input)
    }

    /// Every topic the flow uses, the built-in ones included.
    pub fn topics(&self) -> Vec<Topic> {
        let mut all: Vec<Topic> = Topic::BUILT_IN.to_vec();
        for p in &self.stages {
            all.extend(p.output);
        }
        all.sort();
        all.dedup();
        all
    }
}

impl Placed<'_> {
    /// Builds the stage in its place, wired as its spec says.
    pub async fn build(&self, base: &StageContext) -> anyhow::Result<Wired> {
        let ctx = StageContext {
            input: self.input,
            kind: self.kind,
            output: self.output,
            ..base.clone()
        };
        let stage = self.spec.build(&ctx).await?;
        Ok(Wired {
            wiring: self.wiring(),
            stage,
        })
    }

    /// Its name and the topics it reads and writes.
    pub fn wiring(&self) -> Wiring {
        let mut inputs = vec![self.input];
        inputs.extend(self.spec.side_inputs().iter().filter(|t| **t != self.input));
        let mut outputs: Vec<Topic> = self.output.into_iter().collect();
        outputs.extend(self.spec.side_outputs());
        Wiring {
            name: self.spec.name(),
            inputs,
            outputs,
            every_instance: self.spec.every_instance_reads().to_vec(),
            chained: Vec::new(),
        }
    }
}

/// The known name closest to a misspelt one (edit distance at most 2).
pub fn nearest<'n>(name: &str, known: &[&'n str]) -> Option<&'n str> {
    known
        .iter()
        .map(|k| (strsim::levenshtein(name, k), *k))
        .filter(|(d, _)| *d <= 2)
        .min()
        .map(|(_, k)| k)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stage::{Handled, Input};

    /// Name, output, what it reads, passes through, single active, state.
    struct Spec(
        &'static str,
        Option<Topic>,
        &'static [Topic],
        bool,
        bool,
        &'static [Topic],
    );
    struct Nothing;

    #[async_trait]
    impl Stage for Nothing {
        async fn handle(&mut self, _: &Input) -> Handled {
            Ok(vec![])
        }
    }

    #[async_trait]
    impl StageSpec for Spec {
        fn name(&self) -> &'static str {
            self.0
        }
        fn about(&self) -> &'static str {
            ""
        }
        fn output(&self) -> Option<Topic> {
            self.1
        }
        fn reads(&self) -> &'static [Topic] {
            self.2
        }
        fn passes_through(&self) -> bool {
            self.3
        }
        fn single_active(&self) -> bool {
            self.4
        }
        fn state_topics(&self) -> &'static [Topic] {
            self.5
        }
        async fn build(&self, _: &StageContext) -> anyhow::Result<Box<dyn Stage>> {
            Ok(Box::new(Nothing))
        }
    }

    const FETCH: Spec = Spec(
        "fetch",
        Some(Topic::PAGES),
        &[Topic::SEEDS],
        false,
        false,
        &[],
    );
    const CLEAN: Spec = Spec(
        "clean",
        Some(Topic::CLEANED),
        &[Topic::PAGES],
        false,
        false,
        &[],
    );
    const COUNT: Spec = Spec("count", Some(Topic::new("counted")), &[], true, false, &[]);
    const INDEX: Spec = Spec(
        "index",
        None,
        &[Topic::PAGES, Topic::CLEANED],
        false,
        false,
        &[],
    );

    fn flow(order: &[&str]) -> anyhow::Result<Vec<(String, Topic, Option<Topic>)>> {
        let registry: [&dyn StageSpec; 4] = [&FETCH, &CLEAN, &COUNT, &INDEX];
        let order: Vec<String> = order.iter().map(|s| s.to_string()).collect();
        Ok(Flow::new(&order, &registry)?
            .stages
            .iter()
            .map(|p| (p.spec.name().to_string(), p.input, p.output))
            .collect())
    }

    #[test]
    fn topics_follow_the_order() {
        let f = flow(&["fetch", "clean", "count", "index"]).unwrap();
        assert_eq!(f[1].1, Topic::PAGES);
        assert_eq!(f[2].1, Topic::CLEANED);
        assert_eq!(
            f[3].1,
            Topic::new("counted"),
            "index reads what count passes on"
        );
        assert_eq!(f[3].2, None);
    }

    #[test]
    fn bad_orders_are_refused_with_a_reason() {
        let err = |o: &[&str]| flow(o).err().unwrap().to_string();
        assert!(err(&["fetch", "claen"]).contains("did you mean \"clean\""));
        assert!(err(&["fetch", "fetch"]).contains("twice"));
        assert!(err(&["fetch", "index", "clean"]).contains("writes no topic"));
        assert!(err(&["clean"]).contains("reads pages but the start of the flow gives it seeds"));
        assert!(err(&[]).contains("empty"));
        // A pass-through stage keeps what the topic carries.
        assert!(flow(&["fetch", "count", "clean"]).is_ok());
    }

    /// A stage with one active instance, and one that keeps its state in
    /// a topic.
    const DEDUP: Spec = Spec("dedup", Some(Topic::UNIQUE), &[], false, true, &[]);
    const KEEPER: Spec = Spec(
        "keeper",
        Some(Topic::new("kept")),
        &[],
        false,
        false,
        &[Topic::CLEANED],
    );

    #[test]
    fn a_chain_is_stages_next_to_each_other_that_need_no_topic_between_them() {
        let registry: [&dyn StageSpec; 6] = [&FETCH, &CLEAN, &COUNT, &INDEX, &DEDUP, &KEEPER];
        let flow = |order: &[&str]| {
            let order: Vec<String> = order.iter().map(|s| s.to_string()).collect();
            Flow::new(&order, &registry).unwrap()
        };
        let four = flow(&["fetch", "clean", "count", "index"]);
        let chained: Vec<&str> = four
            .chain(&["fetch", "clean", "count"])
            .unwrap()
            .iter()
            .map(|p| p.spec.name())
            .collect();
        assert_eq!(chained, ["fetch", "clean", "count"]);
        let err = |f: &Flow, names: &[&str]| f.chain(names).err().unwrap().to_string();
        assert!(err(&four, &["fetch", "count"]).contains("does not follow \"fetch\""));
        assert!(err(&four, &["clean", "fetch"]).contains("does not follow"));
        assert!(err(&four, &["clean"]).contains("two stages or more"));
        assert!(err(&four, &["fetch", "claen"]).contains("not in [pipeline] stages"));
        let alone = flow(&["fetch", "clean", "dedup"]);
        assert!(err(&alone, &["clean", "dedup"]).contains("\"dedup\" runs alone"));
        let keeping = flow(&["fetch", "clean", "count", "keeper"]);
        assert!(
            err(&keeping, &["clean", "count"]).contains("\"keeper\" reads cleaned"),
            "{}",
            err(&keeping, &["clean", "count"])
        );
        assert!(keeping.chain(&["fetch", "clean"]).is_ok());
    }
}
