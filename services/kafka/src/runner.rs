//! Runs one stage on Kafka: its consumer group in, its outputs out.
//!
//! Effectively once, end to end: an input's offset is committed only after
//! the broker acknowledged every record produced from it (and from every
//! input before it in the batch), with the commit time as the offset's
//! metadata (`gleaner status` shows it). What a crash replays is recognised
//! downstream: by the replay guard here for stages that give the same
//! records for the same input, by fetch's seen set, dedup's ids and the
//! index's upserts for the others.

use super::client::{consumer, BusContext, GroupState, Membership};
use super::flow::{commit_positions, positions_of, Flow, COMMIT_EVERY};
use super::guard::ReplayGuard;
use super::inflight::{acknowledged, enqueue, Positions};
use super::producer::{producer_for, Producer};
use super::watchdog::Watchdog;
use super::whole::{recv_whole, WholeTopics};
use anyhow::Context;
use gleaner_core::config::{Config, Topic};
use gleaner_core::stage::{limit_unsourced, settle, Input, Origin, Output, Stage, Wired, Wiring};
use gleaner_core::workers::Workers;
use rdkafka::consumer::{CommitMode, Consumer, StreamConsumer};
use rdkafka::error::{KafkaError, RDKafkaErrorCode};
use rdkafka::message::Message;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::watch;

/// Produces records and waits until the broker acknowledged all of them.
pub async fn produce_all(producer: &Producer, cfg: &Config, outs: &[Output]) -> anyhow::Result<()> {
    acknowledged(enqueue(producer, cfg, outs).await?).await
}

