//! Stemming with a cache of recent words. Tantivy's own stemmer filter
//! stems every token, which was 40% of indexing a news article (perf over
//! scripts/bench-e2e.sh): most tokens are words seen a moment before. The
//! stems are frostem's, the crate and languages Tantivy's filter uses, so an
//! index is the same either way (a test checks it).

use rustc_hash::FxHashMap;
use std::cell::RefCell;
use tantivy::tokenizer::{Token, TokenFilter, TokenStream, Tokenizer};

/// Words remembered per language; the cache is emptied when full, which
/// keeps it bounded with no bookkeeping per hit.
const CAPACITY: usize = 100_000;

type Stems = FxHashMap<Box<str>, Box<str>>;

thread_local! {
    /// One cache per thread and language. Tokens are stemmed on Tantivy's
    /// indexing thread (and on a searching thread for a query), which
    /// lives as long as the writer; a cache shared under a lock cost a
    /// lock and a second lookup per token, a fifth of the indexing
    /// thread's time (perf over scripts/bench-search.sh's indexing).
    static STEMS: RefCell<FxHashMap<frostem::Algorithm, Stems>> = RefCell::default();
}

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
        // The language's cache leaves the thread's map for the stream's
        // life (one lookup per field value, not per token) and goes back
        // when the stream is dropped.
        let stems = STEMS.with_borrow_mut(|all| all.remove(&self.algorithm).unwrap_or_default());
        CachedStemmerStream {
            tail: self.inner.token_stream(text),
            algorithm: self.algorithm,
            stemmer: frostem::Stemmer::new(self.algorithm),
            stems,
        }
    }
}

pub(crate) struct CachedStemmerStream<T> {
    tail: T,
    algorithm: frostem::Algorithm,
    stemmer: frostem::Stemmer,
    stems: Stems,
}

impl<T> Drop for CachedStemmerStream<T> {
    fn drop(&mut self) {
        let stems = std::mem::take(&mut self.stems);
        // During thread teardown the cache may already be gone: nothing to keep.
        let _ = STEMS.try_with(|all| all.borrow_mut().insert(self.algorithm, stems));
    }
}

impl<T: TokenStream> TokenStream for CachedStemmerStream<T> {
    fn advance(&mut self) -> bool {
        if !self.tail.advance() {
            return false;
        }
        let token = self.tail.token_mut();
        if let Some(stem) = self.stems.get(token.text.as_str()) {
            token.text.clear();
            token.text.push_str(stem);
            return true;
        }
        let stem: Box<str> = self.stemmer.stem(&token.text).into();
        let word: Box<str> = token.text.as_str().into();
        token.text.clear();
        token.text.push_str(&stem);
        if self.stems.len() >= CAPACITY {
            self.stems.clear();
        }
        self.stems.insert(word, stem);
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
