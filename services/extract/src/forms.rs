//! The title of a form under the text ("Leave a Reply", "Kommentare
//! schreiben", "Laisser un commentaire", "Kontakt aufnehmen"): a short
//! line right above a `<form>` whose fields the choice left out. It
//! names the form, not the text, so it goes with it, in any language:
//! the form's fields are what tell it. A line inside the form (a sofa
//! shop's description written in its order form) is the form's own
//! business and stays as chosen. A form's messages, hidden until it is
//! sent ("Thanks! Please check your inbox"), go too.

use crate::features::Feat;
use crate::tree::Tree;
use gleaner_core::messages::Block;

/// Most words a form's title has.
const TITLE_WORDS: f64 = 6.0;

/// `chosen` (in document order) without the last chosen block outside
/// forms when it is a short line of words that is no sentence nor a link,
/// directly above a form, and without the form's chosen lines when they
/// are as short (its fields' labels, "Name", "Email"): a form holding a
/// line of prose (a description in an order form) is left as chosen.
pub(crate) fn without_form_title(
    blocks: &[Block],
    f: &[Feat],
    tree: &Tree,
    mut chosen: Vec<usize>,
) -> Vec<usize> {
    // The tree marks each block inside a `<form>` element.
    let in_form = |i: usize| tree.marks_of(i).form;
    let Some(k) = chosen.iter().rposition(|&i| !in_form(i)) else {
        return chosen;
    };
    let i = chosen[k];
    let short = |j: usize| f[j].words <= TITLE_WORDS;
    // A shop's item above its cart form (its linked name, its price) is
    // no title: a title is words, and not a link.
    let a_title = short(i)
        && f[i].link_density < 0.5
        && blocks[i].text.chars().any(char::is_alphabetic)
        && !gleaner_text::ends_a_sentence(blocks[i].text.trim_end());
    let form_end = (i + 1..blocks.len())
        .find(|&j| !in_form(j))
        .unwrap_or(blocks.len());
    if a_title && form_end > i + 1 && chosen[k + 1..].iter().all(|&j| j < form_end && short(j)) {
        chosen.truncate(k);
    }
    chosen
}

/// Most blocks of a form's message.
const MESSAGE_BLOCKS: usize = 3;

/// Most characters of one block of a form's message.
const MESSAGE_CHARS: u32 = 300;

