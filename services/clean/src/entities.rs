//! HTML character references. lol_html hands text over raw, so `&amp;` and
//! friends are decoded here: numeric references and the named ones that
//! occur in real pages (the full table has 2,000+, almost all unused).

const NAMED: &[(&str, char)] = &[
    ("amp", '&'),
    ("lt", '<'),
    ("gt", '>'),
    ("quot", '"'),
    ("apos", '\''),
    ("nbsp", '\u{a0}'),
    ("ndash", '–'),
    ("mdash", '—'),
    ("hellip", '…'),
    ("lsquo", '‘'),
    ("rsquo", '’'),
    ("sbquo", '‚'),
    ("ldquo", '“'),
    ("rdquo", '”'),
    ("bdquo", '„'),
    ("laquo", '«'),
    ("raquo", '»'),
    ("lsaquo", '‹'),
    ("rsaquo", '›'),
    ("copy", '©'),
    ("reg", '®'),
    ("trade", '™'),
    ("middot", '·'),
    ("sdot", '⋅'),
    ("bull", '•'),
    ("deg", '°'),
    ("plusmn", '±'),
    ("times", '×'),
    ("divide", '÷'),
    ("para", '¶'),
    ("sect", '§'),
    ("euro", '€'),
    ("pound", '£'),
    ("yen", '¥'),
    ("cent", '¢'),
    ("shy", '\u{ad}'),
    ("zwnj", '\u{200c}'),
    ("zwj", '\u{200d}'),
    ("thinsp", '\u{2009}'),
    ("ensp", '\u{2002}'),
    ("emsp", '\u{2003}'),
    ("iexcl", '¡'),
    ("iquest", '¿'),
    ("frac12", '½'),
    ("frac14", '¼'),
    ("frac34", '¾'),
    ("agrave", 'à'),
    ("aacute", 'á'),
    ("acirc", 'â'),
    ("atilde", 'ã'),
    ("auml", 'ä'),
    ("aring", 'å'),
    ("aelig", 'æ'),
    ("ccedil", 'ç'),
    ("egrave", 'è'),
    ("eacute", 'é'),
    ("ecirc", 'ê'),
    ("euml", 'ë'),
    ("igrave", 'ì'),
    ("iacute", 'í'),
    ("icirc", 'î'),
    ("iuml", 'ï'),
    ("ntilde", 'ñ'),
    ("ograve", 'ò'),
    ("oacute", 'ó'),
    ("ocirc", 'ô'),
    ("otilde", 'õ'),
    ("ouml", 'ö'),
    ("oslash", 'ø'),
    ("ugrave", 'ù'),
    ("uacute", 'ú'),
    ("ucirc", 'û'),
    ("uuml", 'ü'),
    ("yacute", 'ý'),
    ("yuml", 'ÿ'),
    ("szlig", 'ß'),
    ("Agrave", 'À'),
    ("Aacute", 'Á'),
    ("Acirc", 'Â'),
    ("Atilde", 'Ã'),
    ("Auml", 'Ä'),
    ("Aring", 'Å'),
    ("AElig", 'Æ'),
    ("Ccedil", 'Ç'),
    ("Egrave", 'È'),
    ("Eacute", 'É'),
    ("Ecirc", 'Ê'),
    ("Euml", 'Ë'),
    ("Iacute", 'Í'),
    ("Ntilde", 'Ñ'),
    ("Oacute", 'Ó'),
    ("Ouml", 'Ö'),
    ("Oslash", 'Ø'),
    ("Uacute", 'Ú'),
    ("Uuml", 'Ü'),
    ("larr", '←'),
    ("rarr", '→'),
    ("uarr", '↑'),
    ("darr", '↓'),
    ("hearts", '♥'),
    ("check", '✓'),
    ("minus", '−'),
    ("prime", '′'),
    ("Prime", '″'),
    ("dagger", '†'),
    ("Dagger", '‡'),
];

/// Decodes character references in `s`. Unknown names stay as written.
pub fn decode_entities(s: &str) -> std::borrow::Cow<'_, str> {
    if !s.contains('&') {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        rest = &rest[amp..];
        match decode_one(rest) {
            Some((c, used)) => {
                out.push(c);
                rest = &rest[used..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    std::borrow::Cow::Owned(out)
}

/// Decodes the reference at the start of `s` (which starts with `&`).
fn decode_one(s: &str) -> Option<(char, usize)> {
    let body = &s[1..];
    if let Some(num) = body.strip_prefix('#') {
        let (digits, radix, skip) = match num.strip_prefix(['x', 'X']) {
            Some(hex) => (hex, 16, 3),
            None => (num, 10, 2),
        };
        let len = digits
            .chars()
            .take_while(|c| c.is_digit(radix))
            .count()
            .min(8);
        if len == 0 {
            return None;
        }
        let n = u32::from_str_radix(&digits[..len], radix).ok()?;
        let c = match n {
            0 => '\u{fffd}',
            // Windows-1252 numeric references that pages use for quotes.
            0x80..=0x9f => windows_1252(n),
            _ => char::from_u32(n).unwrap_or('\u{fffd}'),
        };
        let semi = usize::from(digits[len..].starts_with(';'));
        return Some((c, skip + len + semi));
    }
    let len = body
        .chars()
        .take_while(char::is_ascii_alphanumeric)
        .count()
        .min(10);
    let name = &body[..len];
    let &(_, c) = NAMED.iter().find(|(n, _)| *n == name)?;
    let semi = usize::from(body[len..].starts_with(';'));
    Some((c, 1 + len + semi))
}

fn windows_1252(n: u32) -> char {
    match n {
        0x80 => '€',
        0x82 => '‚',
        0x84 => '„',
        0x85 => '…',
        0x86 => '†',
        0x87 => '‡',
        0x91 => '‘',
        0x92 => '’',
        0x93 => '“',
        0x94 => '”',
        0x95 => '•',
        0x96 => '–',
        0x97 => '—',
        0x99 => '™',
        _ => '\u{fffd}',
    }
}

#[cfg(test)]
mod tests {
    use super::decode_entities;

    #[test]
    fn decodes_named_numeric_and_leaves_the_rest() {
        assert_eq!(
            decode_entities("a &amp; b &lt;c&gt; &#233;&#xE9; &#8217; &bogus; & x"),
            "a & b <c> éé ’ &bogus; & x"
        );
        assert_eq!(decode_entities("&#150;&#99999999;"), "–\u{fffd}");
    }
}
