//! The in-process bus: every stage in one process, connected by bounded
//! channels, with no broker. It counts messages in flight so that a run ends
//! by itself once every stage is idle and nothing is queued.

use crate::config::Topic;
use crate::stage::{limit_unsourced, settle, Input, Output, Stage, Wired, Wiring};
use crate::sync::Locked;
use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use tokio::sync::{mpsc, watch, Notify};

enum Tx {
    Bounded(mpsc::Sender<Input>),
    // A stage that feeds itself (fetch reads the frontier it writes) would
    // deadlock on a full bounded channel; its growth is bounded by the seen
    // set and the depth limit instead.
    Unbounded(mpsc::UnboundedSender<Input>),
}

enum Rx {
    Bounded(mpsc::Receiver<Input>),
    Unbounded(mpsc::UnboundedReceiver<Input>),
}

impl Rx {
    async fn recv(&mut self) -> Option<Input> {
        match self {
            Rx::Bounded(r) => r.recv().await,
            Rx::Unbounded(r) => r.recv().await,
        }
    }
    fn try_recv(&mut self) -> Option<Input> {
        match self {
            Rx::Bounded(r) => r.try_recv().ok(),
            Rx::Unbounded(r) => r.try_recv().ok(),
        }
    }
}

/// Messages produced per topic during a run.
pub type Counts = BTreeMap<Topic, u64>;

/// Sees every record published on its topics (the run's report).
pub type Tap = Arc<dyn Fn(&Output) + Send + Sync>;

struct Bus {
    consumers: HashMap<Topic, Vec<Arc<Tx>>>,
    produced: HashMap<Topic, AtomicU64>,
    in_flight: AtomicI64,
    idle: Notify,
    /// What the stages hold, of `in_flight`; when the two are equal,
    /// `quiet` wakes the stages that hold (see [`Stage::idle`]).
    held: AtomicI64,
    quiet: Notify,
    sinks: HashMap<Topic, Mutex<Sink>>,
    tap: std::sync::OnceLock<(Vec<Topic>, Tap)>,
    /// Topics closed by [`MemoryPipeline::close_intake`]: what is published
    /// on them is kept, not delivered.
    closed: std::sync::RwLock<Vec<Topic>>,
    kept: Mutex<Vec<Input>>,
}

/// A topic appended to a JSON-lines file as records pass; `gleaner run`
/// flushes it every second ([`MemoryPipeline::flush`]) so `tail -f` follows.
struct Sink {
    file: std::io::BufWriter<std::fs::File>,
}

impl Sink {
    fn append(&mut self, line: &[u8]) {
        let _ = self
            .file
            .write_all(line)
            .and_then(|_| self.file.write_all(b"\n"));
    }
}

impl Bus {
    async fn publish(&self, out: Output) {
        if let Some(c) = self.produced.get(&out.topic) {
            c.fetch_add(1, Ordering::Relaxed);
        }
        if let Some(sink) = self.sinks.get(&out.topic) {
            sink.locked().append(&out.payload.bytes());
        }
        if let Some((topics, tap)) = self.tap.get() {
            if topics.contains(&out.topic) {
                tap(&out);
            }
        }
        if self.is_closed(out.topic) {
            self.kept.locked().push(Input {
                topic: out.topic,
                key: Some(out.key.clone()),
                payload: Some(out.payload.clone()),
                origin: None,
            });
            return;
        }
        let Some(txs) = self.consumers.get(&out.topic) else {
            return;
        };
        for tx in txs {
            let input = Input {
                topic: out.topic,
                key: Some(out.key.clone()),
                payload: Some(out.payload.clone()),
                origin: None,
            };
            self.in_flight.fetch_add(1, Ordering::SeqCst);
            let sent = match tx.as_ref() {
                Tx::Bounded(s) => s.send(input).await.is_ok(),
                Tx::Unbounded(s) => s.send(input).is_ok(),
            };
            if !sent {
                self.done(1);
            }
        }
    }

    fn is_closed(&self, topic: Topic) -> bool {
        self.closed
            .read()
            .is_ok_and(|closed| closed.contains(&topic))
    }

    fn done(&self, n: i64) {
        let left = self.in_flight.fetch_sub(n, Ordering::SeqCst) - n;
        if left == 0 {
            self.idle.notify_waiters();
        } else if left == self.held.load(Ordering::SeqCst) {
            self.quiet.notify_waiters();
        }
    }

