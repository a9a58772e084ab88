//! Text as lol_html hands it over, made readable: HTML character
//! references (`&amp;` and friends) decoded by htmlize (all 2,231 named
//! references of the WHATWG table, numeric ones with the WHATWG
//! replacements: `&#150;` is an en dash, `&#0;` U+FFFD; and the attribute
//! rule), and whitespace collapsed.

use std::borrow::Cow;

/// Decodes the character references in text content.
pub fn decode_entities(s: &str) -> Cow<'_, str> {
    htmlize::unescape(s)
}

/// Decodes the character references in an attribute value: a named
/// reference without its `;` followed by `=` or a letter or digit stays as
/// written (`?a=1&copy=2` keeps its `&copy`), as browsers do.
pub fn decode_attribute(s: &str) -> Cow<'_, str> {
    htmlize::unescape_attribute(s)
}

/// Collapses whitespace runs to one space and trims, and drops the
/// invisible characters that split words (soft hyphen, zero-width space,
/// byte-order mark): "Assis\u{ad}tance" is one word. The joiners
/// (zero-width joiner and non-joiner) join what is beside them: inside a
/// word (an emoji sequence, a Persian word) they stay; at a word's edge
/// they join nothing and go. A "word" of joiners alone (Webflow fills
/// its empty paragraphs with one) stays, and its block with it: dropping
/// those blocks changed what the classifiers chose around them (wcxb-dev
/// 0.8939, 1 page up and 6 down), so the article leaves them out of its
/// text instead (extract's `join_blocks`).
pub(crate) fn collapse(s: &str) -> String {
    const INVISIBLE: [char; 3] = ['\u{ad}', '\u{200b}', '\u{feff}'];
    const JOINERS: [char; 2] = ['\u{200c}', '\u{200d}'];
    // Their UTF-8 forms end in these bytes; most texts have none.
    let may_hide = s
        .bytes()
        .any(|b| matches!(b, 0xAD | 0x8B | 0x8C | 0x8D | 0xBF));
    let mut out = String::with_capacity(s.len());
    for w in s.split_whitespace() {
        let visible: Cow<'_, str> = if may_hide && w.contains(INVISIBLE) {
            Cow::Owned(w.chars().filter(|c| !INVISIBLE.contains(c)).collect())
        } else {
            Cow::Borrowed(w)
        };
        let visible = match may_hide {
            true => match visible.trim_matches(JOINERS) {
                "" => &visible,
                word => word,
            },
            false => &visible,
        };
        if visible.is_empty() {
            continue;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(visible);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_named_numeric_and_leaves_the_rest() {
        assert_eq!(
            decode_entities("a &amp; b &lt;c&gt; &#233;&#xE9; &#8217; &bogus; & x"),
            "a & b <c> éé ’ &bogus; & x"
        );
        assert_eq!(
            decode_entities("&#150;&#99999999;&#0;"),
            "–\u{fffd}\u{fffd}"
        );
        // Names far from the common few, and the longest-prefix rule for
        // legacy names without a semicolon.
        assert_eq!(
            decode_entities("&CounterClockwiseContourIntegral; &frac34; &notin; &notit;"),
            "∳ ¾ ∉ ¬it;"
        );
        assert_eq!(decode_entities("&Ascr;&bne;"), "𝒜=\u{20e5}");
    }

    #[test]
    fn invisible_characters_and_joiners_at_a_words_edge_go() {
        assert_eq!(
            collapse(" Assis\u{ad}tance \u{200b} here "),
            "Assistance here"
        );
        // A joiner opening or closing a word goes; joiners alone stay
        // (the article leaves such a block out: extract's join_blocks).
        assert_eq!(collapse("\u{200d}We sat down\u{200c}"), "We sat down");
        assert_eq!(
            collapse("\u{200d}\u{200d} \u{200d}We"),
            "\u{200d}\u{200d} We"
        );
        // Inside a word it joins: an emoji family, a Persian word.
        assert_eq!(
            collapse("\u{1f468}\u{200d}\u{1f469}"),
            "\u{1f468}\u{200d}\u{1f469}"
        );
        assert_eq!(
            collapse("\u{645}\u{6cc}\u{200c}\u{62e}\u{648}\u{627}\u{647}\u{645}"),
            "\u{645}\u{6cc}\u{200c}\u{62e}\u{648}\u{627}\u{647}\u{645}"
        );
    }

    #[test]
    fn attributes_keep_ambiguous_ampersands() {
        assert_eq!(
            decode_attribute("/search?a=1&copy=2&amp;b=3&lang=en"),
            "/search?a=1&copy=2&b=3&lang=en"
        );
        assert_eq!(decode_entities("/search?a=1&copy=2"), "/search?a=1©=2");
    }
}
