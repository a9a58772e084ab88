//! The tokenizers that make the pairs of common words (pairs.rs) as the
//! index stage indexes, in Tantivy's indexing threads: the pair fields'
//! (`PairTokenizer`: a value is the text after its language's code; tokens
//! made beforehand are stored in Tantivy's document as JSON, which made
//! indexing 2.5 times slower), and a filter that ends the stemmed fields'
//! analyzers (`StashPairs`), which keeps each text's pairs on its thread
//! for the pair tokenizer to take rather than read the text's words a
//! second time: Tantivy indexes a document's fields in schema order (the
//! words before the pairs) on one thread. A text whose pairs were not kept
//! there is read again, with the same pairs as the result. The second pass
//! was 7% of indexing's CPU.

use crate::pairs::{pairs_of, PairMaker, PairStream, Pairs, Shared};
use rustc_hash::FxHashMap;
use rustc_hash::FxHashSet;
use std::cell::RefCell;
use std::collections::VecDeque;
use std::hash::Hasher;
use std::sync::Arc;
use tantivy::tokenizer::{TextAnalyzer, Token, TokenFilter, TokenStream, Tokenizer};

/// Between a pair field's value's language code and its text.
const AFTER_CODE: char = '\u{1}';

/// A pair field's value: `text` of the language of `code`.
pub(crate) fn value(code: &str, text: &str) -> String {
    let mut v = String::with_capacity(code.len() + 1 + text.len());
    v.push_str(code);
    v.push(AFTER_CODE);
    v.push_str(text);
    v
}

/// Makes the pair terms of a pair field's value (`value`): its text's
/// words as `analyzer_for` its language makes them, each two adjacent
/// common ones a term. No pairs for a language with no common words.
#[derive(Clone)]
pub(crate) struct PairTokenizer {
    common: Shared,
    analyzer_for: fn(&str) -> Option<TextAnalyzer>,
    analyzers: FxHashMap<String, TextAnalyzer>,
}

impl PairTokenizer {
    pub(crate) fn new(common: Shared, analyzer_for: fn(&str) -> Option<TextAnalyzer>) -> Self {
        PairTokenizer {
            common,
            analyzer_for,
            analyzers: FxHashMap::default(),
        }
    }

    fn pairs(&mut self, value: &str) -> Pairs {
        let Some((code, text)) = value.split_once(AFTER_CODE) else {
            return Pairs::default();
        };
        if let Some(pairs) = take(code, text) {
            return pairs;
        }
        let common = self.common.read().unwrap_or_else(|e| e.into_inner());
        let Some(words) = common.get(code).cloned() else {
            return Pairs::default();
        };
        drop(common);
        if !self.analyzers.contains_key(code) {
            let Some(analyzer) = (self.analyzer_for)(code) else {
                return Pairs::default();
            };
            self.analyzers.insert(code.to_string(), analyzer);
        }
        let analyzer = self.analyzers.get_mut(code).expect("inserted above");
        pairs_of(analyzer, code, text, |w| words.contains(w)).0
    }
}

impl Tokenizer for PairTokenizer {
    type TokenStream<'a> = PairStream;

    fn token_stream<'a>(&'a mut self, value: &'a str) -> PairStream {
        self.pairs(value).into_stream()
    }
}

/// Texts whose pairs a thread keeps: a document's title and body, and a
/// margin.
const KEEP: usize = 4;