/// Runs one stage on Kafka until `stop` turns true, then finishes the batch
/// in hand, produces what the stage drains and commits. Returns an error
/// (so the process exits non-zero and a supervisor restarts it) when this
/// instance was fenced by another with its instance name, or owned no
/// partition for `kafka.unassigned_exit_ms` while its input had lag that
/// nobody consumed.
pub async fn run_stage(
    wired: Wired,
    cfg: &Config,
    brokers: &str,
    mut stop: watch::Receiver<bool>,
    active_since_ms: Option<u64>,
) -> anyhow::Result<()> {
    let Wired { wiring, mut stage } = wired;
    gleaner_core::compress_pages(cfg.kafka.compress_pages);
    let name = wiring.name;
    let group = format!("{}-{}", cfg.kafka.group_prefix, name);
    let state = Arc::new(GroupState::default());
    let mut membership = Membership::Static;
    // One active instance (dedup, stories) joins under the one name the
    // active instance has, whichever process it is.
    let static_id = match active_since_ms {
        Some(_) => format!("{group}-active"),
        None => format!("{group}-{}", cfg.kafka.instance),
    };
    let mut consumer = consumer(
        name,
        cfg,
        brokers,
        &group,
        &static_id,
        state.clone(),
        membership,
    )?;
    let producer = producer_for(name, cfg, brokers, state.clone())?;
    let inputs: HashMap<String, Topic> = wiring
        .inputs
        .iter()
        .map(|&t| (cfg.topic_name(t), t))
        .collect();
    // Topics every instance reads whole are read apart from the group.
    let whole_names: Vec<String> = wiring
        .every_instance
        .iter()
        .map(|&t| cfg.topic_name(t))
        .collect();
    let whole = WholeTopics::open(name, cfg, brokers, &group, &whole_names)?;
    let topics: Vec<&str> = inputs
        .keys()
        .filter(|t| !whole_names.contains(t))
        .map(String::as_str)
        .collect();
    consumer.subscribe(&topics).context("subscribing")?;
    tracing::info!(
        stage = name,
        group,
        instance = %cfg.kafka.instance,
        ?topics,
        "stage started on Kafka"
    );
    let mut guard = Guard::new(&*stage, &wiring, cfg, brokers);
    let mut crash = CrashPoint::from_env(name);
    let mut reporter = super::report::Reporter::new(name, cfg);
    reporter.active_since_ms = active_since_ms;
    reporter.chained = wiring.chained.iter().map(|s| s.to_string()).collect();
    let health = state.clone();
    gleaner_core::health::register(name, move || health.health());
    let mut watchdog = Watchdog::default();
    let mut positions = Positions::new();
    let mut handled_total: u64 = 0;
    let mut tick = tokio::time::interval(Duration::from_millis(250));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut workers = Workers::new(&*stage, cfg.run.worker_count());
    let mut flow = Flow::default();
    loop {
        // While the pipeline empties the stage's held work waits: its
        // readiness is not asked (it would answer at once, again and again).
        let emptying = flow.emptying();
        let ticked = async {
            if emptying {
                tick.tick().await;
                return;
            }
            tokio::select! {
                _ = tick.tick() => {}
                () = stage.ready() => {}
            }
        };
        let room = flow.room(cfg.kafka.batches_in_flight);
        let first = tokio::select! {
            // Answers first: they free room and let offsets be committed.
            biased;
            settled = flow.inflight.oldest_answered(), if !flow.inflight.is_empty() => {
                let outputs = settled.outputs;
                if let Some((e, outs)) = settled.resend {
                    tracing::error!(stage = name, error = %e, "producing outputs failed, producing them again");
                    produce_until_acked(&producer, &state, cfg, name, &outs, "outputs").await;
                }
                state.broker_reached(name);
                crash.at("after-produce", outputs > 0);
                flow.acked.extend(settled.positions);
                if flow.inflight.is_empty() {
                    stage.produced().await;
                    flow.last_empty = Instant::now();
                }
                if flow.inflight.is_empty() || flow.last_commit.elapsed() >= COMMIT_EVERY {
                    flow.commit(&consumer, whole.as_ref(), &mut positions, &*stage, name, &mut reporter);
                }
                continue;
            }
            m = consumer.recv(), if room => Some(m),
            m = recv_whole(&whole), if room => Some(m),
            _ = stop.wait_for(|s| *s) => None,
            () = ticked => {
                // A static member waits one session before joining again as
                // a dynamic one; a dynamic member exits after
                // kafka.unassigned_exit_ms.
                let exit_after = Duration::from_millis(cfg.kafka.unassigned_exit_ms);
                let limit = match membership {
                    Membership::Static => exit_after.min(Duration::from_millis(cfg.kafka.session_timeout_ms)),
                    Membership::Dynamic => exit_after,
                };
                if let Err(stuck) = watchdog.check(&consumer, &state, limit, &topics) {
                    if membership == Membership::Dynamic {
                        return Err(stuck);
                    }
                    // tansu 0.6 can leave a static member that came back
                    // after its session expired without partitions for
                    // good, restarts included; a dynamic member is given
                    // them.
                    tracing::warn!(
                        stage = name,
                        "no partitions as a static member; joining the group again as a dynamic member"
                    );
                    membership = Membership::Dynamic;
                    let fresh = super::client::consumer(name, cfg, brokers, &group, &static_id, state.clone(), membership)?;
                    close_in_background(std::mem::replace(&mut consumer, fresh), name);
                    consumer.subscribe(&topics).context("subscribing")?;
                    watchdog = Watchdog::default();
                    continue;
                }
                reporter.maybe_report(&producer, &consumer, &state).await;
                if emptying {
                    // The stage's held work waits until what is in flight
                    // is acknowledged and `produced()` has run.
                    continue;
                }
                let due = limit_unsourced(name, stage.tick().await, Some(cfg.kafka.max_record_bytes));
                crash.at("before-produce", !due.is_empty());
                if !due.is_empty() {
                    flow.inflight.send(&producer, cfg, due, Positions::new()).await;
                }
                // What the stage has made durable since (the index's commits).
                if flow.inflight.is_empty() {
                    flow.commit(&consumer, whole.as_ref(), &mut positions, &*stage, name, &mut reporter);
                }
                continue;
            }
        };
        let Some(first) = first else { break };
        let mut batch = Vec::new();
        match first {
            Ok(m) => batch.push(to_input(&inputs, &m)),
            Err(e) => {
                fatal(name, &cfg.kafka.instance, &e)?;
                if state.broker_down() {
                    // Said once already ("broker unreachable").
                    tracing::debug!(stage = name, error = %e, "consume error");
                } else {
                    tracing::warn!(stage = name, error = %e, "consume error");
                }
                tokio::time::sleep(Duration::from_millis(200)).await;
                continue;
            }
        }
        state.broker_reached(name);
        // Take whatever else is already waiting, without blocking for long.
        while batch.len() < cfg.kafka.batch_max {
            match tokio::time::timeout(Duration::from_millis(2), consumer.recv()).await {
                Ok(Ok(m)) => batch.push(to_input(&inputs, &m)),
                _ => break,
            }
        }
        guard.reload_if_reassigned(&state, name);
        let started = Instant::now();
        let results = workers.handle(&mut stage, &batch).await;
        gleaner_core::metrics::observe(
            "gleaner_stage_batch_seconds",
            &[("stage", name)],
            started.elapsed().as_secs_f64(),
        );
        let mut outs = Vec::new();
        for (input, handled) in batch.iter().zip(results) {
            outs.extend(settle(
                stage.answered_by(input).unwrap_or(name),
                input,
                handled,
                Some(cfg.kafka.max_record_bytes),
            ));
        }
        let outs = guard.fresh(outs, cfg, name);
        crash.at("before-produce", !outs.is_empty());
        // Committed once these (and every batch's before them) are
        // acknowledged: committing before would lose them on a crash.
        flow.inflight
            .send(&producer, cfg, outs, positions_of(&batch))
            .await;
        handled_total += batch.len() as u64;
        reporter.handled = handled_total;
    }
    // What is in flight is acknowledged and committed before the stage drains.
    while !flow.inflight.is_empty() {
        let settled = flow.inflight.oldest_answered().await;
        if let Some((_, outs)) = settled.resend {
            produce_until_acked(&producer, &state, cfg, name, &outs, "outputs").await;
        }
        flow.acked.extend(settled.positions);
    }
    stage.produced().await;
    flow.commit(
        &consumer,
        whole.as_ref(),
        &mut positions,
        &*stage,
        name,
        &mut reporter,
    );
    tracing::info!(
        stage = name,
        handled = handled_total,
        "stopping: draining and closing stage, flushing, committing"
    );
    let last = limit_unsourced(name, stage.drain().await, Some(cfg.kafka.max_record_bytes));
    produce_until_acked(
        &producer,
        &state,
        cfg,
        name,
        &last,
        "the stage's last outputs",
    )
    .await;
    stage.produced().await;
    stage.close().await?;
    // Closed, the stage holds all it took (the index committed it).
    let held = stage.committable(&flow.acked);
    positions.extend(held);
    // Outputs were acknowledged above; what may still be queued is a status
    // report, not worth a long wait on a broker that is gone.
    if let Err(e) = producer.flush(Duration::from_secs(5)).await {
        tracing::warn!(stage = name, error = %e, "status reports not flushed");
    }
    // Once more, synchronously, for the partitions still owned (and every
    // one of the topics read whole).
    if let Some(w) = &whole {
        commit_positions(&w.consumer, &w.take(&mut positions), CommitMode::Sync, name);
    }
    let owned: std::collections::HashSet<(String, i32)> = state.owned().into_iter().collect();
    positions.retain(|k, _| owned.contains(k));
    commit_positions(&consumer, &positions, CommitMode::Sync, name);
    if !close_in_background(consumer, name).wait(CLOSE_LIMIT) {
        tracing::warn!(
            stage = name,
            "leaving the consumer group did not finish within {} s; stopping anyway",
            CLOSE_LIMIT.as_secs()
        );
    }
    Ok(())
}

