//! The in-process bus: every stage in one process, connected by bounded
//! channels, with no broker. It counts messages in flight so that a run ends
//! by itself once every stage is idle and nothing is queued.

use crate::config::Topic;
use crate::stage::{limit_unsourced, settle, Input, Output, Stage};
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
    sinks: HashMap<Topic, Mutex<Sink>>,
    tap: std::sync::OnceLock<(Vec<Topic>, Tap)>,
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

    fn done(&self, n: i64) {
        if self.in_flight.fetch_sub(n, Ordering::SeqCst) == n {
            self.idle.notify_waiters();
        }
    }

    /// Moves a stage's held count from `was` to `now` in the in-flight count.
    fn hold(&self, was: i64, now: usize) -> i64 {
        let now = now as i64;
        match now - was {
            d if d > 0 => {
                self.in_flight.fetch_add(d, Ordering::SeqCst);
            }
            d if d < 0 => self.done(-d),
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
    tasks: Vec<tokio::task::JoinHandle<anyhow::Result<()>>>,
}

impl MemoryPipeline {
    /// Wires the stages together and starts them.
    pub fn start(stages: Vec<Box<dyn Stage>>, opts: &MemoryOptions) -> anyhow::Result<Self> {
        let mut consumers: HashMap<Topic, Vec<Arc<Tx>>> = HashMap::new();
        let mut receivers = Vec::new();
        for stage in &stages {
            let loops = stage.inputs().iter().any(|t| stage.outputs().contains(t));
            let (tx, rx) = if loops {
                let (tx, rx) = mpsc::unbounded_channel();
                (Tx::Unbounded(tx), Rx::Unbounded(rx))
            } else {
                let (tx, rx) = mpsc::channel(opts.channel_capacity);
                (Tx::Bounded(tx), Rx::Bounded(rx))
            };
            let tx = Arc::new(tx);
            for t in stage.inputs() {
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
                .chain(stages.iter().flat_map(|s| s.outputs()))
                .map(|t| (t, AtomicU64::new(0)))
                .collect(),
            in_flight: AtomicI64::new(0),
            idle: Notify::new(),
            sinks,
            tap: std::sync::OnceLock::new(),
        });
        let (stop, stop_rx) = watch::channel(false);
        let mut tasks = Vec::new();
        for (stage, rx) in stages.into_iter().zip(receivers) {
            // Workers share one queue; each takes what it handles next.
            let rx = Arc::new(tokio::sync::Mutex::new(rx));
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
                    rx.clone(),
                    bus.clone(),
                    stop_rx.clone(),
                    batch_max,
                )));
            }
        }
        Ok(MemoryPipeline { bus, stop, tasks })
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
        match first_err {
            Some(e) => Err(e),
            None => Ok(self.bus.counts()),
        }
    }
}

/// How often stages' [`Stage::tick`] runs in-process.
const TICK: std::time::Duration = std::time::Duration::from_millis(200);

/// What a stage's loop does next.
enum Next {
    Batch(Vec<Input>),
    Tick,
    Stop,
}

