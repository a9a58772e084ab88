//! Which blocks are the article: the trained classifier over the line
//! features (or a heuristic without weights), with chrome, the headline and
//! the site's template taken into account: the last step of the flow
//! features -> signals -> choice.

use crate::extractor::Extractor;
use crate::features::{features, Feat};
use crate::signals::{density_region, link_ratio, qread_segment, signals, Signals};
use crate::{
    boundary, comments, inserts, lines, model, recirculation, reviews, teasers, title, tree,
};
use gleaner_core::messages::{Block, Cleaned};

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
    rows_and_keys(cleaned, false).0
}

/// A page's [`FeatureRows`] and, with `path_keys`, its blocks' path keys
/// (as a context model groups them), from one pass over its features,
/// tree and signals.
fn rows_and_keys(cleaned: &Cleaned, path_keys: bool) -> (FeatureRows, Vec<[u64; 3]>) {
    let title = title::feature_title(cleaned);
    let f = features(&cleaned.blocks, &title);
    let tree = tree::build(&cleaned.blocks, &f);
    let s = signals(&cleaned.blocks, &f, &title, &tree);
    let keys = match path_keys {
        true => (0..f.len()).map(|i| tree.path_keys(i)).collect(),
        false => Vec::new(),
    };
    let rows = FeatureRows {
        rows: lines::features(&cleaned.blocks, &f, &s),
        dropped: (0..f.len()).map(|i| is_chrome(&tree, &f, i)).collect(),
        words: f.iter().map(|x| x.words).collect(),
    };
    (rows, keys)
}

/// Each block's score from the `auto` model, as its choice reads it
/// ([`model::Model::scores`]), before the rules that follow the
/// classifier: for error analysis (`examples/blocks --scores`). `None`
/// without weights.
pub fn auto_scores(cleaned: &Cleaned) -> Option<Vec<f64>> {
    let m = model::auto_model()?;
    let (r, keys) = rows_and_keys(cleaned, true);
    let eligible: Vec<bool> = r.dropped.iter().map(|&d| !d).collect();
    Some(m.scores(&r.rows, &r.words, &eligible, &keys))
}

/// HTML's own chrome (<nav>, <aside>, <footer>) and link lists named as
/// chrome (share bars, menus) are never the article, whatever the
/// classifier thought of their neighbours.
fn is_chrome(tree: &tree::Tree, f: &[Feat], i: usize) -> bool {
    let m = tree.marks_of(i);
    m.chrome_tag || (m.chrome && f[i].link_density > 0.5)
}

