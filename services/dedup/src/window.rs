//! The window: the articles recent reposts are compared with, and the
//! verdicts. An article is a repost of one in the window when at least
//! `threshold` of one's TF-IDF weight lies on words the other has too (the
//! same subject; see [`shared_weight`]) and at least `containment` of the
//! shorter one's word 4-grams are in the other (the same text), so that a copy trimmed to part of its original is found
//! while a different report of one event is not. The earliest published
//! copy of a group is its original; a copy that was let through before an
//! earlier one arrived is corrected.
//!
//! Cost per article does not depend on what the window holds: candidates
//! come from capped postings of shingle hashes chosen by how rare they are
//! (see [`crate::keys`]: text common elsewhere cannot starve an original of
//! its keys), at most [`MAX_VERIFY`] of them are verified, and the window holds at most
//! `window_count` articles, the earliest published leaving first.
//!
//! Age is publication time, not arrival: two articles published more than
//! `window_age_secs` apart are never copies of each other. It is a bound
//! on what is compared rather than on what is kept, since a crawl meets a
//! site's back catalogue in no order of date: an archive page and its
//! repost, crawled after newer pages, are still compared.

use crate::features::Features;
use crate::keys::{posting_order, ranked_keys, Key, COMMONEST, MAX_KEYS};
use crate::postings::Postings;
use crate::sketch::containment;
use crate::stored::Stored;
use crate::vector::{shared_weight, top_terms, Vector};
use gleaner_core::event::Event;
use gleaner_core::messages::{Article, Duplicate};
use gleaner_core::recent::Recent;
use gleaner_core::util::fnv1a64;
use gleaner_text::docfreq::DocFreq;
use rustc_hash::FxHashMap;
use std::collections::BTreeSet;
use std::sync::Arc;

pub use crate::settings::DedupSettings;

/// Most terms and sketch hashes kept per article, whatever the config says,
/// so one article's share of the window stays small (and fits the stored
/// form's u16 lengths).
const MAX_KEPT: usize = 1024;

/// Most candidates verified per article (those sharing the most keys).
pub const MAX_VERIFY: usize = 32;

/// Publication times more than this far in the future are taken as now.
const FUTURE_SLACK_SECS: i64 = 86_400;

struct Entry {
    /// The id followed by the URL (one allocation for both).
    key: Box<str>,
    id_len: u32,
    /// The copies' cluster; `None` is the entry's own id.
    cluster: Option<Arc<str>>,
    event: Event,
    seq: u64,
    text_hash: u64,
    /// Hash of the fetch time: a replay carries the same one.
    fetched: u64,
    /// Which of the sketch's first [`MAX_KEYS`] hashes it is posted under.
    posted: u64,
    text: Stored,
}

impl Entry {
    fn id(&self) -> &str {
        &self.key[..self.id_len as usize]
    }
    fn url(&self) -> &str {
        &self.key[self.id_len as usize..]
    }
    /// The keys it is posted under.
    fn keys(&self) -> impl Iterator<Item = u32> + '_ {
        let posted = self.posted;
        self.text
            .sketch()
            .iter()
            .take(MAX_KEYS)
            .enumerate()
            .filter(move |(i, _)| posted & (1 << i) != 0)
            .map(|(_, &k)| k)
    }
}

/// The article of a group of copies that counts as the original.
#[derive(Clone)]
struct Member {
    id: Box<str>,
    url: Box<str>,
    event: Event,
}

impl Member {
    fn of(e: &Entry) -> Member {
        Member {
            id: e.id().into(),
            url: e.url().into(),
            event: e.event,
        }
    }
}

struct Group {
    original: Member,
    /// Entries of the group in the window; the group goes with the last.
    members: u32,
}

/// What dedup says about an article (and sometimes about an earlier one).
#[derive(Debug, Clone, PartialEq)]
pub enum Decision {
    /// Not a repost: goes on, carrying its cluster id.
    Unique { cluster: String },
    /// This article repeats `original_id`.
    Repost(Duplicate),
    /// An article let through before is a repost of this one, which was
    /// published earlier.
    Correction(Duplicate),
    /// This article was judged already (the same id with the same text or
    /// from the same fetch): a replay after a crash, or a refetch of an
    /// unchanged page. Nothing goes out again.
    Replay,
}

/// Counters for reports and benchmarks.
#[derive(Debug, Default, Clone, Copy)]
pub struct Stats {
    pub judged: u64,
    pub candidates: u64,
    pub verified: u64,
    pub corrections: u64,
    pub replays: u64,
}

