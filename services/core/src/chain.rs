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
mod tests {
    use super::*;
    use crate::messages::DeadLetter;
    use crate::stage::Origin;

    /// "clean": a page's text as a cleaned record; "bad" fails; its tick
    /// hands on one record that answers no input.
    struct First {
        ticked: bool,
    }

    #[async_trait]
    impl Stage for First {
        async fn handle(&mut self, input: &Input) -> Handled {
            let text = String::from_utf8(input.payload.as_ref().unwrap().bytes().to_vec())?;
            anyhow::ensure!(text != "bad", "not a page");
            Ok(vec![
                Output::new(Topic::CLEANED, "h", text),
                Output::new(Topic::FRONTIER, "h", "a link".to_string()),
            ])
        }

        async fn tick(&mut self) -> Vec<Output> {
            if std::mem::replace(&mut self.ticked, true) {
                return Vec::new();
            }
            vec![Output::new(Topic::CLEANED, "h", "late".to_string())]
        }
    }

    /// "extract": a cleaned record as an article, "fail" fails; it also
    /// reads the rules, which give nothing.
    struct Then {
        rules: usize,
    }

    #[async_trait]
    impl Stage for Then {
        async fn handle(&mut self, input: &Input) -> Handled {
            if input.topic == Topic::RULES {
                self.rules += 1;
                return Ok(Vec::new());
            }
            let text: String = input.decode()?;
            anyhow::ensure!(text != "fail", "no text");
            Ok(vec![Output::new(Topic::ARTICLES, "h", format!("{text}!"))])
        }
    }

    fn wired(
        name: &'static str,
        inputs: &[Topic],
        outputs: &[Topic],
        stage: Box<dyn Stage>,
    ) -> Wired {
        Wired {
            wiring: Wiring {
                name,
                inputs: inputs.to_vec(),
                outputs: outputs.to_vec(),
                every_instance: Vec::new(),
                chained: Vec::new(),
            },
            stage,
        }
    }

    fn input(topic: Topic, text: &str, offset: i64) -> Input {
        Input {
            topic,
            key: Some("h".into()),
            payload: Some(text.as_bytes().to_vec().into()),
            origin: Some(Origin {
                topic: format!("gleaner.{}", topic.short()),
                partition: 0,
                offset,
            }),
        }
    }

    fn texts(outs: &[Output], topic: Topic) -> Vec<String> {
        outs.iter()
            .filter(|o| o.topic == topic)
            .map(|o| o.decode().unwrap())
            .collect()
    }

    /// What the first stage hands on reaches the second in memory, the
    /// link never an output; each failure is answered under the stage
    /// that failed, and a side input of the second reaches it directly.
    #[tokio::test]
    async fn the_first_stage_hands_the_next_its_outputs() {
        let first = wired(
            "clean",
            &[Topic::PAGES],
            &[Topic::CLEANED, Topic::FRONTIER],
            Box::new(First { ticked: false }),
        );
        let then = wired(
            "extract",
            &[Topic::CLEANED, Topic::RULES],
            &[Topic::ARTICLES],
            Box::new(Then { rules: 0 }),
        );
        let Wired { wiring, mut stage } = chain(first, then, Topic::CLEANED, 2, None);
        assert_eq!(wiring.name, "clean");
        assert_eq!(wiring.inputs, vec![Topic::PAGES, Topic::RULES]);
        assert_eq!(wiring.outputs, vec![Topic::FRONTIER, Topic::ARTICLES]);
        assert_eq!(wiring.chained, ["extract"]);

        let batch = [
            input(Topic::PAGES, "a", 1),
            input(Topic::PAGES, "bad", 2),
            input(Topic::RULES, "rule", 7),
            input(Topic::PAGES, "fail", 3),
        ];
        let answers = stage.handle_batch(&batch).await;
        assert_eq!(answers.len(), 4);
        let first = answers[0].as_ref().unwrap();
        assert_eq!(texts(first, Topic::ARTICLES), ["a!"]);
        assert_eq!(texts(first, Topic::FRONTIER), ["a link"]);
        assert!(first.iter().all(|o| o.topic != Topic::CLEANED));
        // The first stage's failure is the runner's to answer.
        assert!(answers[1]
            .as_ref()
            .unwrap_err()
            .to_string()
            .contains("not a page"));
        assert!(answers[2].as_ref().unwrap().is_empty());
        // The second's is a dead letter naming it, with the page's origin.
        let fourth = answers[3].as_ref().unwrap();
        let dead: Vec<DeadLetter> = fourth
            .iter()
            .filter(|o| o.topic == Topic::DEAD_LETTER)
            .map(|o| o.decode().unwrap())
            .collect();
        assert_eq!(dead.len(), 1);
        assert_eq!(
            (dead[0].stage.as_str(), dead[0].error.as_str()),
            ("extract", "no text")
        );
        assert_eq!(
            (dead[0].topic.as_deref(), dead[0].offset),
            (Some("gleaner.pages"), Some(3))
        );
        // What the first stage finishes in its own time goes on too.
        let late = stage.tick().await;
        assert_eq!(texts(&late, Topic::ARTICLES), ["late!"]);
        assert!(stage.tick().await.is_empty());
    }

