//! The open stories and how an article joins one: single-pass clustering
//! against each story's centroid (the sum of its reports' vectors), the
//! similarity fading with the days since the story's latest report, as
//! online news clusterers do (Miranda et al. 2018 compare with cluster
//! centroids and a time term). Written here: it is this project's own
//! idea of a story, not a library's.
//!
//! - Candidates come from an inverted index of the centroids' terms, looked
//!   up by the article's heaviest terms, so the cost per article follows
//!   its vocabulary, not the number of open stories.
//! - A story's id is its first report's id, so a replay in the same order
//!   gives the same ids; an article seen again keeps its story.
//! - When an article is close to two stories, they are one: the one
//!   reported first keeps its id and the merge is recorded.

use crate::settings::StorySettings;
use crate::vector::{term_counts, weigh, Vector};
use gleaner_core::event::Event;
use gleaner_core::messages::{Article, StoryEvent};
use gleaner_text::docfreq::DocFreq;
use rustc_hash::{FxHashMap, FxHasher};
use std::hash::Hasher;

/// Terms of a centroid kept when it is trimmed (it is trimmed at twice
/// this): a story's topic, bounded however long it runs.
const CENTROID_TERMS: usize = 256;
/// The article's heaviest terms looked up for candidate stories.
const PROBE_TERMS: usize = 20;
/// Most stories found per article, and of those (by the weight of the
/// article's terms they share) the most compared whole.
const CANDIDATES: usize = 256;
const COMPARED: usize = 48;
/// Articles between sweeps of closed stories.
const SWEEP_EVERY: u32 = 1024;
const DAY: f32 = 86_400.0;

struct Story {
    id: String,
    first: i64,
    last: i64,
    /// The sum of its reports' vectors, sorted by term (a sorted vector
    /// takes half a hash map's memory and compares by a merge).
    centroid: Vector,
    norm: f32,
    /// Its reports, by the hash of their ids.
    members: Vec<u64>,
}

impl Story {
    fn has(&self, term: u32) -> bool {
        self.centroid.binary_search_by_key(&term, |e| e.0).is_ok()
    }

    fn add(&mut self, v: &[(u32, f32)]) {
        let (a, b) = (&self.centroid, v);
        let mut sum: Vector = Vec::with_capacity(a.len() + b.len());
        let (mut i, mut j) = (0, 0);
        while i < a.len() || j < b.len() {
            match (a.get(i), b.get(j)) {
                (Some(x), Some(y)) if x.0 == y.0 => {
                    sum.push((x.0, x.1 + y.1));
                    i += 1;
                    j += 1;
                }
                (Some(x), Some(y)) if x.0 < y.0 => {
                    sum.push(*x);
                    i += 1;
                }
                (Some(x), None) => {
                    sum.push(*x);
                    i += 1;
                }
                (_, Some(y)) => {
                    sum.push(*y);
                    j += 1;
                }
                (None, None) => break,
            }
        }
        if sum.len() > 2 * CENTROID_TERMS {
            sum.select_nth_unstable_by(CENTROID_TERMS - 1, |a, b| b.1.total_cmp(&a.1));
            sum.truncate(CENTROID_TERMS);
            sum.sort_unstable_by_key(|e| e.0);
        }
        sum.shrink_to_fit();
        self.norm = sum.iter().map(|(_, w)| w * w).sum::<f32>().sqrt();
        self.centroid = sum;
    }

    fn cosine(&self, v: &[(u32, f32)]) -> f32 {
        if self.norm == 0.0 {
            return 0.0;
        }
        let (a, b) = (&self.centroid, v);
        let (mut i, mut j, mut dot) = (0, 0, 0.0);
        while i < a.len() && j < b.len() {
            match a[i].0.cmp(&b[j].0) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => {
                    dot += a[i].1 * b[j].1;
                    i += 1;
                    j += 1;
                }
            }
        }
        dot / self.norm
    }
}

