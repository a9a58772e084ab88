//! The dedup stage: an article whose TF-IDF vector has cosine similarity at
//! or above the threshold with an earlier article in the window is a repost.
//! The earlier one goes on to `unique`; the repost goes to `duplicates`.
//!
//! The window is bounded by count and age. Candidates come from an inverted
//! index over the window, looked up with the new article's heaviest terms,
//! so the cost per article does not grow with a scan of the whole window.

use async_trait::async_trait;
use gleaner_core::messages::{Article, Duplicate};
use gleaner_core::stage::{Handled, Input, Output, Stage};
use gleaner_core::Topic;
use gleaner_text::{cosine, term_counts, DocFreq};
use std::collections::{HashMap, HashSet, VecDeque};

#[derive(Debug, Clone)]
pub struct DedupConfig {
    pub threshold: f64,
    pub window_count: usize,
    pub window_age_secs: u64,
    pub candidate_terms: usize,
}

struct Entry {
    seq: u64,
    id: String,
    url: String,
    counts: HashMap<String, u32>,
    added_at: u64,
}

/// What dedup decided for one article.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    Unique,
    Repost {
        original_id: String,
        original_url: String,
        similarity: f64,
    },
}

pub struct Window {
    cfg: DedupConfig,
    entries: VecDeque<Entry>,
    by_id: HashMap<String, u64>,
    postings: HashMap<String, VecDeque<u64>>,
    df: DocFreq,
    next_seq: u64,
}

impl Window {
    pub fn new(cfg: DedupConfig) -> Self {
        Window {
            cfg,
            entries: VecDeque::new(),
            by_id: HashMap::new(),
            postings: HashMap::new(),
            df: DocFreq::default(),
            next_seq: 0,
        }
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    fn entry(&self, seq: u64) -> Option<&Entry> {
        let first = self.entries.front()?.seq;
        self.entries
            .get(usize::try_from(seq.checked_sub(first)?).ok()?)
    }

    fn evict(&mut self, now: u64) {
        while let Some(front) = self.entries.front() {
            let too_many = self.entries.len() > self.cfg.window_count;
            let too_old = now.saturating_sub(front.added_at) > self.cfg.window_age_secs;
            if !(too_many || too_old) {
                break;
            }
            let e = self.entries.pop_front().expect("front exists");
            self.df.remove(e.counts.keys());
            self.by_id.remove(&e.id);
            for t in e.counts.keys() {
                if let Some(p) = self.postings.get_mut(t) {
                    // Eviction is first-in first-out, so the evicted entry
                    // is at the front of each of its postings lists.
                    if p.front() == Some(&e.seq) {
                        p.pop_front();
                    }
                    if p.is_empty() {
                        self.postings.remove(t);
                    }
                }
            }
        }
    }

    /// Adds an article known to be unique (from the stage's own output,
    /// after a restart) without judging it.
    pub fn remember(&mut self, id: &str, url: &str, text: &str, now: u64) {
        if self.by_id.contains_key(id) {
            return;
        }
        let counts = term_counts(text);
        if counts.is_empty() {
            return;
        }
        self.insert(id, url, counts, now);
    }

    fn insert(&mut self, id: &str, url: &str, counts: HashMap<String, u32>, now: u64) {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.df.add(counts.keys());
        for t in counts.keys() {
            self.postings.entry(t.clone()).or_default().push_back(seq);
        }
        self.by_id.insert(id.to_string(), seq);
        self.entries.push_back(Entry {
            seq,
            id: id.to_string(),
            url: url.to_string(),
            counts,
            added_at: now,
        });
        self.evict(now);
    }

    /// Judges an article and, if it is unique, adds it to the window.
    pub fn check(&mut self, id: &str, url: &str, text: &str, now: u64) -> Verdict {
        self.evict(now);
        // A replayed article (same id) is the same article, not a repost.
        if self.by_id.contains_key(id) {
            return Verdict::Unique;
        }
        let counts = term_counts(text);
        if counts.is_empty() {
            return Verdict::Unique;
        }
        let vec = self.df.vector(&counts);
        let mut heavy: Vec<(&String, f64)> = vec.iter().map(|(t, w)| (t, *w)).collect();
        heavy.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(b.0)));
        let mut candidates: HashSet<u64> = HashSet::new();
        for (t, _) in heavy.iter().take(self.cfg.candidate_terms) {
            if let Some(p) = self.postings.get(*t) {
                candidates.extend(p.iter().copied());
            }
        }
        let mut best: Option<(f64, u64)> = None;
        for seq in candidates {
            let Some(e) = self.entry(seq) else { continue };
            let sim = cosine(&vec, &self.df.vector(&e.counts));
            // Ties go to the earlier article.
            if best.is_none_or(|(s, q)| sim > s || (sim == s && seq < q)) {
                best = Some((sim, seq));
            }
        }
        if let Some((sim, seq)) = best {
            if sim >= self.cfg.threshold {
                let e = self.entry(seq).expect("candidate is in the window");
                return Verdict::Repost {
                    original_id: e.id.clone(),
                    original_url: e.url.clone(),
                    similarity: sim,
                };
            }
        }
        self.insert(id, url, counts, now);
        Verdict::Unique
    }
}

