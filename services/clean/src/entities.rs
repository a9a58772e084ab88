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
/// byte-order mark): "Assis\u{ad}tance" is one word.
pub(crate) fn collapse(s: &str) -> String {
    const INVISIBLE: [char; 3] = ['\u{ad}', '\u{200b}', '\u{feff}'];
    // Their UTF-8 forms end in these bytes; most texts have none.
    let may_hide = s.bytes().any(|b| matches!(b, 0xAD | 0x8B | 0xBF));
    let mut out = String::with_capacity(s.len());
    for w in s.split_whitespace() {
        if may_hide && w.contains(INVISIBLE) {
            let visible: String = w.chars().filter(|c| !INVISIBLE.contains(c)).collect();
            if visible.is_empty() {
                continue;
            }
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(&visible);
            continue;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(w);
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
    fn attributes_keep_ambiguous_ampersands() {
        assert_eq!(
            decode_attribute("/search?a=1&copy=2&amp;b=3&lang=en"),
            "/search?a=1&copy=2&b=3&lang=en"
        );
        assert_eq!(decode_entities("/search?a=1&copy=2"), "/search?a=1©=2");
    }
}
