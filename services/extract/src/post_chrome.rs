//! The chrome around each post of a forum thread: the labels of the
//! author's panel ("Joined", "Messages", "Reaction score", a member's
//! rank), the quote box's "Click to expand...", the buttons' words
//! ("Share", "Reply", "Link to post"), and the name of a regular poster.
//! The posts are a forum page's content (`comments::is_discussion`); these
//! lines are not (wcxb-dev labels them out), and they read as what they
//! are in any language by one thing: each post repeats them. So on a page
//! declared a forum's or a question's, a short line (a few words) that
//! stands three times or more among the chosen text goes, every copy of it.
//! A reply's own words seldom repeat to the letter three times; when they
//! do ("Thanks!", "+1"), they said little.

use gleaner_core::messages::Block;
use rustc_hash::FxHashMap;

/// Most words (a CJK character counting as half of one, as every size of
/// the extractor does) of a line that may be a post's chrome: a label or
/// a name, not a sentence.
const CHROME_WORDS: f64 = 3.0;

/// How many times a short line must stand to be the posts' chrome: one
/// for each of three posts at least. On wcxb-dev's 74 declared forum and
/// question pages, in a Python proxy over the extracted lines, 3 took 20
/// pages up and 3 down by more than 0.005 (mean F1 +0.0092 over them), 4
/// and 5 18 up and 1 down (+0.0076, +0.0062); in the extractor, 3 took
/// wcxb-dev's forum pages from 0.809 to 0.815 (20 up, 2 down by 0.007).
const REPEATS: usize = 3;

/// `chosen` without the short lines that the posts of a forum's or a
/// question's page each repeat (see the module's doc); other pages keep
/// theirs (a listing's "Add to cart" lines are left to other rules).
pub fn without_post_chrome(
    blocks: &[Block],
    words: &[f64],
    chosen: Vec<usize>,
    page_type: Option<&str>,
) -> Vec<usize> {
    if !crate::comments::is_discussion(page_type) {
        return chosen;
    }
    let short = |i: usize| words[i] > 0.0 && words[i] <= CHROME_WORDS;
    let mut counts: FxHashMap<&str, usize> = FxHashMap::default();
    for &i in chosen.iter().filter(|&&i| short(i)) {
        *counts.entry(blocks[i].text.trim()).or_default() += 1;
    }
    chosen
        .into_iter()
        .filter(|&i| !short(i) || counts[blocks[i].text.trim()] < REPEATS)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn post_blocks(lines: &[&str]) -> (Vec<Block>, Vec<f64>) {
        let blocks = crate::testing::paragraphs(lines);
        let words = lines
            .iter()
            .map(|t| t.split_whitespace().count() as f64)
            .collect();
        (blocks, words)
    }

    const THREAD: &[&str] = &[
        "Joined",
        "Jun 29, 2016",
        "I heard that the first interviews went out today.",
        "Click to expand...",
        "Joined",
        "Mar 25, 2013",
        "Mine came on Monday, good luck everyone.",
        "Joined",
        "Apr 2, 2020",
        "Click to expand...",
        "Still waiting here.",
        "Click to expand...",
    ];

    #[test]
    fn the_lines_every_post_repeats_go_on_a_forum() {
        let (blocks, words) = post_blocks(THREAD);
        let all: Vec<usize> = (0..blocks.len()).collect();
        let kept =
            without_post_chrome(&blocks, &words, all.clone(), Some("DiscussionForumPosting"));
        let text: Vec<&str> = kept.iter().map(|&i| blocks[i].text.as_str()).collect();
        assert!(
            !text.contains(&"Joined") && !text.contains(&"Click to expand..."),
            "{text:?}"
        );
        // The posts, their dates and a short reply said once stay.
        for stays in [
            "I heard that the first interviews went out today.",
            "Mine came on Monday, good luck everyone.",
            "Still waiting here.",
            "Jun 29, 2016",
        ] {
            assert!(text.contains(&stays), "{stays}: {text:?}");
        }
        // A question's page too; an article keeps every line.
        assert_eq!(
            without_post_chrome(&blocks, &words, all.clone(), Some("QAPage")).len(),
            kept.len()
        );
        assert_eq!(
            without_post_chrome(&blocks, &words, all.clone(), Some("NewsArticle")),
            all
        );
        assert_eq!(without_post_chrome(&blocks, &words, all.clone(), None), all);
    }

    #[test]
    fn twice_is_not_chrome_and_a_long_line_is_never() {
        let (blocks, words) = post_blocks(&[
            "Joined",
            "Joined",
            "I agree with every word of the post above.",
            "I agree with every word of the post above.",
            "I agree with every word of the post above.",
        ]);
        let all: Vec<usize> = (0..blocks.len()).collect();
        assert_eq!(
            without_post_chrome(&blocks, &words, all.clone(), Some("DiscussionForumPosting")),
            all
        );
        // Only what was chosen counts: two chosen copies are not three.
        let (blocks, words) = post_blocks(&["Share", "Share", "Share"]);
        assert_eq!(
            without_post_chrome(&blocks, &words, vec![0, 2], Some("DiscussionForumPosting")),
            vec![0, 2]
        );
        assert!(without_post_chrome(
            &blocks,
            &words,
            vec![0, 1, 2],
            Some("DiscussionForumPosting")
        )
        .is_empty());
    }
}
