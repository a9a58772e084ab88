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

/// The characters that show nothing and split words: soft hyphen,
/// zero-width space, byte-order mark.
const INVISIBLE: [char; 3] = ['\u{ad}', '\u{200b}', '\u{feff}'];

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
    const JOINERS: [char; 2] = ['\u{200c}', '\u{200d}'];
    // Text a CMS encoded twice ("Investorâ\u{80}\u{99}s") reads as
    // written first.
    let s = &*crate::mojibake::repaired(s);
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

/// The text of a `<pre>`, whose line breaks and indentation are its
/// meaning (code, verse, a table drawn in spaces): only what shows
/// nothing goes, the invisible characters, the spaces ending a line, the
/// blank lines at either end, and all but one blank line in a row.
pub(crate) fn preformatted(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut blank_before = false;
    for line in s.split('\n') {
        let line = line.trim_end();
        if line.trim_start().is_empty() {
            blank_before = !out.is_empty();
            continue;
        }
        if !out.is_empty() {
            out.push_str(if blank_before { "\n\n" } else { "\n" });
        }
        blank_before = false;
        match line.contains(INVISIBLE) {
            true => out.extend(line.chars().filter(|c| !INVISIBLE.contains(c))),
            false => out.push_str(line),
        }
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

    /// Code keeps its lines and indentation; what shows nothing goes.
    #[test]
    fn preformatted_text_keeps_its_lines_and_indentation() {
        let code = "\r\nfn main() {   \r\n    let x\u{ad} = 1;\n\n\n\tprintln!(\"{x}\");\n}\n  \n";
        assert_eq!(
            preformatted(code),
            "fn main() {\n    let x = 1;\n\n\tprintln!(\"{x}\");\n}"
        );
        assert_eq!(preformatted(" \n \t\n"), "");
        assert_eq!(preformatted("one line"), "one line");
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
