//! What each method of the seed papers finds on a page (the density
//! region, the qRead segment, link-ratio blocks, the container they share):
//! the second step of the flow features -> signals -> choice.

use crate::features::Feat;
use crate::tree::{self, Tree};
use gleaner_core::messages::Block;
use std::ops::Range;

/// What the other methods found on the page.
pub struct Signals<'a> {
    pub region: Option<Range<usize>>,
    pub qread: Option<Range<usize>>,
    pub tree: &'a Tree,
    pub container: Option<usize>,
}

/// Density method: the contiguous run of blocks with the largest sum of
/// `words·(1 − ld) − κ·words·ld − c`, where ld is the block's link density.
pub(crate) fn density_region(f: &[Feat]) -> Option<Range<usize>> {
    const LINK_PENALTY: f64 = 2.0;
    const BLOCK_COST: f64 = 4.0;
    let score = |x: &Feat| {
        let prose = x.words * (1.0 - x.link_density);
        let cost = if x.heading { 0.0 } else { BLOCK_COST };
        prose - LINK_PENALTY * x.words * x.link_density - cost
    };
    let (mut best, mut best_range) = (0.0, None);
    let (mut sum, mut start) = (0.0, 0);
    for (i, x) in f.iter().enumerate() {
        if sum <= 0.0 {
            sum = 0.0;
            start = i;
        }
        sum += score(x);
        if sum > best {
            best = sum;
            best_range = Some(start..i + 1);
        }
    }
    best_range
}

/// qRead: segments split by runs of ≥ θ "empty" blocks; the best by word
/// density × (1 + title similarity) × ln(words).
pub(crate) fn qread_segment(f: &[Feat], title: &str) -> Option<Range<usize>> {
    const THETA: usize = 3;
    let empty = |x: &Feat| x.words < 5.0 || x.link_density > 0.5;
    let mut segments = Vec::new();
    let (mut start, mut last_full, mut gap) = (None::<usize>, 0, 0);
    for (i, x) in f.iter().enumerate() {
        if empty(x) {
            gap += 1;
            if gap >= THETA {
                if let Some(s) = start.take() {
                    segments.push(s..last_full + 1);
                }
            }
        } else {
            gap = 0;
            start.get_or_insert(i);
            last_full = i;
        }
    }
    if let Some(s) = start {
        segments.push(s..last_full + 1);
    }
    // Cosine of term counts, title against segment, over the title's words.
    let title_len = gleaner_text::word_count(title) as f64;
    segments
        .into_iter()
        .map(|r| {
            let full: Vec<usize> = r.clone().filter(|&i| !empty(&f[i])).collect();
            let words: f64 = full.iter().map(|&i| f[i].words).sum();
            let density = words / full.len().max(1) as f64;
            let (hits, all): (f64, f64) = r
                .clone()
                .map(|i| (f[i].title_hits, f[i].words))
                .fold((0.0, 0.0), |a, b| (a.0 + b.0, a.1 + b.1));
            let sim = if title_len == 0.0 || all == 0.0 {
                0.0
            } else {
                (hits / (title_len * all).sqrt()).min(1.0)
            };
            (density * (1.0 + sim) * (1.0 + words).ln(), r)
        })
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, r)| r)
}

/// Extends a region backwards over a heading (or short title-like block)
/// that repeats the page title, so the article keeps its headline.
fn with_title_heading(blocks: &[Block], f: &[Feat], r: Range<usize>, title: &str) -> Range<usize> {
    if title.is_empty() {
        return r;
    }
    let title_words: Vec<String> = gleaner_text::words(title);
    let lookback = r.start.saturating_sub(6);
    for i in (lookback..r.start).rev() {
        if f[i].heading || blocks[i].tag == "h1" {
            let w = gleaner_text::words(&blocks[i].text);
            let shared = w.iter().filter(|x| title_words.contains(x)).count();
            if !w.is_empty() && shared * 2 >= w.len() {
                return i..r.end;
            }
        }
    }
    r
}

/// Text-to-link ratio: the element with the most non-link text among those
/// whose text-to-link ratio reaches `NODE_RATIO`, then, inside it, the
/// children (blocks) whose own ratio reaches `CHILD_RATIO`.
pub(crate) fn link_ratio(f: &[Feat], tree: &tree::Tree) -> Vec<usize> {
    const NODE_RATIO: f64 = 3.0;
    const CHILD_RATIO: f64 = 1.0;
    let ratio = |prose: f64, words: f64| prose / (words - prose + 1.0);
    let best = tree
        .nodes
        .iter()
        .enumerate()
        .filter(|(_, n)| ratio(n.prose, n.words) >= NODE_RATIO)
        .max_by(|a, b| a.1.prose.total_cmp(&b.1.prose).then(b.0.cmp(&a.0)));
    let Some((_, node)) = best else {
        return Vec::new();
    };
    (node.first..=node.last)
        .filter(|&i| {
            let prose = f[i].words * (1.0 - f[i].link_density);
            f[i].heading || ratio(prose, f[i].words) >= CHILD_RATIO
        })
        .collect()
}

/// The other methods' results on a page, which `auto` and `lines` build on.
pub(crate) fn signals<'a>(
    blocks: &[Block],
    f: &[Feat],
    title: &str,
    tree: &'a tree::Tree,
) -> Signals<'a> {
    let d = density_region(f);
    let q = qread_segment(f, title);
    let region = match (d, q.clone()) {
        (Some(d), Some(q)) if q.start < d.end && d.start < q.end => {
            Some(d.start.min(q.start)..d.end.max(q.end))
        }
        (Some(d), _) => Some(d),
        (None, q) => q,
    }
    .map(|r| with_title_heading(blocks, f, r, title));
    let container = region
        .as_ref()
        .and_then(|r| tree.common_ancestor(r.start, r.end - 1));
    Signals {
        region,
        qread: q,
        tree,
        container,
    }
}
