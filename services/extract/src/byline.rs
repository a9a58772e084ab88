//! A byline's text read as a name: its label taken off ("By", "Von",
//! "记者"), the date before or after it cut away, and what is left
//! checked to look like a person's name. Written by hand: bylines are free
//! text in many shapes, which no crate reads.

/// Words that label a byline rather than name anyone.
const BYLINE_LABELS: &[&str] = &[
    "written by",
    "posted by",
    "published by",
    "article by",
    "text by",
    "authored by",
    "reviewed by",
    "story by",
    "recipe by",
    "words by",
    "by",
    // German, French, Spanish and Portuguese, Italian: the longer forms
    // first. Italian's bare "di" is left out, as it begins surnames (Di
    // Maio), and Dutch "door", an English word ("Door Locks").
    "geschrieben von",
    "verfasst von",
    "von",
    "écrit par",
    "publié par",
    "par",
    "escrito por",
    "publicado por",
    "por",
    "scritto da",
    "autorin",
    "autora",
    "autore",
    "autori",
    "autor",
    "auteur",
    // Chinese and Japanese: writer, reporter, editor.
    "作者",
    "记者",
    "記者",
    "编辑",
    "責任編集",
    "about the author",
    "the author",
    "authors",
    "author",
    "role",
    "contributors",
    "contributor",
];

/// A byline with its label taken off: "By Jane Doe" and "Author: Jane Doe"
/// give "Jane Doe"; a bare label gives "".
pub(crate) fn strip_byline_label(text: &str) -> &str {
    let mut t = text.trim();
    for label in BYLINE_LABELS {
        if t.len() >= label.len() && t.is_char_boundary(label.len()) {
            let (head, rest) = t.split_at(label.len());
            // "ByTrevor Jones": "By" and the name in spans written with no
            // space between them ("BYU" and "Byron" are no bylines).
            let glued = head == "By"
                && rest.starts_with(char::is_uppercase)
                && rest.chars().nth(1).is_some_and(char::is_lowercase);
            if glued
                || head.eq_ignore_ascii_case(label)
                    && !rest.starts_with(|c: char| c.is_alphanumeric())
            {
                t = rest
                    .trim_start_matches([':', '：', ' ', '\u{a0}', '|', '/'])
                    .trim();
                break;
            }
        }
    }
    t
}

/// A word as a date's words are compared: without the punctuation around
/// it, lowercase.
fn date_word_of(w: &str) -> String {
    w.trim_matches(|c: char| !c.is_alphanumeric())
        .to_lowercase()
}

/// Whether a word ("Dec.", "März,") names a month.
fn is_month(w: &str) -> bool {
    crate::date::is_month(&date_word_of(w))
}

/// Whether a word ("Sun", "Monday,", "Freitag") names a day of the week.
fn is_weekday(w: &str) -> bool {
    crate::date::is_weekday(&date_word_of(w))
}

/// Words a date line says of itself ("Last Updated", "Published on").
const DATE_LINE_WORDS: &[&str] = &["published", "updated", "posted", "modified"];

/// A byline's text up to where a date or a time begins: "Erin Cunningham
/// March 18 at 3:57 PM Follow @erin" gives "Erin Cunningham" (a month name
/// before the first number goes with it: "Dec. 19", "December 2023",
/// "März 2024").
fn before_a_date(text: &str) -> &str {
    let words: Vec<&str> = text.split_whitespace().collect();
    let Some(k) = words
        .iter()
        .position(|w| w.starts_with(|c: char| c.is_ascii_digit()))
    else {
        return text;
    };
    let mut end = k;
    // "March 18", "Sep 5", then a weekday before them ("Sun Dec 12").
    if end > 0 && is_month(words[end - 1]) {
        end -= 1;
        if end > 0 && is_weekday(words[end - 1]) {
            end -= 1;
        }
    }
    let cut = words[end].as_ptr() as usize - text.as_ptr() as usize;
    // What separated the name from the date: "Name (", "Name ●", "Name »".
    text[..cut].trim_end_matches(|c: char| !c.is_alphanumeric() && c != '.')
}

/// Separators between a byline's name and its date, place or title.
const BYLINE_SEPARATORS: &[&str] = &["·", "⋅", "|", "•", " - ", " on ", ","];

/// After a byline's label, a section after the name ends it too ("By
/// Jane Doe in Politics", "VON Sina Giebel IN Fashion"); a name without
/// one may hold the word (a blog named "Human in the Loop").
const SECTION_SEPARATORS: &[&str] = &[" in ", " IN "];

