//! Note marks: the bracketed labels wikis and papers put after a
//! sentence's stop or a word (`[23]`, `[a]`, `[citation needed]`). A
//! sentence ends after its marks, and a summary reads without them.

use std::borrow::Cow;

/// The longest a note mark's label runs (`[23]`, `[a]`, `[note 4]`,
/// `[citation needed]`); longer bracketed text is the sentence's own.
const NOTE_LABEL_MAX: usize = 24;

/// How many characters the note marks at the start of `chars` take: one
/// or more bracketed labels of letters, digits and spaces, back to back
/// (`[12][13]`), as wikis and papers put them after a sentence's stop.
pub(crate) fn note_marks(chars: &[(usize, char)]) -> usize {
    let mut taken = 0;
    while chars.get(taken).is_some_and(|x| x.1 == '[') {
        let label = chars[taken + 1..]
            .iter()
            .take(NOTE_LABEL_MAX + 1)
            .take_while(|x| x.1.is_alphanumeric() || x.1 == ' ')
            .count();
        let closed = chars.get(taken + 1 + label).is_some_and(|x| x.1 == ']');
        if label == 0 || label > NOTE_LABEL_MAX || !closed {
            break;
        }
        taken += label + 2;
    }
    taken
}

/// `text` without the note marks it ends in (`…ascended.[3][4]`).
pub(crate) fn without_trailing_notes(mut text: &str) -> &str {
    while let Some(open) = text.strip_suffix(']').and_then(|t| t.rfind('[')) {
        let label = &text[open + 1..text.len() - 1];
        let is_note = !label.is_empty()
            && label.chars().count() <= NOTE_LABEL_MAX
            && label.chars().all(|c| c.is_alphanumeric() || c == ' ');
        if !is_note {
            break;
        }
        text = &text[..open];
    }
    text
}

/// `text` without the note marks that follow a stop, comma or closing
/// quote (`wedding.[23] This`, `Navy,[109] and`): a summary is read, not
/// cited. A bracket after a word or a space stays (`a[1]` in code,
/// `[sic]`), as may be the text's own.
pub fn without_note_marks(text: &str) -> Cow<'_, str> {
    const AFTER: &str = ".,;:!?\"'”’)。！？，";
    if !text.contains('[') {
        return Cow::Borrowed(text);
    }
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut out = String::new();
    let mut copied = 0;
    for (i, &(pos, c)) in chars.iter().enumerate() {
        if c != '[' || pos < copied || i == 0 || !AFTER.contains(chars[i - 1].1) {
            continue;
        }
        let n = note_marks(&chars[i..]);
        if n == 0 {
            continue;
        }
        let end = chars.get(i + n).map_or(text.len(), |x| x.0);
        out.push_str(&text[copied..pos]);
        copied = end;
    }
    if copied == 0 {
        return Cow::Borrowed(text);
    }
    out.push_str(&text[copied..]);
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn note_marks_after_a_stop_or_comma_are_read_out() {
        assert_eq!(
            without_note_marks("The Navy,[109] he said.[3][a] Then 地震。[1]"),
            "The Navy, he said. Then 地震。"
        );
        for kept in [
            "Read a[1] and b[2].",
            "He wrote [sic] it.",
            "A list. [1] is first.",
            "Version 2.[beta build of the long-running series]",
            "Plain text.",
        ] {
            assert_eq!(without_note_marks(kept), kept);
        }
    }
}