pub struct Window {
    /// When set (`gleaner dedup --explain`), why each article judged new
    /// matched nothing: `no candidate` (none is posted under a key it is
    /// looked up under: not in the window, or pushed out of the keys),
    /// `published too far apart`,
    /// `below containment`, `below shared weight`.
    pub explain: Option<Vec<(Box<str>, &'static str)>>,
    /// Why the last lookup matched nothing.
    last_miss: &'static str,
    cfg: DedupSettings,
    slots: Vec<Option<Entry>>,
    free: Vec<u32>,
    by_id: FxHashMap<u64, u32>,
    /// Eviction order when full: (publication time, arrival, slot).
    order: BTreeSet<(i64, u64, u32)>,
    index: Postings,
    groups: FxHashMap<Arc<str>, Group>,
    df: DocFreq,
    /// How many recent articles have each sketch hash (for ranking keys).
    key_df: DocFreq,
    seq: u64,
    scratch: Vec<u32>,
    /// Articles too short for the window, by id: (text hash, fetch hash),
    /// so that their replays are recognised too.
    short: Recent<(u64, u64)>,
    pub stats: Stats,
}

impl Window {
    pub fn new(mut cfg: DedupSettings) -> Self {
        cfg.vector_terms = cfg.vector_terms.min(MAX_KEPT);
        cfg.sketch_size = cfg.sketch_size.min(MAX_KEPT);
        Window {
            explain: None,
            last_miss: "",
            df: DocFreq::for_window(cfg.window_count),
            key_df: DocFreq::for_window_of(cfg.window_count, cfg.sketch_size),
            short: Recent::new(cfg.window_count),
            cfg,
            slots: Vec::new(),
            free: Vec::new(),
            by_id: FxHashMap::default(),
            order: BTreeSet::new(),
            index: Postings::new(),
            groups: FxHashMap::default(),
            seq: 0,
            scratch: Vec::new(),
            stats: Stats::default(),
        }
    }

    pub fn config(&self) -> &DedupSettings {
        &self.cfg
    }

    pub fn len(&self) -> usize {
        self.order.len()
    }

    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }

    /// Bytes the window holds, counted from its parts (the benchmark
    /// measures resident memory too).
    pub fn bytes(&self) -> usize {
        let entries: usize = self
            .slots
            .iter()
            .flatten()
            .map(|e| e.key.len() + e.text.bytes())
            .sum();
        self.slots.capacity() * std::mem::size_of::<Option<Entry>>()
            + entries
            + self.by_id.capacity() * 13
            + self.order.len() * 32
            + self.index.bytes()
            + self.df.bytes()
            + self.key_df.bytes()
            + self.groups.capacity() * 80
    }

    fn entry(&self, slot: u32) -> &Entry {
        self.slots[slot as usize]
            .as_ref()
            .expect("slots in the index and order are filled")
    }

    fn find(&self, id: &str) -> Option<u32> {
        let slot = *self.by_id.get(&fnv1a64(id.as_bytes()))?;
        (self.entry(slot).id() == id).then_some(slot)
    }

    fn cluster_of(&self, e: &Entry) -> Arc<str> {
        e.cluster.clone().unwrap_or_else(|| Arc::from(e.id()))
    }

    fn original_of(&self, e: &Entry) -> Member {
        match self.groups.get(&*self.cluster_of(e)) {
            Some(g) => g.original.clone(),
            None => Member::of(e),
        }
    }

