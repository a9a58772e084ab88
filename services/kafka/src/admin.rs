//! Topics and what is on them: creating the flow's topics and reading
//! back the tail of one (for rebuilding state from a stage's own output).

use super::client::BATCH_OVERHEAD;
use anyhow::Context;
use gleaner_core::config::{Config, Topic};
use rdkafka::admin::{AdminClient, AdminOptions, NewTopic, TopicReplication};
use rdkafka::client::DefaultClientContext;
use rdkafka::consumer::Consumer;
use rdkafka::error::{KafkaError, RDKafkaErrorCode};
use rdkafka::message::Message;
use rdkafka::ClientConfig;
use std::time::Duration;

/// How long a one-shot command (`topics`, `status`, `seed`) waits for a
/// broker to answer before saying none does; librdkafka alone would retry
/// for a minute or more without a word.
pub const REACH_WAIT: Duration = Duration::from_secs(5);

/// Whether a broker answers at `brokers` within `wait`: an error that says
/// where it looked and what to do, instead of a silent wait. Blocking.
pub fn check_reachable(brokers: &str, wait: Duration) -> anyhow::Result<()> {
    use rdkafka::consumer::BaseConsumer;
    let c: BaseConsumer = ClientConfig::new()
        .set("bootstrap.servers", brokers)
        .set("log_level", "0")
        .create()
        .context("creating Kafka client")?;
    c.fetch_metadata(None, wait).map(|_| ()).map_err(|e| {
        anyhow::anyhow!(
            "no Kafka broker answers at {brokers} within {} s ({e}); start one \
             (scripts/broker-start.sh starts the dev broker) or give --brokers HOST:PORT \
             (or GLEANER_BROKERS)",
            wait.as_secs()
        )
    })
}

/// Creates the topics (existing ones are left alone) with a
/// `max.message.bytes` that admits the largest record gleaner produces.
pub async fn create_topics(
    cfg: &Config,
    brokers: &str,
    wanted: &[Topic],
) -> anyhow::Result<Vec<String>> {
    let admin: AdminClient<DefaultClientContext> = ClientConfig::new()
        .set("bootstrap.servers", brokers)
        .create()
        .context("creating Kafka admin client")?;
    let max = (cfg.kafka.max_record_bytes + BATCH_OVERHEAD).to_string();
    let names: Vec<String> = wanted.iter().map(|t| cfg.topic_name(*t)).collect();
    let topics: Vec<NewTopic> = wanted
        .iter()
        .zip(&names)
        .map(|(t, n)| {
            let nt = NewTopic::new(
                n,
                cfg.kafka.partitions,
                TopicReplication::Fixed(cfg.kafka.replication),
            )
            .set("max.message.bytes", &max);
            if Topic::COMPACTED.contains(t) {
                nt.set("cleanup.policy", "compact")
            } else {
                nt
            }
        })
        .collect();
    let results = admin
        .create_topics(
            &topics,
            &AdminOptions::new().operation_timeout(Some(Duration::from_secs(10))),
        )
        .await
        .context("creating topics")?;
    let mut created = Vec::new();
    for r in results {
        match r {
            Ok(name) => created.push(name),
            Err((_, RDKafkaErrorCode::TopicAlreadyExists)) => {}
            Err((name, code)) => anyhow::bail!("creating topic {name}: {code}"),
        }
    }
    Ok(created)
}

/// The last `per_partition` records of every partition of `topic`, oldest
/// first within a partition (for rebuilding state from a stage's own output).
pub fn read_tail(brokers: &str, topic: &str, per_partition: i64) -> anyhow::Result<Vec<Vec<u8>>> {
    Ok(read_records(brokers, topic, per_partition)?
        .into_iter()
        .filter_map(|(_, v)| v)
        .collect())
}

/// Keys and values (`None` for a tombstone) of the last `per_partition`
/// records of every partition, oldest first within a partition.
pub use gleaner_core::registry::Record;

