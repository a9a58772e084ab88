//! Sentences: where one ends, and a text split into them (for summaries,
//! stories' name-like words and extraction's gap filling).

use crate::notes::{note_marks, without_trailing_notes};

const ABBREVIATIONS: &[&str] = &[
    "mr", "mrs", "ms", "dr", "prof", "st", "jr", "sr", "vs", "etc", "e.g", "i.e", "inc", "ltd",
    "co", "no", "u.s", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct",
    "nov", "dec",
];

/// Whether `text` ends as prose does, with a sentence's closing mark (in
/// any script), before any closing quotes or brackets: menu entries,
/// headlines, calls to follow and specification lines do not. Extraction
/// fills gaps with such paragraphs only; the summary engine chooses such
/// sentences only, while the text has any.
pub fn ends_a_sentence(text: &str) -> bool {
    let t = without_trailing_notes(text.trim_end()).trim_end_matches([
        '"', '\'', '\u{201d}', '\u{2019}', '\u{bb}', ')', ']', '\u{300d}', '\u{300f}', '*',
    ]);
    t.ends_with([
        '.', '!', '?', '\u{2026}', '\u{3002}', '\u{ff01}', '\u{ff1f}', '\u{61f}', '\u{964}',
    ])
}

/// Splits text into sentences: at `.`, `!`, `?` followed by space and a
/// capital, digit or quote (not after a common abbreviation or an initial),
/// at CJK full stops, at line breaks and at tabs (between a table's cells).
/// The sentences are slices of `text`, trimmed.
pub fn sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    // One buffer for every line: a summary splits every article.
    let mut chars: Vec<(usize, char)> = Vec::new();
    // A tab parts a table's cells (an article's text has a row per
    // line): each cell is a line of its own here.
    for line in text.split(['\n', '\t']) {
        let line = line.strip_suffix('\r').unwrap_or(line);
        chars.clear();
        chars.extend(line.char_indices());
        let mut start = 0;
        for (i, &(pos, c)) in chars.iter().enumerate() {
            let end = pos + c.len_utf8();
            // Note marks right after the stop (`wedding.[23] This`) stay
            // with its sentence, and what follows them decides the cut.
            let notes = if matches!(c, '.' | '!' | '?' | '。' | '！' | '？') {
                note_marks(&chars[i + 1..])
            } else {
                0
            };
            let cut = match c {
                '。' | '！' | '？' if notes > 0 => true,
                // A quoted question or exclamation inside a sentence
                // (`……哪个站？”这样的问题。`) does not end it: after the
                // closing quote the sentence goes on without a break.
                '。' | '！' | '？' => {
                    let next = chars.get(i + 1).map(|x| x.1);
                    let after = chars.get(i + 2).map(|x| x.1);
                    !(next.is_some_and(|n| CJK_CLOSING.contains(n))
                        && after.is_some_and(|a| !a.is_whitespace() && !CJK_OPENING.contains(a)))
                }
                '.' | '!' | '?' => {
                    let next = chars.get(i + 1 + notes).map(|x| x.1);
                    let after = chars.get(i + 2 + notes).map(|x| x.1);
                    let spaced = next.is_some_and(char::is_whitespace)
                        && after.is_some_and(|a| {
                            a.is_uppercase() || a.is_numeric() || "\"'“‘(".contains(a)
                        });
                    let closing = next.is_some_and(|n| "\"'”’)".contains(n))
                        && after.is_some_and(char::is_whitespace);
                    (spaced || closing) && !(c == '.' && ends_with_abbreviation(&line[start..pos]))
                }
                // An ellipsis ends a sentence when a capital starts the
                // next ("He paused… Then he left."; "...", three stops,
                // already did), also after a bracket closing an elision
                // ("vaudou […] Lire la suite"); not inside one ("il dit
                // […] que").
                '…' => {
                    let at = |k: usize| chars.get(i + k).map(|x| x.1);
                    let closed = at(1).is_some_and(|n| "\"'”’)]".contains(n));
                    let (space, after) = if closed {
                        (at(2), at(3))
                    } else {
                        (at(1), at(2))
                    };
                    space.is_some_and(char::is_whitespace)
                        && after.is_some_and(|a| a.is_uppercase() || "\"“‘".contains(a))
                }
                _ => false,
            };
            if cut {
                // Keep a closing quote or bracket with its sentence.
                let mut e = end;
                if notes > 0 {
                    let (p, n) = chars[i + notes];
                    e = p + n.len_utf8();
                } else if let Some(&(p, n)) = chars.get(i + 1) {
                    if "\"'”’)".contains(n) || CJK_CLOSING.contains(n) || (c == '…' && n == ']')
                    {
                        e = p + n.len_utf8();
                    }
                }
                if e > start {
                    push_sentence(&mut out, &line[start..e]);
                    start = e;
                }
            }
        }
        push_sentence(&mut out, &line[start.min(line.len())..]);
    }
    out
}

