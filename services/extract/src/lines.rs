//! Line features (after DGWC): each block is a line with features
//! normalised per page, which the trained classifier in [`crate::model`]
//! scores.
//!
//! `lines` uses the line features alone; `auto` adds the other methods'
//! signals (density region, qRead segment, the container element, chrome
//! and content names in the tag path) as features, so the model learns how
//! much to trust each. `scripts/train-extract.py` computes the same
//! features for training (and reports domain-split cross-validated
//! scores).

use crate::features::{collapsed, Feat};
use crate::signals::Signals;
use gleaner_core::messages::Block;
use std::ops::Range;

/// Number of line features (the `lines` model sees only these).
pub const N_LINE: usize = 18;
/// Number of features of the `auto` model.
pub const N_AUTO: usize = 50;

fn ln1(x: f64) -> f64 {
    (1.0 + x).ln()
}

/// Whether a block is a heading most of whose words are in the title.
pub(crate) fn names_the_title(x: &Feat) -> bool {
    x.heading && x.words > 0.0 && x.title_hits * 2.0 >= x.words
}

/// The headline: the first heading most of whose words are in the title.
pub(crate) fn headline(f: &[Feat]) -> Option<usize> {
    f.iter().position(names_the_title)
}

/// The feature rows of every block.
pub(crate) fn features(blocks: &[Block], f: &[Feat], s: &Signals) -> Vec<Vec<f32>> {
    let n = blocks.len();
    let max_words = f.iter().map(|x| x.words).fold(1.0, f64::max);
    let page_words: f64 = f.iter().map(|x| x.words).sum::<f64>().max(1.0);
    let page_prose: f64 = f
        .iter()
        .map(|x| x.words * (1.0 - x.link_density))
        .sum::<f64>()
        .max(1.0);
    let region_words: f64 = s
        .region
        .clone()
        .map(|r| r.map(|i| f[i].words).sum())
        .unwrap_or(0.0);
    let container_words = s.container.map(|c| s.tree.nodes[c].words).unwrap_or(0.0);
    let lw: Vec<f64> = f.iter().map(|x| ln1(x.words)).collect();
    // Repeated structure: list items, forum posts and product tiles share
    // a tag path.
    let mut group_of: rustc_hash::FxHashMap<u64, usize> = Default::default();
    let mut groups: Vec<(f64, f64)> = Vec::new();
    let group: Vec<usize> = f
        .iter()
        .enumerate()
        .map(|(i, x)| {
            let g = *group_of.entry(s.tree.path_keys(i)[0]).or_insert_with(|| {
                groups.push((0.0, 0.0));
                groups.len() - 1
            });
            groups[g].0 += 1.0;
            groups[g].1 += x.words;
            g
        })
        .collect();
    let biggest_group = groups.iter().map(|g| g.1).fold(0.0, f64::max) / page_words;
    let page_chars: f64 = blocks
        .iter()
        .map(|b| f64::from(b.text_len))
        .sum::<f64>()
        .max(1.0);
    let page_link_density = blocks
        .iter()
        .map(|b| f64::from(b.link_text_len))
        .sum::<f64>()
        / page_chars;
    let li_words: f64 = blocks
        .iter()
        .zip(f)
        .filter(|(b, _)| matches!(b.tag.as_str(), "li" | "dd" | "dt"))
        .map(|(_, x)| x.words)
        .sum();
    let title_at = headline(f);
    let mut words_before = Vec::with_capacity(n);
    let mut seen = 0.0;
    for x in f {
        words_before.push(seen);
        seen += x.words;
    }
    let texts: Vec<_> = blocks.iter().map(collapsed).collect();
    let mut repeats: rustc_hash::FxHashMap<&str, u32> = Default::default();
    for t in &texts {
        *repeats.entry(t).or_insert(0) += 1;
    }
    let window = |v: &dyn Fn(usize) -> f64, i: usize| {
        let (a, b) = (i.saturating_sub(2), (i + 3).min(n));
        (a..b).map(v).sum::<f64>() / (b - a) as f64
    };
    let mut rows = Vec::with_capacity(n);
    for (i, b) in blocks.iter().enumerate() {
        let x = &f[i];
        let tag = b.tag.as_str();
        let text = b.text.trim_end();
        let ends = text.ends_with(['.', '!', '?', '。', '！', '？', ':', ';']);
        let commas = b.text.matches([',', '，', '、']).count() as f64;
        let mut r: Vec<f64> = Vec::with_capacity(N_AUTO);
        r.extend([
            lw[i],
            x.words / max_words,
            x.link_density,
            ln1(f64::from(b.link_count)),
            ln1(f64::from(b.image_count)),
            f64::from(b.text_len) / (f64::from(b.text_len) + f64::from(b.markup_bytes) + 1.0),
            f64::from(u8::from(ends)),
            ln1(commas),
            i as f64 / n.max(1) as f64,
            f64::from(u8::from(x.heading)),
            f64::from(u8::from(matches!(tag, "li" | "dd" | "dt"))),
            f64::from(u8::from(matches!(tag, "td" | "th"))),
            f64::from(u8::from(tag == "p")),
            window(&|j| lw[j], i),
            window(&|j| f[j].link_density, i),
            if i > 0 { lw[i - 1] } else { 0.0 },
            if i + 1 < n { lw[i + 1] } else { 0.0 },
            s.tree.chain(i).len() as f64 / 30.0,
        ]);
        debug_assert_eq!(r.len(), N_LINE);
        let chain = s.tree.chain(i);
        let marks = s.tree.marks_of(i);
        let inside = |r: &Option<Range<usize>>| r.as_ref().is_some_and(|r| r.contains(&i));
        let in_container = s.container.is_some_and(|c| chain.contains(&c));
        let title_share = if x.words > 0.0 {
            x.title_hits / x.words
        } else {
            0.0
        };
        let parent = chain.len().checked_sub(2).map(|p| &s.tree.nodes[chain[p]]);
        let distance = match &s.region {
            Some(r) if i < r.start => (r.start - i) as f64,
            Some(r) if i >= r.end => (i + 1 - r.end) as f64,
            Some(_) => 0.0,
            None => 50.0,
        };
        r.extend([
            f64::from(u8::from(inside(&s.region))),
            f64::from(u8::from(inside(&s.qread))),
            f64::from(u8::from(in_container)),
            f64::from(u8::from(marks.chrome)),
            f64::from(u8::from(marks.content_named)),
            f64::from(u8::from(marks.article)),
            f64::from(u8::from(marks.layout)),
            title_share,
            parent.map_or(0.0, |p| p.prose / page_prose),
            parent.map_or(0.0, |p| {
                if p.words > 0.0 {
                    1.0 - p.prose / p.words
                } else {
                    0.0
                }
            }),
            region_words / page_words,
            distance.min(50.0) / 50.0,
            container_words / page_words,
            ln1(groups[group[i]].0),
            groups[group[i]].1 / page_words,
            chain
                .len()
                .checked_sub(3)
                .map_or(0.0, |p| s.tree.nodes[chain[p]].prose / page_prose),
            chain
                .len()
                .checked_sub(5)
                .map_or(0.0, |p| s.tree.nodes[chain[p]].prose / page_prose),
            b.text.chars().filter(char::is_ascii_digit).count() as f64
                / f64::from(b.text_len.max(1)),
        ]);
        let heading_level = match tag.as_bytes() {
            [b'h', d @ b'1'..=b'6'] => f64::from(d - b'0'),
            _ => 0.0,
        };
        r.extend([
            page_link_density,
            ln1(n as f64),
            li_words / page_words,
            biggest_group,
            title_at.map_or(0.0, |h| (i as f64 - h as f64) / n as f64),
            f64::from(u8::from(title_at.is_some_and(|h| i < h))),
            words_before[i] / page_words,
            heading_level,
            f64::from(u8::from(matches!(tag, "blockquote" | "pre" | "code"))),
            f64::from(u8::from(matches!(tag, "figcaption" | "caption"))),
            f64::from(u8::from(marks.form)),
            f64::from(u8::from(repeats.get(&*texts[i]).is_some_and(|&c| c > 1))),
            // What the page itself says it does not show, or shows as chrome.
            f64::from(b.hidden_len.min(b.text_len)) / f64::from(b.text_len.max(1)),
            f64::from(u8::from(b.chrome_role)),
        ]);
        debug_assert_eq!(r.len(), N_AUTO);
        rows.push(r.into_iter().map(|v| v as f32).collect());
    }
    rows
}
