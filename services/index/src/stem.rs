//! Stemming with a cache of recent words. Tantivy's own stemmer filter
//! stems every token, which was 40% of indexing a news article (perf over
//! scripts/bench-e2e.sh): most tokens are words seen a moment before. The
//! stems are frostem's, the crate and languages Tantivy's filter uses, so an
//! index is the same either way (a test checks it).

use std::hash::Hasher;
use std::sync::Mutex;
use tantivy::tokenizer::{Token, TokenFilter, TokenStream, Tokenizer};

/// Longest word (and stem), in bytes, the cache holds; longer ones are
/// rare and stemmed each time.
const MAX_WORD: usize = 31;
/// Slots per language and stream: 32,768 of 64 bytes, 2 MiB (two indexing
/// threads indexing five languages hold 20 MiB). With the slots asked for
/// ahead, a larger table costs no wait and stems fewer words: 8,192 slots
/// indexed 5-8% fewer articles a second (bench_index, with and without
/// `--own-words`); 65,536 no more than this.
const SLOTS: usize = 1 << 15;

/// One cached word and its stem, one cache line. Written by hand rather
/// than with a map crate because the map was the cost: a hash map of
/// boxed strings cost a cache miss for its slot, one for the word and
/// one for the stem on most tokens (the tail of a Zipfian vocabulary is
/// never warm), a fifth of indexing, more than stemming the word again.
/// Here a token costs one line, and a lossy direct-mapped table needs no
/// bookkeeping: a word that collides with another replaces it, and the
/// frequent words, asked for all the time, win their slots back at once.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Slot {
    word_len: u8,
    stem_len: u8,
    word: [u8; MAX_WORD],
    stem: [u8; MAX_WORD],
}

const EMPTY: Slot = Slot {
    word_len: 0,
    stem_len: 0,
    word: [0; MAX_WORD],
    stem: [0; MAX_WORD],
};

/// A language's table; the default one is empty (no allocation), left in
/// a stream that gave its table back.
#[derive(Default)]
struct Stems(Box<[Slot]>);

impl Stems {
    fn new() -> Self {
        Stems(vec![EMPTY; SLOTS].into_boxed_slice())
    }

    /// Asks for the cache line of slot `i` ahead of its look-up. The
    /// look-up's cache miss (the tables, like Tantivy's postings hash
    /// beside them, are far larger than a core's cache) was a sixth of
    /// indexing's CPU, each token waiting for its own; a stream that asks
    /// for several slots before it reads the first waits about once for
    /// all of them.
    fn prefetch(&self, i: usize) {
        if let Some(slot) = self.0.get(i) {
            prefetch(slot);
        }
    }

    fn slot(&self, word: &str) -> usize {
        let mut h = rustc_hash::FxHasher::default();
        h.write(word.as_bytes());
        // The high bits of Fx's product are the well-mixed ones.
        (h.finish() >> 40) as usize & (SLOTS - 1)
    }

    /// The stem of `word` if its slot `i` holds it.
    fn get(&self, i: usize, word: &str) -> Option<&str> {
        let slot = &self.0[i];
        let len = usize::from(slot.word_len);
        if len == 0 || len != word.len() || &slot.word[..len] != word.as_bytes() {
            return None;
        }
        // Written from a &str below, so always UTF-8.
        std::str::from_utf8(&slot.stem[..usize::from(slot.stem_len)]).ok()
    }

    /// Puts `word` and its stem in its slot `i`.
    fn put(&mut self, i: usize, word: &str, stem: &str) {
        if word.is_empty() || word.len() > MAX_WORD || stem.len() > MAX_WORD {
            return;
        }
        let slot = &mut self.0[i];
        slot.word[..word.len()].copy_from_slice(word.as_bytes());
        slot.stem[..stem.len()].copy_from_slice(stem.as_bytes());
        slot.word_len = word.len() as u8;
        slot.stem_len = stem.len() as u8;
    }
}

/// A hint to the CPU to load the cache line of `slot`.
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
fn prefetch(slot: &Slot) {
    use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
    // SAFETY: SSE is in every x86_64 CPU, and a prefetch only hints: it
    // reads nothing into the program and never faults.
    unsafe { _mm_prefetch::<_MM_HINT_T0>((slot as *const Slot).cast::<i8>()) }
}

#[cfg(not(target_arch = "x86_64"))]
fn prefetch(_slot: &Slot) {}

/// Caches no stream holds, per language. A token stream takes its
/// language's cache for its life (one lock per field value, none per
/// token) and gives it back when dropped. Kept here rather than per
/// thread because Tantivy starts its indexing threads anew at every
/// commit (twice a second when articles come fast): a per-thread cache
/// was refilled and dropped at each one. There are at most as many
/// caches per language as streams were ever open at once.
static IDLE: Mutex<Vec<(frostem::Algorithm, Stems)>> = Mutex::new(Vec::new());

fn take_cache(algorithm: frostem::Algorithm) -> Stems {
    let mut idle = IDLE.lock().unwrap_or_else(|e| e.into_inner());
    match idle.iter().rposition(|(a, _)| *a == algorithm) {
        Some(i) => idle.swap_remove(i).1,
        None => Stems::new(),
    }
}