async fn run_stage(
    mut stage: Box<dyn Stage>,
    rx: Arc<tokio::sync::Mutex<Rx>>,
    bus: Arc<Bus>,
    mut stop: watch::Receiver<bool>,
    batch_max: usize,
) -> anyhow::Result<()> {
    let name = stage.name();
    let mut tick = tokio::time::interval(TICK);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    // What the stage holds counts as in flight, so the run waits for it.
    let mut held = 0i64;
    loop {
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
            _ = tick.tick() => Next::Tick,
            () = stage.ready() => Next::Tick,
        };
        let batch = match next {
            Next::Batch(b) => b,
            Next::Stop => break,
            Next::Tick => {
                for out in limit_unsourced(name, stage.tick().await, None) {
                    bus.publish(out).await;
                }
                stage.produced().await;
                held = bus.hold(held, stage.held());
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
    }
    stage.close().await
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stage::Handled;
    use async_trait::async_trait;

    /// Turns a number n into n-1 on the same topic (a self-loop, like the
    /// frontier) and into one record on `pages`; 0 is bad input.
    struct Countdown;

    #[async_trait]
    impl Stage for Countdown {
        fn name(&self) -> &'static str {
            "countdown"
        }
        fn inputs(&self) -> Vec<Topic> {
            vec![Topic::SEEDS, Topic::FRONTIER]
        }
        fn outputs(&self) -> Vec<Topic> {
            vec![Topic::FRONTIER, Topic::PAGES]
        }
        async fn handle(&mut self, input: &Input) -> Handled {
            let n: u64 = input.decode()?;
            anyhow::ensure!(n > 0, "zero is not allowed");
            let mut outs = vec![Output::of(Topic::PAGES, "k", &"x".repeat(n as usize * 10))];
            if n > 1 {
                outs.push(Output::of(Topic::FRONTIER, "k", &(n - 1)));
            }
            Ok(outs)
        }
    }

    /// Reads pages slowly, so the bounded channel before it fills up.
    struct SlowSink;

    #[async_trait]
    impl Stage for SlowSink {
        fn name(&self) -> &'static str {
            "sink"
        }
        fn inputs(&self) -> Vec<Topic> {
            vec![Topic::PAGES]
        }
        fn outputs(&self) -> Vec<Topic> {
            vec![]
        }
        async fn handle(&mut self, _input: &Input) -> Handled {
            tokio::time::sleep(std::time::Duration::from_millis(1)).await;
            Ok(vec![])
        }
    }

    #[tokio::test]
    async fn runs_to_idle_with_loops_backpressure_and_dead_letters() {
        let dir = tempfile::tempdir().unwrap();
        let opts = MemoryOptions {
            channel_capacity: 2,
            batch_max: 4,
            workers: 1,
            sink_dir: Some(dir.path().to_path_buf()),
            sink_topics: vec![Topic::DEAD_LETTER],
        };
        let p =
            MemoryPipeline::start(vec![Box::new(Countdown), Box::new(SlowSink)], &opts).unwrap();
        p.publish(Output::of(Topic::SEEDS, "k", &200u64)).await;
        p.publish(Output::of(Topic::SEEDS, "k", &0u64)).await;
        p.publish(Output {
            topic: Topic::SEEDS,
            key: "k".into(),
            payload: b"{not json".to_vec().into(),
        })
        .await;
        p.wait_idle().await;
        // On disk while the run goes on, once flushed (the run does it
        // every second).
        let sink = dir.path().join("dead-letter.jsonl");
        p.flush();
        assert_eq!(std::fs::read_to_string(&sink).unwrap().lines().count(), 2);
        let c = p.shutdown().await.unwrap();
        assert_eq!(c[&Topic::FRONTIER], 199);
        // No broker in-process, so no record limit: all 200 pages pass
        // (the Kafka runner's limit is tested in stage.rs).
        assert_eq!(c[&Topic::PAGES], 200);
        assert_eq!(c[&Topic::DEAD_LETTER], 2);
        let dead = std::fs::read_to_string(dir.path().join("dead-letter.jsonl")).unwrap();
        assert_eq!(dead.lines().count(), 2);
        assert!(dead.contains("zero is not allowed") && dead.contains("malformed message"));
        for line in dead.lines() {
            let dl: crate::messages::DeadLetter = serde_json::from_str(line).unwrap();
            assert_eq!(dl.stage, "countdown");
        }
    }

    /// Answers nothing in handle: holds each input and answers it in a
    /// later tick, as fetch does with requests that outlive their batch.
    struct Later(Vec<u64>);

    #[async_trait]
    impl Stage for Later {
        fn name(&self) -> &'static str {
            "later"
        }
        fn inputs(&self) -> Vec<Topic> {
            vec![Topic::SEEDS]
        }
        fn outputs(&self) -> Vec<Topic> {
            vec![Topic::PAGES]
        }
        async fn handle(&mut self, input: &Input) -> Handled {
            self.0.push(input.decode()?);
            Ok(vec![])
        }
        async fn tick(&mut self) -> Vec<Output> {
            self.0
                .drain(..)
                .map(|n| Output::of(Topic::PAGES, "k", &"x".repeat(n as usize * 300)))
                .collect()
        }
        fn held(&self) -> usize {
            self.0.len()
        }
    }

    #[tokio::test]
    async fn a_run_waits_for_what_a_stage_holds() {
        let opts = MemoryOptions {
            channel_capacity: 2,
            batch_max: 4,
            workers: 1,
            sink_dir: None,
            sink_topics: vec![],
        };
        let p = MemoryPipeline::start(vec![Box::new(Later(vec![])), Box::new(SlowSink)], &opts)
            .unwrap();
        for n in 0..5u64 {
            p.publish(Output::of(Topic::SEEDS, "k", &n)).await;
        }
        p.wait_idle().await;
        let c = p.shutdown().await.unwrap();
        assert_eq!(
            c[&Topic::PAGES],
            5,
            "idle only once the held inputs were answered"
        );
    }

    /// Counts how many of its workers are handling an input at once.
    struct Parallel {
        active: Arc<AtomicI64>,
        most: Arc<AtomicI64>,
    }

    #[async_trait]
    impl Stage for Parallel {
        fn name(&self) -> &'static str {
            "parallel"
        }
        fn inputs(&self) -> Vec<Topic> {
            vec![Topic::SEEDS]
        }
        fn outputs(&self) -> Vec<Topic> {
            vec![Topic::PAGES]
        }
        fn fork(&self) -> Option<Box<dyn Stage>> {
            Some(Box::new(Parallel {
                active: self.active.clone(),
                most: self.most.clone(),
            }))
        }
        async fn handle(&mut self, input: &Input) -> Handled {
            let now = self.active.fetch_add(1, Ordering::SeqCst) + 1;
            self.most.fetch_max(now, Ordering::SeqCst);
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            self.active.fetch_sub(1, Ordering::SeqCst);
            Ok(vec![Output::of(Topic::PAGES, "k", &input.decode::<u64>()?)])
        }
    }

    #[tokio::test]
    async fn a_forkable_stage_runs_on_several_workers_and_the_others_on_one() {
        for (workers, expect) in [(3, 3), (1, 1)] {
            let most = Arc::new(AtomicI64::new(0));
            let stage = Parallel {
                active: Arc::default(),
                most: most.clone(),
            };
            let opts = MemoryOptions {
                channel_capacity: 4,
                batch_max: 8,
                workers,
                sink_dir: None,
                sink_topics: vec![],
            };
            let p =
                MemoryPipeline::start(vec![Box::new(stage), Box::new(SlowSink)], &opts).unwrap();
            for n in 0..24u64 {
                p.publish(Output::of(Topic::SEEDS, "k", &n)).await;
            }
            p.wait_idle().await;
            let c = p.shutdown().await.unwrap();
            assert_eq!(c[&Topic::PAGES], 24, "every input handled once");
            assert_eq!(most.load(Ordering::SeqCst), expect, "{workers} workers");
        }
        // A stage that cannot fork keeps one worker whatever is asked.
        let opts = MemoryOptions {
            channel_capacity: 2,
            batch_max: 4,
            workers: 4,
            sink_dir: None,
            sink_topics: vec![],
        };
        let p = MemoryPipeline::start(vec![Box::new(Later(vec![])), Box::new(SlowSink)], &opts)
            .unwrap();
        assert_eq!(p.tasks.len(), 2);
        p.shutdown().await.unwrap();
    }
}
