//! Consecutive stages run as one service on Kafka (`gleaner stage
//! clean+extract`), as Flink chains operators whose data need not be
//! repartitioned between them: the first stage's outputs for the next are
//! handed over in memory, as in `gleaner run`, instead of going to the
//! broker and back. The topic between them (the link) is not written, so
//! a page costs the broker a record, a consumer's fetches and a hop's wait
//! fewer per link, and gleaner the JSON of that record both ways.
//!
//! Which stages may be chained is the flow's to say
//! (`registry::Flow::chain`); this file only runs them. The first stage's
//! answers are settled by the runner, under the service's name (the first
//! stage's); a later stage's answers to the link records are settled
//! here, under that stage's own name (its counters, and its dead letters
//! with the link record as their payload and the original input's
//! origin, so a dead letter names what failed and where its input came
//! from), and marked as its own (`Output::made_by`) so the runner does not
//! count them again. A later stage's side inputs are answered as they
//! come and settled by the runner under that stage's name
//! (`Stage::answered_by`).

use crate::config::Topic;
use crate::stage::{
    handle_as_batch, settle, Handled, Input, InputPositions, Output, Stage, Wired, Wiring,
};
use crate::workers::Workers;
use async_trait::async_trait;

/// Two stages as one: `first`'s outputs on `link` are `then`'s inputs.
/// A longer chain nests (`fetch` then (`clean` then `extract`)).
pub struct Chain {
    first: Box<dyn Stage>,
    /// The topics `first` reads: an input on any other topic (a side input
    /// of `then`, such as the index's duplicates) goes to `then` directly.
    first_reads: Vec<Topic>,
    link: Topic,
    then: Box<dyn Stage>,
    then_name: &'static str,
    /// `first`'s name, under which what it hands on is counted as its
    /// outputs, as the runner counts a stage's outputs to a topic.
    first_name: &'static str,
    /// `then`'s forks, when `first` cannot fork (fetch): what `first`
    /// hands on is then handled on every core, as the runner handles a
    /// batch of a stage that forks (a chain whose stages all fork is
    /// forked whole by the runner instead).
    then_workers: Option<Workers>,
    /// `first`'s forks, when `then` cannot fork (summarize before the
    /// index): the batch is handled on every core before it is handed on.
    first_workers: Option<Workers>,
    /// The broker's record limit: `then`'s records past it are dead
    /// letters under its name.
    max_record_bytes: Option<usize>,
}

/// `first` and `then` wired as one service reading `first`'s inputs and
/// `then`'s side inputs, writing everything but `link`, under `first`'s
/// name (its consumer group and status); `workers` in all for `then`
/// when `first` cannot fork; records of `then` past `max_record_bytes`
/// are its dead letters.
pub fn chain(
    first: Wired,
    then: Wired,
    link: Topic,
    workers: usize,
    max_record_bytes: Option<usize>,
) -> Wired {
    // Each topic once, in order, the link left out where it is not read.
    let union = |a: &[Topic], b: &[Topic]| {
        let mut all: Vec<Topic> = Vec::with_capacity(a.len() + b.len());
        for t in a.iter().chain(b).filter(|t| **t != link) {
            if !all.contains(t) {
                all.push(*t);
            }
        }
        all
    };
    let inputs = union(&first.wiring.inputs, &then.wiring.inputs);
    let outputs = union(&first.wiring.outputs, &then.wiring.outputs);
    let every_instance = union(&first.wiring.every_instance, &then.wiring.every_instance);
    let mut chained = first.wiring.chained.clone();
    chained.push(then.wiring.name);
    chained.extend(&then.wiring.chained);
    let wiring = Wiring {
        name: first.wiring.name,
        inputs,
        outputs,
        every_instance,
        chained,
    };
    // The runner forks a chain whose stages all fork; otherwise the
    // stage that forks is spread over the cores here.
    let (first_forks, then_forks) = (first.stage.fork().is_some(), then.stage.fork().is_some());
    let then_workers = (!first_forks && then_forks).then(|| Workers::new(&*then.stage, workers));
    let first_workers = (first_forks && !then_forks).then(|| Workers::new(&*first.stage, workers));
    Wired {
        wiring,
        stage: Box::new(Chain {
            first: first.stage,
            first_reads: first.wiring.inputs,
            link,
            then: then.stage,
            then_name: then.wiring.name,
            first_name: first.wiring.name,
            then_workers,
            first_workers,
            max_record_bytes,
        }),
    }
}

