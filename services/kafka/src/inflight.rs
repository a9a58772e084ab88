//! Outputs on their way to the broker. The runner sends a batch's outputs
//! and takes the next batch while they are in flight, instead of idling
//! for every acknowledgement; what a batch read is committed only once
//! every record produced from it, and from every batch sent before it, is
//! acknowledged. Batches settle in the order they were sent.

use super::producer::{Acked, Producer};
use anyhow::anyhow;
use gleaner_core::config::Config;
use gleaner_core::stage::Output;
use rdkafka::error::{KafkaError, RDKafkaErrorCode};
use std::collections::{BTreeMap, VecDeque};
use std::time::Duration;
use tokio::task::JoinHandle;

/// Where a stage's consumption stands: the next offset per partition.
pub(crate) type Positions = BTreeMap<(String, i32), i64>;

/// One batch's outputs, sent, with the positions they complete.
struct Sending {
    outs: Vec<Output>,
    /// Resolves once the broker answered for every record: `Ok` when all
    /// were acknowledged.
    acked: JoinHandle<anyhow::Result<()>>,
    positions: Positions,
}

/// The batches sent and not yet settled, oldest first.
#[derive(Default)]
pub(crate) struct InFlight {
    queue: VecDeque<Sending>,
}

impl InFlight {
    pub fn len(&self) -> usize {
        self.queue.len()
    }

    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }

    /// Hands `outs` to the producer (it batches them with what else is
    /// queued) and keeps them, with the `positions` to commit once they
    /// are acknowledged.
    pub async fn send(
        &mut self,
        producer: &Producer,
        cfg: &Config,
        outs: Vec<Output>,
        positions: Positions,
    ) {
        let acked = match enqueue(producer, cfg, &outs).await {
            Ok(deliveries) => tokio::spawn(acknowledged(deliveries)),
            Err(e) => tokio::spawn(async move { Err(e) }),
        };
        self.queue.push_back(Sending {
            outs,
            acked,
            positions,
        });
    }

    /// Waits until the oldest batch is answered for; returns its outputs
    /// if any was not acknowledged (to be produced again before its
    /// positions are committed) and its positions. Pending for ever when
    /// nothing is in flight (guard the call with [`InFlight::is_empty`]).
    pub async fn oldest_answered(&mut self) -> Settled {
        let Some(front) = self.queue.front_mut() else {
            return std::future::pending().await;
        };
        let answer = (&mut front.acked).await;
        let front = self.queue.pop_front().expect("the front was there");
        let failed = match answer {
            Ok(Ok(())) => None,
            Ok(Err(e)) => Some(e),
            Err(e) => Some(anyhow!("delivery task failed: {e}")),
        };
        Settled {
            outputs: front.outs.len(),
            resend: failed.map(|e| (e, front.outs)),
            positions: front.positions,
        }
    }
}

/// A batch the broker answered for.
pub(crate) struct Settled {
    /// How many records the batch produced.
    pub outputs: usize,
    /// Why some record was not acknowledged, and the batch's outputs.
    pub resend: Option<(anyhow::Error, Vec<Output>)>,
    pub positions: Positions,
}

/// Waits for the broker's answer to every record: `Ok` when all were
/// acknowledged.
pub(crate) async fn acknowledged(deliveries: Vec<Acked>) -> anyhow::Result<()> {
    for d in futures::future::join_all(deliveries).await {
        match d {
            Ok(Ok(())) => {}
            Ok(Err(e)) => return Err(anyhow!("produce failed: {e}")),
            Err(_) => return Err(anyhow!("produce failed: the producer went away")),
        }
    }
    Ok(())
}

/// Queues every record with the producer, waiting while its queue is full.
pub(crate) async fn enqueue(
    producer: &Producer,
    cfg: &Config,
    outs: &[Output],
) -> anyhow::Result<Vec<Acked>> {
    let mut deliveries = Vec::with_capacity(outs.len());
    for o in outs {
        let topic = cfg.topic_name(o.topic);
        let bytes = o.payload.bytes();
        loop {
            match producer.send(&topic, &o.key, bytes.as_ref()) {
                Ok(d) => {
                    deliveries.push(d);
                    break;
                }
                Err(KafkaError::MessageProduction(RDKafkaErrorCode::QueueFull)) => {
                    tokio::time::sleep(Duration::from_millis(5)).await;
                }
                Err(e) => return Err(anyhow!("produce failed: {e}")),
            }
        }
    }
    Ok(deliveries)
}
