//! UTF-8 that was read as Latin-1 and written out again: a CMS that
//! double-encodes its text serves "Investorâ\u{80}\u{99}s" for
//! "Investor’s", each byte of the UTF-8 form made a character of its own.
//! The C1 controls (U+0080 to U+009F) among them give it away: no text
//! means them. Written by hand because the repair is this narrow one
//! (ftfy's general repairs have no maintained Rust crate): only a text
//! that holds such a control as part of a whole, valid UTF-8 sequence is
//! repaired, and then every such sequence in it ("HorweenÂ®" too), so
//! Latin-1 text ("São Paulo Ã©") is left alone. A double-encoded
//! no-break space, "Â" then U+00A0, proves it too: the commonest trace
//! such a CMS leaves ("cats.Â " after every sentence), and no language
//! puts a capital Â right before a no-break space.

use std::borrow::Cow;

/// Whether `s` may hold such a run: a C1 control, U+0080 to U+009F,
/// whose UTF-8 form is 0xC2 then 0x80 to 0x9F, or "Â" then U+00A0.
fn may_hold(s: &str) -> bool {
    s.as_bytes()
        .windows(2)
        .any(|w| w[0] == 0xC2 && (0x80..=0x9F).contains(&w[1]))
        || s.contains("\u{c2}\u{a0}")
}

/// `s` with every run of double-encoded UTF-8 put back.
pub(crate) fn repaired(s: &str) -> Cow<'_, str> {
    if !may_hold(s) {
        return Cow::Borrowed(s);
    }
    let chars: Vec<char> = s.chars().collect();
    let proven = (0..chars.len()).any(|i| sequence_at(&chars[i..], true).is_some());
    if !proven {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while i < chars.len() {
        if let Some((text, used)) = sequence_at(&chars[i..], false) {
            out.push_str(&text);
            i += used;
        } else {
            out.push(chars[i]);
            i += 1;
        }
    }
    Cow::Owned(out)
}

/// The character a double-encoded sequence at the start of `chars`
/// stands for, and how many characters it took; with `with_control`, only
/// a sequence holding a C1 control.
fn sequence_at(chars: &[char], with_control: bool) -> Option<(String, usize)> {
    let lead = u32::from(*chars.first()?);
    let continuation = match lead {
        0xC2..=0xDF => 1,
        0xE0..=0xEF => 2,
        0xF0..=0xF4 => 3,
        _ => return None,
    };
    let tail = chars.get(1..=continuation)?;
    let tail: Vec<u32> = tail.iter().map(|&c| u32::from(c)).collect();
    let proof = tail.iter().any(|c| *c <= 0x9F) || (lead == 0xC2 && tail == [0xA0]);
    if !tail.iter().all(|c| (0x80..=0xBF).contains(c)) || (with_control && !proof) {
        return None;
    }
    let bytes: Vec<u8> = std::iter::once(lead).chain(tail).map(|b| b as u8).collect();
    let text = String::from_utf8(bytes).ok()?;
    Some((text, continuation + 1))
}

#[cfg(test)]
mod tests {
    use super::repaired;

    #[test]
    fn double_encoded_utf8_is_put_back() {
        assert_eq!(
            repaired("A DIY Investor\u{e2}\u{80}\u{99}s Guide"),
            "A DIY Investor\u{2019}s Guide"
        );
        // An em dash and a euro sign, three bytes each.
        assert_eq!(
            repaired("a \u{e2}\u{80}\u{94} b \u{e2}\u{82}\u{ac}5"),
            "a \u{2014} b \u{20ac}5"
        );
    }

    #[test]
    fn a_text_proven_double_encoded_is_repaired_whole() {
        assert_eq!(
            repaired("Horween\u{c2}\u{ae} Leather \u{e2}\u{82}\u{ac}41"),
            "Horween\u{ae} Leather \u{20ac}41"
        );
        assert_eq!(
            repaired("Horween\u{c2}\u{ae} Leather"),
            "Horween\u{c2}\u{ae} Leather"
        );
    }

    #[test]
    fn a_double_encoded_no_break_space_proves_it() {
        assert_eq!(
            repaired("for cats.\u{c2}\u{a0} The average \u{c2}\u{bd} price"),
            "for cats.\u{a0} The average \u{bd} price"
        );
        // A capital Â before an ordinary space is a letter.
        assert_eq!(repaired("L\u{c2} \u{c2}\u{bd}"), "L\u{c2} \u{c2}\u{bd}");
    }

    #[test]
    fn latin_1_text_and_lone_controls_stay() {
        for s in [
            "café crème",
            "São Paulo Ã©",
            "x \u{85} y",
            "Investor\u{e2}\u{80}s",
            "plain",
        ] {
            assert_eq!(repaired(s), s, "{s}");
        }
    }
}
