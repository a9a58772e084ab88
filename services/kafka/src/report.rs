//! Each stage instance on Kafka reports, every few seconds and whenever its
//! partitions change, what it owns and when it last committed, on the
//! status topic (see `StageStatus`): what `gleaner status` shows as each
//! partition's owner and last commit. It sets its lag gauge as it does.

use super::client::{BusContext, GroupState};
use super::producer::Producer;
use gleaner_core::config::{Config, Topic};
use gleaner_core::messages::StageStatus;
use rdkafka::consumer::{Consumer, StreamConsumer};
use rdkafka::error::{KafkaError, RDKafkaErrorCode};
use std::time::{Duration, Instant};

const EVERY: Duration = Duration::from_secs(5);

pub struct Reporter {
    stage: String,
    instance: String,
    topic: String,
    host: String,
    last: Option<Instant>,
    assignments: u64,
    pub last_commit_ms: Option<u64>,
    pub handled: u64,
    /// Since when this instance is its stage's active one (dedup, stories).
    pub active_since_ms: Option<u64>,
    /// The stages chained after it in this process.
    pub chained: Vec<String>,
}

impl Reporter {
    pub fn new(stage: &str, cfg: &Config) -> Self {
        Reporter {
            stage: stage.to_string(),
            instance: cfg.kafka.instance.clone(),
            topic: cfg.topic_name(Topic::STATUS),
            host: crate::namesake::host_name(),
            last: None,
            assignments: 0,
            last_commit_ms: None,
            handled: 0,
            active_since_ms: None,
            chained: Vec::new(),
        }
    }

    /// Reports if it is time, or if the partitions changed. Waits at most
    /// a second for the broker: a report is worth nothing late.
    pub async fn maybe_report(
        &mut self,
        producer: &Producer,
        consumer: &StreamConsumer<BusContext>,
        state: &GroupState,
    ) {
        let changed = state.assignments() != self.assignments;
        if !changed && self.last.is_some_and(|t| t.elapsed() < EVERY) {
            return;
        }
        self.last = Some(Instant::now());
        self.assignments = state.assignments();
        gleaner_core::metrics::set(
            "gleaner_kafka_lag_records",
            &[("stage", self.stage.as_str())],
            owned_lag(consumer) as f64,
        );
        let status = StageStatus {
            stage: self.stage.clone(),
            instance: self.instance.clone(),
            host: self.host.clone(),
            pid: std::process::id(),
            owned: state
                .owned()
                .into_iter()
                .map(|(t, p)| format!("{t}[{p}]"))
                .collect(),
            last_commit_ms: self.last_commit_ms,
            handled: self.handled,
            at_ms: gleaner_core::util::unix_millis(),
            active_since_ms: self.active_since_ms,
            chained: self.chained.clone(),
        };
        // A second at most: a report is worth nothing late.
        if let Err(e) = publish(producer, &self.topic, &status, Duration::from_secs(1)).await {
            tracing::debug!(error = %e, "status report not sent");
        }
    }
}

/// Puts `status` on the status topic (key "stage/instance") and waits up
/// to `wait` for the queue and for the broker's acknowledgement (without a
/// broker that would take message.timeout.ms); the record stays queued
/// either way.
pub(crate) async fn publish(
    producer: &Producer,
    topic: &str,
    status: &StageStatus,
    wait: Duration,
) -> anyhow::Result<()> {
    let value = serde_json::to_vec(status)?;
    let key = format!("{}/{}", status.stage, status.instance);
    let acked = async {
        // A full queue is waited out; the wait below bounds it.
        let acked = loop {
            match producer.send(topic, &key, &value) {
                Err(KafkaError::MessageProduction(RDKafkaErrorCode::QueueFull)) => {
                    tokio::time::sleep(Duration::from_millis(100)).await
                }
                sent => break sent?,
            }
        };
        acked.await?.map_err(anyhow::Error::from)
    };
    match tokio::time::timeout(wait, acked).await {
        Ok(answer) => answer,
        Err(_) => anyhow::bail!("not acknowledged within {} s", wait.as_secs()),
    }
}

/// Records on the owned partitions past the consumer's position: one quick
/// watermark request per owned partition, every few seconds.
fn owned_lag(consumer: &StreamConsumer<BusContext>) -> i64 {
    let Ok(positions) = consumer.position() else {
        return 0;
    };
    positions
        .elements()
        .iter()
        .filter_map(|e| {
            // Before the first fetch of a partition its position is unknown.
            let rdkafka::Offset::Offset(at) = e.offset() else {
                return None;
            };
            let (_, high) = tokio::task::block_in_place(|| {
                consumer.fetch_watermarks(e.topic(), e.partition(), Duration::from_millis(500))
            })
            .ok()?;
            Some((high - at).max(0))
        })
        .sum()
}
