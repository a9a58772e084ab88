//! A stage turns input messages into output messages. It is written once and
//! knows nothing of the bus that carries them (Kafka or in-process).

use crate::config::Topic;
use crate::messages::DeadLetter;
use crate::payload::Payload;
use crate::util;
use async_trait::async_trait;
use serde::Serialize;

/// The next offset to read per (topic, partition) of a stage's input.
pub type InputPositions = std::collections::BTreeMap<(String, i32), i64>;

/// Where an input came from on the broker (absent in-process).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    pub topic: String,
    pub partition: i32,
    pub offset: i64,
}

/// One input message.
#[derive(Debug, Clone)]
pub struct Input {
    pub topic: Topic,
    pub key: Option<String>,
    /// `None` is a tombstone (a null value, as on the compacted rules topic).
    pub payload: Option<Payload>,
    pub origin: Option<Origin>,
}

impl Input {
    /// The payload as `T` (see [`Payload::decode`]); a tombstone or bad
    /// JSON is an error that the runner sends to the dead-letter topic.
    pub fn decode<T: serde::de::DeserializeOwned + Clone + 'static>(&self) -> anyhow::Result<T> {
        self.payload
            .as_ref()
            .ok_or_else(|| anyhow::anyhow!("empty (null) payload"))?
            .decode()
    }

    /// The payload as a shared `T` (see [`Payload::decode_shared`]): for a
    /// stage that reads a large message without changing it.
    pub fn decode_shared<T: serde::de::DeserializeOwned + Send + Sync + 'static>(
        &self,
    ) -> anyhow::Result<std::sync::Arc<T>> {
        self.payload
            .as_ref()
            .ok_or_else(|| anyhow::anyhow!("empty (null) payload"))?
            .decode_shared()
    }

    /// The dead-letter record for this input.
    pub fn dead_letter(&self, stage: &str, error: &str) -> DeadLetter {
        let bytes = self.payload.as_ref().map(Payload::bytes);
        let payload: &[u8] = bytes.as_deref().unwrap_or_default();
        DeadLetter {
            stage: stage.to_string(),
            topic: self.origin.as_ref().map(|o| o.topic.clone()),
            partition: self.origin.as_ref().map(|o| o.partition),
            offset: self.origin.as_ref().map(|o| o.offset),
            key: self.key.clone(),
            error: error.to_string(),
            reason: None,
            payload_excerpt: util::excerpt(payload, 1024),
            payload_bytes: payload.len() as u64,
            at: util::now_rfc3339(),
        }
    }
}

/// One output message.
#[derive(Debug, Clone)]
pub struct Output {
    pub topic: Topic,
    pub key: String,
    pub payload: Payload,
    /// The stage of a chained service that made this output, when it is
    /// not the service's first (`chain.rs`): counted under that stage
    /// already, and a record too large for the broker is a dead letter
    /// named after it. `None`: the stage the runner settles.
    pub made_by: Option<&'static str>,
}

impl Output {
    /// The same output with its payload as bytes, for the wire.
    pub fn into_wire(mut self) -> Self {
        self.payload = self.payload.into_wire();
        self
    }

    /// A message that hands `msg` itself to the next stage in-process.
    pub fn new<T: Serialize + Send + Sync + 'static>(
        topic: Topic,
        key: impl Into<String>,
        msg: T,
    ) -> Self {
        Output {
            topic,
            key: key.into(),
            payload: Payload::typed(msg),
            made_by: None,
        }
    }

    /// [`Output::new`] with a copy of `msg`.
    pub fn of<T: Serialize + Clone + Send + Sync + 'static>(
        topic: Topic,
        key: impl Into<String>,
        msg: &T,
    ) -> Self {
        Output::new(topic, key, msg.clone())
    }

    pub fn dead_letter(stage: &str, dl: DeadLetter) -> Self {
        Output::new(Topic::DEAD_LETTER, stage, dl)
    }

    /// The message as `T` (for tests and sinks).
    pub fn decode<T: serde::de::DeserializeOwned + Clone + 'static>(&self) -> anyhow::Result<T> {
        self.payload.decode()
    }
}

/// The result of handling one input: what it produced, or why it failed.
pub type Handled = anyhow::Result<Vec<Output>>;