    /// Moves a stage's held count from `was` to `now` in the in-flight count.
    fn hold(&self, was: i64, now: usize) -> i64 {
        let now = now as i64;
        match now - was {
            d if d > 0 => {
                self.held.fetch_add(d, Ordering::SeqCst);
                self.in_flight.fetch_add(d, Ordering::SeqCst);
            }
            d if d < 0 => {
                self.held.fetch_add(d, Ordering::SeqCst);
                self.done(-d)
            }
            _ => {}
        }
        now
    }

    /// Messages waiting in the bounded channels before each topic's readers.
    fn queued(&self) -> Counts {
        self.consumers
            .iter()
            .map(|(t, txs)| {
                let n = txs
                    .iter()
                    .map(|tx| match tx.as_ref() {
                        Tx::Bounded(s) => (s.max_capacity() - s.capacity()) as u64,
                        Tx::Unbounded(_) => 0,
                    })
                    .sum();
                (*t, n)
            })
            .collect()
    }

    fn counts(&self) -> Counts {
        self.produced
            .iter()
            .map(|(t, c)| (*t, c.load(Ordering::Relaxed)))
            .collect()
    }
}

/// Options of an in-process run.
pub struct MemoryOptions {
    pub channel_capacity: usize,
    pub batch_max: usize,
    /// Workers of each stage that can have several ([`Stage::fork`]).
    pub workers: usize,
    /// Topics nobody reads in-process are appended here as `<topic>.jsonl`.
    pub sink_dir: Option<PathBuf>,
    pub sink_topics: Vec<Topic>,
}

/// A running in-process pipeline.
pub struct MemoryPipeline {
    bus: Arc<Bus>,
    stop: watch::Sender<bool>,
    drain: watch::Sender<bool>,
    tasks: Vec<tokio::task::JoinHandle<anyhow::Result<()>>>,
    /// Each stage's input queue, for what is left in it at the end.
    queues: Vec<Arc<tokio::sync::Mutex<Rx>>>,
}

impl MemoryPipeline {
    /// Wires the stages together and starts them.
    pub fn start(stages: Vec<Wired>, opts: &MemoryOptions) -> anyhow::Result<Self> {
        let mut consumers: HashMap<Topic, Vec<Arc<Tx>>> = HashMap::new();
        let mut receivers = Vec::new();
        for Wired { wiring, .. } in &stages {
            let loops = wiring.inputs.iter().any(|t| wiring.outputs.contains(t));
            let (tx, rx) = if loops {
                let (tx, rx) = mpsc::unbounded_channel();
                (Tx::Unbounded(tx), Rx::Unbounded(rx))
            } else {
                let (tx, rx) = mpsc::channel(opts.channel_capacity);
                (Tx::Bounded(tx), Rx::Bounded(rx))
            };
            let tx = Arc::new(tx);
            for &t in &wiring.inputs {
                consumers.entry(t).or_default().push(tx.clone());
            }
            receivers.push(rx);
        }
        let mut sinks = HashMap::new();
        if let Some(dir) = &opts.sink_dir {
            std::fs::create_dir_all(dir)?;
            for t in &opts.sink_topics {
                let f = std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(dir.join(format!("{}.jsonl", t.short())))?;
                let sink = Sink {
                    file: std::io::BufWriter::new(f),
                };
                sinks.insert(*t, Mutex::new(sink));
            }
        }
        let bus = Arc::new(Bus {
            consumers,
            produced: Topic::BUILT_IN
                .into_iter()
                .chain(stages.iter().flat_map(|s| s.wiring.outputs.iter().copied()))
                .map(|t| (t, AtomicU64::new(0)))
                .collect(),
            in_flight: AtomicI64::new(0),
            idle: Notify::new(),
            held: AtomicI64::new(0),
            quiet: Notify::new(),
            sinks,
            tap: std::sync::OnceLock::new(),
            closed: Default::default(),
            kept: Mutex::default(),
        });
        let (stop, stop_rx) = watch::channel(false);
        let (drain, drain_rx) = watch::channel(false);
        let mut tasks = Vec::new();
        let mut queues = Vec::new();
        for (Wired { wiring, stage }, rx) in stages.into_iter().zip(receivers) {
            // Workers share one queue; each takes what it handles next.
            let rx = Arc::new(tokio::sync::Mutex::new(rx));
            queues.push(rx.clone());
            let mut workers = vec![stage];
            while workers.len() < opts.workers {
                match workers[0].fork() {
                    Some(w) => workers.push(w),
                    None => break,
                }
            }
            // Several workers take one input at a time, so that each has
            // work while any is queued; a lone worker takes a batch.
            let batch_max = if workers.len() > 1 { 1 } else { opts.batch_max };
            for stage in workers {
                tasks.push(tokio::spawn(run_stage(
                    stage,
                    wiring.clone(),
                    rx.clone(),
                    bus.clone(),
                    Signals {
                        stop: stop_rx.clone(),
                        drain: drain_rx.clone(),
                    },
                    batch_max,
                )));
            }
        }
        Ok(MemoryPipeline {
            bus,
            stop,
            drain,
            tasks,
            queues,
        })
    }