/// The hooks whose outputs answer no input ([`Stage::tick`],
/// [`Stage::idle`], [`Stage::drain`]).
enum Hook {
    Tick,
    Idle,
    Drain,
}

impl Chain {
    /// `first`'s answers to `inputs`, on its forks where it has them.
    async fn first_handle(&mut self, inputs: &[Input]) -> Vec<Handled> {
        match &mut self.first_workers {
            Some(workers) => workers.handle(&mut self.first, inputs).await,
            None => self.first.handle_batch(inputs).await,
        }
    }

    /// `then`'s answers to `inputs`, on its forks where it has them.
    async fn then_handle(&mut self, inputs: &[Input]) -> Vec<Handled> {
        match &mut self.then_workers {
            Some(workers) => workers.handle(&mut self.then, inputs).await,
            None => self.then.handle_batch(inputs).await,
        }
    }

    /// `outs` of `first` with those on the link as inputs of `then`
    /// (from `origin_of`'s origin), the rest kept.
    fn split(&self, outs: Vec<Output>, origin_of: Option<&Input>) -> (Vec<Output>, Vec<Input>) {
        let (mut kept, mut linked) = (Vec::new(), Vec::new());
        for o in outs {
            if o.topic == self.link {
                linked.push(Input {
                    topic: self.link,
                    key: Some(o.key),
                    payload: Some(o.payload),
                    origin: origin_of.and_then(|i| i.origin.clone()),
                });
            } else {
                kept.push(o);
            }
        }
        (kept, linked)
    }

    /// `then`'s answer to a link record, settled under its name and
    /// marked as its own.
    fn settle_then(&self, input: &Input, handled: Handled) -> Vec<Output> {
        let mut outs = settle(self.then_name, input, handled, self.max_record_bytes);
        self.mark(&mut outs);
        outs
    }

    /// `outs` marked as `then`'s (a nested chain's later stage keeps its
    /// own mark).
    fn mark(&self, outs: &mut [Output]) {
        for o in outs {
            o.made_by.get_or_insert(self.then_name);
        }
    }

    /// A hook's outputs: `first`'s, with those on the link handled by
    /// `then`, then `then`'s own, marked as its.
    async fn hook(&mut self, hook: Hook) -> Vec<Output> {
        let outs = match hook {
            Hook::Tick => self.first.tick().await,
            Hook::Idle => self.first.idle().await,
            Hook::Drain => self.first.drain().await,
        };
        let mut all = self.onward(outs).await;
        let mut own = match hook {
            Hook::Tick => self.then.tick().await,
            Hook::Idle => self.then.idle().await,
            Hook::Drain => self.then.drain().await,
        };
        self.mark(&mut own);
        all.extend(own);
        all
    }

    /// `outs` of `first` that answer no input (its ticks, its drain) with
    /// those on the link handled by `then`.
    async fn onward(&mut self, outs: Vec<Output>) -> Vec<Output> {
        let (mut kept, linked) = self.split(outs, None);
        if !linked.is_empty() {
            let answers = self.then_handle(&linked).await;
            for (input, handled) in linked.iter().zip(answers) {
                kept.extend(self.settle_then(input, handled));
            }
        }
        kept
    }
}

#[async_trait]
impl Stage for Chain {
    async fn handle(&mut self, input: &Input) -> Handled {
        handle_as_batch(self, input).await
    }

