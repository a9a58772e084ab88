//! The dedup stage: `articles` in (or `summarized`, when summaries are made
//! first), `unique` and `duplicates` out. One code path for the Kafka
//! service, `gleaner run` and `gleaner dedup --input`: [`Deduper::process`]
//! decodes a batch and computes its features in parallel (rayon), judges
//! it in order against the window, and encodes the outputs in parallel.
//! The async stage runs it on a blocking thread, so the runtime's workers
//! stay free for the other stages.

use crate::features::Features;
use crate::window::{Decision, DedupSettings, Window};
use async_trait::async_trait;
use gleaner_core::carried::Carried;
use gleaner_core::messages::{Article, Duplicate};
use gleaner_core::recent::Recent;
use gleaner_core::stage::{Handled, Input, Output, Stage};
use gleaner_core::sync::Locked;
use gleaner_core::Topic;
use rayon::prelude::*;
use std::sync::{Arc, Mutex};

/// A batch decoded, with each article's features (or why it could not be).
pub struct Prepared(Vec<anyhow::Result<(Carried, Features)>>);

/// Decodes inputs and computes features, in parallel.
#[derive(Clone, Copy)]
pub struct Decoder {
    input: Topic,
    sketch_size: usize,
}

impl Decoder {
    fn decode(&self, input: &Input) -> anyhow::Result<(Carried, Features)> {
        let msg = Carried::decode(input, self.input)?;
        let a = msg.article();
        let f = Features::of(&a.title, &a.text, self.sketch_size);
        Ok((msg, f))
    }

    pub fn prepare(&self, inputs: &[Input]) -> Prepared {
        Prepared(inputs.par_iter().map(|i| self.decode(i)).collect())
    }
}

/// The window and how inputs are read: everything dedup decides with.
pub struct Deduper {
    window: Window,
    input: Topic,
    /// Reposts recorded on `duplicates` lately, by (id, original id): a
    /// replayed repost is not recorded twice.
    reported: Recent<()>,
}

fn pair(d: &Duplicate) -> u64 {
    gleaner_core::util::fnv1a64_parts(&[d.id.as_bytes(), b" ", d.original_id.as_bytes()])
}

impl Deduper {
    pub fn new(cfg: DedupSettings, input: Topic) -> Self {
        Deduper {
            reported: Recent::new(cfg.window_count),
            window: Window::new(cfg),
            input,
        }
    }

    pub fn window(&self) -> &Window {
        &self.window
    }

    pub fn window_mut(&mut self) -> &mut Window {
        &mut self.window
    }

    /// What decodes inputs and computes their features; it needs nothing
    /// of the window, so the next batch can be prepared while this one is
    /// judged.
    pub fn decoder(&self) -> Decoder {
        Decoder {
            input: self.input,
            sketch_size: self.window.config().sketch_size,
        }
    }

    /// Judges a prepared batch in order and encodes the outputs: one result
    /// per input.
    pub fn decide(&mut self, prepared: Prepared) -> Vec<Handled> {
        let now = gleaner_core::util::unix_now() as i64;
        let judged: Vec<anyhow::Result<(Carried, Vec<Decision>)>> = prepared
            .0
            .into_iter()
            .map(|p| {
                p.map(|(msg, f)| {
                    let mut d = self.window.judge(msg.article(), &f, now);
                    d.retain(|d| match d {
                        Decision::Repost(dup) | Decision::Correction(dup) => {
                            self.reported.insert(pair(dup), ())
                        }
                        _ => true,
                    });
                    (msg, d)
                })
            })
            .collect();
        judged
            .into_par_iter()
            .map(|r| r.map(|(msg, decisions)| outputs(msg, decisions)))
            .collect()
    }

    /// Handles a batch: one result per input, in order.
    pub fn process(&mut self, inputs: &[Input]) -> Vec<Handled> {
        let prepared = self.decoder().prepare(inputs);
        self.decide(prepared)
    }

    /// Rebuilds the window from unique articles dedup produced before (the
    /// tail of its own output topic), oldest first. Returns how many the
    /// window holds after.
    pub fn remember(&mut self, articles: &[Article]) -> usize {
        let sketch = self.window.config().sketch_size;
        let features: Vec<Features> = articles
            .par_iter()
            .map(|a| Features::of(&a.title, &a.text, sketch))
            .collect();
        let now = gleaner_core::util::unix_now() as i64;
        for (a, f) in articles.iter().zip(&features) {
            self.window.remember(a, f, now);
        }
        self.window.len()
    }

    /// Notes reposts recorded before (the tail of the duplicates topic),
    /// so that a replayed one is not recorded again.
    pub fn remember_reported(&mut self, reported: &[Duplicate]) {
        for d in reported {
            self.reported.insert(pair(d), ());
        }
    }
}

fn outputs(msg: Carried, decisions: Vec<Decision>) -> Vec<Output> {
    let mut unique = None;
    let mut outs = Vec::with_capacity(decisions.len());
    for d in decisions {
        match d {
            Decision::Unique { cluster } => unique = Some(cluster),
            Decision::Repost(dup) => {
                tracing::info!(id = %dup.id, url = %dup.url, original = %dup.original_url,
                    similarity = dup.similarity, containment = dup.containment, "repost");
                outs.push(Output::new(Topic::DUPLICATES, dup.id.clone(), dup));
            }
            Decision::Correction(dup) => {
                tracing::info!(id = %dup.id, url = %dup.url, original = %dup.original_url,
                    "an earlier copy arrived: correction");
                outs.push(Output::new(Topic::DUPLICATES, dup.id.clone(), dup));
            }
            Decision::Replay => {
                gleaner_core::metrics::inc("gleaner_dedup_replays_total", &[]);
            }
        }
    }
    // The article itself first, then any correction it causes.
    if let Some(cluster) = unique {
        // The message as it came, with its cluster id.
        let mut msg = msg;
        msg.article_mut().cluster = Some(cluster);
        outs.insert(0, msg.into_output(Topic::UNIQUE));
    }
    outs
}