/// Without trained weights: the density/qRead region widened to its
/// container when the container adds little beside chrome.
fn heuristic(blocks: &[Block], f: &[Feat], s: &Signals) -> Vec<usize> {
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

/// `chosen` without the headline: it is the article's title, not its text
/// (how Readability and trafilatura deliver an article). A page may show
/// it twice (a copy for phones, a sticky header), so every heading naming
/// the title above the text's first paragraph goes, as does the page's
/// first such heading wherever it is (`first`, [`lines::headline`]). The
/// title the features name may be the site's logo (`<h1>ประชาไท</h1>`
/// first on the page, its name in the `<title>`), so a heading above the
/// text that says the article's `title` ([`title::page_title`]) in the
/// same words goes too.
fn without_headlines(
    blocks: &[Block],
    f: &[Feat],
    chosen: Vec<usize>,
    first: Option<usize>,
    title: &str,
) -> Vec<usize> {
    let text_starts = chosen
        .iter()
        .position(|&i| !f[i].heading)
        .unwrap_or(chosen.len());
    let title_words: Vec<String> = gleaner_text::words(title);
    let says_the_title = |i: usize| {
        f[i].heading
            && !title_words.is_empty()
            && gleaner_text::words(&blocks[i].text) == title_words
    };
    chosen
        .into_iter()
        .enumerate()
        .filter(|&(k, i)| {
            Some(i) != first
                && !(k < text_starts && (lines::names_the_title(&f[i]) || says_the_title(i)))
        })
        .map(|(_, i)| i)
        .collect()
}

/// The blocks chosen by a method, in document order. `template` marks the
/// blocks the site's template holds (all false when none is learned yet).
pub fn select(cleaned: &Cleaned, which: Extractor, template: &[bool]) -> Vec<usize> {
    select_titled(cleaned, which, template, &title::page_title(cleaned))
}

/// [`select`], given the article's `title` ([`title::page_title`]), which
/// the article needs as well.
pub(crate) fn select_titled(
    cleaned: &Cleaned,
    which: Extractor,
    template: &[bool],
    article_title: &str,
) -> Vec<usize> {
    let blocks = &cleaned.blocks;
    let title = title::feature_title(cleaned);
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
            let words: Vec<f64> = f.iter().map(|x| x.words).collect();
            let chosen = match model {
                Some(m) => {
                    // Path groups are read only by a context model.
                    let keys: Vec<[u64; 3]> = match m.context {
                        Some(_) => (0..f.len()).map(|i| tree.path_keys(i)).collect(),
                        None => Vec::new(),
                    };
                    m.choose(&lines::features(blocks, &f, &s), &words, &eligible, &keys)
                }
                None => heuristic(blocks, &f, &s),
            };
            let chosen: Vec<usize> = chosen.into_iter().filter(|&i| eligible[i]).collect();
            // The headline block (`lines::headline`), read once here and
            // by the article element's bounds below.
            let headline = lines::headline(&f);
            let chosen = without_headlines(blocks, &f, chosen, headline, article_title);
            if which == Extractor::Lines {
                chosen
            } else {
                let chosen = crate::gaps::with_gaps_filled(blocks, &f, &eligible, chosen);
                let declared = boundary::declared(cleaned);
                // Only on a declared article: on other pages the lines
                // after a colon are as often a gallery's captions.
                let chosen = match declared {
                    true => crate::gaps::with_introduced_lists(blocks, &f, &eligible, chosen),
                    false => chosen,
                };
                // Recirculation goes first, so that it does not count
                // among the words an article element must hold.
                let chosen = recirculation::without_recirculation(blocks, chosen, declared);
                let chosen =
                    reviews::without_suggestions(blocks, chosen, cleaned.meta.page_type.as_deref());
                let chosen = boundary::within_article(blocks, &words, chosen, declared, headline);
                let chosen =
                    boundary::without_links_beside_the_body(blocks, &words, chosen, declared);
                let chosen = inserts::without_inline_galleries(blocks, chosen, declared);
                let chosen = inserts::without_chart_labels(blocks, chosen, declared);
                let chosen = inserts::without_embed_links(blocks, chosen);
                let page_type = cleaned.meta.page_type.as_deref();
                let chosen = comments::without_qa_comments(blocks, chosen, page_type);
                let chosen =
                    crate::post_chrome::without_post_chrome(blocks, &words, chosen, page_type);
                let chosen =
                    comments::without_trailing_comments(blocks, chosen, page_type, declared);
                let chosen = reviews::without_reviews(blocks, chosen, page_type);
                let chosen = teasers::without_teasers(blocks, &words, chosen, declared);
                let chosen = crate::forms::without_form_title(blocks, &f, &tree, chosen);
                let chosen = crate::forms::without_form_messages(blocks, &tree, chosen);
                // Before the credit line comes back, which can sit above the
                // links that follow an article.
                let chosen =
                    crate::list_headings::without_headings_of_dropped_lists(blocks, &f, chosen);
                let chosen = crate::credits::with_closing_credit(blocks, &f, chosen);
                let chosen = crate::error_reports::without_error_report(blocks, &f, chosen);
                chosen.into_iter().filter(|&i| !is_template(i)).collect()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A logo first on the page in an `<h1>` of its own, the site's name
    /// in the `<title>`, so that the features take the site's name for the
    /// title: the headline chosen above the text still goes, as the
    /// article's title says it; a heading in the text that repeats it
    /// stays.
    #[test]
    fn the_headline_goes_when_the_features_title_is_the_logo() {
        let block = |tag: &str, text: &str| {
            let mut b = crate::testing::block(&format!("html/body/{tag}"), &[0, 1, 2], 0);
            b.tag = tag.into();
            b.text = text.into();
            b.text_len = text.len() as u32;
            b
        };
        let blocks = [
            block("h1", "Daily Gazette"),
            block("h1", "Harbour bridge reopens"),
            block("p", "The harbour bridge reopened to traffic on Monday."),
            block("h2", "Harbour bridge reopens"),
        ];
        let f = features(&blocks, "Daily Gazette");
        let chosen = || vec![1, 2, 3];
        assert_eq!(
            without_headlines(&blocks, &f, chosen(), Some(0), "Harbour bridge reopens"),
            vec![2, 3]
        );
        assert_eq!(
            without_headlines(&blocks, &f, chosen(), Some(0), "Another story"),
            chosen()
        );
    }
}
