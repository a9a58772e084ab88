//! The extract stage: finds the main content among a cleaned page's blocks.
//!
//! Two methods from the seed papers, and their combination (the default):
//! - `qread`: blocks that are empty of prose (short or link-heavy) act as the
//!   paper's empty lines; runs of at least θ = 3 of them split the page into
//!   segments, and the segment of highest word density (words per non-empty
//!   line), weighted by its cosine similarity with the title, wins.
//! - `density`: text density with link text penalised (after CETD's
//!   composite density), summed over the contiguous run of blocks with the
//!   largest total, so short blocks inside an article stay with it while link
//!   lists and boilerplate around it fall away.
//! - `auto`: the density region, widened by the qRead segment where the two
//!   overlap, plus a heading just before it that matches the title.

mod article;
mod language;
mod lines;
mod meta;
mod model;
mod settings;
mod site;
mod stage;
mod tree;

use gleaner_core::messages::{Block, Cleaned};
use std::ops::Range;

pub use article::{extract, extract_with, join_blocks, SiteState};
pub(crate) use article::{extract_chosen, site_view};
pub use language::detect as detect_language;
pub use meta::{normalise_date, page_title, strip_site_name};
pub use settings::ExtractSettings;
pub use site::{apply_rules, Templates};
pub use stage::{ExtractSpec, ExtractStage};

/// The extraction methods that can be chosen by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Extractor {
    Auto,
    QRead,
    Density,
    LinkRatio,
    Lines,
    Template,
    Rules,
}

impl Extractor {
    pub const NAMES: [&'static str; 7] = [
        "auto",
        "qread",
        "density",
        "link-ratio",
        "lines",
        "template",
        "rules",
    ];

    pub fn name(self) -> &'static str {
        match self {
            Extractor::Auto => "auto",
            Extractor::QRead => "qread",
            Extractor::Density => "density",
            Extractor::LinkRatio => "link-ratio",
            Extractor::Lines => "lines",
            Extractor::Template => "template",
            Extractor::Rules => "rules",
        }
    }
}

impl std::str::FromStr for Extractor {
    type Err = anyhow::Error;
    fn from_str(s: &str) -> anyhow::Result<Self> {
        match s {
            "auto" => Ok(Extractor::Auto),
            "qread" => Ok(Extractor::QRead),
            "density" => Ok(Extractor::Density),
            "link-ratio" => Ok(Extractor::LinkRatio),
            "lines" => Ok(Extractor::Lines),
            "template" => Ok(Extractor::Template),
            "rules" => Ok(Extractor::Rules),
            other => anyhow::bail!(
                "unknown extractor {other:?} (known: {})",
                Extractor::NAMES.join(", ")
            ),
        }
    }
}

/// Per-block numbers every method uses.
pub(crate) struct Feat {
    pub(crate) words: f64,
    pub(crate) link_density: f64,
    pub(crate) heading: bool,
    /// Words of the block that are also words of the page title.
    pub(crate) title_hits: f64,
}

fn features(blocks: &[Block], title: &str) -> Vec<Feat> {
    let title_words: rustc_hash::FxHashSet<String> =
        gleaner_text::words(title).into_iter().collect();
    blocks
        .iter()
        .map(|b| {
            let (mut words, mut title_hits) = (0.0, 0.0);
            gleaner_text::for_each_word(&b.text, |w| {
                words += 1.0;
                if title_words.contains(w) {
                    title_hits += 1.0;
                }
            });
            Feat {
                words,
                link_density: if b.text_len == 0 {
                    0.0
                } else {
                    (b.link_text_len as f64 / b.text_len as f64).min(1.0)
                },
                heading: matches!(b.tag.as_str(), "h1" | "h2" | "h3" | "h4" | "h5" | "h6"),
                title_hits,
            }
        })
        .collect()
}