/// What became of one article.
#[derive(Debug, Clone, PartialEq)]
pub struct Assigned {
    /// Its story's id.
    pub story: String,
    /// Stories created or merged by its arrival.
    pub events: Vec<StoryEvent>,
}

/// The stories still open and the document frequencies of the stream.
pub struct Stories {
    settings: StorySettings,
    df: DocFreq,
    stories: FxHashMap<u32, Story>,
    by_id: FxHashMap<String, u32>,
    next: u32,
    postings: FxHashMap<u32, Vec<u32>>,
    members: FxHashMap<u64, u32>,
    /// The latest article time seen: stories close against it.
    clock: i64,
    since_sweep: u32,
    /// Stories closed or merged away since the postings were last cleaned.
    gone: usize,
    /// Candidate stories found and compared whole, over all articles
    /// placed (for the offline report).
    pub postings_read: u64,
    pub scored: u64,
}

fn id_hash(id: &str) -> u64 {
    let mut h = FxHasher::default();
    h.write(id.as_bytes());
    h.finish()
}

/// How far past `now` an article's date is believed: a page dated in the
/// future (a typo, a lying template) would otherwise move the clock on
/// and close every open story.
const FUTURE_SLACK: i64 = 86_400;

/// The article's time (its date, else its fetch time), at most a day
/// past `now`.
fn event_time(a: &Article, now: i64) -> i64 {
    Event::of(a, now).secs.min(now.saturating_add(FUTURE_SLACK))
}

fn rfc3339(secs: i64) -> String {
    jiff::Timestamp::from_second(secs)
        .map(|t| t.to_string())
        .unwrap_or_default()
}

impl Stories {
    pub fn new(settings: StorySettings) -> Self {
        Stories {
            df: DocFreq::for_window(settings.max_open),
            settings,
            stories: FxHashMap::default(),
            by_id: FxHashMap::default(),
            next: 0,
            postings: FxHashMap::default(),
            members: FxHashMap::default(),
            clock: i64::MIN,
            since_sweep: 0,
            gone: 0,
            postings_read: 0,
            scored: 0,
        }
    }

    /// Stories open now.
    pub fn open(&self) -> usize {
        self.stories.len()
    }

    /// Articles in the open stories.
    pub fn held(&self) -> usize {
        self.members.len()
    }

    /// The article's vector, its terms counted into the document frequencies.
    fn vector(&mut self, a: &Article) -> Vector {
        let counts = term_counts(
            &a.title,
            &a.text,
            a.language.as_deref(),
            self.settings.title_weight,
            self.settings.name_weight,
        );
        self.df.add(counts.keys().copied());
        weigh(&counts, &self.df)
    }

    /// Places an article: the story it joins (or starts), and the stories
    /// its arrival created or merged. An article seen before keeps its story.
    pub fn assign(&mut self, a: &Article, now: i64) -> Assigned {
        let key = id_hash(&a.id);
        if let Some(n) = self.members.get(&key) {
            return Assigned {
                story: self.stories[n].id.clone(),
                events: Vec::new(),
            };
        }
        let t = event_time(a, now);
        self.tick(t);
        let v = self.vector(a);
        let scored = self.candidates(&v, t);
        let mut events = Vec::new();
        let n = match scored.first() {
            Some(&(best, s)) if s >= self.settings.threshold => {
                let mut n = best;
                for &(other, s) in &scored[1..] {
                    if s >= self.settings.merge_threshold {
                        n = self.merge(n, other, a, t, &mut events);
                    }
                }
                n
            }
            _ => {
                events.push(StoryEvent {
                    kind: "created".into(),
                    story: a.id.clone(),
                    into: None,
                    article: a.id.clone(),
                    at: rfc3339(t),
                });
                self.create(a.id.clone(), t)
            }
        };
        self.join(n, key, &v, t);
        Assigned {
            story: self.stories[&n].id.clone(),
            events,
        }
    }

