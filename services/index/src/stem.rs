//! Stemming with a cache of recent words. Tantivy's own stemmer filter
//! stems every token, which was 40% of indexing a news article (perf over
//! scripts/bench-e2e.sh): most tokens are words seen a moment before. The
//! stems are frostem's, the crate and languages Tantivy's filter uses, so an
//! index is the same either way (a test checks it).

use rustc_hash::FxHashMap;
use std::sync::{LazyLock, Mutex, PoisonError};
use tantivy::tokenizer::{Token, TokenFilter, TokenStream, Tokenizer};

/// Words remembered per language; the cache is emptied when full, which
/// keeps it bounded with no bookkeeping per hit.
const CAPACITY: usize = 100_000;

/// One cache for the process: the index adds documents on whichever of
/// tokio's blocking threads is free, so per-thread caches stayed cold.
type Stems = FxHashMap<frostem::Algorithm, FxHashMap<Box<str>, Box<str>>>;
static STEMS: LazyLock<Mutex<Stems>> = LazyLock::new(Mutex::default);

/// A token filter that replaces each token by its stem in `algorithm`.
#[derive(Clone, Copy)]
pub(crate) struct CachedStemmer {
    algorithm: frostem::Algorithm,
}

impl CachedStemmer {
    pub(crate) fn new(algorithm: frostem::Algorithm) -> Self {
        CachedStemmer { algorithm }
    }
}

impl TokenFilter for CachedStemmer {
    type Tokenizer<T: Tokenizer> = CachedStemmerFilter<T>;

    fn transform<T: Tokenizer>(self, inner: T) -> CachedStemmerFilter<T> {
        CachedStemmerFilter {
            algorithm: self.algorithm,
            inner,
        }
    }
}

#[derive(Clone)]
pub(crate) struct CachedStemmerFilter<T> {
    algorithm: frostem::Algorithm,
    inner: T,
}

impl<T: Tokenizer> Tokenizer for CachedStemmerFilter<T> {
    type TokenStream<'a> = CachedStemmerStream<T::TokenStream<'a>>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> Self::TokenStream<'a> {
        CachedStemmerStream {
            tail: self.inner.token_stream(text),
            algorithm: self.algorithm,
            stemmer: frostem::Stemmer::new(self.algorithm),
        }
    }
}

pub(crate) struct CachedStemmerStream<T> {
    tail: T,
    algorithm: frostem::Algorithm,
    stemmer: frostem::Stemmer,
}

impl<T: TokenStream> TokenStream for CachedStemmerStream<T> {
    fn advance(&mut self) -> bool {
        if !self.tail.advance() {
            return false;
        }
        let token = self.tail.token_mut();
        let mut stems = STEMS.lock().unwrap_or_else(PoisonError::into_inner);
        let stems = stems.entry(self.algorithm).or_default();
        if let Some(stem) = stems.get(token.text.as_str()) {
            token.text.clear();
            token.text.push_str(stem);
            return true;
        }
        let stem: Box<str> = self.stemmer.stem(&token.text).into();
        let word: Box<str> = token.text.as_str().into();
        token.text.clear();
        token.text.push_str(&stem);
        if stems.len() >= CAPACITY {
            stems.clear();
        }
        stems.insert(word, stem);
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
    use crate::schema::STEMMED;
    use tantivy::tokenizer::{LowerCaser, SimpleTokenizer, Stemmer, TextAnalyzer};

    fn tokens(analyzer: &mut TextAnalyzer, text: &str) -> Vec<String> {
        let mut out = Vec::new();
        let mut stream = analyzer.token_stream(text);
        while let Some(t) = stream.next() {
            out.push(t.text.clone());
        }
        out
    }

    /// The cached filter gives Tantivy's stems, in every language, on the
    /// first sight of a word and from the cache.
    #[test]
    fn stems_are_tantivys() {
        let text = "Die Häuser wurden renoviert; les maisons étaient rénovées; \
                    the houses were being renovated, running runners ran; \
                    дома были отремонтированы";
        for (code, language, algorithm) in STEMMED {
            let words = || TextAnalyzer::builder(SimpleTokenizer::default()).filter(LowerCaser);
            let mut theirs = words().filter(Stemmer::new(language)).build();
            let mut ours = words().filter(CachedStemmer::new(algorithm)).build();
            let expected = tokens(&mut theirs, text);
            assert_eq!(tokens(&mut ours, text), expected, "{code}");
            assert_eq!(tokens(&mut ours, text), expected, "{code}, cached");
        }
    }
}
