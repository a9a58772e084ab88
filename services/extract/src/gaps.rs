//! Paragraphs between two chosen paragraphs of one parent element are the
//! article's too. The classifier scores each block with features
//! normalised over the page, and on a very long article (a short story
//! of 400 paragraphs, one `<td>`) it let whole runs of plain paragraphs
//! fall below its cut while keeping others around them: the page's author
//! put them in one element, one after another, as Readability's sibling
//! rule reads a page. Only plain paragraphs are filled in: a heading, a
//! list, a link line ("Read more: ...") or page chrome between two
//! paragraphs stays as the model decided, unless a line ending in a colon
//! introduces a list of short lines (`with_introduced_lists`).

use crate::features::Feat;
use gleaner_core::messages::Block;
use gleaner_text::ends_a_sentence;

/// Share of a paragraph's characters in links above which it is a link
/// line, not prose.
const MAX_LINK_DENSITY: f64 = 0.5;

/// `chosen` (in document order) with every plain paragraph filled in
/// that lies between two chosen paragraphs with the same parent element
/// as its own. `eligible[i]` is false for page chrome.
pub(crate) fn with_gaps_filled(
    blocks: &[Block],
    f: &[Feat],
    eligible: &[bool],
    chosen: Vec<usize>,
) -> Vec<usize> {
    let plain = |i: usize| {
        blocks[i].tag == "p"
            && eligible.get(i).copied().unwrap_or(false)
            && f[i].link_density <= MAX_LINK_DENSITY
            && f[i].words > 0.0
            && blocks[i].hidden_len == 0
            && ends_a_sentence(&blocks[i].text)
    };
    // A block's ancestors end with its own element.
    let parent = |i: usize| {
        let a = &blocks[i].ancestors;
        &a[..a.len().saturating_sub(1)]
    };
    fill_pairs(&chosen, |a, b| {
        // Nothing between two blocks that are not plain paragraphs of
        // one parent.
        let end = match plain(a) && plain(b) && parent(a) == parent(b) {
            true => b,
            false => a + 1,
        };
        (a + 1..end).filter(move |&i| plain(i) && parent(i) == parent(a))
    })
}

/// `chosen` (in document order) with, between each two chosen blocks in a
/// row `a` and `b`, the blocks `between(a, b)` gives.
fn fill_pairs<I: IntoIterator<Item = usize>>(
    chosen: &[usize],
    mut between: impl FnMut(usize, usize) -> I,
) -> Vec<usize> {
    let mut out = Vec::with_capacity(chosen.len());
    for pair in chosen.windows(2) {
        out.push(pair[0]);
        out.extend(between(pair[0], pair[1]));
    }
    out.extend(chosen.last());
    out
}

/// Most blocks a list introduced by a colon line may have.
const LIST_ITEMS: usize = 40;

/// Most words of one item of such a list: a line, not a paragraph.
const ITEM_WORDS: f64 = 15.0;

