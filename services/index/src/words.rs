//! The word tokenizer of the plain and stemmed fields: Tantivy's
//! `SimpleTokenizer` (runs of letters and digits), except that a word also
//! ends where CJK text meets other text. Chinese and Japanese news writes
//! Latin names into its sentences without a space ("公司DeepMind开发出",
//! "フリーWi-Fiプロテクション", "VPN（Virtual"), and the simple tokenizer
//! made one word of the name and the characters around it, so "DeepMind"
//! was found only as a typo and "VPN" not at all. The CJK characters
//! themselves are searched as bigrams in their own field (cjk.rs). Written
//! here because no tokenizer of Tantivy's splits at a change of script.

use gleaner_text::is_cjk;
use tantivy::tokenizer::{Token, TokenStream, Tokenizer};

/// `is_cjk`, answered for the letters below the first CJK block (every
/// Latin, Greek, Cyrillic, Arabic, ... one) by one comparison.
fn cjk(c: char) -> bool {
    c >= '\u{3040}' && is_cjk(c)
}

#[derive(Clone, Default)]
pub struct WordTokenizer {
    token: Token,
}

pub struct WordTokenStream<'a> {
    text: &'a str,
    /// Where the next word is looked for, in bytes.
    at: usize,
    token: &'a mut Token,
}

impl Tokenizer for WordTokenizer {
    type TokenStream<'a> = WordTokenStream<'a>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> WordTokenStream<'a> {
        self.token.reset();
        WordTokenStream {
            text,
            at: 0,
            token: &mut self.token,
        }
    }
}

/// What the text holds at byte `i` (a char boundary): whether it is a
/// letter or digit, whether that is CJK, and its length. ASCII, most of
/// what is indexed, is read a byte at a time without decoding.
fn read(text: &str, i: usize) -> (bool, bool, usize) {
    let b = text.as_bytes()[i];
    if b < 0x80 {
        return (b.is_ascii_alphanumeric(), false, 1);
    }
    match text[i..].chars().next() {
        Some(c) => (c.is_alphanumeric(), cjk(c), c.len_utf8()),
        None => (false, false, 1),
    }
}

impl TokenStream for WordTokenStream<'_> {
    fn advance(&mut self) -> bool {
        self.token.text.clear();
        self.token.position = self.token.position.wrapping_add(1);
        let text = self.text;
        let mut from = self.at;
        let kind = loop {
            if from >= text.len() {
                self.at = from;
                return false;
            }
            let (word, kind, len) = read(text, from);
            if word {
                break kind;
            }
            from += len;
        };
        let mut to = from;
        while to < text.len() {
            let (word, k, len) = read(text, to);
            if !word || k != kind {
                break;
            }
            to += len;
        }
        self.at = to;
        self.token.offset_from = from;
        self.token.offset_to = to;
        self.token.text.push_str(&text[from..to]);
        true
    }

    fn token(&self) -> &Token {
        self.token
    }

    fn token_mut(&mut self) -> &mut Token {
        self.token
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tantivy::tokenizer::SimpleTokenizer;

    fn tokens(t: &mut impl Tokenizer, text: &str) -> Vec<(String, usize, usize, usize)> {
        let mut out = Vec::new();
        let mut stream = t.token_stream(text);
        while stream.advance() {
            let k = stream.token();
            out.push((k.text.clone(), k.position, k.offset_from, k.offset_to));
        }
        out
    }

    #[test]
    fn a_word_ends_where_cjk_text_meets_other_text() {
        let words = |text| {
            tokens(&mut WordTokenizer::default(), text)
                .into_iter()
                .map(|t| t.0)
                .collect::<Vec<_>>()
        };
        assert_eq!(words("公司DeepMind开发出"), ["公司", "DeepMind", "开发出"]);
        assert_eq!(
            words("フリーWi-Fiプロテクション、VPN（Virtual"),
            ["フリー", "Wi", "Fi", "プロテクション", "VPN", "Virtual"]
        );
        assert_eq!(words("iPhone을 샀다"), ["iPhone", "을", "샀다"]);
    }

    #[test]
    fn text_without_cjk_is_read_as_the_simple_tokenizer_reads_it() {
        let text = "Hello, happy tax-payer! Ünïcode 2026 ... naïve café_au lait Привет, мир! ١٢٣ 😀 e\u{301}x";
        assert_eq!(
            tokens(&mut WordTokenizer::default(), text),
            tokens(&mut SimpleTokenizer::default(), text)
        );
        assert!(tokens(&mut WordTokenizer::default(), " ,. ").is_empty());
    }
}