/// Where a stage sits: its name (the consumer group suffix and the
/// dead-letter key) and the topics it reads and writes (besides
/// dead-letter and skipped), as its spec and its place in the flow say.
#[derive(Debug, Clone)]
pub struct Wiring {
    pub name: &'static str,
    pub inputs: Vec<Topic>,
    pub outputs: Vec<Topic>,
    /// Those of `inputs` every instance reads whole
    /// (`StageSpec::every_instance_reads`).
    pub every_instance: Vec<Topic>,
    /// The stages that run after it in the same process, in order (a
    /// chain, `chain.rs`): `gleaner status` shows them as running there.
    pub chained: Vec<&'static str>,
}

/// A built stage in its place, for a bus to run.
pub struct Wired {
    pub wiring: Wiring,
    pub stage: Box<dyn Stage>,
}

/// The task shape of stage: one worker (unless it forks) with the hooks of
/// a stage that holds work over time (fetch, dedup, index). A stage whose
/// inputs are independent is a [`crate::map::MapStage`] instead, which
/// [`crate::map::Mapped`] runs as this.
#[async_trait]
pub trait Stage: Send + 'static {
    /// Handles one input.
    async fn handle(&mut self, input: &Input) -> Handled;

    /// Handles a batch of inputs that were waiting together, one result per
    /// input, in order. Stages that gain from batching (concurrent fetches,
    /// one index commit per batch) override this.
    async fn handle_batch(&mut self, inputs: &[Input]) -> Vec<Handled> {
        let mut out = Vec::with_capacity(inputs.len());
        for input in inputs {
            out.push(self.handle(input).await);
        }
        out
    }

    /// Work that comes due with time rather than with input (scheduled
    /// recrawls, fetches that finished in the background). Both runners call
    /// it a few times a second and produce what it returns before the next
    /// call; the outputs must be safe to produce twice.
    async fn tick(&mut self) -> Vec<Output> {
        Vec::new()
    }

    /// Resolves when [`Stage::tick`] has something to return before its next
    /// scheduled call (fetch: a page finished in the background), so the
    /// runners tick at once rather than up to a tick later. Pending by
    /// default.
    async fn ready(&mut self) {
        std::future::pending::<()>().await
    }

    /// In-process only: nothing in the run is queued, handled or held but
    /// what this stage holds, so nothing more is coming until new input
    /// arrives. A stage that holds work to gather it with more (the index,
    /// whose commits gather batches) lets go of it now instead of at its
    /// next tick: at the end of a crawl that wait was the last half second.
    async fn idle(&mut self) -> Vec<Output> {
        Vec::new()
    }

    /// Called once the outputs of the last batch, [`Stage::tick`] or
    /// [`Stage::drain`] have been produced (acknowledged, on Kafka): state
    /// kept until then can be let go or made durable (fetch records its
    /// fetched URLs and lets go of their parked entries).
    async fn produced(&mut self) {}

    /// Of `acked` (the next offset per input topic and partition whose
    /// inputs' outputs the broker acknowledged), how far this stage's own
    /// state also holds them: the Kafka runner commits offsets no further,
    /// so that a restart resumes where that state ends. A stage that makes
    /// its inputs durable itself at its own pace answers less (the index:
    /// up to its last commit, which it makes every `index.commit_interval_ms`);
    /// by default everything acknowledged.
    fn committable(&self, acked: &InputPositions) -> InputPositions {
        acked.clone()
    }

    /// Called by the Kafka runner when it stops, before [`Stage::close`]:
    /// answers for what the stage holds, finished or handed back (for
    /// example to the frontier), since the inputs' offsets are committed.
    async fn drain(&mut self) -> Vec<Output> {
        self.tick().await
    }

    /// Whether the Kafka runner's replay guard should drop an output
    /// identical to one recently on its topic (see `kafka::ReplayGuard`):
    /// right for a stage whose outputs depend only on its input. A stage
    /// that recognises replays itself (fetch's seen set, dedup's ids, the
    /// index's upserts) says no.
    fn replay_guard(&self) -> bool {
        true
    }

    /// Another worker of this stage sharing its state, for a stage whose
    /// inputs can be handled at once and in any order (clean, extract,
    /// summarize): `gleaner run` then gives it a worker per core. `None`
    /// (the default): one worker, inputs in order, as dedup and index need.
    fn fork(&self) -> Option<Box<dyn Stage>> {
        None
    }

    /// Inputs taken in but not answered yet (work the stage finishes in
    /// later ticks). The in-process run is not over while any are held.
    fn held(&self) -> usize {
        0
    }

    /// The stage that answers `input`, when it is not the service's own:
    /// a side input of a later stage of a chain (the index's duplicates in
    /// `summarize+index`). The runner counts it and names its failures
    /// under that stage.
    fn answered_by(&self, _input: &Input) -> Option<&'static str> {
        None
    }

    /// Called when the runner stops: make state durable.
    async fn close(&mut self) -> anyhow::Result<()> {
        Ok(())
    }
}

