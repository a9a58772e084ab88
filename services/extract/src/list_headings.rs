//! The heading of a list of links that was not kept ("Related stories",
//! "Lesen Sie auch", "เรื่องที่เกี่ยวข้อง", "相关新闻"): the classifiers
//! drop the list, whose lines are all links, and keep the short line above
//! it, which reads like a subheading of the article. A heading over
//! nothing kept says nothing, in any language, so it goes. Told by
//! structure alone: a short line that is not a sentence, directly followed
//! by links that were dropped.

use crate::features::Feat;
use gleaner_core::messages::Block;
use gleaner_text::ends_a_sentence;

/// At most this many words (a CJK character a word) in a heading.
const MAX_WORDS: f64 = 8.0;
/// A line at least this much link text is a link.
const LINK_LINE: f64 = 0.8;
/// How many dropped links directly below a heading make a list.
const LIST_LINES: usize = 2;

/// `chosen` (in document order) without each short line that is directly
/// followed by at least [`LIST_LINES`] dropped link lines and by nothing
/// kept before them.
pub(crate) fn without_headings_of_dropped_lists(
    blocks: &[Block],
    f: &[Feat],
    chosen: Vec<usize>,
) -> Vec<usize> {
    let is_heading = |i: usize| {
        f[i].words <= MAX_WORDS && f[i].link_density < 0.5 && !ends_a_sentence(&blocks[i].text)
    };
    let mut kept = Vec::with_capacity(chosen.len());
    for (k, &i) in chosen.iter().enumerate() {
        let next = chosen.get(k + 1).copied().unwrap_or(blocks.len());
        let links_below = (i + 1..next)
            .take_while(|&j| f[j].link_density >= LINK_LINE)
            .count();
        if links_below >= LIST_LINES && is_heading(i) {
            continue;
        }
        kept.push(i);
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(lines: &[(&str, bool)]) -> (Vec<Block>, Vec<Feat>) {
        let texts: Vec<&str> = lines.iter().map(|l| l.0).collect();
        let mut blocks = crate::testing::paragraphs(&texts);
        for (b, l) in blocks.iter_mut().zip(lines) {
            if l.1 {
                b.link_text_len = b.text_len;
            }
        }
        let f = crate::features::features(&blocks, "");
        (blocks, f)
    }

    #[test]
    fn the_heading_of_a_dropped_link_list_goes_in_any_language() {
        for heading in [
            "Related stories",
            "Lesen Sie auch",
            "เรื่องที่เกี่ยวข้อง",
            "相关新闻",
        ] {
            let (blocks, f) = page(&[
                (
                    "The council voted on Monday to reopen the harbour bridge.",
                    false,
                ),
                (heading, false),
                ("Ferry fares rise again", true),
                ("Tolls to stay until 2030", true),
                ("© Daily Gazette", false),
            ]);
            // The list (2, 3) was dropped; the credit (4) was kept.
            let kept = without_headings_of_dropped_lists(&blocks, &f, vec![0, 1, 4]);
            assert_eq!(kept, [0, 4], "{heading}");
        }
    }

    #[test]
    fn a_heading_over_kept_text_or_a_single_link_stays() {
        let (blocks, f) = page(&[
            ("Repairs", false),
            ("Ferry fares rise again", true),
            ("Workers replaced the deck over eight months.", false),
            ("Further reading", false),
            ("Tolls to stay until 2030", true),
            ("Ferry fares rise again", true),
        ]);
        // One link under "Repairs", then prose; the list under "Further
        // reading" was kept with it.
        let chosen = vec![0, 2, 3, 4, 5];
        assert_eq!(
            without_headings_of_dropped_lists(&blocks, &f, chosen.clone()),
            chosen
        );
        // A sentence over dropped links is no heading.
        let (blocks, f) = page(&[
            ("The bridge reopened.", false),
            ("Ferry fares rise again", true),
            ("Tolls to stay until 2030", true),
        ]);
        assert_eq!(without_headings_of_dropped_lists(&blocks, &f, vec![0]), [0]);
    }
}