/// A person's name out of a byline, or `None` when the text does not look
/// like one (too many words, digits, not capitalised). The name may come
/// before or after a separated date: "By Jane Doe · 2 May 2024", "Dec. 19,
/// 2025 · Niko Matsakis".
pub(crate) fn name_in(byline: &str) -> Option<&str> {
    let rest = strip_byline_label(byline);
    let labelled = rest.len() < byline.trim().len();
    let mut parts = vec![rest];
    let sections = if labelled { SECTION_SEPARATORS } else { &[] };
    for sep in BYLINE_SEPARATORS.iter().chain(sections) {
        parts = parts.iter().flat_map(|p| p.split(sep)).collect();
    }
    // A part is read after another only when that one held a digit (a
    // date): "The author would like to thank A, B and C" names no author.
    for part in parts.into_iter().take(4) {
        let own = strip_byline_label(part);
        if let Some(name) = name_of(own, labelled || own.len() < part.trim().len()) {
            return Some(name);
        }
        if !part.contains(|c: char| c.is_ascii_digit()) {
            return None;
        }
    }
    None
}

/// Labels of a forum thread's starter.
const STARTER_LABELS: &[&str] = &[
    "thread starter",
    "topic author",
    "original poster",
    "started by",
];

/// The user a forum thread's header names as its starter: "Thread starter
/// felixen · Start date ...", "Discussion in 'Hosting' started by pelex,
/// Mar 5, 2024". Forum users go by their logins ("paulb203"), which
/// [`name_in`] would not take for a name. `Some("")` for a bare label
/// (the name is in the next block).
pub(crate) fn thread_starter(line: &str) -> Option<&str> {
    // ASCII only, so that an offset in it is one in the line.
    let lower = line.to_ascii_lowercase();
    let (at, label) = STARTER_LABELS
        .iter()
        .find_map(|l| lower.find(l).map(|at| (at, l)))?;
    // Only at the line's start, but for "started by" after the forum's name.
    if at > 0 && *label != "started by" || !line.is_char_boundary(at + label.len()) {
        return None;
    }
    let rest = line[at + label.len()..].trim_start_matches([':', ' ', '\u{a0}']);
    let user = ["·", "|", ",", " Start date", " on "]
        .iter()
        .fold(rest, |r, sep| r.split(sep).next().unwrap_or(r))
        .trim();
    let words = user.split_whitespace().count();
    (words <= 3 && user.chars().count() <= 40).then_some(user)
}

/// The text up to a digit written against a letter: inline elements with
/// no space between them ("By Lucas Nolan22 Dec 2016"; a name has no digit).
fn before_a_glued_digit(text: &str) -> &str {
    text.char_indices()
        .zip(text.chars().skip(1))
        .find(|((_, a), b)| a.is_alphabetic() && b.is_ascii_digit())
        .map_or(text, |((i, a), _)| &text[..i + a.len_utf8()])
}

/// A Chinese or Japanese name (记者 张三, 山田太郎): two to eight kana or
/// han characters, none of them Latin, digits or punctuation.
pub(crate) fn a_cjk_name(name: &str) -> bool {
    let han = |c: char| matches!(c, '\u{3040}'..='\u{30ff}' | '\u{3400}'..='\u{9fff}');
    (2..=8).contains(&name.chars().count()) && name.chars().all(han)
}

/// The text as a person's name, if it looks like one; a `labelled` text
/// ("By ...") may run into a date.
fn name_of(name: &str, labelled: bool) -> Option<&str> {
    // The name may run into the date ("Dakota Hebert July 3, 2025"), after
    // a label with no space between them.
    let name = if labelled {
        before_a_date(before_a_glued_digit(name).trim())
    } else {
        before_a_date(name.trim())
    };
    // A separator a template writes before the name ("/ Cory Doctorow /
    // 10:08 am") is not part of it.
    let name = name.trim_start_matches(|c: char| !c.is_alphanumeric());
    if labelled && a_cjk_name(name) {
        return Some(name);
    }
    let words = name.split_whitespace().count();
    // Every word capitalised, but for particles ("Ludwig van Beethoven").
    let capitalised = name.split_whitespace().all(|w| {
        w.chars()
            .find(|c| c.is_alphabetic())
            .is_none_or(char::is_uppercase)
            || matches!(
                w,
                "de" | "da"
                    | "di"
                    | "van"
                    | "von"
                    | "der"
                    | "del"
                    | "la"
                    | "le"
                    | "bin"
                    | "al"
                    | "and"
                    | "with"
                    | "the"
                    | "of"
            )
    });
    let dated = name
        .split_whitespace()
        .any(|w| DATE_LINE_WORDS.contains(&date_word_of(w).as_str()));
    ((1..=5).contains(&words)
        && capitalised
        && !dated
        && !name.chars().any(|c| c.is_ascii_digit() || c == ':')
        && strip_byline_label(name) == name)
        .then_some(name)
}

