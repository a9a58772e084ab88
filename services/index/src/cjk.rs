//! A tokenizer for text without spaces between words: every run of CJK
//! characters becomes overlapping character bigrams (a lone character stays
//! a unigram). Other text yields no tokens here; the English field has it.

use gleaner_text::is_cjk;
use tantivy::tokenizer::{Token, TokenStream, Tokenizer};

#[derive(Clone, Default)]
pub struct CjkBigramTokenizer;

/// Whether `text` has a CJK character. Every one is past U+3000, so its
/// UTF-8 starts with a byte of 0xE3 or more: most text (curly quotes and
/// dashes start with 0xE2) is ruled out by a byte scan without decoding.
pub(crate) fn has_cjk(text: &str) -> bool {
    text.bytes().any(|b| b >= 0xE3) && text.chars().any(is_cjk)
}

pub struct CjkTokenStream {
    tokens: Vec<Token>,
    next: usize,
}

impl Tokenizer for CjkBigramTokenizer {
    type TokenStream<'a> = CjkTokenStream;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> CjkTokenStream {
        let mut tokens = Vec::new();
        let mut run: Vec<(usize, char)> = Vec::new();
        let flush = |run: &mut Vec<(usize, char)>, tokens: &mut Vec<Token>| {
            let end_of = |i: usize| run[i].0 + run[i].1.len_utf8();
            if run.len() == 1 {
                tokens.push(token(tokens.len(), run[0].0, end_of(0), text));
            }
            for i in 1..run.len() {
                tokens.push(token(tokens.len(), run[i - 1].0, end_of(i), text));
            }
            run.clear();
        };
        for (pos, c) in text.char_indices() {
            if is_cjk(c) {
                run.push((pos, c));
            } else if !run.is_empty() {
                flush(&mut run, &mut tokens);
            }
        }
        flush(&mut run, &mut tokens);
        CjkTokenStream { tokens, next: 0 }
    }
}

fn token(position: usize, from: usize, to: usize, text: &str) -> Token {
    Token {
        offset_from: from,
        offset_to: to,
        position,
        text: text[from..to].to_string(),
        position_length: 1,
    }
}

impl TokenStream for CjkTokenStream {
    fn advance(&mut self) -> bool {
        self.next += 1;
        self.next <= self.tokens.len()
    }
    fn token(&self) -> &Token {
        &self.tokens[self.next - 1]
    }
    fn token_mut(&mut self) -> &mut Token {
        &mut self.tokens[self.next - 1]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bigrams_per_run() {
        let mut t = CjkBigramTokenizer;
        let mut s = t.token_stream("北京大学 and 東");
        let mut out = Vec::new();
        while s.advance() {
            out.push(s.token().text.clone());
        }
        assert_eq!(out, vec!["北京", "京大", "大学", "東"]);
    }

    #[test]
    fn cjk_is_found_and_other_text_ruled_out() {
        for t in ["北京", "a 東 b", "한국어", "カタカナ", "𠀋"] {
            assert!(has_cjk(t), "{t}");
        }
        for t in [
            "",
            "plain",
            "“quoted” — dash",
            "Grüße",
            "emoji 🙂",
            "Ελληνικά",
        ] {
            assert!(!has_cjk(t), "{t}");
        }
    }
}
