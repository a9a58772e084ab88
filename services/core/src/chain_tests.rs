//! Tests of chained stages.

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

fn wired(name: &'static str, inputs: &[Topic], outputs: &[Topic], stage: Box<dyn Stage>) -> Wired {
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
    // What the first handed on counts among its outputs, as on a topic.
    assert_eq!(outputs("count-clean", "cleaned"), 3.0);
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
