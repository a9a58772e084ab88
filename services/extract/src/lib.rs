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

mod meta;

use async_trait::async_trait;
use gleaner_core::messages::{Article, Block, Cleaned};
use gleaner_core::stage::{Handled, Input, Output, Stage};
use gleaner_core::Topic;
use gleaner_text::{cosine, term_counts, word_count, DocFreq};
use std::ops::Range;

pub use meta::{normalise_date, page_title};

/// The extraction methods that can be chosen by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Extractor {
    Auto,
    QRead,
    Density,
}

impl Extractor {
    pub const NAMES: [&'static str; 3] = ["auto", "qread", "density"];

    pub fn name(self) -> &'static str {
        match self {
            Extractor::Auto => "auto",
            Extractor::QRead => "qread",
            Extractor::Density => "density",
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
            other => anyhow::bail!(
                "unknown extractor {other:?} (known: {})",
                Extractor::NAMES.join(", ")
            ),
        }
    }
}

/// Per-block numbers every method uses.
struct Feat {
    words: f64,
    link_density: f64,
    heading: bool,
}

fn features(blocks: &[Block]) -> Vec<Feat> {
    blocks
        .iter()
        .map(|b| Feat {
            words: word_count(&b.text) as f64,
            link_density: if b.text_len == 0 {
                0.0
            } else {
                (b.link_text_len as f64 / b.text_len as f64).min(1.0)
            },
            heading: matches!(b.tag.as_str(), "h1" | "h2" | "h3" | "h4" | "h5" | "h6"),
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
fn qread_segment(blocks: &[Block], f: &[Feat], title: &str) -> Option<Range<usize>> {
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
    let title_terms = term_counts(title);
    let mut df = DocFreq::default();
    df.add(title_terms.keys());
    let title_vec = df.vector(&title_terms);
    segments
        .into_iter()
        .map(|r| {
            let full: Vec<usize> = r.clone().filter(|&i| !empty(&f[i])).collect();
            let words: f64 = full.iter().map(|&i| f[i].words).sum();
            let density = words / full.len().max(1) as f64;
            let text: String = r
                .clone()
                .map(|i| blocks[i].text.as_str())
                .collect::<Vec<_>>()
                .join(" ");
            let sim = if title_terms.is_empty() {
                0.0
            } else {
                cosine(&title_vec, &df.vector(&term_counts(&text)))
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

/// The blocks chosen by a method, in document order.
pub fn select(cleaned: &Cleaned, which: Extractor) -> Vec<usize> {
    let blocks = &cleaned.blocks;
    let f = features(blocks);
    let title = page_title(cleaned);
    let region = match which {
        Extractor::QRead => qread_segment(blocks, &f, &title),
        Extractor::Density => density_region(&f),
        Extractor::Auto => {
            let d = density_region(&f);
            let q = qread_segment(blocks, &f, &title);
            match (d, q) {
                (Some(d), Some(q)) if q.start < d.end && d.start < q.end => {
                    Some(d.start.min(q.start)..d.end.max(q.end))
                }
                (Some(d), _) => Some(d),
                (None, q) => q,
            }
        }
    };
    let Some(region) = region else {
        return Vec::new();
    };
    let region = if which == Extractor::Auto {
        with_title_heading(blocks, &f, region, &title)
    } else {
        region
    };
    region
        // Inside the region, drop pure link lists (share bars, tag clouds).
        .filter(|&i| !(f[i].link_density > 0.8 && !f[i].heading && which == Extractor::Auto))
        .collect()
}

/// Joins blocks as plain text: one block per line, a blank line between
/// paragraphs, list items and table cells on consecutive lines.
pub fn join_blocks(blocks: &[Block], chosen: &[usize]) -> String {
    let mut out = String::new();
    let mut prev_item = false;
    for &i in chosen {
        let b = &blocks[i];
        let item = matches!(b.tag.as_str(), "li" | "dd" | "dt" | "td" | "th");
        if !out.is_empty() {
            out.push_str(if item && prev_item { "\n" } else { "\n\n" });
        }
        out.push_str(&b.text);
        prev_item = item;
    }
    out
}

/// Extracts the article from a cleaned page.
pub fn extract(cleaned: &Cleaned, which: Extractor) -> Article {
    let chosen = select(cleaned, which);
    let text = join_blocks(&cleaned.blocks, &chosen);
    let meta = &cleaned.meta;
    Article {
        id: cleaned.id.clone(),
        url: cleaned.url.clone(),
        title: page_title(cleaned),
        author: meta.author.clone(),
        date: meta.date.as_deref().and_then(normalise_date),
        language: meta
            .language
            .clone()
            .map(|l| l.to_ascii_lowercase())
            .or_else(|| meta::guess_language(&text)),
        text,
        extractor: which.name().to_string(),
        fetched_at: cleaned.fetched_at.clone(),
    }
}

/// The extract stage: `cleaned` in, `articles` out. Pages whose main text is
/// shorter than the configured minimum (home pages, link lists, errors) go to
/// the dead-letter topic with that reason rather than into `articles`.
pub struct ExtractStage {
    pub extractor: Extractor,
    pub min_text_chars: usize,
}

#[async_trait]
impl Stage for ExtractStage {
    fn name(&self) -> &'static str {
        "extract"
    }
    fn inputs(&self) -> Vec<Topic> {
        vec![Topic::Cleaned]
    }
    fn outputs(&self) -> Vec<Topic> {
        vec![Topic::Articles]
    }

    async fn handle(&mut self, input: &Input) -> Handled {
        let cleaned: Cleaned = input.decode()?;
        let key = input
            .key
            .clone()
            .unwrap_or_else(|| gleaner_core::util::host_of(&cleaned.url));
        let which = self.extractor;
        let article = tokio::task::spawn_blocking(move || extract(&cleaned, which)).await?;
        let chars = article.text.chars().count();
        anyhow::ensure!(
            chars >= self.min_text_chars,
            "not an article: main text has {chars} characters, fewer than extract.min_text_chars = {}",
            self.min_text_chars
        );
        Ok(vec![Output::json(Topic::Articles, key, &article)])
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
        for which in [Extractor::Auto, Extractor::QRead, Extractor::Density] {
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
}