fn give_back(algorithm: frostem::Algorithm, stems: Stems) {
    let mut idle = IDLE.lock().unwrap_or_else(|e| e.into_inner());
    idle.push((algorithm, stems));
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
        CachedStemmerStream {
            tail: self.inner.token_stream(text),
            algorithm: self.algorithm,
            stemmer: frostem::Stemmer::new(self.algorithm),
            stems: take_cache(self.algorithm),
            ahead: Default::default(),
            slots: [0; AHEAD],
            read: 0,
            served: 0,
        }
    }
}

/// Tokens a stream reads ahead of the one it stems, their slots asked for
/// as they are read.
const AHEAD: usize = 16;

pub(crate) struct CachedStemmerStream<T> {
    tail: T,
    algorithm: frostem::Algorithm,
    stemmer: frostem::Stemmer,
    stems: Stems,
    /// The tokens read ahead; their texts' buffers are reused.
    ahead: [Token; AHEAD],
    /// Their slots in `stems`, found once as they are read.
    slots: [usize; AHEAD],
    /// How many of `ahead` hold tokens read, and how many of those were
    /// served (the last served is the current token).
    read: usize,
    served: usize,
}

impl<T: TokenStream> CachedStemmerStream<T> {
    /// Reads up to `AHEAD` tokens from the tail, asking for their slots;
    /// false when it had none left.
    fn read_ahead(&mut self) -> bool {
        self.read = 0;
        self.served = 0;
        while self.read < AHEAD && self.tail.advance() {
            let from = self.tail.token();
            let to = &mut self.ahead[self.read];
            to.offset_from = from.offset_from;
            to.offset_to = from.offset_to;
            to.position = from.position;
            to.position_length = from.position_length;
            to.text.clear();
            to.text.push_str(&from.text);
            self.slots[self.read] = self.stems.slot(&to.text);
            self.stems.prefetch(self.slots[self.read]);
            self.read += 1;
        }
        self.read > 0
    }
}

impl<T> Drop for CachedStemmerStream<T> {
    fn drop(&mut self) {
        give_back(self.algorithm, std::mem::take(&mut self.stems));
    }
}

impl<T: TokenStream> TokenStream for CachedStemmerStream<T> {
    fn advance(&mut self) -> bool {
        if self.served == self.read && !self.read_ahead() {
            return false;
        }
        let token = &mut self.ahead[self.served];
        let i = self.slots[self.served];
        self.served += 1;
        if let Some(stem) = self.stems.get(i, &token.text) {
            token.text.clear();
            token.text.push_str(stem);
            return true;
        }
        let stem = self.stemmer.stem(&token.text).into_owned();
        self.stems.put(i, &token.text, &stem);
        token.text.clear();
        token.text.push_str(&stem);
        true
    }

    fn token(&self) -> &Token {
        &self.ahead[self.served.saturating_sub(1)]
    }

    fn token_mut(&mut self) -> &mut Token {
        &mut self.ahead[self.served.saturating_sub(1)]
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

    /// A text longer than the stream reads ahead comes out token for
    /// token as Tantivy's filter gives it: the same stems, offsets and
    /// positions, none lost or repeated where a read-ahead ends.
    #[test]
    fn reading_ahead_keeps_every_token_in_place() {
        let text: String = (0..3 * AHEAD + 5)
            .map(|i| format!("Running{} houses, ", i % 7))
            .collect();
        let words = || TextAnalyzer::builder(SimpleTokenizer::default()).filter(LowerCaser);
        let mut theirs = words()
            .filter(Stemmer::new(tantivy::tokenizer::Language::English))
            .build();
        let mut ours = words()
            .filter(CachedStemmer::new(frostem::Algorithm::English))
            .build();
        let all = |a: &mut TextAnalyzer| {
            let mut out = Vec::new();
            let mut stream = a.token_stream(&text);
            while let Some(t) = stream.next() {
                out.push((t.text.clone(), t.offset_from, t.offset_to, t.position));
            }
            out
        };
        let expected = all(&mut theirs);
        assert_eq!(expected.len(), 2 * (3 * AHEAD + 5));
        assert_eq!(all(&mut ours), expected);
    }

    /// More words than the cache has slots, some longer than a slot holds:
    /// a word that collides with another, or was pushed out, is never
    /// given the other's stem.
    #[test]
    fn colliding_words_keep_their_own_stems() {
        let words: Vec<String> = (0..3 * SLOTS)
            .map(|i| match i % 3 {
                0 => format!("running{i}s"),
                1 => format!("nationalisations{i}ing"),
                _ => format!("{}{i}", "internationalisation".repeat(2)),
            })
            .collect();
        let text = words.join(" ");
        let stemmer = frostem::Stemmer::new(frostem::Algorithm::English);
        let expected: Vec<String> = words.iter().map(|w| stemmer.stem(w).into_owned()).collect();
        let mut ours = TextAnalyzer::builder(SimpleTokenizer::default())
            .filter(CachedStemmer::new(frostem::Algorithm::English))
            .build();
        for pass in ["first", "cached"] {
            let got = tokens(&mut ours, &text);
            assert_eq!(got.len(), expected.len());
            for (g, e) in got.iter().zip(&expected) {
                assert_eq!(g, e, "{pass} pass");
            }
        }
    }
}
