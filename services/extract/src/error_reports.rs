//! A reader's error-report widget under an article ("Kļūda rakstā?
//! Iezīmējiet tekstu un spiediet Ctrl+Enter", "Нашли опечатку? Выделите
//! текст и нажмите Ctrl+Enter", "Found a typo? Select it and press
//! Ctrl+Enter"): Orphus and its kin, common on news sites in Russian,
//! Ukrainian and the Baltic languages. The block classifiers keep it, a
//! short line of prose right under the body. Its keystroke is the same
//! in every language, so the keystroke is what tells it: the line naming
//! it goes, with the rest of its element (its question, its copy for
//! phones that names a button instead) when that is short too. Written
//! by hand: no crate knows such widgets.

use crate::features::Feat;
use gleaner_core::messages::Block;

/// Most words the widget's element holds: a question and an instruction
/// or two, not a paragraph of the text.
const WIDGET_WORDS: f64 = 60.0;

/// Whether `text` names the widget's keystroke, Ctrl+Enter, however
/// spaced ("Ctrl + Enter", "CTRL+ENTER").
fn names_the_keystroke(text: &str) -> bool {
    if !text.contains('+') {
        return false;
    }
    let compact: String = text
        .chars()
        .filter(|c| !c.is_whitespace())
        .flat_map(char::to_lowercase)
        .collect();
    compact.contains("ctrl+enter")
}

/// `chosen` (in document order) without an error-report widget that
/// closes the text: a chosen line naming Ctrl+Enter, outside lists,
/// tables and code (where it is a step of a how-to), with the chosen
/// blocks of its parent element when that element holds at most
/// [`WIDGET_WORDS`], and only while less than a fifth of the chosen
/// words follow it (in the middle of a text, "press Ctrl+Enter" is the
/// text's own instruction).
pub(crate) fn without_error_report(
    blocks: &[Block],
    f: &[Feat],
    mut chosen: Vec<usize>,
) -> Vec<usize> {
    let in_steps = |b: &Block| {
        matches!(b.tag.as_str(), "li" | "td" | "th" | "pre" | "code")
            || b.path.split('/').any(|label| {
                matches!(
                    crate::tree::label_tag(label),
                    "ol" | "ul" | "table" | "pre" | "code"
                )
            })
    };
    let Some(i) = chosen.iter().copied().find(|&i| {
        f[i].words <= WIDGET_WORDS && names_the_keystroke(&blocks[i].text) && !in_steps(&blocks[i])
    }) else {
        return chosen;
    };
    // The widget: the chosen blocks under the line's parent element, if
    // they are few words and not the text's own container (most of what
    // was chosen); else the line alone.
    let parent = crate::tree::parent_element(&blocks[i]);
    let under = |j: usize| parent.is_some_and(|p| crate::tree::is_under(&blocks[j], p));
    let words = |w: &[usize]| w.iter().map(|&j| f[j].words).sum::<f64>();
    let total = words(&chosen);
    let group: Vec<usize> = chosen.iter().copied().filter(|&j| under(j)).collect();
    let widget = match words(&group) {
        w if w <= WIDGET_WORDS && w * 2.0 < total => group,
        _ => vec![i],
    };
    let last = widget.iter().copied().max().unwrap_or(i);
    let after: f64 = chosen
        .iter()
        .filter(|&&j| j > last)
        .map(|&j| f[j].words)
        .sum();
    if after * 5.0 < total {
        chosen.retain(|j| !widget.contains(j));
    }
    chosen
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::features;

    fn block(path: &str, ancestors: &[u32], tag: &str, text: &str) -> Block {
        let mut b = crate::testing::block(path, ancestors, 0);
        b.tag = tag.into();
        b.text = text.into();
        b.text_len = text.chars().count() as u32;
        b
    }

    fn kept(blocks: &[Block], chosen: Vec<usize>) -> Vec<usize> {
        let f = features(blocks, "");
        without_error_report(blocks, &f, chosen)
    }

    const BODY: &str = "Nogruvuma rezultātā izveidojusies dziļa, 700 metrus gara un 300 metrus plata grava ar stāvām malām, un evakuēti vairāk nekā tūkstoš ciemata iedzīvotāji.";

    #[test]
    fn the_widget_under_the_text_goes_with_its_question_and_its_phone_copy() {
        let blocks = [
            block("html/body/div/p", &[0, 1, 2, 3], "p", BODY),
            block("html/body/div/p", &[0, 1, 2, 4], "p", BODY),
            block("html/body/div/div.report/div.desc", &[0, 1, 2, 5, 6], "div", "Kļūda rakstā?"),
            block(
                "html/body/div/div.report/div.desc/p.d-none",
                &[0, 1, 2, 5, 6, 7],
                "p",
                "Iezīmējiet tekstu un spiediet Ctrl+Enter, lai nosūtītu labojamo teksta fragmentu redaktoram!",
            ),
            block(
                "html/body/div/div.report/div.desc/p.d-md-none",
                &[0, 1, 2, 5, 6, 8],
                "p",
                "Iezīmējiet tekstu un spiediet uz Ziņot par kļūdu pogas, lai nosūtītu labojamo teksta fragmentu redaktoram!",
            ),
        ];
        assert_eq!(kept(&blocks, vec![0, 1, 2, 3, 4]), vec![0, 1]);
        // In Russian, spaced, the line alone under the body.
        let ru = [
            block("html/body/div/p", &[0, 1, 2, 3], "p", BODY),
            block(
                "html/body/div/p",
                &[0, 1, 2, 4],
                "p",
                "Нашли опечатку? Выделите текст и нажмите Ctrl + Enter",
            ),
        ];
        assert_eq!(kept(&ru, vec![0, 1]), vec![0]);
    }

    #[test]
    fn a_keystroke_in_the_text_or_its_steps_stays() {
        // A how-to's step in a list, even the last one.
        let steps = [
            block("html/body/div/p", &[0, 1, 2, 3], "p", BODY),
            block(
                "html/body/div/ol/li",
                &[0, 1, 2, 4, 5],
                "li",
                "Type your message.",
            ),
            block(
                "html/body/div/ol/li",
                &[0, 1, 2, 4, 6],
                "li",
                "Press Ctrl+Enter to send it.",
            ),
        ];
        assert_eq!(kept(&steps, vec![0, 1, 2]), vec![0, 1, 2]);
        // A paragraph naming it before most of the text.
        let middle = [
            block(
                "html/body/div/p",
                &[0, 1, 2, 3],
                "p",
                "In the editor, press Ctrl+Enter to run the cell.",
            ),
            block("html/body/div/p", &[0, 1, 2, 4], "p", BODY),
            block("html/body/div/p", &[0, 1, 2, 5], "p", BODY),
        ];
        assert_eq!(kept(&middle, vec![0, 1, 2]), vec![0, 1, 2]);
    }
}
