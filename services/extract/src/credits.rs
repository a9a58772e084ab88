//! The credit line that closes an article ("Additional reporting by Steve
//! Gorman; Editing by Marguerita Choy", "[责任编辑：alonliu]", "Mit
//! Material von dpa") belongs to its text as the wire or the portal
//! prints it: trafilatura's tests expect Reuters' in the text, and
//! Readability keeps qq.com's. Its form, a short line of names in a
//! footer element under the body, is what the block classifiers take for
//! chrome, so it is kept here when it directly follows the last block
//! chosen. Written by hand: which labels credit a story's reporters and
//! editors is this project's list, in the languages of its sets.

use crate::features::Feat;
use gleaner_core::messages::Block;

/// Labels that open a credit line, lowercase. Bylines above the text
/// ("By", "Von", "记者") are the byline's business (`byline.rs`), not
/// these.
const CREDIT_LABELS: &[&str] = &[
    "additional reporting by",
    "reporting by",
    "writing by",
    "editing by",
    "edited by",
    "compiled by",
    "translated by",
    "mit material von",
    "mitarbeit:",
    "con información de",
    "责任编辑",
    "責任編輯",
    "编辑",
    "編輯",
];

/// Most words (a CJK character counting half, as `Feat::words` counts)
/// a credit line may have: names and their roles, not a paragraph.
const CREDIT_WORDS: f64 = 30.0;

/// Whether `text` reads as a credit line: a label of [`CREDIT_LABELS`]
/// first (after an opening bracket), then something that names someone.
fn is_credit(text: &str) -> bool {
    let t = text.trim_start_matches(['(', '[', '【', '（', ' ', '\u{a0}']);
    let lower = t.to_lowercase();
    CREDIT_LABELS.iter().any(|label| {
        lower.starts_with(label)
            && lower[label.len()..]
                .trim_start_matches([':', '：', ' ', '\u{a0}'])
                .chars()
                .next()
                .is_some_and(char::is_alphanumeric)
            // "編輯部のおすすめ" (the editors' picks) is no credit: a
            // CJK label is followed by its colon.
            && (label.is_ascii() || lower[label.len()..].starts_with([':', '：']))
    })
}

/// `chosen` (in document order) with the block that directly follows the
/// last of them added when it is a short credit line, mostly not links.
pub(crate) fn with_closing_credit(
    blocks: &[Block],
    f: &[Feat],
    mut chosen: Vec<usize>,
) -> Vec<usize> {
    let Some(&last) = chosen.last() else {
        return chosen;
    };
    let next = last + 1;
    if let (Some(b), Some(x)) = (blocks.get(next), f.get(next)) {
        if x.words <= CREDIT_WORDS && x.link_density < 0.5 && is_credit(&b.text) {
            chosen.push(next);
        }
    }
    chosen
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::features;

    fn kept(texts: &[&str], chosen: Vec<usize>) -> Vec<usize> {
        let blocks = crate::testing::paragraphs(texts);
        let f = features(&blocks, "");
        with_closing_credit(&blocks, &f, chosen)
    }

    #[test]
    fn a_wire_credit_under_the_body_is_kept() {
        let texts = [
            "The jury gave its verdict on Monday after a trial of six weeks.",
            "Additional reporting by Steve Gorman; Editing by Marguerita Choy",
            "Our Standards: The Thomson Reuters Trust Principles.",
        ];
        assert_eq!(kept(&texts, vec![0]), vec![0, 1]);
    }

    #[test]
    fn credits_in_german_and_chinese_are_kept() {
        let de = [
            "Der Bundestag stimmte am Freitag zu.",
            "Mit Material von dpa und AFP",
        ];
        assert_eq!(kept(&de, vec![0]), vec![0, 1]);
        let zh = [
            "DeepMind已将其研究结果发表在科学刊物《自然》上。",
            "[责任编辑：alonliu]",
        ];
        assert_eq!(kept(&zh, vec![0]), vec![0, 1]);
    }

    #[test]
    fn other_lines_after_the_body_stay_out() {
        // A footer line, a credit not directly after the body, a bare
        // label and the editors' picks are no closing credit.
        let texts = [
            "The jury gave its verdict on Monday after a trial of six weeks.",
            "Share this article",
            "Editing by Marguerita Choy",
        ];
        assert_eq!(kept(&texts, vec![0]), vec![0]);
        assert_eq!(kept(&["Body text here.", "Edited by"], vec![0]), vec![0]);
        assert_eq!(kept(&["本文。", "編輯部のおすすめ記事"], vec![0]), vec![0]);
        // A long paragraph that starts like a credit is the body's, and
        // left to the classifiers.
        let long = format!("Edited by {}", "many words ".repeat(30));
        assert_eq!(kept(&["Body text here.", &long], vec![0]), vec![0]);
    }
}
