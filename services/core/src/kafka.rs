//! The Kafka bus (librdkafka through rdkafka): one stage per process, reading
//! its input topics in a consumer group and producing its outputs.
//!
//! At-least-once: an input's offset is stored only after the broker
//! acknowledged every record produced from it (and from every input before it
//! in the batch); stored offsets are committed in the background and once
//! more, synchronously, on shutdown.

use crate::config::{Config, Topic};
use crate::stage::{limit_unsourced, settle, Input, Origin, Output, Stage};
use anyhow::Context;
use futures::future::join_all;
use rdkafka::admin::{AdminClient, AdminOptions, NewTopic, TopicReplication};
use rdkafka::client::DefaultClientContext;
use rdkafka::consumer::{CommitMode, Consumer, StreamConsumer};
use rdkafka::error::{KafkaError, RDKafkaErrorCode};
use rdkafka::message::Message;
use rdkafka::producer::{FutureProducer, FutureRecord, Producer};
use rdkafka::util::Timeout;
use rdkafka::ClientConfig;
use std::collections::HashMap;
use std::time::Duration;
use tokio::sync::watch;

/// Room for the record batch header and headers around one record's value.
const BATCH_OVERHEAD: usize = 64 * 1024;

/// A producer set up for gleaner's records: compression, idempotence, and a
/// message size limit that lets records up to `max_record_bytes` through.
pub fn producer(cfg: &Config, brokers: &str) -> anyhow::Result<FutureProducer> {
    ClientConfig::new()
        .set("bootstrap.servers", brokers)
        .set("compression.type", &cfg.kafka.compression)
        .set("enable.idempotence", "true")
        .set("acks", "all")
        .set("linger.ms", "5")
        .set(
            "message.max.bytes",
            (cfg.kafka.max_record_bytes + BATCH_OVERHEAD).to_string(),
        )
        .set("message.timeout.ms", "60000")
        .create()
        .context("creating Kafka producer")
}

fn consumer(cfg: &Config, brokers: &str, group: &str) -> anyhow::Result<StreamConsumer> {
    ClientConfig::new()
        .set("bootstrap.servers", brokers)
        .set("group.id", group)
        .set("enable.auto.commit", "true")
        .set("auto.commit.interval.ms", "1000")
        // Offsets are stored by hand, only once outputs are acknowledged.
        .set("enable.auto.offset.store", "false")
        .set("auto.offset.reset", "earliest")
        .set("session.timeout.ms", "10000")
        .set("heartbeat.interval.ms", "1000")
        .set(
            "max.partition.fetch.bytes",
            (cfg.kafka.max_record_bytes + BATCH_OVERHEAD).to_string(),
        )
        .create()
        .context("creating Kafka consumer")
}