/// The byline of a line that gives the date first: "September 1st, 2023
/// By Emily Norwood" gives "By Emily Norwood": up to six words that hold a
/// digit, each a number, a month, a weekday, a word that introduces a
/// date ("Published", "on") or a separator, then a byline label. "Chapter
/// 05: Coding by Composing", "6 Fastest Skateboards by Ecomobl" and "©
/// 2025 by IMDb.com" are no bylines.
pub(crate) fn byline_after_a_date(line: &str) -> Option<&str> {
    // Words around a date's numbers: "on", "at 3 pm", "le 5 mars".
    const JOINING: &[&str] = &["on", "at", "am", "pm", "de", "le", "um"];
    let date_word = |w: &str| {
        let word = date_word_of(w);
        word.is_empty()
            || word.contains(|c: char| c.is_ascii_digit())
            || is_month(w)
            || is_weekday(w)
            || DATE_LINE_WORDS.contains(&word.as_str())
            || JOINING.contains(&word.as_str())
    };
    let lower = line.to_ascii_lowercase();
    [" by ", " von ", " par ", " por "]
        .iter()
        .find_map(|label| {
            let at = lower.find(label)?;
            let date = &line[..at];
            // Separators ("Freitag | 14. Juni 2019 | 15:49") are no words.
            let words = date
                .split_whitespace()
                .filter(|w| !date_word_of(w).is_empty());
            let dated = date.contains(|c: char| c.is_ascii_digit())
                && !date.contains('©')
                && words.count() <= 6
                && date.split_whitespace().all(date_word);
            dated.then(|| &line[at + 1..])
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bylines_text_reads_as_a_name() {
        for (line, name) in [
            ("By Jane Doe · 2 May 2024", Some("Jane Doe")),
            ("Autori: Anna Ūdre", Some("Anna Ūdre")),
            (
                "/ Cory Doctorow / 10:08 am Fri Jul 19, 2013",
                Some("Cory Doctorow"),
            ),
            ("Dec. 19, 2025 · Niko Matsakis", Some("Niko Matsakis")),
            ("By Lucas Nolan22 Dec 2016651", Some("Lucas Nolan")),
            ("ByTrevor Jones", Some("Trevor Jones")),
            ("Dakota Hebert July 3, 2025", Some("Dakota Hebert")),
            ("记者 张三", Some("张三")),
            ("Last Updated: January 7, 2025", None),
            (
                "The author would like to thank Ann Lee, Bo Chen and Cy",
                None,
            ),
            ("BYU Cougars beat Utah 24-10", None),
            ("By Jane Doe in Politics", Some("Jane Doe")),
            (
                "VON Sina Giebel IN Fashion | 0 COMMENTS",
                Some("Sina Giebel"),
            ),
            // Without a label, no section: not "Human" of a blog's name.
            ("Human in the Loop", None),
        ] {
            assert_eq!(name_in(line), name, "{line}");
        }
        assert_eq!(
            byline_after_a_date("Published August 7, 2023 by Nicole Burke"),
            Some("by Nicole Burke")
        );
        assert_eq!(byline_after_a_date("© 2025 by Example Media"), None);
        // A weekday in German, separators between the date's parts.
        assert_eq!(
            byline_after_a_date("Freitag | 14. Juni 2019 | 15:49 VON Sina Giebel IN Fashion"),
            Some("VON Sina Giebel IN Fashion")
        );
        // Six words of date at most, separators aside.
        assert_eq!(
            byline_after_a_date("1 | 2 | 3 | 4 | 5 | 6 by Jane Doe"),
            Some("by Jane Doe")
        );
        assert_eq!(byline_after_a_date("1 2 3 4 5 6 7 by Jane Doe"), None);
        for (line, user) in [
            (
                "Thread starter felixen · Start date Dec 5, 2024",
                Some("felixen"),
            ),
            (
                "Discussion in 'Hosting Advice' started by pelex, Mar 5, 2024",
                Some("pelex"),
            ),
            ("Topic Author", Some("")),
            (
                "He started by asking for the minutes of the meeting of the whole council",
                None,
            ),
            ("The thread starter said more", None),
        ] {
            assert_eq!(thread_starter(line), user, "{line}");
        }
    }
}