/// `chosen` (in document order) with the lines of a list that a chosen
/// line ending in a colon introduces ("The rankings were as follows:",
/// "Zutaten:") filled in, up to the next chosen block, when every line
/// between is a short line of the element both share (not a link line,
/// a heading, code, chrome or hidden). The classifiers take such short
/// lines for chrome; the colon says they are the text's.
pub(crate) fn with_introduced_lists(
    blocks: &[Block],
    f: &[Feat],
    eligible: &[bool],
    chosen: Vec<usize>,
) -> Vec<usize> {
    let introduces = |a: usize, b: usize| {
        // Two lines or more: a list (one line after a colon may be a
        // name or a link the sentence runs into).
        if b < a + 3 || b - a > LIST_ITEMS || !blocks[a].text.trim_end().ends_with([':', '：']) {
            return false;
        }
        let depth = crate::tree::shared_ancestry(&blocks[a], &blocks[b]);
        let shared = &blocks[a].ancestors[..depth];
        let item = |i: usize| {
            eligible.get(i).copied().unwrap_or(false)
                && f[i].link_density <= MAX_LINK_DENSITY
                && f[i].words > 0.0
                && f[i].words <= ITEM_WORDS
                && !f[i].heading
                && blocks[i].hidden_len == 0
                && !matches!(blocks[i].tag.as_str(), "pre" | "code")
                && blocks[i].ancestors.starts_with(shared)
        };
        // Sharing no more than `<html><body>` is sharing nothing.
        depth > 2 && (a + 1..b).all(item)
    };
    fill_pairs(&chosen, |a, b| match introduces(a, b) {
        true => a + 1..b,
        false => a + 1..a + 1,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(tag: &str, text: &str, parent: u32, links: u32) -> Block {
        Block {
            text: text.into(),
            tag: tag.into(),
            ancestors: vec![1, parent, 100 + text.len() as u32],
            text_len: text.chars().count() as u32,
            link_text_len: links,
            ..Default::default()
        }
    }

    /// What is kept of `chosen` among `blocks`, those numbered in
    /// `chrome` being page chrome.
    fn filled(blocks: &[Block], chrome: &[usize], chosen: Vec<usize>) -> Vec<usize> {
        let f = crate::features::features(blocks, "");
        let eligible: Vec<bool> = (0..blocks.len()).map(|i| !chrome.contains(&i)).collect();
        with_gaps_filled(blocks, &f, &eligible, chosen)
    }

    #[test]
    fn paragraphs_between_two_chosen_of_one_parent_are_kept() {
        let blocks = vec![
            block("p", "The first paragraph of the story.", 2, 0),
            block("p", "\u{201c}No reply.\u{201d}", 2, 0),
            block("p", "He answered nothing at all that day.", 2, 0),
            block("p", "The last paragraph of the story.", 2, 0),
        ];
        assert_eq!(filled(&blocks, &[], vec![0, 3]), vec![0, 1, 2, 3]);
    }

    #[test]
    fn headings_link_lines_chrome_and_other_parents_stay_out() {
        let blocks = vec![
            block("p", "The first paragraph of the story.", 2, 0),
            block("h2", "Related", 2, 0),
            block("p", "Read more: another story.", 2, 24),
            block("p", "Follow me on instagram: @someone", 2, 0),
            block("p", "A paragraph of an aside element.", 3, 0),
            block("p", "A paragraph in a navigation bar.", 2, 0),
            block("p", "The last paragraph of the story.", 2, 0),
        ];
        assert_eq!(filled(&blocks, &[5], vec![0, 6]), vec![0, 6]);
    }

    #[test]
    fn a_list_a_colon_introduces_is_filled_in() {
        // The rankings as lines of one paragraph's spans, each its own
        // element under the story's.
        let line = |text: &str, own: u32, links: u32| Block {
            ancestors: vec![0, 1, 2, own],
            ..block("p", text, 2, links)
        };
        let blocks = vec![
            line(
                "The overall rankings of the countries were as follows:",
                10,
                0,
            ),
            line("1. Finland", 11, 0),
            line("2. Norway", 12, 0),
            line("3. Australia", 13, 0),
            line(
                "The low ranking the U.S. received was due to its inequality.",
                14,
                0,
            ),
        ];
        assert_eq!(
            with_introduced_lists(
                &blocks,
                &crate::features::features(&blocks, ""),
                &[true; 5],
                vec![0, 4]
            ),
            vec![0, 1, 2, 3, 4]
        );
        // One line after the colon (a name the sentence runs into), a
        // link line among them, or no colon: nothing is filled in.
        let f = crate::features::features(&blocks, "");
        assert_eq!(
            with_introduced_lists(&blocks, &f, &[true; 5], vec![0, 2]),
            vec![0, 2]
        );
        assert_eq!(
            with_introduced_lists(&blocks, &f, &[true; 5], vec![1, 4]),
            vec![1, 4]
        );
        let mut linked = blocks.clone();
        linked[2] = line("Read more: Norway's ranking", 12, 27);
        let f = crate::features::features(&linked, "");
        assert_eq!(
            with_introduced_lists(&linked, &f, &[true; 5], vec![0, 4]),
            vec![0, 4]
        );
    }

    #[test]
    fn ends_of_other_parents_or_tags_fill_nothing() {
        let blocks = vec![
            block("p", "A teaser paragraph in the header.", 3, 0),
            block("p", "A paragraph the model left out.", 2, 0),
            block("li", "A list item chosen at the end.", 2, 0),
        ];
        assert_eq!(filled(&blocks, &[], vec![0, 2]), vec![0, 2]);
        assert_eq!(filled(&blocks, &[], vec![]), Vec::<usize>::new());
    }
}
