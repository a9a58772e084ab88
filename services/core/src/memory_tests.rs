//! Tests of the in-process bus.

use super::*;
use crate::stage::Handled;
use async_trait::async_trait;

/// A pipeline's options without sink files.
fn options(channel_capacity: usize, batch_max: usize, workers: usize) -> MemoryOptions {
    MemoryOptions {
        channel_capacity,
        batch_max,
        workers,
        sink_dir: None,
        sink_topics: vec![],
    }
}

/// Where each test stage sits in its pipeline.
trait Wire: Stage + Sized {
    const WIRING: (&'static str, &'static [Topic], &'static [Topic]);

    fn wired(self) -> Wired {
        let (name, inputs, outputs) = Self::WIRING;
        Wired {
            wiring: Wiring {
                name,
                inputs: inputs.to_vec(),
                outputs: outputs.to_vec(),
                every_instance: Vec::new(),
                chained: Vec::new(),
            },
            stage: Box::new(self),
        }
    }
}

impl Wire for Countdown {
    const WIRING: (&'static str, &'static [Topic], &'static [Topic]) = (
        "countdown",
        &[Topic::SEEDS, Topic::FRONTIER],
        &[Topic::FRONTIER, Topic::PAGES],
    );
}

impl Wire for SlowSink {
    const WIRING: (&'static str, &'static [Topic], &'static [Topic]) =
        ("sink", &[Topic::PAGES], &[]);
}

impl Wire for Later {
    const WIRING: (&'static str, &'static [Topic], &'static [Topic]) =
        ("later", &[Topic::SEEDS], &[Topic::PAGES]);
}

impl Wire for Gatherer {
    const WIRING: (&'static str, &'static [Topic], &'static [Topic]) =
        ("gatherer", &[Topic::PAGES], &[Topic::CLEANED]);
}

impl Wire for Stalled {
    const WIRING: (&'static str, &'static [Topic], &'static [Topic]) =
        ("stalled", &[Topic::PAGES], &[]);
}

impl Wire for Parallel {
    const WIRING: (&'static str, &'static [Topic], &'static [Topic]) =
        ("parallel", &[Topic::SEEDS], &[Topic::PAGES]);
}

impl Wire for Slow {
    const WIRING: (&'static str, &'static [Topic], &'static [Topic]) =
        ("slow", &[Topic::SEEDS], &[Topic::PAGES]);
}

/// Turns a number n into n-1 on the same topic (a self-loop, like the
/// frontier) and into one record on `pages`; 0 is bad input.
struct Countdown;

#[async_trait]
impl Stage for Countdown {
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
    let p = MemoryPipeline::start(vec![Countdown.wired(), SlowSink.wired()], &opts).unwrap();
    p.publish(Output::of(Topic::SEEDS, "k", &200u64)).await;
    p.publish(Output::of(Topic::SEEDS, "k", &0u64)).await;
    p.publish(Output {
        topic: Topic::SEEDS,
        key: "k".into(),
        payload: b"{not json".to_vec().into(),
        made_by: None,
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
    let opts = options(2, 4, 1);
    let p = MemoryPipeline::start(vec![Later(vec![]).wired(), SlowSink.wired()], &opts).unwrap();
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

/// Holds every page until the run has nothing else in flight, as the index
/// gathers batches into one commit; its tick never lets go.
struct Gatherer {
    held: Vec<Input>,
    idle_calls: Arc<std::sync::atomic::AtomicUsize>,
}

#[async_trait]
impl Stage for Gatherer {
    async fn handle(&mut self, input: &Input) -> Handled {
        self.held.push(input.clone());
        Ok(vec![])
    }
    async fn idle(&mut self) -> Vec<Output> {
        self.idle_calls.fetch_add(1, Ordering::SeqCst);
        self.held
            .drain(..)
            .map(|_| Output::of(Topic::CLEANED, "k", &1u64))
            .collect()
    }
    fn held(&self) -> usize {
        self.held.len()
    }
}

#[tokio::test]
async fn a_stage_holding_the_last_work_lets_go_when_nothing_else_is_in_flight() {
    let opts = options(2, 4, 1);
    let idle_calls = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let gatherer = Gatherer {
        held: vec![],
        idle_calls: idle_calls.clone(),
    };
    let p = MemoryPipeline::start(vec![Countdown.wired(), gatherer.wired()], &opts).unwrap();
    p.publish(Output::of(Topic::SEEDS, "k", &100u64)).await;
    // Without `idle` the run never ends: the gatherer's tick keeps all.
    tokio::time::timeout(std::time::Duration::from_secs(10), p.wait_idle())
        .await
        .expect("the held pages are let go once nothing else is in flight");
    let c = p.shutdown().await.unwrap();
    assert_eq!(c[&Topic::CLEANED], 100, "every held page let go");
    let calls = idle_calls.load(Ordering::SeqCst);
    assert!(
        (1..=10).contains(&calls),
        "let go in a few gathers while the countdown ran, not per page: {calls}"
    );
}

/// The batch that leaves a stage holding all that is in flight (the last
/// page of a run reaching the index) is let go at once, not at the next
/// tick: the stage was busy with that batch when the run went quiet.
#[tokio::test(start_paused = true)]
async fn the_batch_that_makes_the_run_quiet_is_let_go_without_a_tick() {
    let idle_calls = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let gatherer = Gatherer {
        held: vec![],
        idle_calls: idle_calls.clone(),
    };
    let p = MemoryPipeline::start(vec![gatherer.wired()], &options(2, 4, 1)).unwrap();
    // Past the interval's first (immediate) tick.
    tokio::time::sleep(TICK / 2).await;
    let start = tokio::time::Instant::now();
    p.publish(Output::of(Topic::PAGES, "k", &1u64)).await;
    p.wait_idle().await;
    // Paused time moves only when every task waits on a timer, so this is
    // exact: zero, where waiting for the tick took the rest of the 200 ms.
    let waited = start.elapsed();
    assert!(waited < TICK / 4, "let go after {waited:?}");
    assert_eq!(idle_calls.load(Ordering::SeqCst), 1);
    assert_eq!(p.shutdown().await.unwrap()[&Topic::CLEANED], 1);
}

/// Takes nothing until it is let go, as an index stuck on its disk would.
struct Stalled(Arc<tokio::sync::Semaphore>);

#[async_trait]
impl Stage for Stalled {
    async fn handle(&mut self, _input: &Input) -> Handled {
        let _ = self.0.acquire().await;
        Ok(vec![])
    }
}

/// A stalled last stage holds everything before it: the stage feeding it
/// stops within a channel and a batch, however much work is left, and goes
/// on when the stall ends.
#[tokio::test]
async fn a_stalled_stage_bounds_what_waits_for_it() {
    let opts = options(2, 4, 1);
    let gate = Arc::new(tokio::sync::Semaphore::new(0));
    let p = MemoryPipeline::start(
        vec![Countdown.wired(), Stalled(gate.clone()).wired()],
        &opts,
    )
    .unwrap();
    p.publish(Output::of(Topic::SEEDS, "k", &10_000u64)).await;
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    // The stalled stage holds a page, the channel two, and the producer is
    // blocked within its batch: of 10,000, at most a channel and a batch
    // were made.
    let pages = p.counts()[&Topic::PAGES];
    assert!(
        pages <= 2 + 4,
        "{pages} pages made while the reader was stalled"
    );
    assert!(p.queued()[&Topic::PAGES] <= 2);
    gate.add_permits(1 << 20);
    p.wait_idle().await;
    assert_eq!(p.shutdown().await.unwrap()[&Topic::PAGES], 10_000);
}

/// Counts how many of its workers are handling an input at once.
struct Parallel {
    active: Arc<AtomicI64>,
    most: Arc<AtomicI64>,
}

#[async_trait]
impl Stage for Parallel {
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
        let opts = options(4, 8, workers);
        let p = MemoryPipeline::start(vec![stage.wired(), SlowSink.wired()], &opts).unwrap();
        for n in 0..24u64 {
            p.publish(Output::of(Topic::SEEDS, "k", &n)).await;
        }
        p.wait_idle().await;
        let c = p.shutdown().await.unwrap();
        assert_eq!(c[&Topic::PAGES], 24, "every input handled once");
        assert_eq!(most.load(Ordering::SeqCst), expect, "{workers} workers");
    }
    // A stage that cannot fork keeps one worker whatever is asked.
    let opts = options(2, 4, 4);
    let p = MemoryPipeline::start(vec![Later(vec![]).wired(), SlowSink.wired()], &opts).unwrap();
    assert_eq!(p.tasks.len(), 2);
    p.shutdown().await.unwrap();
}

/// A stage that takes a while over each input.
struct Slow;

#[async_trait]
impl Stage for Slow {
    async fn handle(&mut self, input: &Input) -> Handled {
        tokio::time::sleep(std::time::Duration::from_millis(30)).await;
        Ok(vec![Output::new(Topic::PAGES, "k", input.decode::<u64>()?)])
    }
}

#[tokio::test]
async fn a_stopped_run_gives_back_what_nobody_handled() {
    let opts = options(64, 1, 1);
    let p = MemoryPipeline::start(vec![Slow.wired()], &opts).unwrap();
    for n in 0..20u64 {
        p.publish(Output::of(Topic::SEEDS, "k", &n)).await;
    }
    // Stop once some are handled (waiting on the counts, not the clock: on
    // a loaded machine a fixed sleep may outlast all 20).
    while p.counts()[&Topic::PAGES] < 2 {
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
    let (counts, unhandled) = p.shutdown_keeping().await.unwrap();
    let handled = counts[&Topic::PAGES] as usize;
    assert!(handled > 0 && !unhandled.is_empty(), "{handled} handled");
    assert_eq!(handled + unhandled.len(), 20, "nothing lost, nothing twice");
    assert!(unhandled.iter().all(|i| i.topic == Topic::SEEDS));
}
