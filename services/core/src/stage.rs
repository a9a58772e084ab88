//! A stage turns input messages into output messages. It is written once and
//! knows nothing of the bus that carries them (Kafka or in-process).

use crate::config::Topic;
use crate::messages::DeadLetter;
use crate::util;
use async_trait::async_trait;
use serde::Serialize;

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
    pub payload: Option<Vec<u8>>,
    pub origin: Option<Origin>,
}

impl Input {
    /// Parses the JSON payload; a tombstone or bad JSON is an error that the
    /// runner sends to the dead-letter topic.
    pub fn decode<T: serde::de::DeserializeOwned>(&self) -> anyhow::Result<T> {
        let bytes = self
            .payload
            .as_deref()
            .ok_or_else(|| anyhow::anyhow!("empty (null) payload"))?;
        serde_json::from_slice(bytes).map_err(|e| anyhow::anyhow!("malformed message: {e}"))
    }

    /// The dead-letter record for this input.
    pub fn dead_letter(&self, stage: &str, error: &str) -> DeadLetter {
        let payload = self.payload.as_deref().unwrap_or_default();
        DeadLetter {
            stage: stage.to_string(),
            topic: self.origin.as_ref().map(|o| o.topic.clone()),
            partition: self.origin.as_ref().map(|o| o.partition),
            offset: self.origin.as_ref().map(|o| o.offset),
            key: self.key.clone(),
            error: error.to_string(),
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
    pub payload: Vec<u8>,
}

impl Output {
    pub fn json<T: Serialize>(topic: Topic, key: impl Into<String>, msg: &T) -> Self {
        Output {
            topic,
            key: key.into(),
            // Serialising our own message types cannot fail (no maps with
            // non-string keys, no custom serialisers).
            payload: serde_json::to_vec(msg).expect("message serialises"),
        }
    }

    pub fn dead_letter(stage: &str, dl: &DeadLetter) -> Self {
        Output::json(Topic::DEAD_LETTER, stage, dl)
    }
}

/// The result of handling one input: what it produced, or why it failed.
pub type Handled = anyhow::Result<Vec<Output>>;

#[async_trait]
pub trait Stage: Send + 'static {
    /// A short name: the consumer group suffix and the dead-letter key.
    fn name(&self) -> &'static str;

    /// The topics this stage reads.
    fn inputs(&self) -> Vec<Topic>;

    /// The topics this stage writes (besides the dead-letter topic).
    fn outputs(&self) -> Vec<Topic>;

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

    /// Called by the Kafka runner when it stops, before [`Stage::close`]:
    /// answers for what the stage holds, finished or handed back (for
    /// example to the frontier), since the inputs' offsets are committed.
    async fn drain(&mut self) -> Vec<Output> {
        self.tick().await
    }

    /// Inputs taken in but not answered yet (work the stage finishes in
    /// later ticks). The in-process run is not over while any are held.
    fn held(&self) -> usize {
        0
    }

    /// Called when the runner stops: make state durable.
    async fn close(&mut self) -> anyhow::Result<()> {
        Ok(())
    }
}

/// Replaces outputs over `max_bytes` with a dead-letter record naming their
/// size, so no record is produced that a broker could accept but a consumer
/// could not read back (or that a topic's max.message.bytes would refuse).
pub fn enforce_record_limit(
    stage: &str,
    input: &Input,
    outs: Vec<Output>,
    max_bytes: usize,
) -> Vec<Output> {
    outs.into_iter()
        .map(|o| {
            if o.payload.len() <= max_bytes || o.topic == Topic::DEAD_LETTER {
                o
            } else {
                let mut dl = input.dead_letter(
                    stage,
                    &format!(
                        "record for {} too large: {} bytes > max_record_bytes {}",
                        o.topic.short(),
                        o.payload.len(),
                        max_bytes
                    ),
                );
                // Keep the excerpt from the oversized record itself: that is
                // what an operator needs to see.
                dl.payload_excerpt = util::excerpt(&o.payload, 1024);
                dl.payload_bytes = o.payload.len() as u64;
                Output::dead_letter(stage, &dl)
            }
        })
        .collect()
}

/// [`enforce_record_limit`] for outputs that answer no single input
/// ([`Stage::tick`], [`Stage::drain`]): a background page too large for the
/// broker must become a dead letter too, not a produce that never succeeds.
pub fn limit_unsourced(stage: &str, outs: Vec<Output>, max_bytes: usize) -> Vec<Output> {
    let none = Input {
        topic: Topic::DEAD_LETTER,
        key: None,
        payload: None,
        origin: None,
    };
    enforce_record_limit(stage, &none, outs, max_bytes)
}

/// Turns a batch result into the outputs to produce: errors become
/// dead-letter records, oversized outputs too.
pub fn settle(stage: &str, input: &Input, handled: Handled, max_bytes: usize) -> Vec<Output> {
    crate::metrics::inc("gleaner_stage_inputs_total", &[("stage", stage)]);
    let outs = match handled {
        Ok(outs) => enforce_record_limit(stage, input, outs, max_bytes),
        Err(e) => {
            tracing::warn!(stage, error = %format!("{e:#}"), "input sent to dead-letter");
            vec![Output::dead_letter(
                stage,
                &input.dead_letter(stage, &format!("{e:#}")),
            )]
        }
    };
    for o in &outs {
        crate::metrics::inc(
            "gleaner_stage_outputs_total",
            &[("stage", stage), ("topic", o.topic.short())],
        );
    }
    outs
}