/// See [`Record`]; `i64::MAX` reads whole partitions.
pub fn read_records(brokers: &str, topic: &str, per_partition: i64) -> anyhow::Result<Vec<Record>> {
    use rdkafka::consumer::BaseConsumer;
    use rdkafka::{Offset, TopicPartitionList};
    let c: BaseConsumer = ClientConfig::new()
        .set("bootstrap.servers", brokers)
        .set(
            "group.id",
            format!("gleaner-tail-{}", gleaner_core::util::unix_now()),
        )
        .set("enable.auto.commit", "false")
        .set("enable.partition.eof", "true")
        .create()?;
    let md = c.fetch_metadata(Some(topic), Duration::from_secs(10))?;
    let Some(t) = md.topics().first() else {
        return Ok(Vec::new());
    };
    let mut tpl = TopicPartitionList::new();
    // The end of each partition read, as it was when asked.
    let mut ends = std::collections::HashMap::new();
    for p in t.partitions() {
        let (low, high) = c.fetch_watermarks(topic, p.id(), Duration::from_secs(10))?;
        if high > low {
            tpl.add_partition_offset(
                topic,
                p.id(),
                Offset::Offset((high - per_partition).max(low)),
            )?;
            ends.insert(p.id(), high);
        }
    }
    let want = ends.len();
    if want == 0 {
        return Ok(Vec::new());
    }
    c.assign(&tpl)?;
    let (mut out, mut done) = (Vec::new(), std::collections::HashSet::new());
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while done.len() < want && std::time::Instant::now() < deadline {
        match c.poll(Duration::from_millis(500)) {
            Some(Ok(m)) => {
                // Done at the end it had when asked, without waiting for
                // the end-of-partition event (which can come late).
                if ends
                    .get(&m.partition())
                    .is_some_and(|&end| m.offset() + 1 >= end)
                {
                    done.insert(m.partition());
                }
                out.push((
                    m.key().map(|k| String::from_utf8_lossy(k).into_owned()),
                    m.payload().map(<[u8]>::to_vec),
                ))
            }
            Some(Err(KafkaError::PartitionEOF(p))) => {
                done.insert(p);
            }
            Some(Err(e)) => return Err(e.into()),
            None => {}
        }
    }
    Ok(out)
}

/// One partition of a group's input: where the group stands and where the
/// partition ends.
#[derive(Debug, Clone)]
pub struct PartitionOffsets {
    pub topic: String,
    pub partition: i32,
    /// The group's committed offset (the next to read), if any.
    pub committed: Option<i64>,
    /// What the committer wrote with it (gleaner: Unix milliseconds).
    pub metadata: String,
    pub low: i64,
    pub high: i64,
}

impl PartitionOffsets {
    /// Records after the committed offset (all of them, with none).
    pub fn lag(&self) -> i64 {
        (self.high - self.committed.unwrap_or(self.low).max(self.low)).max(0)
    }
}

/// The committed offsets of `consumer`'s group on every partition of
/// `topics`, with their watermarks. Blocking.
pub fn group_offsets<C: Consumer<X>, X: rdkafka::consumer::ConsumerContext>(
    consumer: &C,
    topics: &[&str],
) -> anyhow::Result<Vec<PartitionOffsets>> {
    use rdkafka::{Offset, TopicPartitionList};
    let timeout = Duration::from_secs(5);
    let mut tpl = TopicPartitionList::new();
    for topic in topics {
        let md = consumer.fetch_metadata(Some(topic), timeout)?;
        for t in md.topics() {
            for p in t.partitions() {
                tpl.add_partition(t.name(), p.id());
            }
        }
    }
    let committed = consumer.committed_offsets(tpl, timeout)?;
    let mut out = Vec::new();
    for e in committed.elements() {
        let (low, high) = consumer.fetch_watermarks(e.topic(), e.partition(), timeout)?;
        out.push(PartitionOffsets {
            topic: e.topic().to_string(),
            partition: e.partition(),
            committed: match e.offset() {
                Offset::Offset(o) => Some(o),
                _ => None,
            },
            metadata: e.metadata().to_string(),
            low,
            high,
        });
    }
    Ok(out)
}

/// The group's total lag over `topics` and the sum of its committed
/// offsets (which moves whenever any member makes progress). Blocking.
pub fn group_lag<C: Consumer<X>, X: rdkafka::consumer::ConsumerContext>(
    consumer: &C,
    topics: &[&str],
) -> anyhow::Result<(i64, i64)> {
    let parts = group_offsets(consumer, topics)?;
    Ok((
        parts.iter().map(PartitionOffsets::lag).sum(),
        parts.iter().filter_map(|p| p.committed).sum(),
    ))
}