/// The dedup stage: `articles` in, `unique` or `duplicates` out (or
/// `summarized` in, when summaries are made before dedup).
pub struct DedupStage {
    window: Window,
    input: Topic,
}

impl DedupStage {
    pub fn new(cfg: DedupConfig) -> Self {
        DedupStage {
            window: Window::new(cfg),
            input: Topic::Articles,
        }
    }

    /// Reads summarized articles instead of bare ones; a unique one goes to
    /// `unique` as it came, summaries included.
    pub fn after_summarize(mut self, yes: bool) -> Self {
        self.input = if yes {
            Topic::Summarized
        } else {
            Topic::Articles
        };
        self
    }

    /// Rebuilds the window from unique articles this stage produced before
    /// (the tail of its own output topic), oldest first. Returns how many
    /// were taken back.
    pub fn remember<'a>(&mut self, articles: impl IntoIterator<Item = &'a Article>) -> usize {
        let now = gleaner_core::util::unix_now();
        let before = self.window.len();
        for a in articles {
            self.window
                .remember(&a.id, &a.url, &format!("{}\n{}", a.title, a.text), now);
        }
        self.window.len() - before
    }
}

#[async_trait]
impl Stage for DedupStage {
    fn name(&self) -> &'static str {
        "dedup"
    }
    fn inputs(&self) -> Vec<Topic> {
        vec![self.input]
    }
    fn outputs(&self) -> Vec<Topic> {
        vec![Topic::Unique, Topic::Duplicates]
    }

    async fn handle(&mut self, input: &Input) -> Handled {
        let a: Article = input.decode()?;
        let text = format!("{}\n{}", a.title, a.text);
        let out = match self
            .window
            .check(&a.id, &a.url, &text, gleaner_core::util::unix_now())
        {
            // As it came: a summarized article keeps its summaries.
            Verdict::Unique => match &input.payload {
                Some(payload) if self.input == Topic::Summarized => Output {
                    topic: Topic::Unique,
                    key: a.id.clone(),
                    payload: payload.clone(),
                },
                _ => Output::json(Topic::Unique, a.id.clone(), &a),
            },
            Verdict::Repost {
                original_id,
                original_url,
                similarity,
            } => {
                tracing::info!(id = %a.id, url = %a.url, original = %original_url, similarity, "repost");
                let d = Duplicate {
                    id: a.id.clone(),
                    url: a.url.clone(),
                    original_id,
                    original_url,
                    similarity,
                };
                Output::json(Topic::Duplicates, a.id.clone(), &d)
            }
        };
        Ok(vec![out])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(window_count: usize) -> DedupConfig {
        DedupConfig {
            threshold: 0.85,
            window_count,
            window_age_secs: 3600,
            candidate_terms: 12,
        }
    }

    const A: &str = "The city council approved a new budget on Tuesday that raises spending on schools and \
        parks while cutting the cost of running city hall. The mayor said the plan balances the books.";
    const B: &str =
        "A storm is expected to hit the coast this weekend, bringing heavy rain and strong winds. \
        Forecasters urged residents to prepare sandbags and avoid travel on Saturday night.";
    // The same event as A, reported differently.
    const C: &str = "Councillors voted on Tuesday for next year's spending plan. Opposition members said school \
        funding was still too low and warned that park maintenance would suffer under the mayor's proposal.";

    #[test]
    fn repost_is_caught_and_earlier_kept() {
        let mut w = Window::new(cfg(100));
        assert_eq!(w.check("a", "u/a", A, 0), Verdict::Unique);
        assert_eq!(w.check("b", "u/b", B, 0), Verdict::Unique);
        let repost = format!("{A} Share this article.");
        match w.check("a2", "u/a2", &repost, 1) {
            Verdict::Repost {
                original_id,
                similarity,
                ..
            } => {
                assert_eq!(original_id, "a");
                assert!(similarity > 0.9, "{similarity}");
            }
            v => panic!("expected repost, got {v:?}"),
        }
        assert_eq!(
            w.check("c", "u/c", C, 2),
            Verdict::Unique,
            "a different report of one event is kept"
        );
        assert_eq!(
            w.check("a", "u/a", A, 3),
            Verdict::Unique,
            "a replay of the original is not a repost"
        );
    }

    #[test]
    fn remembered_articles_catch_reposts_after_a_restart() {
        let mut w = Window::new(cfg(100));
        w.remember("a", "u/a", A, 0);
        assert!(matches!(
            w.check("a2", "u/a2", A, 1),
            Verdict::Repost { .. }
        ));
        assert_eq!(
            w.check("a", "u/a", A, 1),
            Verdict::Unique,
            "the original itself is not a repost"
        );
    }

    #[test]
    fn window_forgets_by_count_and_age() {
        let mut w = Window::new(cfg(1));
        w.check("a", "u/a", A, 0);
        w.check("b", "u/b", B, 0);
        assert_eq!(w.len(), 1);
        assert_eq!(
            w.check("a2", "u/a2", A, 0),
            Verdict::Unique,
            "A left the window"
        );
        let mut w = Window::new(cfg(100));
        w.check("a", "u/a", A, 0);
        assert_eq!(
            w.check("a2", "u/a2", A, 10_000),
            Verdict::Unique,
            "A aged out"
        );
        assert_eq!(w.len(), 1);
    }
}