/// A kept text's language, length and hash, and its pairs.
type Kept = (&'static str, usize, u64, Pairs);

thread_local! {
    static KEPT: RefCell<VecDeque<Kept>> = const { RefCell::new(VecDeque::new()) };
}

fn hash(text: &str) -> u64 {
    let mut h = rustc_hash::FxHasher::default();
    h.write(text.as_bytes());
    h.finish()
}

/// The pairs of `text` in the language of `code`, if this thread kept
/// them.
fn take(code: &str, text: &str) -> Option<Pairs> {
    let key = (text.len(), hash(text));
    KEPT.with(|kept| {
        let mut kept = kept.borrow_mut();
        let i = kept
            .iter()
            .position(|(c, len, h, _)| *c == code && (*len, *h) == key)?;
        kept.remove(i).map(|(_, _, _, pairs)| pairs)
    })
}

fn keep(code: &'static str, len: usize, h: u64, pairs: Pairs) {
    KEPT.with(|kept| {
        let mut kept = kept.borrow_mut();
        if kept.len() == KEEP {
            kept.pop_front();
        }
        kept.push_back((code, len, h, pairs));
    });
}

/// A token filter that passes the words on unchanged and keeps their
/// pairs of common words (of the language of `code`).
#[derive(Clone)]
pub(crate) struct StashPairs {
    code: &'static str,
    common: Shared,
}

impl StashPairs {
    pub(crate) fn new(code: &'static str, common: Shared) -> Self {
        StashPairs { code, common }
    }
}

impl TokenFilter for StashPairs {
    type Tokenizer<T: Tokenizer> = StashPairsFilter<T>;

    fn transform<T: Tokenizer>(self, inner: T) -> StashPairsFilter<T> {
        StashPairsFilter { stash: self, inner }
    }
}

#[derive(Clone)]
pub(crate) struct StashPairsFilter<T> {
    stash: StashPairs,
    inner: T,
}

impl<T: Tokenizer> Tokenizer for StashPairsFilter<T> {
    type TokenStream<'a> = StashPairsStream<T::TokenStream<'a>>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> Self::TokenStream<'a> {
        let common = self.stash.common.read().unwrap_or_else(|e| e.into_inner());
        let words = common
            .get(self.stash.code)
            .filter(|w| !w.is_empty())
            .cloned();
        drop(common);
        StashPairsStream {
            code: self.stash.code,
            key: words.as_ref().map(|_| (text.len(), hash(text))),
            words,
            pairs: PairMaker::default(),
            tail: self.inner.token_stream(text),
        }
    }
}

pub(crate) struct StashPairsStream<T> {
    code: &'static str,
    /// The text's length and hash; `None` once kept, or with no words.
    key: Option<(usize, u64)>,
    words: Option<Arc<FxHashSet<String>>>,
    pairs: PairMaker,
    tail: T,
}

impl<T: TokenStream> TokenStream for StashPairsStream<T> {
    fn advance(&mut self) -> bool {
        if !self.tail.advance() {
            if let Some((len, h)) = self.key.take() {
                keep(self.code, len, h, std::mem::take(&mut self.pairs.out));
            }
            return false;
        }
        if let Some(words) = &self.words {
            let t = self.tail.token();
            self.pairs.push(self.code, t, words.contains(&t.text));
        }
        true
    }

    fn token(&self) -> &Token {
        self.tail.token()
    }

    fn token_mut(&mut self) -> &mut Token {
        self.tail.token_mut()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pairs::tests::analyzer;
    use tantivy::tokenizer::{LowerCaser, SimpleTokenizer};

    #[test]
    fn the_tokenizer_pairs_the_common_words_of_a_values_language() {
        let common: Shared = Arc::default();
        let words = ["of", "the"].into_iter().map(String::from).collect();
        common.write().unwrap().insert("en".into(), Arc::new(words));
        let mut t = PairTokenizer::new(common, |code| (code == "en").then(analyzer));
        let mut terms = |v: &str| {
            let mut out = Vec::new();
            let mut stream = t.token_stream(v);
            while stream.advance() {
                out.push(stream.token().text.clone());
            }
            out
        };
        assert_eq!(terms(&value("en", "Out of the Blue")), vec!["en of the"]);
        assert!(
            terms(&value("de", "out of the blue")).is_empty(),
            "no German words"
        );
        assert!(terms("out of the blue").is_empty(), "no code");
    }

    #[test]
    fn the_words_pass_unchanged_and_their_pairs_are_kept() {
        let common = Shared::default();
        let words = ["of", "the"].into_iter().map(String::from).collect();
        common.write().unwrap().insert("en".into(), Arc::new(words));
        let mut a = TextAnalyzer::builder(SimpleTokenizer::default())
            .filter(LowerCaser)
            .filter(StashPairs::new("en", common))
            .build();
        let text = "End of the Line";
        let mut seen = Vec::new();
        let mut stream = a.token_stream(text);
        while stream.advance() {
            seen.push(stream.token().text.clone());
        }
        drop(stream);
        assert_eq!(seen, vec!["end", "of", "the", "line"]);
        assert!(take("de", text).is_none(), "kept for English only");
        let pairs = take("en", text).unwrap();
        assert_eq!(pairs.terms().collect::<Vec<_>>(), vec!["en of the"]);
        assert!(take("en", text).is_none(), "taken once");
        assert!(take("en", "another text").is_none());
    }
}