/// How long a stopping stage waits to leave its consumer group.
const CLOSE_LIMIT: Duration = Duration::from_secs(10);

/// Closing a consumer (leaving its group) waits for the group coordinator,
/// for ever if it never completes a rebalance (seen on tansu 0.6.0 with a
/// join in flight), so it is done on a thread of its own.
fn close_in_background(consumer: StreamConsumer<BusContext>, stage: &str) -> Closing {
    let (tx, rx) = std::sync::mpsc::channel();
    let stage = stage.to_string();
    let spawned = std::thread::Builder::new()
        .name(format!("{stage}-consumer-close"))
        .spawn(move || {
            drop(consumer);
            let _ = tx.send(());
        });
    if let Err(e) = spawned {
        tracing::warn!(stage, error = %e, "no thread to close the consumer on");
    }
    Closing(rx)
}

/// A consumer being closed.
struct Closing(std::sync::mpsc::Receiver<()>);

impl Closing {
    /// Whether it closed within `limit`.
    fn wait(self, limit: Duration) -> bool {
        self.0.recv_timeout(limit).is_ok()
    }
}

/// An error that ends the stage: fenced by another instance of the same
/// name, or any other fatal consumer error.
fn fatal(stage: &str, instance: &str, e: &KafkaError) -> anyhow::Result<()> {
    if e.rdkafka_error_code() == Some(RDKafkaErrorCode::FencedInstanceId) {
        anyhow::bail!(
            "{stage}: another instance joined the group as {instance:?}; give each instance of a stage its own --instance"
        );
    }
    if let KafkaError::MessageConsumptionFatal(code) = e {
        anyhow::bail!("{stage}: fatal consumer error: {code}");
    }
    Ok(())
}

/// Produces `outs`, retrying (with a growing pause) until the broker
/// acknowledges every one.
async fn produce_until_acked(
    producer: &Producer,
    state: &GroupState,
    cfg: &Config,
    stage: &str,
    outs: &[Output],
    what: &str,
) {
    // Never given up on (the inputs stay uncommitted meanwhile): pauses
    // grow from half a second to ten, jittered (backon).
    let mut pauses = backon::BackoffBuilder::build(
        backon::ExponentialBuilder::default()
            .with_min_delay(Duration::from_millis(500))
            .with_max_delay(Duration::from_secs(10))
            .with_jitter()
            .without_max_times(),
    );
    let mut attempt = 0u32;
    while let Err(e) = produce_all(producer, cfg, outs).await {
        attempt += 1;
        tracing::error!(stage, error = %e, attempt, "producing {what} failed, retrying");
        let pause = pauses.next().unwrap_or(Duration::from_secs(10));
        tokio::time::sleep(pause).await;
    }
    if !outs.is_empty() {
        state.broker_reached(stage);
    }
}