/// `text` with each line break that a hard wrap put inside a sentence
/// turned back into a space: text kept as preformatted (an RFC, a mail
/// archive) or parted by `<br>`s breaks its lines at a width, not where
/// its sentences end, and [`sentences`] ends one at every line break, so
/// a summary would pick up the fragments. A line that does not end a
/// sentence goes on into the next when that one starts in lowercase, or
/// when it ends in a comma. A blank line still parts paragraphs, a tab
/// (a table's row) keeps its line, and a list's items each ending a
/// sentence stay apart; a list whose items end no sentence becomes one
/// line that ends none either, which a summary leaves out as it left
/// the items out.
pub fn rejoin_wrapped_lines(text: &str) -> std::borrow::Cow<'_, str> {
    let wraps = |line: &str, next: &str| {
        let (line, next) = (line.trim(), next.trim_start());
        !line.is_empty()
            && !next.is_empty()
            && !line.contains('\t')
            && !next.contains('\t')
            && !ends_a_sentence(line)
            && (line.ends_with(',') || next.chars().next().is_some_and(char::is_lowercase))
    };
    let lines: Vec<&str> = text.split('\n').collect();
    if !lines.windows(2).any(|w| wraps(w[0], w[1])) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    for (i, line) in lines.iter().enumerate() {
        match i.checked_sub(1).map(|p| wraps(lines[p], line)) {
            Some(true) => {
                out.truncate(out.trim_end().len());
                out.push(' ');
                out.push_str(line.trim_start());
            }
            Some(false) => {
                out.push('\n');
                out.push_str(line);
            }
            None => out.push_str(line),
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Closing and opening quotes and brackets around CJK text.
const CJK_CLOSING: &str = "”’」』）\"'";
const CJK_OPENING: &str = "“‘「『（";

/// Adds a sentence, unless it holds no letter or digit (a stray `。` or
/// quote left between two cuts is no sentence).
fn push_sentence<'a>(out: &mut Vec<&'a str>, s: &'a str) {
    let s = s.trim();
    if s.chars().any(char::is_alphanumeric) {
        out.push(s);
    }
}

fn ends_with_abbreviation(before: &str) -> bool {
    let last = before
        .rsplit(|c: char| c.is_whitespace())
        .next()
        .unwrap_or("");
    let last = last
        .trim_start_matches(|c: char| !c.is_alphanumeric())
        .to_lowercase();
    // A single letter is an initial ("J. Smith").
    (last.chars().count() == 1 && last.chars().all(char::is_alphabetic))
        || ABBREVIATIONS.contains(&last.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sentences_end_in_any_script() {
        for t in [
            "No reply.",
            "\"Yes!\"",
            "Why? ",
            "\u{5f7c}\u{306f}\u{7b54}\u{3048}\u{305f}\u{3002}",
            "(See below.)",
            "\u{0647}\u{0644} \u{062a}\u{0623}\u{062a}\u{064a}\u{061f}",
        ] {
            assert!(ends_a_sentence(t), "{t}");
        }
        for t in [
            "Download now",
            "Latest News",
            "Up to",
            "Join me on TikTok: @maven",
            "The \"Big\" deal\"",
        ] {
            assert!(!ends_a_sentence(t), "{t}");
        }
    }

    /// A sentence a hard wrap broke over lines is one again; list items,
    /// paragraphs and table rows keep their lines.
    #[test]
    fn wrapped_lines_are_rejoined() {
        let rfc = "This document describes a protocol by which client-side\n   applications can store per-user data on a server,\n   Michiel said. A bearer token represents one or more\n   access scopes.\n\nNext paragraph.";
        assert_eq!(
            sentences(&rejoin_wrapped_lines(rfc)),
            [
                "This document describes a protocol by which client-side applications can store per-user data on a server, Michiel said.",
                "A bearer token represents one or more access scopes.",
                "Next paragraph."
            ]
        );
        for kept in [
            "Improve the offline experience.\nexpose the building blocks.",
            "Headline\n\nthe story starts here.",
            "Film\tYear\nthe loop\t1947",
            "No wrap here.\nNone at all.",
        ] {
            assert_eq!(rejoin_wrapped_lines(kept), kept);
        }
    }

    /// A table row's cells are sentences apart, as a list's lines are.
    #[test]
    fn a_tab_parts_sentences() {
        assert_eq!(
            sentences("Repeat Performance\t1947\tA woman wishes she could live the year again.\r\nNext line."),
            ["Repeat Performance", "1947", "A woman wishes she could live the year again.", "Next line."]
        );
    }

    #[test]
    fn sentences_respect_abbreviations() {
        let s = sentences("Dr. Smith arrived at 5 p.m. on Monday. He said \"Hello.\" Then he left!\n今日は晴れ。明日は雨。");
        assert_eq!(
            s,
            vec![
                "Dr. Smith arrived at 5 p.m. on Monday.",
                "He said \"Hello.\"",
                "Then he left!",
                "今日は晴れ。",
                "明日は雨。"
            ]
        );
    }

    #[test]
    fn an_ellipsis_ends_a_sentence_before_a_capital() {
        assert_eq!(
            sentences(
                "He paused… Then he left. Le film frôle le vaudou […] Lire la suite de la critique"
            ),
            [
                "He paused…",
                "Then he left.",
                "Le film frôle le vaudou […]",
                "Lire la suite de la critique"
            ]
        );
        for one in [
            "Il dit […] que la ville change.",
            "Wait… what?",
            "The 1… 2… 3 count.",
        ] {
            assert_eq!(sentences(one), [one]);
        }
    }

    /// A wiki's note marks after a stop stay with their sentence, which
    /// still ends as prose does; brackets of the sentence's own do not.
    #[test]
    fn note_marks_after_a_stop_end_the_sentence_with_it() {
        assert_eq!(
            sentences("He wakes up in a hotel.[23] This is a remake.[a][note 4] Next one [sic] here.\n地震发生。[1]救援开始。"),
            [
                "He wakes up in a hotel.[23]",
                "This is a remake.[a][note 4]",
                "Next one [sic] here.",
                "地震发生。[1]",
                "救援开始。"
            ]
        );
        for prose in [
            "It ascended.[3][4]",
            "It was cited.[citation needed]",
            "The end.[1]",
        ] {
            assert!(ends_a_sentence(prose), "{prose}");
        }
        for not in ["See the list [1]", "Menu [Home]x", "[1]"] {
            assert!(!ends_a_sentence(not), "{not}");
        }
        // A bracket of the sentence's own runs on.
        assert_eq!(
            sentences("Version 2.[beta build of the long-running series] Next."),
            ["Version 2.[beta build of the long-running series] Next."]
        );
    }

    #[test]
    fn a_quoted_question_inside_a_cjk_sentence_does_not_end_it() {
        let s = sentences("例如，它可以回答“你会到达哪个站？”这样的问题。比如“张三的大舅是谁？”。他说：「行くの？」「はい。」");
        assert_eq!(
            s,
            vec![
                "例如，它可以回答“你会到达哪个站？”这样的问题。",
                "比如“张三的大舅是谁？”。",
                "他说：「行くの？」",
                "「はい。」"
            ]
        );
        // A stray mark between two cuts is no sentence.
        assert_eq!(sentences("完了。。次へ。"), vec!["完了。", "次へ。"]);
    }
}
