//! The author's bio box under an article ("Mark di Stefano is a breaking
//! news reporter for BuzzFeed News and is based in Sydney", "Maureen
//! Salamon, Executive Editor, ..."): a short paragraph in an element of
//! its own that closes the text and opens with the name of the article's
//! author as the page's metadata gives it. It is about the writer, not
//! the story, and it opens with the name in any language, so the name is
//! what tells it. A tagline among the body's own paragraphs ("Ben
//! Silverman is on Twitter at ...") stays, as the labelled sets keep it.
//! Written by hand: the rule is this project's reading of a page.

use crate::tree::{is_under, parent_element};
use gleaner_core::messages::Block;

/// Most words of a bio box: a few sentences about the writer.
const BIO_WORDS: usize = 80;

/// Whether `text` opens with `name` (two words or more, in any case) and
/// goes on: "Mark di Stefano is ...", "Nick van Mead, an award-winning
/// ...".
fn opens_with(text: &str, name: &str) -> bool {
    let name = name.trim();
    if name.split_whitespace().count() < 2 {
        return false;
    }
    let t = text.trim_start();
    let (Some(head), Some(rest)) = (t.get(..name.len()), t.get(name.len()..)) else {
        return false;
    };
    head.to_lowercase() == name.to_lowercase()
        && rest
            .chars()
            .next()
            .is_some_and(|c| c.is_whitespace() || matches!(c, ',' | '('))
        && rest.chars().any(char::is_alphabetic)
        // "Chris Hall said:" introduces a quote in a forum's reply.
        && !rest.trim_end().ends_with([':', '：'])
}

/// `chosen` (in document order) without the bio box of one of `authors`:
/// a chosen block of at most [`BIO_WORDS`] opening with an author's
/// name, with the chosen blocks after it under its parent element (a
/// "Contact ..." line), all of them at most [`BIO_WORDS`] too, when no
/// chosen block before it shares that element (a tagline among the body's
/// paragraphs is the article's), the box is under half the text, and
/// less than a fifth of the chosen words follow it.
pub(crate) fn without_author_bio(
    blocks: &[Block],
    authors: &[String],
    mut chosen: Vec<usize>,
) -> Vec<usize> {
    let named = |i: usize| authors.iter().any(|a| opens_with(&blocks[i].text, a));
    // Most pages have no block opening with the author's name: their
    // words are not counted.
    if !chosen.iter().any(|&i| named(i)) {
        return chosen;
    }
    let words: Vec<usize> = chosen
        .iter()
        .map(|&i| gleaner_text::word_count(&blocks[i].text))
        .collect();
    let total: usize = words.iter().sum();
    let a_bio = |k: usize| -> Option<Vec<usize>> {
        let i = chosen[k];
        if words[k] > BIO_WORDS || !named(i) {
            return None;
        }
        let parent = parent_element(&blocks[i])?;
        let under = |k: usize| is_under(&blocks[chosen[k]], parent);
        if (0..k).any(under) {
            return None;
        }
        // The box: the bio and what follows it under the same element.
        // Longer than a bio, it is no box (the body may go on in it).
        let rest: Vec<usize> = (k + 1..chosen.len()).filter(|&k| under(k)).collect();
        let rest_words: usize = rest.iter().map(|&k| words[k]).sum();
        let boxed = match words[k] + rest_words <= BIO_WORDS {
            true => std::iter::once(k).chain(rest).collect::<Vec<_>>(),
            false => return None,
        };
        let last = *boxed.last()?;
        let after: usize = words[last + 1..].iter().sum();
        let size: usize = boxed.iter().map(|&k| words[k]).sum();
        (after * 5 < total && size * 2 < total).then_some(boxed)
    };
    if let Some(boxed) = (0..chosen.len()).find_map(a_bio) {
        let mut k = 0;
        chosen.retain(|_| {
            k += 1;
            !boxed.contains(&(k - 1))
        });
    }
    chosen
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(ancestors: &[u32], text: &str) -> Block {
        let mut b = crate::testing::block("html/body/div/p", ancestors, 0);
        b.text = text.into();
        b.text_len = text.chars().count() as u32;
        b
    }

    const BODY: &str = "Five people were found dead after a landslide in southern Norway, and several more are still listed as missing, the police said.";

    fn authors() -> Vec<String> {
        vec!["Mark Di Stefano".into()]
    }

    #[test]
    fn the_bio_box_under_the_text_goes_with_its_contact_line() {
        let blocks = [
            block(&[0, 1, 2, 3], BODY),
            block(&[0, 1, 2, 4], BODY),
            block(
                &[0, 1, 5, 6],
                "Mark di Stefano is a breaking news reporter and is based in Sydney.",
            ),
            block(&[0, 1, 5, 7], "Contact Mark Di Stefano at mark@example.com"),
        ];
        assert_eq!(
            without_author_bio(&blocks, &authors(), vec![0, 1, 2, 3]),
            vec![0, 1]
        );
        // Without the author's name known, nothing goes.
        assert_eq!(
            without_author_bio(&blocks, &[], vec![0, 1, 2, 3]),
            vec![0, 1, 2, 3]
        );
    }

    #[test]
    fn a_tagline_in_the_body_and_a_sentence_naming_the_author_stay() {
        // Among the body's paragraphs (the same parent element).
        let tagline = [
            block(&[0, 1, 2, 3], BODY),
            block(
                &[0, 1, 2, 4],
                "Mark Di Stefano is on Twitter at mdistefano.",
            ),
        ];
        assert_eq!(
            without_author_bio(&tagline, &authors(), vec![0, 1]),
            vec![0, 1]
        );
        // Before most of the text.
        let first = [
            block(
                &[0, 1, 5, 6],
                "Mark Di Stefano reports from Sydney on the landslide.",
            ),
            block(&[0, 1, 2, 3], BODY),
            block(&[0, 1, 2, 4], BODY),
        ];
        assert_eq!(
            without_author_bio(&first, &authors(), vec![0, 1, 2]),
            vec![0, 1, 2]
        );
        // The name as part of a longer one is no match.
        assert!(!opens_with(
            "Mark Di Stefanopoulos wrote this.",
            "Mark Di Stefano"
        ));
        assert!(opens_with("MARK DI STEFANO, reporter", "Mark Di Stefano"));
        assert!(!opens_with("Mark Di Stefano said:", "Mark Di Stefano"));
        assert!(!opens_with("Stefano is a reporter", "Stefano"));
    }
}