    async fn handle_batch(&mut self, inputs: &[Input]) -> Vec<Handled> {
        let mine: Vec<bool> = inputs
            .iter()
            .map(|i| self.first_reads.contains(&i.topic))
            .collect();
        // Most batches are all the first stage's: handed over as they are.
        let firsts: Vec<Handled> = if mine.iter().all(|&m| m) {
            self.first_handle(inputs).await
        } else {
            let its: Vec<Input> = inputs
                .iter()
                .zip(&mine)
                .filter(|(_, &m)| m)
                .map(|(i, _)| i.clone())
                .collect();
            self.first_handle(&its).await
        };
        let mut firsts = firsts.into_iter();
        // Per input: its answer so far; and what `then` is to handle, in
        // the batch's order, with the input each answers (the link records
        // `first` made of it, or a side input of `then` itself, whose
        // answer is `then`'s as it comes: `answered_by`).
        let mut answers: Vec<Handled> = Vec::with_capacity(inputs.len());
        let mut onward: Vec<Input> = Vec::new();
        let mut owners: Vec<usize> = Vec::new();
        for (at, (input, &m)) in inputs.iter().zip(&mine).enumerate() {
            if !m {
                onward.push(input.clone());
                owners.push(at);
                answers.push(Ok(Vec::new()));
                continue;
            }
            match firsts.next().unwrap_or(Ok(Vec::new())) {
                Ok(outs) => {
                    let (kept, linked) = self.split(outs, Some(input));
                    // Its outputs to the link, counted as they would be
                    // were the link a topic.
                    crate::metrics::add(
                        "gleaner_stage_outputs_total",
                        &[("stage", self.first_name), ("topic", self.link.short())],
                        linked.len() as u64,
                    );
                    owners.extend(linked.iter().map(|_| at));
                    onward.extend(linked);
                    answers.push(Ok(kept));
                }
                Err(e) => answers.push(Err(e)),
            }
        }
        if onward.is_empty() {
            return answers;
        }
        let thens = self.then_handle(&onward).await;
        for ((input, handled), at) in onward.iter().zip(thens).zip(owners) {
            if !mine[at] {
                answers[at] = handled;
                continue;
            }
            let settled = self.settle_then(input, handled);
            if let Ok(outs) = &mut answers[at] {
                outs.extend(settled);
            }
        }
        answers
    }

    async fn tick(&mut self) -> Vec<Output> {
        self.hook(Hook::Tick).await
    }

    async fn ready(&mut self) {
        let first = Box::pin(self.first.ready());
        let then = Box::pin(self.then.ready());
        futures::future::select(first, then).await;
    }

    async fn idle(&mut self) -> Vec<Output> {
        self.hook(Hook::Idle).await
    }

    async fn produced(&mut self) {
        self.first.produced().await;
        self.then.produced().await;
    }

    fn committable(&self, acked: &InputPositions) -> InputPositions {
        self.then.committable(&self.first.committable(acked))
    }

    async fn drain(&mut self) -> Vec<Output> {
        self.hook(Hook::Drain).await
    }

    fn replay_guard(&self) -> bool {
        self.first.replay_guard() && self.then.replay_guard()
    }

    fn fork(&self) -> Option<Box<dyn Stage>> {
        Some(Box::new(Chain {
            first: self.first.fork()?,
            first_reads: self.first_reads.clone(),
            link: self.link,
            then: self.then.fork()?,
            then_name: self.then_name,
            first_name: self.first_name,
            then_workers: None,
            first_workers: None,
            max_record_bytes: self.max_record_bytes,
        }))
    }

    fn held(&self) -> usize {
        self.first.held() + self.then.held()
    }

    fn answered_by(&self, input: &Input) -> Option<&'static str> {
        if self.first_reads.contains(&input.topic) {
            self.first.answered_by(input)
        } else {
            Some(self.then.answered_by(input).unwrap_or(self.then_name))
        }
    }

    async fn close(&mut self) -> anyhow::Result<()> {
        let first = self.first.close().await;
        let then = self.then.close().await;
        first.and(then)
    }
}

#[cfg(test)]
#[path = "chain_tests.rs"]
mod tests;
