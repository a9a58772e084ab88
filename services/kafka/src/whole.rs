//! Side inputs every instance of a stage reads whole
//! (`StageSpec::every_instance_reads`: the index's story log, as each
//! index instance writes a shard of its own and must apply every merge;
//! extract's site rules, each instance needing every rule).
//!
//! They are read apart from the stage's group, by a consumer that assigns
//! itself every partition (no group membership, so no rebalance) and keeps
//! its offsets under a group of its own per instance
//! (`<group>-<instance>-whole`): a restart goes on from its last commit, a
//! new instance starts at the beginning.

use super::client::{consumer_config, BusContext, GroupState};
use super::inflight::Positions;
use anyhow::Context;
use gleaner_core::config::Config;
use rdkafka::consumer::{Consumer, StreamConsumer};
use rdkafka::error::KafkaResult;
use rdkafka::message::BorrowedMessage;
use rdkafka::{Offset, TopicPartitionList};
use std::collections::HashSet;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Longest wait of a fetch of the topics read whole.
const WHOLE_FETCH_WAIT_MS: u64 = 1000;

/// How long a starting stage waits for a whole-read topic to exist.
const TOPIC_WAIT: Duration = Duration::from_secs(30);

/// The consumer of the topics every instance reads whole.
pub(crate) struct WholeTopics {
    pub consumer: StreamConsumer<BusContext>,
    topics: HashSet<String>,
}

impl WholeTopics {
    /// Reads `topics` whole (`None` when there are none), from where this
    /// instance's last commit left them.
    pub fn open(
        stage: &str,
        cfg: &Config,
        brokers: &str,
        group: &str,
        topics: &[String],
    ) -> anyhow::Result<Option<Self>> {
        if topics.is_empty() {
            return Ok(None);
        }
        let own_group = format!("{group}-{}-whole", cfg.kafka.instance);
        let consumer: StreamConsumer<BusContext> =
            consumer_config(cfg, brokers, &own_group, &own_group)
                // Rarely written (the story log: a record per story, not per
                // page; site rules by hand) and never urgent: a long wait
                // spares the broker's fetches (tansu answers each after its
                // wait, records or not).
                .set(
                    "fetch.wait.max.ms",
                    WHOLE_FETCH_WAIT_MS.max(cfg.kafka.fetch_wait_ms).to_string(),
                )
                .create_with_context(BusContext::new(stage, Arc::new(GroupState::default())))
                .context("creating the Kafka consumer of the topics read whole")?;
        let mut tpl = TopicPartitionList::new();
        for topic in topics {
            let partitions = tokio::task::block_in_place(|| partitions_of(&consumer, topic))?;
            for p in 0..partitions {
                // Stored: this instance's commit, else the beginning.
                tpl.add_partition_offset(topic, p, Offset::Stored)?;
            }
        }
        consumer
            .assign(&tpl)
            .context("assigning the topics read whole")?;
        tracing::info!(stage, group = own_group, ?topics, "reading whole");
        Ok(Some(WholeTopics {
            consumer,
            topics: topics.iter().cloned().collect(),
        }))
    }

    /// The next record of any of its topics.
    pub async fn recv(&self) -> KafkaResult<BorrowedMessage<'_>> {
        self.consumer.recv().await
    }

    /// Takes the positions of its topics out of `positions`.
    pub fn take(&self, positions: &mut Positions) -> Positions {
        let mine: Positions = positions
            .iter()
            .filter(|((t, _), _)| self.topics.contains(t))
            .map(|(k, v)| (k.clone(), *v))
            .collect();
        positions.retain(|(t, _), _| !self.topics.contains(t));
        mine
    }
}

/// The next record of `whole`'s topics, or never when it has none.
pub(crate) async fn recv_whole(whole: &Option<WholeTopics>) -> KafkaResult<BorrowedMessage<'_>> {
    match whole {
        Some(w) => w.recv().await,
        None => std::future::pending().await,
    }
}

/// Partitions of `topic`, waiting up to [`TOPIC_WAIT`] for it to exist.
fn partitions_of(consumer: &StreamConsumer<BusContext>, topic: &str) -> anyhow::Result<i32> {
    let started = Instant::now();
    loop {
        let md = consumer
            .fetch_metadata(Some(topic), Duration::from_secs(10))
            .with_context(|| format!("reading the partitions of {topic}"))?;
        let n = md
            .topics()
            .iter()
            .find(|t| t.name() == topic)
            .map_or(0, |t| t.partitions().len());
        if n > 0 {
            return Ok(n as i32);
        }
        anyhow::ensure!(
            started.elapsed() < TOPIC_WAIT,
            "topic {topic} has no partitions (create the topics with `gleaner topics`)"
        );
        std::thread::sleep(Duration::from_millis(500));
    }
}