/// `chosen` without a form's hidden messages: a run of blocks the page
/// hides ("Thanks! Please check your inbox to confirm your
/// subscription", an error to show on a failed submit) directly after a
/// `<form>`'s blocks, which the page shows only once the form is sent.
pub(crate) fn without_form_messages(
    blocks: &[Block],
    tree: &Tree,
    mut chosen: Vec<usize>,
) -> Vec<usize> {
    let hidden = |i: usize| blocks[i].hidden_len * 2 > blocks[i].text_len;
    // A message: a few short blocks (a page hidden whole until its
    // script runs, as eBay's, is no message).
    let after_a_form = |i: usize| {
        // The hidden run around `i`, looked at no further than a message
        // runs either way (a page hidden whole stays linear).
        let before = (0..i)
            .rev()
            .take(MESSAGE_BLOCKS)
            .take_while(|&j| hidden(j))
            .count();
        let after = (i + 1..blocks.len())
            .take(MESSAGE_BLOCKS)
            .take_while(|&j| hidden(j))
            .count();
        let start = i - before;
        before + 1 + after <= MESSAGE_BLOCKS
            && start > 0
            && blocks[i].text_len <= MESSAGE_CHARS
            && tree.marks_of(start - 1).form
            && !tree.marks_of(start).form
    };
    chosen.retain(|&i| !(hidden(i) && after_a_form(i)));
    chosen
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::features;

    fn block(path: &str, text: &str) -> Block {
        let mut b = crate::testing::block(path, &[0, 1, 2], 0);
        b.text = text.into();
        b.text_len = text.chars().count() as u32;
        b
    }

    fn kept(blocks: &[Block], chosen: Vec<usize>) -> Vec<usize> {
        let f = features(blocks, "");
        let tree = crate::tree::build(blocks, &f);
        without_form_title(blocks, &f, &tree, chosen)
    }

    #[test]
    fn the_title_of_a_comment_form_under_the_text_goes() {
        let blocks = [
            block(
                "html/body/div/p",
                "Kapitel 121 ist da, viel Spass beim Lesen und bis bald.",
            ),
            block("html/body/div/div.titlebar", "Kommentare schreiben"),
            block("html/body/div/div/form/table/tr/td", "Name*"),
        ];
        assert_eq!(kept(&blocks, vec![0, 1]), vec![0]);
        // The field's label chosen too goes with it.
        assert_eq!(kept(&blocks, vec![0, 1, 2]), vec![0]);
    }

    #[test]
    fn a_forms_hidden_message_goes_a_hidden_tab_elsewhere_stays() {
        let hide = |mut b: Block| {
            b.hidden_len = b.text_len;
            b
        };
        let blocks = [
            block(
                "html/body/div/p",
                "The bridge reopened on Monday after eight months.",
            ),
            block(
                "html/body/div/div/form/p",
                "We will only send you news about the city.",
            ),
            hide(block(
                "html/body/div/div.thanks.hidden/h3",
                "Thanks! Please check your inbox.",
            )),
            hide(block(
                "html/body/div/div.thanks.hidden/p",
                "You will get an email to confirm.",
            )),
            block("html/body/div/p", "Engineers replaced four hundred bolts."),
            hide(block(
                "html/body/div/div.tab.hidden/p",
                "A second tab's paragraph of the text.",
            )),
        ];
        let f = features(&blocks, "");
        let tree = crate::tree::build(&blocks, &f);
        assert_eq!(
            without_form_messages(&blocks, &tree, vec![0, 2, 3, 4, 5]),
            vec![0, 4, 5]
        );
        // Four hidden blocks after a form are a page hidden until its
        // script runs, not a message: they stay.
        let mut whole = blocks[..4].to_vec();
        whole.extend((0..2).map(|_| {
            hide(block(
                "html/body/div/div.main/p",
                "A paragraph of the page.",
            ))
        }));
        let f = features(&whole, "");
        let tree = crate::tree::build(&whole, &f);
        assert_eq!(
            without_form_messages(&whole, &tree, vec![0, 2, 3, 4, 5]),
            vec![0, 2, 3, 4, 5]
        );
    }

    #[test]
    fn other_last_lines_stay() {
        // A sentence above a form, a line above text, and a line above a
        // form whose fields were chosen stay.
        let sentence = [
            block("html/body/div/p", "The bridge reopened on Monday."),
            block("html/body/div/p", "Tell us what you think."),
            block("html/body/div/form/p", "Name"),
        ];
        assert_eq!(kept(&sentence, vec![0, 1]), vec![0, 1]);
        let above_text = [
            block("html/body/div/p", "The bridge reopened on Monday."),
            block("html/body/div/h2", "What comes next"),
            block("html/body/div/p", "A second phase begins in spring."),
        ];
        assert_eq!(kept(&above_text, vec![0, 1]), vec![0, 1]);
        let chosen_form = [
            block("html/body/div/h2", "Our sofas"),
            block("html/body/form/p", "A deep seat in linen, made to order."),
        ];
        assert_eq!(kept(&chosen_form, vec![0, 1]), vec![0, 1]);
        // A shop's price above its cart form.
        let price = [
            block("html/body/div/p", "A deep seat in linen, made to order."),
            block("html/body/div/span", "$80.00"),
            block("html/body/div/form/button", "Add to cart"),
        ];
        assert_eq!(kept(&price, vec![0, 1]), vec![0, 1]);
    }
}