/// Produces records and waits until the broker acknowledged all of them.
pub async fn produce_all(
    producer: &FutureProducer,
    cfg: &Config,
    outs: &[Output],
) -> anyhow::Result<()> {
    let sends = outs.iter().map(|o| {
        let topic = cfg.topic_name(o.topic);
        async move {
            let bytes = o.payload.bytes();
            let record = FutureRecord::to(&topic).key(&o.key).payload(bytes.as_ref());
            producer.send(record, Timeout::Never).await
        }
    });
    for r in join_all(sends).await {
        r.map_err(|(e, _)| anyhow::anyhow!("produce failed: {e}"))?;
    }
    Ok(())
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
            if *t == Topic::RULES {
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

/// Runs one stage on Kafka until `stop` turns true, then finishes the batch
/// in hand, flushes the producer and commits the stored offsets.
pub async fn run_stage(
    mut stage: Box<dyn Stage>,
    cfg: &Config,
    brokers: &str,
    mut stop: watch::Receiver<bool>,
) -> anyhow::Result<()> {
    let name = stage.name();
    let group = format!("{}-{}", cfg.kafka.group_prefix, name);
    let consumer = consumer(cfg, brokers, &group)?;
    let producer = producer(cfg, brokers)?;
    let inputs: HashMap<String, Topic> = stage
        .inputs()
        .into_iter()
        .map(|t| (cfg.topic_name(t), t))
        .collect();
    let topics: Vec<&str> = inputs.keys().map(String::as_str).collect();
    consumer.subscribe(&topics).context("subscribing")?;
    tracing::info!(stage = name, group, ?topics, "stage started on Kafka");

    let mut handled_total: u64 = 0;
    let mut tick = tokio::time::interval(Duration::from_millis(250));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        let ticked = async {
            tokio::select! {
                _ = tick.tick() => {}
                () = stage.ready() => {}
            }
        };
        let first = tokio::select! {
            m = consumer.recv() => Some(m),
            _ = stop.wait_for(|s| *s) => None,
            () = ticked => {
                let due = limit_unsourced(name, stage.tick().await, Some(cfg.kafka.max_record_bytes));
                produce_until_acked(&producer, cfg, name, &due, "scheduled work").await;
                stage.produced().await;
                continue;
            }
        };
        let Some(first) = first else { break };
        let mut batch = Vec::new();
        match first {
            Ok(m) => batch.push(to_input(&inputs, &m)),
            Err(e) => {
                tracing::warn!(stage = name, error = %e, "consume error");
                tokio::time::sleep(Duration::from_millis(200)).await;
                continue;
            }
        }
        // Take whatever else is already waiting, without blocking for long.
        while batch.len() < cfg.kafka.batch_max {
            match tokio::time::timeout(Duration::from_millis(2), consumer.recv()).await {
                Ok(Ok(m)) => batch.push(to_input(&inputs, &m)),
                _ => break,
            }
        }
        let results = stage.handle_batch(&batch).await;
        let mut outs = Vec::new();
        for (input, handled) in batch.iter().zip(results) {
            outs.extend(settle(
                name,
                input,
                handled,
                Some(cfg.kafka.max_record_bytes),
            ));
        }
        // Storing the offsets before the outputs are acknowledged would lose
        // them on a crash.
        produce_until_acked(&producer, cfg, name, &outs, "outputs").await;
        for input in &batch {
            if let Some(o) = &input.origin {
                // rd_kafka_offset_store keeps offset + 1: the next one to read.
                if let Err(e) = consumer.store_offset(&o.topic, o.partition, o.offset) {
                    tracing::warn!(stage = name, error = %e, "storing offset failed");
                }
            }
        }
        handled_total += batch.len() as u64;
    }
    tracing::info!(
        stage = name,
        handled = handled_total,
        "stopping: draining and closing stage, flushing, committing"
    );
    let last = limit_unsourced(name, stage.drain().await, Some(cfg.kafka.max_record_bytes));
    produce_until_acked(&producer, cfg, name, &last, "the stage's last outputs").await;
    stage.produced().await;
    stage.close().await?;
    producer.flush(Timeout::After(Duration::from_secs(30)))?;
    match consumer.commit_consumer_state(CommitMode::Sync) {
        Ok(()) | Err(KafkaError::ConsumerCommit(RDKafkaErrorCode::NoOffset)) => {}
        Err(e) => tracing::warn!(stage = name, error = %e, "final commit failed"),
    }
    Ok(())
}

/// Produces `outs`, retrying (with a growing pause) until the broker
/// acknowledges every one.
async fn produce_until_acked(
    producer: &FutureProducer,
    cfg: &Config,
    stage: &str,
    outs: &[Output],
    what: &str,
) {
    let mut attempt = 0u32;
    while let Err(e) = produce_all(producer, cfg, outs).await {
        attempt += 1;
        tracing::error!(stage, error = %e, attempt, "producing {what} failed, retrying");
        tokio::time::sleep(Duration::from_millis(500 * u64::from(attempt.min(20)))).await;
    }
}

fn to_input<M: Message>(inputs: &HashMap<String, Topic>, m: &M) -> Input {
    Input {
        // A stage is only given the topics it subscribed to.
        topic: inputs.get(m.topic()).copied().unwrap_or(Topic::DEAD_LETTER),
        key: m.key().map(|k| String::from_utf8_lossy(k).into_owned()),
        payload: m.payload().map(crate::payload::Payload::from),
        origin: Some(Origin {
            topic: m.topic().to_string(),
            partition: m.partition(),
            offset: m.offset(),
        }),
    }
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
pub type Record = (Option<String>, Option<Vec<u8>>);

/// See [`Record`]; `i64::MAX` reads whole partitions.
pub fn read_records(brokers: &str, topic: &str, per_partition: i64) -> anyhow::Result<Vec<Record>> {
    use rdkafka::consumer::BaseConsumer;
    use rdkafka::{Offset, TopicPartitionList};
    let c: BaseConsumer = ClientConfig::new()
        .set("bootstrap.servers", brokers)
        .set(
            "group.id",
            format!("gleaner-tail-{}", crate::util::unix_now()),
        )
        .set("enable.auto.commit", "false")
        .set("enable.partition.eof", "true")
        .create()?;
    let md = c.fetch_metadata(Some(topic), Duration::from_secs(10))?;
    let Some(t) = md.topics().first() else {
        return Ok(Vec::new());
    };
    let mut tpl = TopicPartitionList::new();
    let mut want = 0usize;
    for p in t.partitions() {
        let (low, high) = c.fetch_watermarks(topic, p.id(), Duration::from_secs(10))?;
        if high > low {
            tpl.add_partition_offset(
                topic,
                p.id(),
                Offset::Offset((high - per_partition).max(low)),
            )?;
            want += 1;
        }
    }
    if want == 0 {
        return Ok(Vec::new());
    }
    c.assign(&tpl)?;
    let (mut out, mut done) = (Vec::new(), std::collections::HashSet::new());
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while done.len() < want && std::time::Instant::now() < deadline {
        match c.poll(Duration::from_millis(500)) {
            Some(Ok(m)) => out.push((
                m.key().map(|k| String::from_utf8_lossy(k).into_owned()),
                m.payload().map(<[u8]>::to_vec),
            )),
            Some(Err(KafkaError::PartitionEOF(p))) => {
                done.insert(p);
            }
            Some(Err(e)) => return Err(e.into()),
            None => {}
        }
    }
    Ok(out)
}

/// A watch channel that turns true on SIGINT or SIGTERM.
pub fn shutdown_signal() -> watch::Receiver<bool> {
    let (tx, rx) = watch::channel(false);
    tokio::spawn(async move {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{signal, SignalKind};
            let mut term = match signal(SignalKind::terminate()) {
                Ok(s) => s,
                Err(_) => {
                    let _ = tokio::signal::ctrl_c().await;
                    let _ = tx.send(true);
                    return;
                }
            };
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
        }
        #[cfg(not(unix))]
        let _ = tokio::signal::ctrl_c().await;
        tracing::info!("shutdown signal received");
        let _ = tx.send(true);
    });
    rx
}