/// [`Stage::handle`] for a stage that works in batches (fetch, dedup,
/// index): the input as a batch of one.
pub async fn handle_as_batch<S: Stage + ?Sized>(stage: &mut S, input: &Input) -> Handled {
    stage
        .handle_batch(std::slice::from_ref(input))
        .await
        .pop()
        .unwrap_or(Ok(vec![]))
}

/// Turns outputs into their wire form (JSON) and replaces those over
/// `max_bytes` with a dead-letter record naming their size, so no record is
/// produced that a broker could accept but a consumer could not read back
/// (or that a topic's max.message.bytes would refuse). The in-process bus
/// has no broker and skips this.
pub fn enforce_record_limit(
    stage: &str,
    input: &Input,
    outs: Vec<Output>,
    max_bytes: usize,
) -> Vec<Output> {
    outs.into_iter()
        .map(|mut o| {
            o.payload = o.payload.into_wire();
            let len = o.payload.wire_len();
            if len <= max_bytes || o.topic == Topic::DEAD_LETTER || o.topic == Topic::SKIPPED {
                o
            } else {
                let stage = o.made_by.unwrap_or(stage);
                let mut dl = input.dead_letter(
                    stage,
                    &format!(
                        "record for {} too large: {} bytes > max_record_bytes {}",
                        o.topic.short(),
                        len,
                        max_bytes
                    ),
                );
                // Keep the excerpt from the oversized record itself: that is
                // what an operator needs to see.
                dl.payload_excerpt = util::excerpt(&o.payload.bytes(), 1024);
                dl.payload_bytes = len as u64;
                let mut answer = Output::dead_letter(stage, dl).into_wire();
                answer.made_by = o.made_by;
                answer
            }
        })
        .collect()
}

/// [`enforce_record_limit`] for outputs that answer no single input
/// ([`Stage::tick`], [`Stage::drain`]): a background page too large for the
/// broker must become a dead letter too, not a produce that never succeeds.
pub fn limit_unsourced(stage: &str, outs: Vec<Output>, max_bytes: Option<usize>) -> Vec<Output> {
    let Some(max_bytes) = max_bytes else {
        return outs;
    };
    let none = Input {
        topic: Topic::DEAD_LETTER,
        key: None,
        payload: None,
        origin: None,
    };
    enforce_record_limit(stage, &none, outs, max_bytes)
}

/// The record that answers `input` when handling it failed with `e`: a
/// dead letter, or a skip record for a reason that is a skip. Counted by
/// stage and reason.
pub fn answer_error(stage: &str, input: &Input, e: &anyhow::Error) -> Output {
    let reason = crate::outcome::reason_of(e);
    let code = reason.map_or("other", |r| r.code);
    let mut record = input.dead_letter(stage, &format!("{e:#}"));
    record.reason = reason.map(|r| r.code.to_string());
    if reason.is_some_and(|r| r.skip) {
        crate::metrics::inc(
            "gleaner_stage_skipped_total",
            &[("stage", stage), ("reason", code)],
        );
        Output::new(Topic::SKIPPED, stage, record)
    } else {
        tracing::warn!(stage, error = %format!("{e:#}"), "input sent to dead-letter");
        crate::metrics::inc(
            "gleaner_stage_failed_total",
            &[("stage", stage), ("reason", code)],
        );
        Output::dead_letter(stage, record)
    }
}

