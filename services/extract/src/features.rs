//! The numbers every method reads off each block (words, link density,
//! heading, words shared with the title): the first step of the flow
//! features -> signals -> choice.

use gleaner_core::messages::Block;

/// Per-block numbers every method uses.
pub(crate) struct Feat {
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