fn to_input<M: Message>(inputs: &HashMap<String, Topic>, m: &M) -> Input {
    Input {
        // A stage is only given the topics it subscribed to.
        topic: inputs.get(m.topic()).copied().unwrap_or(Topic::DEAD_LETTER),
        key: m.key().map(|k| String::from_utf8_lossy(k).into_owned()),
        payload: m.payload().map(gleaner_core::payload::Payload::from),
        origin: Some(Origin {
            topic: m.topic().to_string(),
            partition: m.partition(),
            offset: m.offset(),
        }),
    }
}

/// A test hook for the worst moments to die: `GLEANER_CRASH_AT=stage:point:n`
/// aborts the process (as kill -9 would: nothing flushed or committed) at
/// the n-th batch (or tick) with outputs, at `before-produce` (handled, nothing sent)
/// or `after-produce` (acknowledged, not committed). Read once at start;
/// unset, it costs a branch per batch.
struct CrashPoint {
    point: Option<(String, u64)>,
    batches: u64,
}

impl CrashPoint {
    fn from_env(stage: &str) -> Self {
        let point = std::env::var("GLEANER_CRASH_AT").ok().and_then(|v| {
            let mut it = v.splitn(3, ':');
            let (s, p, n) = (it.next()?, it.next()?, it.next()?.parse().ok()?);
            (s == stage).then(|| (p.to_string(), n))
        });
        CrashPoint { point, batches: 0 }
    }

    fn at(&mut self, here: &str, has_outputs: bool) {
        let Some((point, n)) = &self.point else {
            return;
        };
        if !has_outputs || point != here {
            return;
        }
        self.batches += 1;
        if self.batches == *n {
            eprintln!("GLEANER_CRASH_AT: aborting at {here} of batch {n}");
            std::process::abort();
        }
    }
}

/// The stage's replay guard, if it wants one, reloaded from its output
/// topics' tails whenever the group gives it partitions.
struct Guard {
    guard: Option<ReplayGuard>,
    outputs: Vec<String>,
    brokers: String,
    per_partition: i64,
    loaded_at: u64,
}

impl Guard {
    fn new(stage: &dyn Stage, wiring: &Wiring, cfg: &Config, brokers: &str) -> Self {
        let per_partition = cfg.kafka.replay_check_records as i64;
        let outputs: Vec<String> = wiring
            .outputs
            .iter()
            .filter(|t| **t != Topic::DEAD_LETTER)
            .map(|&t| cfg.topic_name(t))
            .collect();
        let capacity =
            (per_partition as usize * cfg.kafka.partitions.max(1) as usize * outputs.len()) * 4;
        Guard {
            guard: (stage.replay_guard() && per_partition > 0).then(|| ReplayGuard::new(capacity)),
            outputs,
            brokers: brokers.to_string(),
            per_partition,
            loaded_at: 0,
        }
    }

    fn reload_if_reassigned(&mut self, state: &GroupState, stage: &str) {
        let Some(guard) = self.guard.as_mut() else {
            return;
        };
        let assignments = state.assignments();
        if assignments == self.loaded_at {
            return;
        }
        self.loaded_at = assignments;
        let started = Instant::now();
        let mut known = 0;
        for topic in &self.outputs {
            let read = tokio::task::block_in_place(|| {
                super::admin::read_records(&self.brokers, topic, self.per_partition)
            });
            match read {
                Ok(records) => {
                    for (key, value) in records {
                        if let Some(v) = value {
                            guard.known(topic, key.as_deref(), &v);
                            known += 1;
                        }
                    }
                }
                Err(e) => {
                    tracing::warn!(stage, topic, error = %e, "reading the output tail for the replay guard failed")
                }
            }
        }
        tracing::info!(
            stage,
            records = known,
            ms = started.elapsed().as_millis() as u64,
            "replay guard loaded from the output topics"
        );
    }

    fn fresh(&mut self, outs: Vec<Output>, cfg: &Config, stage: &str) -> Vec<Output> {
        let Some(guard) = self.guard.as_mut() else {
            return outs;
        };
        let (kept, dropped) = guard.fresh(outs, |o| cfg.topic_name(o.topic));
        if dropped > 0 {
            tracing::info!(
                stage,
                records = dropped,
                "replayed records not produced again"
            );
            gleaner_core::metrics::add(
                "gleaner_replayed_records_dropped_total",
                &[("stage", stage)],
                dropped as u64,
            );
        }
        kept
    }
}
