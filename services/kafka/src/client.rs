//! The librdkafka clients gleaner uses, with one context that says what the
//! group and the broker are doing: partitions assigned and revoked (logged
//! at info and kept for the runner, the health check and the metrics), and
//! one line when the broker is lost and one when it is back.

use anyhow::Context;
use gleaner_core::config::Config;
use gleaner_core::metrics;
use gleaner_core::sync::Locked;
use rdkafka::client::ClientContext;
use rdkafka::consumer::{BaseConsumer, ConsumerContext, Rebalance, StreamConsumer};
use rdkafka::error::{KafkaError, RDKafkaErrorCode};
use rdkafka::{ClientConfig, TopicPartitionList};
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// Room for the record batch header and headers around one record's value.
pub(crate) const BATCH_OVERHEAD: usize = 64 * 1024;

/// What a stage's clients know of their group and broker, shared with the
/// runner and the health check.
pub struct GroupState {
    owned: Mutex<BTreeSet<(String, i32)>>,
    /// When the stage last went without partitions (`None` while it has some).
    unassigned_since: Mutex<Option<Instant>>,
    /// Bumped on every assignment (the runner reloads its replay guard).
    assignments: AtomicU64,
    broker_down: AtomicBool,
}

impl Default for GroupState {
    /// A stage starts without partitions: the watchdog and the health
    /// check count from its start until its first assignment.
    fn default() -> Self {
        GroupState {
            owned: Mutex::default(),
            unassigned_since: Mutex::new(Some(Instant::now())),
            assignments: AtomicU64::default(),
            broker_down: AtomicBool::default(),
        }
    }
}

impl GroupState {
    /// What `/health` says of this stage: unwell while the broker is out
    /// of reach or while it owns no partition (a hot standby included, so
    /// that a load balancer does not count it as serving).
    pub fn health(&self) -> Result<(), String> {
        if self.broker_down() {
            return Err("broker unreachable".into());
        }
        match self.unassigned_for() {
            Some(d) => Err(format!("no partitions assigned (for {} s)", d.as_secs())),
            None => Ok(()),
        }
    }

    /// The partitions this instance owns, as `topic[partition]`.
    pub fn owned(&self) -> Vec<(String, i32)> {
        self.owned.locked().iter().cloned().collect()
    }

    /// How long the stage has owned no partition (`None` while it owns some).
    pub fn unassigned_for(&self) -> Option<std::time::Duration> {
        self.unassigned_since.locked().map(|t| t.elapsed())
    }

    /// The broker was lost and has not answered since.
    pub fn broker_down(&self) -> bool {
        self.broker_down.load(Ordering::Relaxed)
    }

    pub fn assignments(&self) -> u64 {
        self.assignments.load(Ordering::Relaxed)
    }

    /// Something went through: if the broker was lost, say it is back.
    pub fn broker_reached(&self, who: &str) {
        if self.broker_down.swap(false, Ordering::Relaxed) {
            tracing::info!(stage = who, "broker reachable again");
        }
    }

    fn set_owned(&self, owned: BTreeSet<(String, i32)>, stage: &str) {
        metrics::set(
            "gleaner_kafka_partitions_owned",
            &[("stage", stage)],
            owned.len() as f64,
        );
        let mut since = self.unassigned_since.locked();
        match (owned.is_empty(), *since) {
            (true, None) => *since = Some(Instant::now()),
            (false, _) => *since = None,
            _ => {}
        }
        *self.owned.locked() = owned;
    }
}

/// The client context of a stage's consumer and producer.
pub struct BusContext {
    stage: String,
    pub state: Arc<GroupState>,
}

impl BusContext {
    pub fn new(stage: &str, state: Arc<GroupState>) -> Self {
        state.set_owned(BTreeSet::new(), stage);
        BusContext {
            stage: stage.to_string(),
            state,
        }
    }
}

fn describe(tpl: &TopicPartitionList) -> String {
    tpl.elements()
        .iter()
        .map(|e| format!("{}[{}]", e.topic(), e.partition()))
        .collect::<Vec<_>>()
        .join(" ")
}

impl ClientContext for BusContext {
    fn error(&self, error: KafkaError, reason: &str) {
        let lost = matches!(
            error.rdkafka_error_code(),
            Some(RDKafkaErrorCode::AllBrokersDown | RDKafkaErrorCode::BrokerTransportFailure)
        );
        if lost {
            // One line when the broker goes; librdkafka retries and buffers
            // (up to message.timeout.ms for produced records).
            if !self.state.broker_down.swap(true, Ordering::Relaxed) {
                tracing::error!(stage = %self.stage, %reason, "broker unreachable; retrying");
            }
        } else {
            tracing::warn!(stage = %self.stage, error = %error, %reason, "kafka client error");
        }
    }
}

