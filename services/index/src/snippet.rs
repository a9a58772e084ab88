//! Snippets that read as text: the matched fragment moved back to the
//! start of its sentence and cut at a word.

pub(crate) fn truncate_chars(s: &str, n: usize) -> String {
    s.chars().take(n).collect()
}

/// The matched fragment moved to start where its sentence starts (when that
/// is at most a fifth of the snippet back), cut at a word to `max_chars`,
/// with `…` where it starts or ends mid-sentence. Empty when there is no
/// fragment.
pub(crate) fn sentence_snippet(body: &str, fragment: &str, max_chars: usize) -> String {
    let fragment = fragment.trim();
    if fragment.is_empty() {
        return String::new();
    }
    let Some(at) = body.find(fragment) else {
        return fragment.to_string();
    };
    let ends_sentence = |c: char| matches!(c, '.' | '!' | '?' | '\n' | '。' | '！' | '？');
    let look_back = (max_chars / 5).max(1);
    // Byte offset where the fragment's sentence starts, if close enough.
    let mut start = None;
    for (n, (i, c)) in body[..at].char_indices().rev().enumerate() {
        if ends_sentence(c) {
            start = Some(i + c.len_utf8());
            break;
        }
        if n >= look_back {
            break;
        }
    }
    // Else the next sentence, if it starts early in the fragment
    // ("falling. The agreement, ..." starts at "The").
    let next_sentence = || {
        let mut chars = body[at..].char_indices().take(look_back).peekable();
        while let Some((i, c)) = chars.next() {
            if ends_sentence(c) && chars.peek().is_some_and(|&(_, n)| n.is_whitespace()) {
                return Some(at + i + c.len_utf8());
            }
        }
        None
    };
    let start = match start {
        Some(s) => s,
        None if at == 0 => 0,
        None => next_sentence().unwrap_or(at),
    };
    let from_sentence = start == 0 || body[..start].trim_end().ends_with(ends_sentence);
    let rest = body[start..].trim_start();
    let mut out: String = rest.chars().take(max_chars).collect();
    if out.len() < rest.len() {
        // Cut at the last space, if one is in the second half.
        if let Some(sp) = out.rfind(' ').filter(|&sp| sp > out.len() / 2) {
            out.truncate(sp);
        }
        let trimmed = out.trim_end().len();
        out.truncate(trimmed);
        if !out.ends_with(ends_sentence) {
            out.push('…');
        }
    }
    if !from_sentence {
        out.insert(0, '…');
    }
    out
}

#[cfg(test)]
mod snippet_tests {
    use super::sentence_snippet;

    #[test]
    fn snippets_start_at_a_sentence_and_cut_at_a_word() {
        let body = "Rain fell all day. The agreement, signed on Monday, ends the strike at the port after nine weeks. Talks resume in May.";
        // Fragment starting mid-sentence, near its start: moved back.
        assert_eq!(
            sentence_snippet(body, "signed on Monday, ends the strike", 80),
            "The agreement, signed on Monday, ends the strike at the port after nine weeks."
        );
        // The sentence start is too far back, and the next one too far on:
        // an ellipsis says so.
        assert_eq!(
            sentence_snippet(body, "port after nine weeks.", 40),
            "…port after nine weeks. Talks resume in…"
        );
        // The next sentence starts early in the fragment: it starts there.
        assert_eq!(
            sentence_snippet(body, "weeks. Talks resume", 40),
            "Talks resume in May."
        );
        // Whole sentences that fit end without an ellipsis.
        assert_eq!(
            sentence_snippet(body, "Talks resume in May.", 200),
            "Talks resume in May."
        );
        assert_eq!(sentence_snippet(body, "  ", 50), "");
        // Multi-byte text is cut on characters, never mid-character.
        let cjk = "東京は晴れ。明日は雨が降るでしょう。週末は曇り。";
        assert_eq!(
            sentence_snippet(cjk, "雨が降る", 15),
            "明日は雨が降るでしょう。週末は…"
        );
        assert_eq!(sentence_snippet(cjk, "雨が降る", 8), "…雨が降るでしょう…");
    }
}