/// The dedup stage on either bus.
pub struct DedupStage {
    core: Arc<Mutex<Deduper>>,
}

impl DedupStage {
    pub fn new(cfg: DedupSettings) -> Self {
        DedupStage {
            core: Arc::new(Mutex::new(Deduper::new(cfg, Topic::ARTICLES))),
        }
    }

    /// Reads messages of `kind`: `articles`, or `summarized` when
    /// summaries are made first (a unique one then goes on with its
    /// summaries).
    pub fn reading(self, kind: Topic) -> Self {
        let cfg = self.lock().window.config().clone();
        DedupStage {
            core: Arc::new(Mutex::new(Deduper::new(cfg, kind))),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Deduper> {
        // A panic while judging leaves at worst one article half-added;
        // the window is still usable.
        self.core.locked()
    }

    /// See [`Deduper::remember`].
    pub fn remember(&mut self, articles: &[Article]) -> usize {
        self.lock().remember(articles)
    }

    /// See [`Deduper::remember_reported`].
    pub fn remember_reported(&mut self, reported: &[Duplicate]) {
        self.lock().remember_reported(reported)
    }
}

#[async_trait]
impl Stage for DedupStage {
    /// Replays are recognised by the stage itself.
    fn replay_guard(&self) -> bool {
        false
    }

    async fn handle(&mut self, input: &Input) -> Handled {
        gleaner_core::stage::handle_as_batch(self, input).await
    }

    async fn handle_batch(&mut self, inputs: &[Input]) -> Vec<Handled> {
        let core = self.core.clone();
        let batch = inputs.to_vec();
        let n = inputs.len();
        match tokio::task::spawn_blocking(move || core.locked().process(&batch)).await {
            Ok(results) => results,
            Err(e) => {
                let msg = format!("dedup task failed: {e}");
                (0..n).map(|_| Err(anyhow::anyhow!(msg.clone()))).collect()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn article(id: &str, text: &str) -> Article {
        Article {
            id: id.into(),
            url: format!("https://{id}.test/story"),
            title: "Council approves budget".into(),
            author: None,
            date: Some("2026-01-01T00:00:00Z".into()),
            language: Some("en".into()),
            text: text.into(),
            extractor: "auto".into(),
            fetched_at: "2026-01-01T00:10:00Z".into(),
            cluster: None,
            story: None,
            ..Default::default()
        }
    }

    fn input(a: &Article) -> Input {
        Input {
            topic: Topic::ARTICLES,
            key: Some(a.id.clone()),
            payload: Some(gleaner_core::Payload::typed(a.clone())),
            origin: None,
        }
    }

    /// A crash after dedup produced its verdicts replays the batch into a
    /// restarted dedup, whose window and reported reposts are read back
    /// from its own output topics: nothing goes out twice.
    #[test]
    fn a_replay_after_a_restart_produces_nothing_again() {
        let cfg = DedupSettings::default();
        let text = "The city council approved a new budget on Tuesday that raises spending on schools and parks while cutting the cost of running city hall, after a debate that ran late into the evening. ".repeat(4);
        let (a, b) = (article("a", &text), article("b", &text));
        let mut first = Deduper::new(cfg.clone(), Topic::ARTICLES);
        let outs: Vec<Output> = first
            .process(&[input(&a), input(&b)])
            .into_iter()
            .flat_map(|h| h.unwrap())
            .collect();
        let on = |t: Topic| outs.iter().filter(|o| o.topic == t).count();
        assert_eq!((on(Topic::UNIQUE), on(Topic::DUPLICATES)), (1, 1));
        let unique: Vec<Article> = outs
            .iter()
            .filter(|o| o.topic == Topic::UNIQUE)
            .map(|o| o.decode().unwrap())
            .collect();
        let reported: Vec<Duplicate> = outs
            .iter()
            .filter(|o| o.topic == Topic::DUPLICATES)
            .map(|o| o.decode().unwrap())
            .collect();
        let mut restarted = Deduper::new(cfg.clone(), Topic::ARTICLES);
        restarted.remember(&unique);
        restarted.remember_reported(&reported);
        let again: Vec<Output> = restarted
            .process(&[input(&a), input(&b)])
            .into_iter()
            .flat_map(|h| h.unwrap())
            .collect();
        assert!(
            again.is_empty(),
            "{:?}",
            again.iter().map(|o| o.topic).collect::<Vec<_>>()
        );
        // Without what was reported, the repost would be recorded twice.
        let mut forgetful = Deduper::new(cfg, Topic::ARTICLES);
        forgetful.remember(&unique);
        let again: Vec<Output> = forgetful
            .process(&[input(&a), input(&b)])
            .into_iter()
            .flat_map(|h| h.unwrap())
            .collect();
        assert_eq!(again.len(), 1);
    }
}
