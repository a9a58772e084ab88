//! Paragraphs between two chosen paragraphs of one parent element are the
//! article's too. The classifier scores each block with features
//! normalised over the page, and on a very long article (a short story
//! of 400 paragraphs, one `<td>`) it let whole runs of plain paragraphs
//! fall below its cut while keeping others around them: the page's author
//! put them in one element, one after another, as Readability's sibling
//! rule reads a page. Only plain paragraphs are filled in: a heading, a
//! list, a link line ("Read more: ...") or page chrome between two
//! paragraphs stays as the model decided.

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
    let mut out = Vec::with_capacity(chosen.len());
    for pair in chosen.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        out.push(a);
        if b > a + 1 && plain(a) && plain(b) && parent(a) == parent(b) {
            out.extend((a + 1..b).filter(|&i| plain(i) && parent(i) == parent(a)));
        }
    }
    out.extend(chosen.last());
    out
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