/// Density method: the contiguous run of blocks with the largest sum of
/// `words·(1 − ld) − κ·words·ld − c`, where ld is the block's link density.
fn density_region(f: &[Feat]) -> Option<Range<usize>> {
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
fn qread_segment(f: &[Feat], title: &str) -> Option<Range<usize>> {
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
fn link_ratio(f: &[Feat], tree: &tree::Tree) -> Vec<usize> {
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
fn signals<'a>(
    blocks: &[Block],
    f: &[Feat],
    title: &str,
    tree: &'a tree::Tree,
) -> lines::Signals<'a> {
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
    lines::Signals {
        region,
        qread: q,
        tree,
        container,
    }
}

/// What training needs of a page's blocks: their feature rows, whether
/// the chrome filter after the classifier drops them anyway, and their
/// word counts (as the context features weigh them).
pub struct FeatureRows {
    pub rows: Vec<Vec<f32>>,
    pub dropped: Vec<bool>,
    pub words: Vec<f64>,
}

/// [`FeatureRows`] of every block of a page.
pub fn feature_rows(cleaned: &Cleaned) -> FeatureRows {
    let title = meta::feature_title(cleaned);
    let f = features(&cleaned.blocks, &title);
    let tree = tree::build(&cleaned.blocks, &f);
    let s = signals(&cleaned.blocks, &f, &title, &tree);
    FeatureRows {
        rows: lines::features(&cleaned.blocks, &f, &s),
        dropped: (0..f.len()).map(|i| is_chrome(&tree, &f, i)).collect(),
        words: f.iter().map(|x| x.words).collect(),
    }
}

/// How many blocks below the headline the text may start for the
/// headline to be kept with it (a dateline and a byline may come between).
const HEADLINE_GAP: usize = 3;

/// HTML's own chrome (<nav>, <aside>, <footer>) and link lists named as
/// chrome (share bars, menus) are never the article, whatever the
/// classifier thought of their neighbours.
fn is_chrome(tree: &tree::Tree, f: &[Feat], i: usize) -> bool {
    let m = tree.marks_of(i);
    m.chrome_tag || (m.chrome && f[i].link_density > 0.5)
}

/// Without trained weights: the density/qRead region widened to its
/// container when the container adds little beside chrome.
fn heuristic(blocks: &[Block], f: &[Feat], s: &lines::Signals) -> Vec<usize> {
    let Some(region) = s.region.clone() else {
        return Vec::new();
    };
    let in_region: Vec<usize> = region
        .clone()
        .filter(|&i| f[i].link_density <= 0.8 || f[i].heading)
        .collect();
    let Some(container) = s.container else {
        return in_region;
    };
    let node = &s.tree.nodes[container];
    let item = |i: usize| matches!(blocks[i].tag.as_str(), "li" | "td" | "dd" | "dt");
    let extra: Vec<usize> = (node.first..=node.last)
        .filter(|i| !region.contains(i) && !s.tree.in_chrome_below(*i, container))
        .filter(|&i| !(f[i].link_density > 0.8 && !f[i].heading && !item(i)))
        .collect();
    let region_words: f64 = in_region.iter().map(|&i| f[i].words).sum();
    let extra_words: f64 = extra.iter().map(|&i| f[i].words).sum();
    if extra_words > 3.0 * region_words {
        return in_region;
    }
    let mut all = in_region;
    all.extend(extra);
    all.sort_unstable();
    all
}

/// The blocks chosen by a method, in document order. `template` marks the
/// blocks the site's template holds (all false when none is learned yet).
pub fn select(cleaned: &Cleaned, which: Extractor, template: &[bool]) -> Vec<usize> {
    let blocks = &cleaned.blocks;
    let title = meta::feature_title(cleaned);
    let mut f = features(blocks, &title);
    let is_template = |i: usize| template.get(i).copied().unwrap_or(false);
    match which {
        Extractor::Template => {
            // Density over what is left once the template is taken out.
            for (i, x) in f.iter_mut().enumerate() {
                if is_template(i) {
                    x.words = 0.0;
                }
            }
            density_region(&f)
                .map(|r| r.filter(|&i| !is_template(i)).collect())
                .unwrap_or_default()
        }
        Extractor::QRead => qread_segment(&f, &title)
            .map(Iterator::collect)
            .unwrap_or_default(),
        Extractor::Density => density_region(&f)
            .map(Iterator::collect)
            .unwrap_or_default(),
        Extractor::LinkRatio => link_ratio(&f, &tree::build(blocks, &f)),
        Extractor::Auto | Extractor::Lines | Extractor::Rules => {
            let tree = tree::build(blocks, &f);
            let s = signals(blocks, &f, &title, &tree);
            let model = if which == Extractor::Lines {
                model::lines_model()
            } else {
                model::auto_model()
            };
            let eligible: Vec<bool> = (0..f.len()).map(|i| !is_chrome(&tree, &f, i)).collect();
            let chosen = match model {
                Some(m) => {
                    let words: Vec<f64> = f.iter().map(|x| x.words).collect();
                    // Path groups are read only by a context model.
                    let keys: Vec<[u64; 3]> = match m.context {
                        Some(_) => (0..f.len()).map(|i| tree.path_keys(i)).collect(),
                        None => Vec::new(),
                    };
                    m.choose(&lines::features(blocks, &f, &s), &words, &eligible, &keys)
                }
                None => heuristic(blocks, &f, &s),
            };
            let mut chosen: Vec<usize> = chosen.into_iter().filter(|&i| eligible[i]).collect();
            // The headline just above the text is the article's, whatever
            // its score: a short block the classifier may doubt.
            if let (Some(h), Some(&first)) = (lines::headline(&f), chosen.first()) {
                if eligible[h] && first > h && first - h <= HEADLINE_GAP {
                    chosen.insert(0, h);
                }
            }
            if which == Extractor::Lines {
                chosen
            } else {
                chosen.into_iter().filter(|&i| !is_template(i)).collect()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(html: &str) -> Cleaned {
        let (title, meta, blocks) = gleaner_clean::clean_html(html).unwrap();
        Cleaned {
            id: "x".into(),
            url: "http://x.test/a".into(),
            final_url: "http://x.test/a".into(),
            fetched_at: String::new(),
            title,
            meta,
            blocks,
        }
    }

    const NEWS: &str = r#"<html><head><title>Harbour bridge reopens after repairs | Daily Gazette</title></head><body>
        <nav><ul><li><a href="/">Home</a></li><li><a href="/world">World</a></li><li><a href="/sport">Sport</a></li><li><a href="/business">Business</a></li></ul></nav>
        <div class="promo"><a href="/subscribe">Subscribe now for unlimited access to all our stories</a></div>
        <article><h1>Harbour bridge reopens after repairs</h1>
        <p class="byline">By Jane Doe</p>
        <p>The harbour bridge reopened to traffic on Monday after eight months of repairs that cost the city more than forty million dollars.</p>
        <p>Engineers replaced the worn cables and resurfaced the deck, and the mayor said the work would keep the bridge safe for another fifty years.</p>
        <p>Commuters who had faced long detours welcomed the news, although some said the tolls, which rise next month, were too high.</p>
        </article>
        <aside><h3>Most read</h3><ul><li><a href="/a">Storm warning for the coast this weekend</a></li><li><a href="/b">Council votes on new budget</a></li><li><a href="/c">Local team wins the cup</a></li></ul></aside>
        <footer><p>© 2026 Daily Gazette. All rights reserved.</p><p><a href="/about">About</a> | <a href="/contact">Contact</a> | <a href="/privacy">Privacy</a></p></footer>
        </body></html>"#;

    #[test]
    fn every_method_finds_the_article_body() {
        for which in [
            Extractor::Auto,
            Extractor::QRead,
            Extractor::Density,
            Extractor::LinkRatio,
            Extractor::Lines,
        ] {
            let a = extract(&page(NEWS), which);
            assert!(
                a.text.contains("eight months of repairs"),
                "{which:?}: {}",
                a.text
            );
            assert!(
                a.text.contains("tolls, which rise next month"),
                "{which:?}: {}",
                a.text
            );
            for boiler in [
                "Subscribe now",
                "Storm warning",
                "All rights reserved",
                "Privacy",
                "Sport",
            ] {
                assert!(
                    !a.text.contains(boiler),
                    "{which:?} kept {boiler:?}: {}",
                    a.text
                );
            }
        }
    }

    #[test]
    fn an_unclosed_banner_aside_is_not_chrome_for_the_whole_page() {
        // An <aside> banner whose end tag is missing holds the whole page
        // (browsers agree); the article in it is still the article.
        let broken = NEWS.replacen(
            "<nav>",
            "<aside class='announcement'><div><a href='/news'>We have news</a></div><nav>",
            1,
        );
        let broken = broken.replacen("</aside>", "</div>", 1);
        let c = page(&broken);
        let aside_blocks = c
            .blocks
            .iter()
            .filter(|b| b.path.contains("/aside"))
            .count();
        assert_eq!(aside_blocks, c.blocks.len(), "the aside holds every block");
        let a = extract(&c, Extractor::Auto);
        assert!(a.text.contains("eight months of repairs"), "{}", a.text);
    }

    #[test]
    fn auto_keeps_the_headline_and_metadata() {
        let a = extract(&page(NEWS), Extractor::Auto);
        assert!(
            a.text
                .starts_with("Harbour bridge reopens after repairs\n\n"),
            "{}",
            a.text
        );
        assert_eq!(a.title, "Harbour bridge reopens after repairs");
        assert_eq!(a.language.as_deref(), Some("en"));
    }

    #[test]
    fn cjk_text_counts_characters() {
        let html = "<html><head><title>新しい橋が開通</title></head><body><nav><a href='/'>ホーム</a><a href='/n'>ニュース</a></nav>\
            <p>市内の新しい橋が月曜日に開通し、多くの通勤者が朝から利用した。工事は八か月続き、費用は四十億円を超えた。</p>\
            <p>市長は、この橋が今後五十年にわたり安全に使えると述べた。通行料は来月から値上げされる予定である。</p>\
            <footer><a href='/about'>会社概要</a><a href='/privacy'>プライバシー</a></footer></body></html>";
        let a = extract(&page(html), Extractor::Auto);
        assert!(a.text.contains("工事は八か月続き"), "{}", a.text);
        assert!(!a.text.contains("プライバシー"), "{}", a.text);
        assert_eq!(a.language.as_deref(), Some("ja"));
    }

    /// A stream of pages from one site, each with a long boilerplate
    /// paragraph (no links, prose-like) right after the story: density
    /// keeps it, the learned template removes it from the third page on.
    #[test]
    fn site_template_removes_boilerplate_density_keeps() {
        let legal = "This newspaper is published by Harbour Media Group Limited, a company registered in \
            Port Ellis with number 0421337, whose registered office is at 12 Quay Street, and all of its \
            content is protected by copyright law in every country where it is read.";
        let stories = [
            "The harbour bridge reopened on Monday after eight months of repairs, and commuters returned at once to the crossing.",
            "The library opened its archive of old sea charts to visitors, and schoolchildren queued to see the serpent map.",
            "The fishing fleet agreed to cut its cod catch by a fifth this year after scientists warned that stocks were falling.",
            "A school robotics club won the national championship with a machine that sorts recycled bottles by colour.",
        ];
        let mut site = SiteState::default();
        let (mut before, mut after) = (Vec::new(), Vec::new());
        for (n, story) in stories.iter().enumerate() {
            let html = format!(
                "<html><head><title>Story {n}</title></head><body><nav><a href='/'>Home</a><a href='/w'>World</a></nav>\
                 <div class='story'><p>{story} {story}</p><p>{story}</p></div><div class='legal'><p>{legal}</p></div>\
                 <footer><a href='/about'>About</a></footer></body></html>"
            );
            let mut c = page(&html);
            c.url = format!("http://gazette.test/{n}");
            let density = extract(&c, Extractor::Density).text;
            let template = extract_with(&c, Extractor::Template, Some(&mut site)).text;
            let score = |text: &str| {
                let (want, got) = (gleaner_text::words(story), gleaner_text::words(text));
                let hit = got.iter().filter(|w| want.contains(w)).count() as f64;
                let (p, r) = (
                    hit / got.len().max(1) as f64,
                    (hit / 3.0 / want.len() as f64).min(1.0),
                );
                if p + r == 0.0 {
                    0.0
                } else {
                    2.0 * p * r / (p + r)
                }
            };
            assert!(
                density.contains("Harbour Media Group"),
                "density keeps the legal paragraph"
            );
            assert!(template.contains(story), "page {n}: {template}");
            before.push(score(&density));
            after.push(score(&template));
            if n >= 2 {
                assert!(
                    !template.contains("Harbour Media Group"),
                    "page {n} still has the template: {template}"
                );
            }
        }
        let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
        eprintln!(
            "template test: token F1 density {:.3} -> template {:.3} (pages 3+: {:.3} -> {:.3})",
            mean(&before),
            mean(&after),
            mean(&before[2..]),
            mean(&after[2..])
        );
        assert!(mean(&after[2..]) > mean(&before[2..]) + 0.1);
    }
}