    /// The first step of a clean stop: nothing more is delivered on
    /// `topics` (what is published there is kept, see
    /// [`shutdown_keeping`](Self::shutdown_keeping)), and each stage that
    /// reads only those topics hands back what it holds ([`Stage::drain`]:
    /// fetch finishes its requests in flight and returns the URLs it had
    /// not started). The rest of the flow goes on, so [`wait_idle`]
    /// (Self::wait_idle) then means everything taken in has gone through.
    pub fn close_intake(&self, topics: &[Topic]) {
        if let Ok(mut closed) = self.bus.closed.write() {
            closed.extend_from_slice(topics);
        }
        let _ = self.drain.send(true);
    }

    /// Has `tap` see every record published on `topics` from now on (once
    /// per pipeline; a second tap is ignored).
    pub fn set_tap(&self, topics: Vec<Topic>, tap: Tap) {
        let _ = self.bus.tap.set((topics, tap));
    }

    /// Puts messages on the bus as if a user had produced them.
    pub async fn publish(&self, out: Output) {
        self.bus.publish(out).await;
    }

    /// Writes out what the sink files buffer (the run calls this every
    /// second, so a record is on disk within a second of passing).
    pub fn flush(&self) {
        for sink in self.bus.sinks.values() {
            let _ = sink.locked().file.flush();
        }
    }

    /// Messages produced per topic so far.
    pub fn counts(&self) -> Counts {
        self.bus.counts()
    }

    /// Messages waiting before each topic's readers (in the bounded
    /// channels; a stage's own loop, like fetch's frontier, is not counted).
    pub fn queued(&self) -> Counts {
        self.bus.queued()
    }

    /// Messages queued or being handled.
    pub fn in_flight(&self) -> i64 {
        self.bus.in_flight.load(Ordering::SeqCst)
    }

    /// Waits until nothing is queued or being handled.
    pub async fn wait_idle(&self) {
        loop {
            let notified = self.bus.idle.notified();
            if self.in_flight() <= 0 {
                return;
            }
            notified.await;
        }
    }

    /// Stops every stage (each finishes its current batch and closes) and
    /// returns the final counts.
    pub async fn shutdown(self) -> anyhow::Result<Counts> {
        self.shutdown_keeping().await.map(|(counts, _)| counts)
    }

    /// Like [`shutdown`](Self::shutdown), and gives the records still queued
    /// for a stage, which nobody handled (a run stopped before it was idle
    /// keeps them for the next one).
    pub async fn shutdown_keeping(self) -> anyhow::Result<(Counts, Vec<Input>)> {
        let _ = self.stop.send(true);
        let mut first_err = None;
        for t in self.tasks {
            match t.await {
                Ok(Ok(())) => {}
                Ok(Err(e)) => first_err = first_err.or(Some(e)),
                Err(e) => first_err = first_err.or(Some(anyhow::anyhow!("stage task failed: {e}"))),
            }
        }
        for sink in self.bus.sinks.values() {
            sink.locked().file.flush()?;
        }
        let mut unhandled = std::mem::take(&mut *self.bus.kept.locked());
        for q in &self.queues {
            let mut rx = q.lock().await;
            while let Some(input) = rx.try_recv() {
                unhandled.push(input);
            }
        }
        match first_err {
            Some(e) => Err(e),
            None => Ok((self.bus.counts(), unhandled)),
        }
    }
}

/// How often stages' [`Stage::tick`] runs in-process.
const TICK: std::time::Duration = std::time::Duration::from_millis(200);

/// What a stage's loop does next.
enum Next {
    Batch(Vec<Input>),
    Tick,
    Quiet,
    Drain,
    Stop,
}