    /// Judges an article: unique (it joins the window), a repost, the
    /// earlier original of a copy let through before, or a replay.
    pub fn judge(&mut self, a: &Article, f: &Features, now: i64) -> Vec<Decision> {
        self.stats.judged += 1;
        let fetched = fnv1a64(a.fetched_at.as_bytes());
        if let Some(slot) = self.find(&a.id) {
            let e = self.entry(slot);
            if e.text_hash == f.text_hash || e.fetched == fetched {
                self.stats.replays += 1;
                return vec![Decision::Replay];
            }
            // The same id from a new fetch with another text: an update,
            // judged afresh.
            self.remove(slot);
        }
        if (f.content_words as usize) < self.cfg.min_content_words {
            let id = fnv1a64(a.id.as_bytes());
            let replay = self
                .short
                .get(id)
                .is_some_and(|&(t, fe)| t == f.text_hash || fe == fetched);
            self.short.insert(id, (f.text_hash, fetched));
            if replay {
                self.stats.replays += 1;
                return vec![Decision::Replay];
            }
            return vec![Decision::Unique {
                cluster: a.id.clone(),
            }];
        }
        let event = Self::event(a, now);
        let vector = top_terms(&f.terms, &self.df, self.cfg.vector_terms);
        let keys = ranked_keys(&f.sketch, &self.key_df);
        let best = self.best_match(&vector, f, &keys, event);
        self.df.add(f.terms.iter().map(|t| t.0));
        self.key_df.add(f.sketch.iter().copied());
        let Some((slot, shared, cont)) = best else {
            if let Some(why) = self.explain.as_mut() {
                why.push((a.id.as_str().into(), self.last_miss));
            }
            self.insert(a, f, &keys, vector, event, None);
            return vec![Decision::Unique {
                cluster: a.id.clone(),
            }];
        };
        let matched = self.entry(slot);
        let cluster = self.cluster_of(matched);
        let original = self.original_of(matched);
        if !self.groups.contains_key(&cluster) {
            // The matched article was alone: it and this one form a group.
            self.groups.insert(
                cluster.clone(),
                Group {
                    original: original.clone(),
                    members: 1, // the matched entry; this one is added below
                },
            );
            self.slots[slot as usize]
                .as_mut()
                .expect("matched slot is filled")
                .cluster = Some(cluster.clone());
        }
        let dup = |id: &str, url: &str, of: &str, of_url: &str, correction, at: Event| Duplicate {
            id: id.to_string(),
            url: url.to_string(),
            original_id: of.to_string(),
            original_url: of_url.to_string(),
            similarity: f64::from(shared),
            containment: f64::from(cont),
            cluster: Some(cluster.to_string()),
            correction,
            published: Some(gleaner_core::util::rfc3339(at.secs.max(0) as u64)),
        };
        let decisions = if *original.id == *a.id {
            // An update of the group's original that still matches its
            // copies: it stays the original.
            vec![Decision::Unique {
                cluster: cluster.to_string(),
            }]
        } else if event.earlier_than(original.event) {
            // Published before the copy that stood as original: it takes
            // that place, and the copy is corrected to a repost.
            let correction = dup(
                &original.id,
                &original.url,
                &a.id,
                &a.url,
                true,
                original.event,
            );
            self.stats.corrections += 1;
            if let Some(g) = self.groups.get_mut(&cluster) {
                g.original = Member {
                    id: a.id.as_str().into(),
                    url: a.url.as_str().into(),
                    event,
                };
            }
            vec![
                Decision::Unique {
                    cluster: cluster.to_string(),
                },
                Decision::Correction(correction),
            ]
        } else {
            vec![Decision::Repost(dup(
                &a.id,
                &a.url,
                &original.id,
                &original.url,
                false,
                event,
            ))]
        };
        self.insert(a, f, &keys, vector, event, Some(cluster));
        decisions
    }

    /// Adds an article known to be unique (from the stage's own output,
    /// after a restart) without judging it, with the cluster it carries.
    pub fn remember(&mut self, a: &Article, f: &Features, now: i64) {
        if (f.content_words as usize) < self.cfg.min_content_words {
            let fetched = fnv1a64(a.fetched_at.as_bytes());
            self.short
                .insert(fnv1a64(a.id.as_bytes()), (f.text_hash, fetched));
            return;
        }
        if self.find(&a.id).is_some() {
            return;
        }
        let event = Self::event(a, now);
        let vector = top_terms(&f.terms, &self.df, self.cfg.vector_terms);
        let keys = ranked_keys(&f.sketch, &self.key_df);
        self.df.add(f.terms.iter().map(|t| t.0));
        self.key_df.add(f.sketch.iter().copied());
        let cluster: Option<Arc<str>> = a.cluster.as_deref().filter(|c| *c != a.id).map(Arc::from);
        if let Some(c) = &cluster {
            // Its group's original is the earliest published member seen.
            let me = Member {
                id: a.id.as_str().into(),
                url: a.url.as_str().into(),
                event,
            };
            let first = self.find(c).map(|s| (s, Member::of(self.entry(s))));
            let g = self
                .groups
                .entry(c.clone())
                .or_insert_with(|| match &first {
                    Some((_, m)) => Group {
                        original: m.clone(),
                        members: 1,
                    },
                    None => Group {
                        original: me.clone(),
                        members: 0,
                    },
                });
            if event.earlier_than(g.original.event) {
                g.original = me;
            }
            if let Some((s, _)) = first {
                if let Some(e) = self.slots[s as usize].as_mut() {
                    e.cluster = Some(c.clone());
                }
            }
        }
        self.insert(a, f, &keys, vector, event, cluster);
    }

    fn event(a: &Article, now: i64) -> Event {
        let mut e = Event::of(a, now);
        e.secs = e.secs.min(now.saturating_add(FUTURE_SLACK_SECS));
        e
    }