    /// Takes back an article already placed (its story on it), as when the
    /// window is rebuilt from the stage's own output after a restart.
    pub fn remember(&mut self, a: &Article, story: &str, now: i64) {
        let key = id_hash(&a.id);
        if self.members.contains_key(&key) {
            return;
        }
        let t = event_time(a, now);
        self.tick(t);
        let v = self.vector(a);
        let n = match self.by_id.get(story) {
            Some(&n) => n,
            None => self.create(story.to_string(), t),
        };
        self.join(n, key, &v, t);
    }

    /// Applies a merge recorded earlier (from the story log).
    pub fn remember_merge(&mut self, story: &str, into: &str) {
        if let (Some(&from), Some(&to)) = (self.by_id.get(story), self.by_id.get(into)) {
            if from != to {
                self.absorb(to, from);
            }
        }
    }

    fn create(&mut self, id: String, t: i64) -> u32 {
        let n = self.next;
        self.next = self.next.wrapping_add(1);
        self.by_id.insert(id.clone(), n);
        self.stories.insert(
            n,
            Story {
                id,
                first: t,
                last: t,
                centroid: Vec::new(),
                norm: 0.0,
                members: Vec::new(),
            },
        );
        n
    }

    fn join(&mut self, n: u32, key: u64, v: &Vector, t: i64) {
        let Some(story) = self.stories.get_mut(&n) else {
            return;
        };
        for &(term, _) in v {
            if !story.has(term) {
                self.postings.entry(term).or_default().push(n);
            }
        }
        story.add(v);
        story.first = story.first.min(t);
        story.last = story.last.max(t);
        story.members.push(key);
        self.members.insert(key, n);
    }

    /// Open stories the vector may belong to, most similar first, with
    /// their similarity (faded by time), those under both thresholds left
    /// out. The article's heaviest terms are looked up rarest first, and
    /// from each the stories most recently given it, until `CANDIDATES`
    /// are found: a story the article belongs to shares its rare words
    /// (names, places), so common words need not be read to the end. Those
    /// sharing the most weight are compared whole. So the cost per article
    /// stays bounded however many stories are open.
    fn candidates(&mut self, v: &Vector, t: i64) -> Vec<(u32, f32)> {
        let mut probe: Vec<(u32, f32)> = v.clone();
        probe.sort_unstable_by(|a, b| b.1.total_cmp(&a.1));
        probe.truncate(PROBE_TERMS);
        let mut lists: Vec<(&Vec<u32>, f32)> = probe
            .iter()
            .filter_map(|(term, w)| Some((self.postings.get(term)?, *w)))
            .collect();
        lists.sort_by_key(|l| l.0.len());
        // Each story found, with the weight of the article's terms that
        // led to it: only the strongest are compared whole.
        let mut found: Vec<(u32, f32)> = Vec::new();
        for (list, w) in lists {
            let room = CANDIDATES.saturating_sub(found.len());
            if room == 0 {
                break;
            }
            let tail = &list[list.len().saturating_sub(room)..];
            self.postings_read += tail.len() as u64;
            found.extend(tail.iter().map(|&n| (n, w)));
        }
        found.sort_unstable_by_key(|e| e.0);
        let mut shared: Vec<(u32, f32)> = Vec::with_capacity(found.len());
        for (n, w) in found {
            match shared.last_mut() {
                Some(last) if last.0 == n => last.1 += w,
                _ => shared.push((n, w)),
            }
        }
        if shared.len() > COMPARED {
            shared.select_nth_unstable_by(COMPARED - 1, |a, b| {
                b.1.total_cmp(&a.1).then(a.0.cmp(&b.0))
            });
            shared.truncate(COMPARED);
        }
        self.scored += shared.len() as u64;
        let window = (self.settings.window_days * DAY) as i64;
        let least = self.settings.threshold.min(self.settings.merge_threshold);
        let mut scored: Vec<(u32, f32)> = shared
            .into_iter()
            .filter_map(|(n, _)| {
                // Closed and merged stories leave postings until a sweep.
                let s = self.stories.get(&n)?;
                if t < s.first - window || t > s.last + window {
                    return None;
                }
                let gap = (t - s.last).max(0) as f32 / DAY;
                let sim = s.cosine(v) * (-gap / self.settings.decay_days).exp();
                (sim >= least).then_some((n, sim))
            })
            .collect();
        // Most similar first; on a tie, the story reported first.
        let stories = &self.stories;
        scored.sort_by(|a, b| {
            let (sa, sb) = (&stories[&a.0], &stories[&b.0]);
            b.1.total_cmp(&a.1)
                .then(sa.first.cmp(&sb.first))
                .then_with(|| sa.id.cmp(&sb.id))
        });
        scored
    }