/// What a stage task is told: stop, or hand back what it holds.
struct Signals {
    stop: watch::Receiver<bool>,
    drain: watch::Receiver<bool>,
}

async fn run_stage(
    mut stage: Box<dyn Stage>,
    wiring: Wiring,
    rx: Arc<tokio::sync::Mutex<Rx>>,
    bus: Arc<Bus>,
    signals: Signals,
    batch_max: usize,
) -> anyhow::Result<()> {
    let Signals {
        mut stop,
        mut drain,
    } = signals;
    let mut drained = false;
    let name = wiring.name;
    let mut tick = tokio::time::interval(TICK);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    // What the stage holds counts as in flight, so the run waits for it.
    let mut held = 0i64;
    loop {
        // A stop outranks queued input: `select!` picks among ready branches
        // at random, so without this check a busy stage went on through its
        // queue after the stop, which `shutdown_keeping` should hand back.
        if *stop.borrow() {
            break;
        }
        let next = async {
            let mut rx = rx.lock().await;
            let mut batch = vec![rx.recv().await?];
            while batch.len() < batch_max {
                match rx.try_recv() {
                    Some(m) => batch.push(m),
                    None => break,
                }
            }
            Some(batch)
        };
        let next = tokio::select! {
            b = next => b.map_or(Next::Stop, Next::Batch),
            // The guard wait_for returns must not live across the tick's await.
            () = async { let _ = stop.wait_for(|s| *s).await; } => Next::Stop,
            () = async { let _ = drain.wait_for(|d| *d).await; }, if !drained => Next::Drain,
            _ = tick.tick() => Next::Tick,
            () = stage.ready() => Next::Tick,
            () = bus.quiet.notified(), if held > 0 => Next::Quiet,
        };
        let batch = match next {
            Next::Batch(b) => b,
            Next::Stop => break,
            Next::Drain => {
                drained = true;
                let inputs = &wiring.inputs;
                if inputs.is_empty() || !inputs.iter().all(|t| bus.is_closed(*t)) {
                    continue;
                }
                // Its intake is closed: what waits for it is kept, and it
                // hands back what it holds.
                let mut waiting = Vec::new();
                {
                    let mut rx = rx.lock().await;
                    while let Some(i) = rx.try_recv() {
                        waiting.push(i);
                    }
                }
                bus.done(waiting.len() as i64);
                bus.kept.locked().extend(waiting);
                for out in limit_unsourced(name, stage.drain().await, None) {
                    bus.publish(out).await;
                }
                stage.produced().await;
                held = bus.hold(held, stage.held());
                continue;
            }
            Next::Tick => {
                for out in limit_unsourced(name, stage.tick().await, None) {
                    bus.publish(out).await;
                }
                stage.produced().await;
                held = bus.hold(held, stage.held());
                // Also a check for a quiet moment `quiet` missed (its two
                // counts are read one after the other).
                held = when_alone(name, &mut *stage, &bus, held).await;
                continue;
            }
            Next::Quiet => {
                held = when_alone(name, &mut *stage, &bus, held).await;
                continue;
            }
        };
        let started = std::time::Instant::now();
        let results = stage.handle_batch(&batch).await;
        crate::metrics::observe(
            "gleaner_stage_batch_seconds",
            &[("stage", name)],
            started.elapsed().as_secs_f64(),
        );
        debug_assert_eq!(results.len(), batch.len());
        for (input, handled) in batch.iter().zip(results) {
            for out in settle(name, input, handled, None) {
                bus.publish(out).await;
            }
        }
        stage.produced().await;
        held = bus.hold(held, stage.held());
        bus.done(batch.len() as i64);
        // If this batch left the stage holding all that is in flight, the
        // `quiet` it just sent had no one waiting (this task was busy):
        // without this check the last batch of a run waited for a tick.
        held = when_alone(name, &mut *stage, &bus, held).await;
    }
    stage.close().await
}

/// Lets the stage go of what it holds ([`Stage::idle`]) when that is all
/// the run has in flight; returns what it holds after.
async fn when_alone(name: &str, stage: &mut dyn Stage, bus: &Bus, held: i64) -> i64 {
    if held == 0 || bus.in_flight.load(Ordering::SeqCst) != held {
        return held;
    }
    for out in limit_unsourced(name, stage.idle().await, None) {
        bus.publish(out).await;
    }
    stage.produced().await;
    bus.hold(held, stage.held())
}

#[cfg(test)]
#[path = "memory_tests.rs"]
mod tests;