    /// Counted as the runner counts: each stage's inputs and outputs under
    /// its own name, once; a record of the later stage too large for the
    /// broker is its dead letter.
    #[tokio::test]
    async fn each_stage_is_counted_under_its_own_name_once() {
        use crate::metrics::value;
        let first = wired(
            "count-clean",
            &[Topic::PAGES],
            &[Topic::CLEANED, Topic::FRONTIER],
            Box::new(First { ticked: true }),
        );
        let then = wired(
            "count-extract",
            &[Topic::CLEANED, Topic::RULES],
            &[Topic::ARTICLES],
            Box::new(Then { rules: 0 }),
        );
        let Wired { wiring, mut stage } = chain(first, then, Topic::CLEANED, 2, Some(200));
        let big = "x".repeat(300);
        let batch = [
            input(Topic::PAGES, "a", 1),
            input(Topic::RULES, "rule", 7),
            input(Topic::PAGES, "fail", 3),
            input(Topic::PAGES, &big, 4),
        ];
        let answers = stage.handle_batch(&batch).await;
        let mut outs = Vec::new();
        for (input, handled) in batch.iter().zip(answers) {
            let name = stage.answered_by(input).unwrap_or(wiring.name);
            outs.extend(settle(name, input, handled, Some(200)));
        }
        let inputs = |stage| value("gleaner_stage_inputs_total", &[("stage", stage)]);
        let outputs = |stage, topic| {
            value(
                "gleaner_stage_outputs_total",
                &[("stage", stage), ("topic", topic)],
            )
        };
        // Three pages for the first; two cleaned records and the rule for
        // the second.
        assert_eq!(inputs("count-clean"), 3.0);
        assert_eq!(inputs("count-extract"), 4.0);
        assert_eq!(outputs("count-clean", "frontier"), 3.0);
        assert_eq!(outputs("count-clean", "articles"), 0.0);
        assert_eq!(outputs("count-extract", "articles"), 1.0);
        assert_eq!(outputs("count-extract", "dead-letter"), 2.0);
        assert_eq!(outputs("count-clean", "dead-letter"), 0.0);
        // The oversized article is the second stage's dead letter.
        let dead: Vec<DeadLetter> = outs
            .iter()
            .filter(|o| o.topic == Topic::DEAD_LETTER)
            .map(|o| o.decode().unwrap())
            .collect();
        let too_large: Vec<&DeadLetter> = dead
            .iter()
            .filter(|d| d.error.contains("too large"))
            .collect();
        assert_eq!(too_large.len(), 1, "{dead:?}");
        assert_eq!(too_large[0].stage, "count-extract");
        assert_eq!(too_large[0].offset, Some(4));
    }

    /// Answers each page after a pause, counting how many it answers at once.
    struct Slow {
        now: std::sync::Arc<std::sync::atomic::AtomicUsize>,
        most: std::sync::Arc<std::sync::atomic::AtomicUsize>,
    }

    #[async_trait]
    impl crate::map::MapStage for Slow {
        async fn map(&self, _: &Input) -> Handled {
            use std::sync::atomic::Ordering::SeqCst;
            let n = self.now.fetch_add(1, SeqCst) + 1;
            self.most.fetch_max(n, SeqCst);
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            self.now.fetch_sub(1, SeqCst);
            Ok(vec![Output::new(Topic::CLEANED, "h", "page".to_string())])
        }
    }

    /// A first stage that forks, before one that does not (summarize
    /// before the index), handles a batch on every worker.
    #[tokio::test]
    async fn a_first_stage_that_forks_works_on_every_worker() {
        for (workers, expected) in [(2, 2), (1, 1)] {
            let most = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
            let slow = Slow {
                now: Default::default(),
                most: most.clone(),
            };
            let first = wired(
                "clean",
                &[Topic::PAGES],
                &[Topic::CLEANED],
                Box::new(crate::map::Mapped::new(slow)),
            );
            let then = wired(
                "extract",
                &[Topic::CLEANED],
                &[Topic::ARTICLES],
                Box::new(Then { rules: 0 }),
            );
            let Wired { mut stage, .. } = chain(first, then, Topic::CLEANED, workers, None);
            assert!(stage.fork().is_none(), "the runner cannot fork it whole");
            let batch: Vec<Input> = (0..4).map(|i| input(Topic::PAGES, "p", i)).collect();
            let answers = stage.handle_batch(&batch).await;
            assert!(answers
                .iter()
                .all(|a| texts(a.as_ref().unwrap(), Topic::ARTICLES) == ["page!"]));
            assert_eq!(most.load(std::sync::atomic::Ordering::SeqCst), expected);
        }
    }
}