/// Turns a batch result into the outputs to produce: errors become
/// dead-letter or skip records ([`crate::outcome`]); with a record limit (Kafka), outputs go to their
/// wire form and oversized ones become dead letters too.
pub fn settle(
    stage: &str,
    input: &Input,
    handled: Handled,
    max_bytes: Option<usize>,
) -> Vec<Output> {
    crate::metrics::inc("gleaner_stage_inputs_total", &[("stage", stage)]);
    let outs = match handled {
        Ok(outs) => match max_bytes {
            Some(max) => enforce_record_limit(stage, input, outs, max),
            None => outs,
        },
        Err(e) => vec![answer_error(stage, input, &e)],
    };
    // A chained stage's outputs were counted under it.
    for o in outs.iter().filter(|o| o.made_by.is_none()) {
        crate::metrics::inc(
            "gleaner_stage_outputs_total",
            &[("stage", stage), ("topic", o.topic.short())],
        );
    }
    outs
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input() -> Input {
        Input {
            topic: Topic::PAGES,
            key: Some("h".into()),
            payload: Some(b"{\"id\":1}".to_vec().into()),
            origin: Some(Origin {
                topic: "gleaner.pages".into(),
                partition: 3,
                offset: 42,
            }),
        }
    }

    #[test]
    fn the_wire_limit_turns_oversized_records_into_dead_letters() {
        let outs = vec![
            Output::of(Topic::CLEANED, "h", &"x".repeat(100)),
            Output::of(Topic::CLEANED, "h", &"y".repeat(10)),
        ];
        let settled = settle("clean", &input(), Ok(outs.clone()), Some(50));
        assert_eq!(settled[0].topic, Topic::DEAD_LETTER);
        let dl: DeadLetter = settled[0].decode().unwrap();
        assert!(
            dl.error
                .contains("too large: 102 bytes > max_record_bytes 50"),
            "{}",
            dl.error
        );
        assert!(dl.payload_excerpt.starts_with("\"xxx"));
        assert_eq!((dl.partition, dl.offset), (Some(3), Some(42)));
        assert_eq!(settled[1].topic, Topic::CLEANED);
        assert!(matches!(settled[1].payload, Payload::Bytes(_)), "wire form");
        // In-process: no limit, the values themselves.
        let kept = settle("clean", &input(), Ok(outs.clone()), None);
        assert!(kept.iter().all(|o| matches!(o.payload, Payload::Typed(_))));
        let unsourced = limit_unsourced("fetch", outs, Some(50));
        assert_eq!(unsourced[0].topic, Topic::DEAD_LETTER);
    }

    #[test]
    fn errors_become_dead_letters_with_the_input() {
        let out = settle("clean", &input(), Err(anyhow::anyhow!("bad page")), None);
        let dl: DeadLetter = out[0].decode().unwrap();
        assert_eq!(
            (dl.stage.as_str(), dl.error.as_str()),
            ("clean", "bad page")
        );
        assert_eq!(dl.payload_excerpt, "{\"id\":1}");
    }

    use crate::outcome::{reason_of, Reason};

    const GONE: Reason = Reason::failure("gone", "gone away", "try later");
    const LISTING: Reason = Reason::skip("listing", "a listing page", "by design");

    #[test]
    fn failures_are_dead_letters_and_skips_are_skip_records_with_their_code() {
        let failed = answer_error("s", &input(), &GONE.because("no answer"));
        assert_eq!(failed.topic, Topic::DEAD_LETTER);
        let dl: DeadLetter = failed.decode().unwrap();
        assert_eq!(
            (dl.reason.as_deref(), dl.error.as_str()),
            (Some("gone"), "no answer")
        );
        let skipped = answer_error("s", &input(), &LISTING.because("only links"));
        assert_eq!(skipped.topic, Topic::SKIPPED);
        let rec: DeadLetter = skipped.decode().unwrap();
        assert_eq!(rec.reason.as_deref(), Some("listing"));
        assert_eq!(rec.payload_excerpt, "{\"id\":1}");
        let plain = answer_error("s", &input(), &anyhow::anyhow!("bad"));
        assert_eq!(plain.topic, Topic::DEAD_LETTER);
        assert_eq!(plain.decode::<DeadLetter>().unwrap().reason, None);
        assert_eq!(reason_of(&LISTING.because("x")), Some(LISTING));
    }
}
