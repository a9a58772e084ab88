//! The label of an ad slot ("Advertisement", "Anzeige", "Publicité",
//! "广告", "Story continues below advertisement"): a line the page prints
//! above or inside each ad between the paragraphs, which says nothing of
//! the article and which the block classifiers, seeing a short line among
//! paragraphs, keep (readability-articles' New York Times pages hold
//! dozens; no labelled page of either set keeps one). Only a line that is
//! the label and nothing else goes. Written by hand: the labels are a
//! short closed list per language that no crate carries.

use gleaner_core::messages::Block;

/// Ad-slot labels, lowercase, as the whole line says them.
const AD_LABELS: &[&str] = &[
    "advertisement",
    "advertisements",
    "advertising",
    "sponsored",
    "story continues below advertisement",
    "article continues below advertisement",
    "continue reading below advertisement",
    "anzeige",
    "werbung",
    "publicité",
    "publicidad",
    "publicidade",
    "pubblicità",
    "advertentie",
    "annons",
    "annonse",
    "annonce",
    "reklama",
    "reklam",
    "реклама",
    "إعلان",
    "广告",
    "廣告",
    "広告",
    "광고",
];

/// Whether a block's whole text is an ad slot's label, in any case and
/// between dashes or brackets ("- Advertisement -", "[ANZEIGE]").
fn is_ad_label(text: &str) -> bool {
    let t = text.trim_matches(|c: char| {
        c.is_whitespace() || matches!(c, '-' | '–' | '—' | '[' | ']' | '(' | ')' | '|')
    });
    // The longest label is a few words: most lines end the test here.
    t.len() <= 40 && AD_LABELS.contains(&t.to_lowercase().as_str())
}

/// `chosen` without the blocks that are an ad slot's label.
pub(crate) fn without_ad_labels(blocks: &[Block], mut chosen: Vec<usize>) -> Vec<usize> {
    chosen.retain(|&i| !is_ad_label(&blocks[i].text));
    chosen
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_ad_label_alone_on_its_line_goes_in_any_language() {
        for label in [
            "Advertisement",
            "- ADVERTISEMENT -",
            "[Anzeige]",
            "Publicité",
            "广告",
            "Story continues below advertisement",
        ] {
            assert!(is_ad_label(label), "{label}");
        }
        for text in [
            "Advertisement revenue rose by a fifth in the quarter.",
            "The advertising industry",
            "Sponsored by the city council",
            "",
        ] {
            assert!(!is_ad_label(text), "{text}");
        }
    }

    #[test]
    fn the_paragraphs_around_it_stay() {
        let blocks: Vec<Block> = [
            "The bridge reopened on Monday.",
            "Advertisement",
            "Engineers replaced the bolts.",
        ]
        .iter()
        .map(|t| Block {
            text: (*t).into(),
            tag: "p".into(),
            ..Default::default()
        })
        .collect();
        assert_eq!(without_ad_labels(&blocks, vec![0, 1, 2]), vec![0, 2]);
    }
}