    /// Merges two stories; the one reported first survives. Returns it.
    fn merge(&mut self, a: u32, b: u32, by: &Article, t: i64, events: &mut Vec<StoryEvent>) -> u32 {
        let (sa, sb) = (&self.stories[&a], &self.stories[&b]);
        let (keep, gone) = if (sa.first, &sa.id) <= (sb.first, &sb.id) {
            (a, b)
        } else {
            (b, a)
        };
        events.push(StoryEvent {
            kind: "merged".into(),
            story: self.stories[&gone].id.clone(),
            into: Some(self.stories[&keep].id.clone()),
            article: by.id.clone(),
            at: rfc3339(t),
        });
        self.absorb(keep, gone);
        keep
    }

    fn absorb(&mut self, keep: u32, gone: u32) {
        let Some(g) = self.stories.remove(&gone) else {
            return;
        };
        self.gone += 1;
        self.by_id.remove(&g.id);
        for m in &g.members {
            self.members.insert(*m, keep);
        }
        let Some(k) = self.stories.get_mut(&keep) else {
            return;
        };
        for &(term, _) in &g.centroid {
            if !k.has(term) {
                self.postings.entry(term).or_default().push(keep);
            }
        }
        k.add(&g.centroid);
        k.first = k.first.min(g.first);
        k.last = k.last.max(g.last);
        k.members.extend(g.members);
    }

    /// Moves the clock; now and then closes the stories it has left behind.
    fn tick(&mut self, t: i64) {
        self.clock = self.clock.max(t);
        self.since_sweep += 1;
        if self.since_sweep >= SWEEP_EVERY || self.stories.len() > self.settings.max_open {
            self.since_sweep = 0;
            self.sweep();
        }
    }

    fn sweep(&mut self) {
        let horizon = self.clock - (self.settings.window_days * DAY) as i64;
        let mut closed: Vec<u32> = self
            .stories
            .iter()
            .filter(|(_, s)| s.last < horizon)
            .map(|(n, _)| *n)
            .collect();
        // Past the limit, the least recently reported close, down to 90% of
        // it, so that the next sweep is not due at the next article.
        let over = self.stories.len() - closed.len();
        if over > self.settings.max_open {
            let target = self.settings.max_open - self.settings.max_open / 10;
            let mut open: Vec<(i64, u32)> = self
                .stories
                .iter()
                .filter(|(_, s)| s.last >= horizon)
                .map(|(n, s)| (s.last, *n))
                .collect();
            open.sort_unstable();
            closed.extend(open.iter().take(over - target).map(|x| x.1));
        }
        for n in closed {
            if let Some(s) = self.stories.remove(&n) {
                self.by_id.remove(&s.id);
                for m in s.members {
                    self.members.remove(&m);
                }
                self.gone += 1;
            }
        }
        // The postings of stories gone are dropped once they are an eighth
        // of the open ones: reading all postings at every sweep cost more
        // than the stale entries it removed.
        if self.gone > self.stories.len() / 8 {
            self.gone = 0;
            let stories = &self.stories;
            self.postings.retain(|_, list| {
                list.retain(|n| stories.contains_key(n));
                !list.is_empty()
            });
        }
    }
}

#[cfg(test)]
#[path = "window_tests.rs"]
mod tests;
