//! The numbers every method reads off each block (words, link density,
//! heading, words shared with the title): the first step of the flow
//! features -> signals -> choice.

use gleaner_core::messages::Block;

/// How much of a word one Chinese, Japanese or Korean character counts
/// for in a block's size (to `gleaner_text` a CJK character is a word of
/// its own): about two characters say what one English word says. The
/// block classifiers learned block sizes from pages in space-separated
/// scripts only (wcxb-dev has no CJK page), where a 24-word linked line
/// is a teaser's paragraph, not a 24-character headline. On
/// readability-articles' six CJK pages, F1 at 1.0 / 0.7 / 0.5 / 0.35:
/// hukumusume 0.774 / 0.817 / 0.817 / 0.812, qq 0.824 / 0.899 / 0.899 /
/// 0.899, youth 0.966 / 0.966 / 0.994 / 0.994, yahoo-4 0.995 / 1.0 / 1.0 /
/// 1.0, gmw 0.993 but 0.988 at 0.35, pixnet 0.985 throughout. The stage's
/// length threshold (`extract.min_text_words`) counts characters as
/// words still, so that a short CJK news item passes it.
pub(crate) const CJK_WORDS_PER_CHAR: f64 = 0.5;

/// A block's text as the classifiers read it, whitespace collapsed: the
/// clean stage collapses every block's but a `<pre>`'s, which keeps its
/// lines and indentation for the reader (and code indented two ways is
/// one text to the features). Only a block under a `<pre>` is looked at.
pub(crate) fn collapsed(b: &Block) -> std::borrow::Cow<'_, str> {
    match pre_of(b) {
        Some(_) => b
            .text
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .into(),
        None => b.text.trim_end().into(),
    }
}

/// The `<pre>` a block is in, by its element's serial: the path has one
/// label per ancestor (`pre`, `pre.lang-rust`, `pre#listing`).
pub(crate) fn pre_of(b: &Block) -> Option<u32> {
    if !b.path.contains("pre") {
        return None;
    }
    let at = b.path.split('/').position(|label| {
        label
            .strip_prefix("pre")
            .is_some_and(|rest| rest.is_empty() || rest.starts_with(['.', '#']))
    })?;
    b.ancestors.get(at).copied()
}

/// Per-block numbers every method uses.
pub(crate) struct Feat {
    /// Words, a CJK character counting [`CJK_WORDS_PER_CHAR`].
    pub(crate) words: f64,
    pub(crate) link_density: f64,
    pub(crate) heading: bool,
    /// Words of the block that are also words of the page title.
    pub(crate) title_hits: f64,
}

pub(crate) fn features(blocks: &[Block], title: &str) -> Vec<Feat> {
    let title_words: rustc_hash::FxHashSet<String> =
        gleaner_text::words(title).into_iter().collect();
    blocks
        .iter()
        .map(|b| {
            let (mut words, mut title_hits) = (0.0, 0.0);
            gleaner_text::for_each_word(&b.text, |w| {
                let one = if w.chars().next().is_some_and(gleaner_text::is_cjk) {
                    CJK_WORDS_PER_CHAR
                } else {
                    1.0
                };
                words += one;
                if title_words.contains(w) {
                    title_hits += one;
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Code indented two ways is one text to the features; other
    /// blocks' text, collapsed by the clean stage, is borrowed as it is.
    #[test]
    fn code_reads_collapsed() {
        let block = |path: &str, text: &str| {
            let mut b = crate::testing::block(path, &[0, 1, 2], 1);
            b.text = text.into();
            b
        };
        let (a, b) = (
            block("html/body/pre", "    let x = 1;\n}"),
            block("html/body/pre.rs", "\tlet x = 1; }"),
        );
        assert_eq!(collapsed(&a), collapsed(&b));
        assert_eq!(collapsed(&a), "let x = 1; }");
        let plain = block("html/body/p", "The bridge reopened.");
        assert!(matches!(
            collapsed(&plain),
            std::borrow::Cow::Borrowed("The bridge reopened.")
        ));
    }

    fn one(text: &str, title: &str) -> Feat {
        let mut b = crate::testing::block("html/body/p", &[0, 1, 2], text.chars().count() as u32);
        b.text = text.into();
        features(&[b], title).remove(0)
    }

    #[test]
    fn a_cjk_character_counts_half_a_word() {
        // Ten characters (kanji and kana) say about five English words.
        let ja = one("港の大橋が再開通した", "");
        assert!((ja.words - 5.0).abs() < 1e-9, "{}", ja.words);
        // Latin words in CJK text count whole.
        let mixed = one("Apple の新型 iPhone", "");
        assert!((mixed.words - 3.5).abs() < 1e-9, "{}", mixed.words);
        // Words shared with the title are on the same scale.
        let hits = one("港の大橋が再開通した", "大橋 再開通");
        assert!((hits.title_hits - 2.5).abs() < 1e-9, "{}", hits.title_hits);
        assert!((one("The harbour bridge reopened", "").words - 4.0).abs() < 1e-9);
    }
}