/// `snippet` as HTML: escaped, with `<mark>` around each occurrence of the
/// matched `terms` (the words a match highlighted in the article, as they
/// are written there); terms next to each other, as a phrase's, share one
/// mark. A term of letters or digits is marked as a whole word only.
pub(crate) fn highlight(snippet: &str, terms: &[&str]) -> String {
    let mut marked = vec![false; snippet.len()];
    let is_word = |c: char| c.is_alphanumeric() && !gleaner_text::is_cjk(c);
    for term in terms.iter().filter(|t| !t.trim().is_empty()) {
        let whole_word = term.chars().all(is_word);
        for (at, _) in snippet.match_indices(term) {
            let end = at + term.len();
            let before = snippet[..at].chars().next_back();
            let after = snippet[end..].chars().next();
            if whole_word && (before.is_some_and(is_word) || after.is_some_and(is_word)) {
                continue;
            }
            marked[at..end].iter_mut().for_each(|m| *m = true);
        }
    }
    // Marks separated only by spaces become one (a phrase).
    let bytes = snippet.as_bytes();
    let mut i = 1;
    while i < bytes.len() {
        if bytes[i] == b' ' && marked[i - 1] {
            let end = (i..bytes.len())
                .find(|&j| bytes[j] != b' ')
                .unwrap_or(bytes.len());
            if end < bytes.len() && marked[end] {
                marked[i..end].iter_mut().for_each(|m| *m = true);
            }
            i = end;
        } else {
            i += 1;
        }
    }
    let mut out = String::with_capacity(snippet.len() + 16);
    let mut run_start = 0;
    for (i, _) in snippet
        .char_indices()
        .chain(std::iter::once((snippet.len(), ' ')))
    {
        let boundary = i == snippet.len() || (i > 0 && marked[i] != marked[i - 1]);
        if boundary && i > run_start {
            let text = htmlize::escape_text(&snippet[run_start..i]);
            if marked[run_start] {
                out.push_str("<mark>");
                out.push_str(&text);
                out.push_str("</mark>");
            } else {
                out.push_str(&text);
            }
            run_start = i;
        }
    }
    out
}

/// What of a matched `term` to mark: a CJK bigram that matched for one
/// of the query's `lone` characters is marked as that character ("猫" in
/// "喜欢猫", not "欢猫"); any other term whole.
pub(crate) fn marked_part<'t>(term: &'t str, lone: &[char]) -> &'t str {
    let mut chars = term.char_indices();
    let (Some((_, a)), Some((at, b)), None) = (chars.next(), chars.next(), chars.next()) else {
        return term;
    };
    match (lone.contains(&a), lone.contains(&b)) {
        (true, false) => &term[..at],
        (false, true) => &term[at..],
        _ => term,
    }
}

#[cfg(test)]
mod highlight_tests {
    use super::highlight;

    #[test]
    fn terms_are_marked_whole_escaped_and_a_phrase_shares_one_mark() {
        assert_eq!(
            highlight(
                "The harbour bridge & <the> bridges.",
                &["harbour", "bridge"]
            ),
            "The <mark>harbour bridge</mark> &amp; &lt;the&gt; bridges."
        );
        assert_eq!(
            highlight("Bridge, then bridge.", &["Bridge", "bridge"]),
            "<mark>Bridge</mark>, then <mark>bridge</mark>."
        );
        assert_eq!(highlight("東京は雨", &["東京"]), "<mark>東京</mark>は雨");
        assert_eq!(highlight("no match", &["x"]), "no match");
        assert_eq!(highlight("", &["x"]), "");
    }
}

#[cfg(test)]
mod lone_tests {
    use super::*;

    #[test]
    fn a_bigram_matched_for_a_lone_character_is_marked_as_it() {
        assert_eq!(marked_part("欢猫", &['猫']), "猫");
        assert_eq!(marked_part("猫咪", &['猫']), "猫");
        assert_eq!(marked_part("人工", &['猫']), "人工");
        assert_eq!(marked_part("猫猫", &['猫']), "猫猫");
        assert_eq!(marked_part("bridge", &['猫']), "bridge");
    }
}
