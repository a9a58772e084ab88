//! What a stage has in flight and what it may commit: the batches whose
//! outputs are on their way (see [`InFlight`]), the offsets acknowledged
//! and not yet committed, and the commits themselves.

use super::client::BusContext;
use super::inflight::{InFlight, Positions};
use super::report::Reporter;
use super::whole::WholeTopics;
use gleaner_core::stage::{Input, Stage};
use rdkafka::consumer::{CommitMode, Consumer, StreamConsumer};
use rdkafka::error::{KafkaError, RDKafkaErrorCode};
use rdkafka::{Offset, TopicPartitionList};
use std::time::{Duration, Instant};

/// The next offset of every partition `batch` read from.
pub(crate) fn positions_of(batch: &[Input]) -> Positions {
    let mut next = Positions::new();
    for o in batch.iter().filter_map(|i| i.origin.as_ref()) {
        let n = next.entry((o.topic.clone(), o.partition)).or_insert(0);
        *n = (*n).max(o.offset + 1);
    }
    next
}

/// Offsets are committed at least this often while batches stay in
/// flight, and at once whenever none is (fewer commit requests for the
/// broker than one per batch; a crash replays at most this much more).
pub(crate) const COMMIT_EVERY: Duration = Duration::from_millis(250);

/// Fetch's stage makes what it emitted durable in `produced()`, which runs
/// when nothing is in flight: the runner lets the pipeline empty at least
/// this often (taking no batch and no tick's work meanwhile), so that a
/// crash fetches again at most about this much.
const EMPTY_EVERY: Duration = Duration::from_millis(500);

/// Batches in flight and offsets acknowledged but not yet committed.
pub(crate) struct Flow {
    pub inflight: InFlight,
    pub acked: Positions,
    pub last_commit: Instant,
    pub last_empty: Instant,
}

impl Default for Flow {
    fn default() -> Self {
        Flow {
            inflight: InFlight::default(),
            acked: Positions::new(),
            last_commit: Instant::now(),
            last_empty: Instant::now(),
        }
    }
}

impl Flow {
    /// Whether another batch may be taken now.
    pub fn room(&self, limit: usize) -> bool {
        self.inflight.is_empty() || (self.inflight.len() < limit && !self.emptying())
    }

    /// Whether the pipeline is being let empty (see [`EMPTY_EVERY`]).
    pub fn emptying(&self) -> bool {
        !self.inflight.is_empty() && self.last_empty.elapsed() >= EMPTY_EVERY
    }

    /// Commits the acknowledged offsets as far as the stage's own state
    /// holds them ([`Stage::committable`]), with the commit time as
    /// metadata (where the broker keeps it; the dev broker does not, so the
    /// status topic carries it too). What the stage does not hold yet
    /// stays, for a later commit.
    pub fn commit(
        &mut self,
        consumer: &StreamConsumer<BusContext>,
        whole: Option<&WholeTopics>,
        positions: &mut Positions,
        stage: &dyn Stage,
        name: &str,
        reporter: &mut Reporter,
    ) {
        self.last_commit = Instant::now();
        if self.acked.is_empty() {
            return;
        }
        let mut ready = stage.committable(&self.acked);
        self.acked.retain(|k, next| ready.get(k) != Some(next));
        ready.retain(|k, next| positions.get(k) != Some(next));
        if ready.is_empty() {
            return;
        }
        positions.extend(ready.clone());
        if let Some(w) = whole {
            commit_positions(&w.consumer, &w.take(&mut ready), CommitMode::Async, name);
        }
        commit_positions(consumer, &ready, CommitMode::Async, name);
        reporter.last_commit_ms = Some(gleaner_core::util::unix_millis());
    }
}

pub(crate) fn commit_positions(
    consumer: &StreamConsumer<BusContext>,
    positions: &Positions,
    mode: CommitMode,
    stage: &str,
) {
    if positions.is_empty() {
        return;
    }
    let stamp = gleaner_core::util::unix_millis().to_string();
    let mut tpl = TopicPartitionList::new();
    for ((topic, partition), next) in positions {
        let mut e = tpl.add_partition(topic, *partition);
        if e.set_offset(Offset::Offset(*next)).is_ok() {
            e.set_metadata(stamp.as_str());
        }
    }
    match consumer.commit(&tpl, mode) {
        Ok(()) | Err(KafkaError::ConsumerCommit(RDKafkaErrorCode::NoOffset)) => {}
        Err(e) => tracing::warn!(stage, error = %e, "commit failed"),
    }
}