impl ConsumerContext for BusContext {
    fn post_rebalance(&self, consumer: &BaseConsumer<Self>, rebalance: &Rebalance<'_>) {
        use rdkafka::consumer::Consumer;
        match rebalance {
            Rebalance::Assign(tpl) if tpl.count() == 0 => {
                tracing::info!(stage = %self.stage, "no partitions assigned");
                self.state.assignments.fetch_add(1, Ordering::Relaxed);
            }
            Rebalance::Assign(tpl) => {
                tracing::info!(stage = %self.stage, partitions = %describe(tpl), "partitions assigned");
                self.state.assignments.fetch_add(1, Ordering::Relaxed);
            }
            Rebalance::Revoke(tpl) => {
                tracing::info!(stage = %self.stage, partitions = %describe(tpl), "partitions revoked");
            }
            Rebalance::Error(e) => {
                tracing::warn!(stage = %self.stage, error = %e, "rebalance failed");
            }
        }
        let owned = consumer
            .assignment()
            .map(|tpl| {
                tpl.elements()
                    .iter()
                    .map(|e| (e.topic().to_string(), e.partition()))
                    .collect()
            })
            .unwrap_or_default();
        self.state.set_owned(owned, &self.stage);
    }
}

/// How a consumer joins its group.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Membership {
    /// With `group.instance.id`: a restart takes its partitions back at once.
    Static,
    /// Without: the fallback when the broker leaves a static member with
    /// no partitions (see the runner's watchdog).
    Dynamic,
}

/// The consumer of a stage's group. With static membership its
/// `group.instance.id` is `static_id`: the group and the instance name, so
/// a restarted instance takes its partitions back at once instead of
/// waiting for its old session to expire (on tansu 0.6.0 a dynamic member
/// that rejoined in that time was left with no partitions for good: see
/// DESIGN.md), or for a stage with one active instance (dedup, stories) the
/// group and "active", the same for every instance, so that a standby
/// taking over takes the dead one's partitions at once instead of after its
/// session (on tansu 0.6.0, not even then). Offsets are committed by the
/// runner, only once outputs are acknowledged.
pub(crate) fn consumer(
    stage: &str,
    cfg: &Config,
    brokers: &str,
    group: &str,
    static_id: &str,
    state: Arc<GroupState>,
    membership: Membership,
) -> anyhow::Result<StreamConsumer<BusContext>> {
    let mut config = consumer_config(
        cfg,
        brokers,
        group,
        &format!("{group}-{}", cfg.kafka.instance),
    );
    if membership == Membership::Static {
        config.set("group.instance.id", static_id);
    }
    config
        .set(
            "session.timeout.ms",
            cfg.kafka.session_timeout_ms.to_string(),
        )
        .set(
            "heartbeat.interval.ms",
            (cfg.kafka.session_timeout_ms / 10).max(100).to_string(),
        )
        .create_with_context(BusContext::new(stage, state))
        .context("creating Kafka consumer")
}

/// What every consumer of a stage sets: offsets stored and committed by
/// the runner only, the earliest offset where the group has none, the
/// configured fetch wait, and room for the largest record.
pub(crate) fn consumer_config(
    cfg: &Config,
    brokers: &str,
    group: &str,
    client_id: &str,
) -> ClientConfig {
    let mut config = ClientConfig::new();
    config
        .set("bootstrap.servers", brokers)
        .set("group.id", group)
        .set("client.id", client_id)
        .set("enable.auto.commit", "false")
        .set("enable.auto.offset.store", "false")
        .set("auto.offset.reset", "earliest")
        .set("fetch.wait.max.ms", cfg.kafka.fetch_wait_ms.to_string())
        .set(
            "max.partition.fetch.bytes",
            (cfg.kafka.max_record_bytes + BATCH_OVERHEAD).to_string(),
        );
    config
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stage_is_unwell_until_assigned_and_while_the_broker_is_lost() {
        let state = GroupState::default();
        assert!(state
            .health()
            .unwrap_err()
            .contains("no partitions assigned"));
        state.set_owned(BTreeSet::from([("t".to_string(), 0)]), "t");
        assert_eq!(state.health(), Ok(()));
        state.broker_down.store(true, Ordering::Relaxed);
        assert_eq!(state.health(), Err("broker unreachable".to_string()));
        state.broker_reached("t");
        state.set_owned(BTreeSet::new(), "t");
        assert!(state
            .health()
            .unwrap_err()
            .contains("no partitions assigned"));
    }
}
