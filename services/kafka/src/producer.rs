//! gleaner's producer: librdkafka's, each record's acknowledgement a
//! future, polled by a thread of its own.
//!
//! Why not rdkafka's `FutureProducer`: its polling thread calls
//! `BaseProducer::poll(100 ms)` in a loop, and in rdkafka 0.39 that call
//! polls again with a 0 ms timeout until its deadline once less than a
//! millisecond is left (the remaining time is rounded down): every call
//! ends in a spin on the clock. In `scripts/bench-scale.sh kafka_against`
//! those threads were a sixth of the stages' CPU and nearly all of an idle
//! stage's. Polled in calls of a second, the spin is a thousandth of the
//! time; acknowledgements still arrive as they come (the call returns
//! each event at once and goes on waiting).

use super::client::{BusContext, GroupState, BATCH_OVERHEAD};
use anyhow::Context;
use futures::channel::oneshot;
use gleaner_core::config::Config;
use rdkafka::client::ClientContext;
use rdkafka::error::KafkaError;
use rdkafka::producer::{BaseProducer, BaseRecord, DeliveryResult, Producer as _, ProducerContext};
use rdkafka::ClientConfig;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// How long one poll of the producer's thread waits for events; the thread
/// notices a dropped producer within this time.
const POLL: Duration = Duration::from_secs(1);

/// The broker's answer for one record: `Ok` once acknowledged. Resolves to
/// `Err(Canceled)` if the producer went away first.
pub type Acked = oneshot::Receiver<Result<(), KafkaError>>;

/// A producer set up for gleaner's records: compression, idempotence, and a
/// message size limit that lets records up to `max_record_bytes` through.
pub fn producer(cfg: &Config, brokers: &str) -> anyhow::Result<Producer> {
    producer_for("producer", cfg, brokers, Arc::default())
}

pub(crate) fn producer_for(
    stage: &str,
    cfg: &Config,
    brokers: &str,
    state: Arc<GroupState>,
) -> anyhow::Result<Producer> {
    let mut config = ClientConfig::new();
    config
        .set("bootstrap.servers", brokers)
        .set("compression.type", &cfg.kafka.compression)
        .set("acks", "all")
        .set("enable.idempotence", cfg.kafka.idempotence.to_string())
        .set("linger.ms", cfg.kafka.linger_ms.to_string())
        .set(
            "message.max.bytes",
            (cfg.kafka.max_record_bytes + BATCH_OVERHEAD).to_string(),
        )
        // Records are buffered this long while the broker is away; the
        // runner produces them again if that runs out.
        .set("message.timeout.ms", "60000");
    Producer::new(&config, BusContext::new(stage, state)).context("creating Kafka producer")
}

/// A producer whose records are answered through [`Acked`] channels.
pub struct Producer {
    inner: Arc<BaseProducer<Acks>>,
    stop: Arc<AtomicBool>,
}

impl Producer {
    /// Creates the client and starts its polling thread.
    pub(crate) fn new(config: &ClientConfig, context: BusContext) -> anyhow::Result<Self> {
        let inner: Arc<BaseProducer<Acks>> =
            Arc::new(config.create_with_context(Acks { bus: context })?);
        let stop = Arc::new(AtomicBool::new(false));
        let (polled, stopped) = (inner.clone(), stop.clone());
        // Detached: it ends within POLL of the producer's drop, and the
        // client (with whatever is still queued) goes with it, as with
        // rdkafka's own threaded producer.
        std::thread::Builder::new()
            .name("producer-poll".into())
            .spawn(move || {
                while !stopped.load(Ordering::Relaxed) {
                    polled.poll(POLL);
                }
            })?;
        Ok(Producer { inner, stop })
    }

    /// Queues one record. A full queue (`QueueFull`) or a record the client
    /// refuses is an error at once; the caller decides whether to wait.
    pub fn send(&self, topic: &str, key: &str, payload: &[u8]) -> Result<Acked, KafkaError> {
        let (tx, rx) = oneshot::channel();
        let record = BaseRecord::with_opaque_to(topic, Box::new(tx))
            .key(key)
            .payload(payload);
        self.inner.send(record).map(|()| rx).map_err(|(e, _)| e)
    }

    /// Waits up to `timeout` for every queued record to be answered, on a
    /// blocking thread (librdkafka's flush blocks its caller).
    pub async fn flush(&self, timeout: Duration) -> anyhow::Result<()> {
        let inner = self.inner.clone();
        tokio::task::spawn_blocking(move || inner.flush(timeout)).await??;
        Ok(())
    }
}

impl Drop for Producer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// The producer's context: the bus context's error reporting, and each
/// record's answer sent on its channel.
struct Acks {
    bus: BusContext,
}

impl ClientContext for Acks {
    fn error(&self, error: KafkaError, reason: &str) {
        self.bus.error(error, reason);
    }
}

impl ProducerContext for Acks {
    type DeliveryOpaque = Box<oneshot::Sender<Result<(), KafkaError>>>;

    fn delivery(&self, result: &DeliveryResult<'_>, answer: Self::DeliveryOpaque) {
        // Nobody waiting any more is no error.
        let _ = answer.send(result.as_ref().map(|_| ()).map_err(|(e, _)| e.clone()));
    }
}