    /// The window entry most like the article, if any passes both
    /// thresholds: most contained first, then most alike, then earliest.
    fn best_match(
        &mut self,
        vector: &[(u32, f32)],
        f: &Features,
        keys: &[Key],
        event: Event,
    ) -> Option<(u32, f32, f32)> {
        let age = self.cfg.window_age_secs.min(i64::MAX as u64) as i64;
        let sketch = &f.sketch[..];
        let mut slots = std::mem::take(&mut self.scratch);
        slots.clear();
        // Every key but the commonest (a copy's own fresh shingles rank
        // before the keys its original shares with earlier copies), and
        // at least twice as many as an article is posted under.
        let least = self.cfg.index_keys.saturating_mul(2);
        for (n, k) in keys.iter().enumerate() {
            if n >= least && k.band == COMMONEST {
                break;
            }
            self.index
                .for_each(sketch[usize::from(k.pos)], |s| slots.push(s));
        }
        slots.sort_unstable();
        // (shared keys, slot), most shared first.
        let mut counted: Vec<(u32, u32)> = Vec::new();
        for s in slots.chunk_by(|a, b| a == b) {
            counted.push((s.len() as u32, s[0]));
        }
        counted.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        self.stats.candidates += counted.len() as u64;
        counted.truncate(MAX_VERIFY);
        self.scratch = slots;
        self.stats.verified += counted.len() as u64;
        let mut best: Option<(u32, f32, f32, u64)> = None;
        // How far the closest candidate got, for `explain`.
        let mut got = if counted.is_empty() {
            "no candidate"
        } else {
            "published too far apart"
        };
        for &(_, slot) in &counted {
            let e = self.entry(slot);
            if e.event.secs.abs_diff(event.secs) > age as u64 {
                continue; // published too far apart to be copies
            }
            // Containment first: a merge of two short sorted lists, it
            // turns away most candidates (stock phrases in common).
            let cont = containment(sketch, e.text.sketch());
            if f64::from(cont) < self.cfg.containment {
                if got != "below shared weight" {
                    got = "below containment";
                }
                continue;
            }
            let shared = shared_weight(vector, &f.terms, &e.text);
            if f64::from(shared) < self.cfg.threshold {
                got = "below shared weight";
                continue;
            }
            let better = best.is_none_or(|(_, b_shared, b_cont, b_seq)| {
                let (this, that) = ((cont, shared), (b_cont, b_shared));
                this > that || (this == that && e.seq < b_seq)
            });
            if better {
                best = Some((slot, shared, cont, e.seq));
            }
        }
        self.last_miss = got;
        best.map(|(slot, shared, cont, _)| (slot, shared, cont))
    }

    fn insert(
        &mut self,
        a: &Article,
        f: &Features,
        keys: &[Key],
        vector: Vector,
        event: Event,
        cluster: Option<Arc<str>>,
    ) {
        if self.cfg.window_count == 0 {
            return;
        }
        if let Some(g) = cluster.as_ref().and_then(|c| self.groups.get_mut(c)) {
            g.members += 1;
        }
        let seq = self.seq;
        self.seq += 1;
        let posting: Vec<u8> = posting_order(keys)
            .into_iter()
            .take(self.cfg.index_keys)
            .collect();
        let entry = Entry {
            key: format!("{}{}", a.id, a.url).into_boxed_str(),
            id_len: a.id.len() as u32,
            cluster,
            event,
            seq,
            text_hash: f.text_hash,
            fetched: fnv1a64(a.fetched_at.as_bytes()),
            posted: posting.iter().fold(0, |m, &i| m | 1 << i),
            text: Stored::new(&f.sketch, &vector, &f.terms),
        };
        let slot = match self.free.pop() {
            Some(s) => {
                self.slots[s as usize] = Some(entry);
                s
            }
            None => {
                self.slots.push(Some(entry));
                (self.slots.len() - 1) as u32
            }
        };
        for i in posting {
            self.index.insert(f.sketch[usize::from(i)], slot);
        }
        self.by_id.insert(fnv1a64(a.id.as_bytes()), slot);
        self.order.insert((event.secs, seq, slot));
        while self.order.len() > self.cfg.window_count {
            let Some(&(_, _, s)) = self.order.first() else {
                break;
            };
            self.remove(s);
        }
    }

    fn remove(&mut self, slot: u32) {
        let Some(e) = self.slots[slot as usize].take() else {
            return;
        };
        for k in e.keys() {
            self.index.remove(k, slot);
        }
        self.by_id.remove(&fnv1a64(e.id().as_bytes()));
        self.order.remove(&(e.event.secs, e.seq, slot));
        let cluster = self.cluster_of(&e);
        if let Some(g) = self.groups.get_mut(&cluster) {
            g.members = g.members.saturating_sub(1);
            if g.members == 0 {
                self.groups.remove(&cluster);
            }
        }
        self.free.push(slot);
    }
}

#[cfg(test)]
#[path = "window_tests.rs"]
mod tests;
