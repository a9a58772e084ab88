//! Text handling shared by extract, dedup, summarize and index: Unicode word
//! tokens with English stemming, CJK characters as bigrams, sentences, and
//! term ids for TF-IDF (dedup and stories keep their own hashed vectors),
//! [`docfreq`], the streaming document frequencies behind their IDF, and
//! [`stop_list`], each language's stop words (summaries and stories).

pub mod docfreq;
mod notes;
mod sentences;
pub mod stop_list;
pub use notes::without_note_marks;
pub use sentences::{ends_a_sentence, rejoin_wrapped_lines, sentences};

use rust_stemmers::{Algorithm, Stemmer};
use rustc_hash::FxHashMap;
use std::sync::{LazyLock, Mutex, OnceLock, PoisonError};

/// True for characters of scripts written without spaces between words
/// (Han, Hiragana, Katakana, Hangul syllables are spaced but counted the same
/// way, per character, which is what density measures need).
pub fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF      // Hiragana, Katakana
        | 0x3400..=0x4DBF    // CJK Extension A
        | 0x4E00..=0x9FFF    // CJK Unified Ideographs
        | 0xF900..=0xFAFF    // CJK Compatibility Ideographs
        | 0xAC00..=0xD7AF    // Hangul syllables
        | 0xFF66..=0xFF9F    // half-width Katakana
        | 0x20000..=0x2FA1F) // CJK Extensions B..F, compatibility supplement
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Lowercased word tokens: maximal runs of word characters, except that each
/// CJK character is a token of its own.
pub fn words(text: &str) -> Vec<String> {
    tokens(text, true)
}

/// Lowercased maximal runs of word characters, CJK included in the runs:
/// the tokens of the extraction benchmarks' metric (wcxb's README).
pub fn word_runs(text: &str) -> Vec<String> {
    tokens(text, false)
}

fn tokens(text: &str, split_cjk: bool) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for c in text.chars() {
        if split_cjk && is_cjk(c) {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            out.push(c.to_string());
        } else if is_word_char(c) {
            cur.extend(c.to_lowercase());
        } else if !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// Calls `f` with each lowercased word token (as [`words`] would return),
/// reusing one buffer instead of allocating a string per word.
pub fn for_each_word(text: &str, mut f: impl FnMut(&str)) {
    for_each_word_at(text, |_, w| f(w));
}

/// [`for_each_word`] with the byte offset where each word starts.
fn for_each_word_at(text: &str, mut f: impl FnMut(usize, &str)) {
    // A word that is already lowercase ASCII (most are) is passed as a slice
    // of `text`; others are lowercased into `cur`.
    let mut cur = String::new();
    let mut one = [0u8; 4];
    let mut start: Option<usize> = None;
    let mut simple = true;
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let (c, len) = if b < 0x80 {
            (b as char, 1)
        } else {
            let c = text[i..].chars().next().unwrap_or(' ');
            (c, c.len_utf8())
        };
        if is_word_char(c) && !is_cjk(c) {
            if start.is_none() {
                start = Some(i);
                simple = true;
                cur.clear();
            }
            let plain = b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_';
            if simple && !plain {
                simple = false;
                cur.push_str(&text[start.unwrap_or(i)..i]);
            }
            if !simple {
                if c.is_ascii() {
                    cur.push(c.to_ascii_lowercase());
                } else {
                    cur.extend(c.to_lowercase());
                }
            }
        } else {
            if let Some(s) = start.take() {
                f(s, if simple { &text[s..i] } else { &cur });
            }
            if is_cjk(c) {
                f(i, c.encode_utf8(&mut one));
            }
        }
        i += len;
    }
    if let Some(s) = start {
        f(s, if simple { &text[s..] } else { &cur });
    }
}

/// Number of words, each CJK character counting as one: the unit of every
/// density measure, so CJK pages are not scored as one long "word".
pub fn word_count(text: &str) -> usize {
    let (mut n, mut in_word) = (0, false);
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        // ASCII, most of most text, is read without decoding a char (this
        // runs over every sentence a summary ranks).
        let (cjk, word, len) = if b < 0x80 {
            (false, b.is_ascii_alphanumeric() || b == b'_', 1)
        } else {
            let c = text[i..].chars().next().unwrap_or(' ');
            (is_cjk(c), is_word_char(c), c.len_utf8())
        };
        if cjk {
            n += 1;
            in_word = false;
        } else if word {
            if !in_word {
                n += 1;
            }
            in_word = true;
        } else {
            in_word = false;
        }
        i += len;
    }
    n
}

fn stemmer() -> &'static Stemmer {
    static S: OnceLock<Stemmer> = OnceLock::new();
    S.get_or_init(|| Stemmer::create(Algorithm::English))
}

/// A handful of English function words that carry no topic.
const STOP: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "from", "had", "has", "have",
    "he", "her", "his", "i", "in", "is", "it", "its", "of", "on", "or", "she", "that", "the",
    "their", "they", "this", "to", "was", "we", "were", "which", "will", "with", "you",
];

/// A word of up to 7 bytes as one integer: its bytes, then its length in
/// the last byte (so `"i"` and `"i\0"` differ).
fn packed(w: &str) -> u64 {
    let mut b = [0u8; 8];
    b[..w.len()].copy_from_slice(w.as_bytes());
    b[7] = w.len() as u8;
    u64::from_le_bytes(b)
}

/// True for one of [`STOP`]'s function words (`w` lowercase).
pub fn is_stop_word(w: &str) -> bool {
    // Every word dedup and summarize read comes here: the words are
    // searched as integers, a few comparisons in registers where the
    // string search called memcmp at each step (1.7% of a crawl's CPU).
    static PACKED: LazyLock<Vec<u64>> = LazyLock::new(|| {
        let mut v: Vec<u64> = STOP.iter().map(|w| packed(w)).collect();
        v.sort_unstable();
        v
    });
    // None is longer than five letters, and most words are: a length test
    // first spares them the search.
    w.len() <= 5 && PACKED.binary_search(&packed(w)).is_ok()
}

/// Calls `f` with each term of `text` before stemming and whether it is to
/// be stemmed: lowercase words that are not stop words (true), and CJK runs
/// as overlapping character bigrams, a lone CJK character as a unigram
/// (false).
fn for_each_raw_term(text: &str, mut f: impl FnMut(&str, bool)) {
    // CJK characters come one by one; those that touch form a run.
    let mut run: Vec<char> = Vec::new();
    let mut run_end = 0;
    let mut gram = String::new();
    let mut flush = |run: &mut Vec<char>, f: &mut dyn FnMut(&str, bool)| {
        if run.len() == 1 {
            gram.clear();
            gram.push(run[0]);
            f(&gram, false);
        }
        for w in run.windows(2) {
            gram.clear();
            gram.extend(w);
            f(&gram, false);
        }
        run.clear();
    };
    for_each_word_at(text, |at, w| {
        match w.chars().next().filter(|c| is_cjk(*c)) {
            Some(c) => {
                if at != run_end {
                    flush(&mut run, &mut f);
                }
                run.push(c);
                run_end = at + c.len_utf8();
            }
            None => {
                flush(&mut run, &mut f);
                if !is_stop_word(w) {
                    f(w, true);
                }
            }
        }
    });
    flush(&mut run, &mut f);
}

/// Calls `f` with the English stem of `word`, from a process-wide cache of
/// recent words: news text repeats its vocabulary, and stemming was most of
/// a summary's cost. (Per-thread caches stayed cold: the stages run on
/// tokio's many blocking threads.)
fn with_stem<R>(word: &str, f: impl FnOnce(&str) -> R) -> R {
    static STEMS: LazyLock<Mutex<FxHashMap<Box<str>, Box<str>>>> = LazyLock::new(Mutex::default);
    // Enough for a language's common words; emptied when full.
    const CAPACITY: usize = 100_000;
    let mut stems = STEMS.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(stem) = stems.get(word) {
        return f(stem);
    }
    if stems.len() >= CAPACITY {
        stems.clear();
    }
    let stem: Box<str> = stemmer().stem(word).into();
    let r = f(&stem);
    stems.insert(word.into(), stem);
    r
}

/// Index terms: stemmed lowercase words without stop words; CJK runs become
/// overlapping character bigrams (a lone CJK character stays a unigram).
pub fn terms(text: &str) -> Vec<String> {
    terms_except(text, |_| false)
}

/// As [`terms`], leaving out the lowercase words `skip` names too (a
/// language's stop list, [`stop_list::stop_list`]).
pub fn terms_except(text: &str, skip: impl Fn(&str) -> bool) -> Vec<String> {
    let mut out = Vec::new();
    for_each_raw_term(text, |t, stem| {
        if stem && skip(t) {
            return;
        }
        out.push(if stem {
            with_stem(t, str::to_string)
        } else {
            t.to_string()
        })
    });
    out
}

/// The terms of several related texts (the sentences of one article) as
/// small integer ids, the same as [`terms`] would give as strings. Each
/// distinct word is stemmed once: stemming every word of every sentence
/// was most of a summary's cost.
#[derive(Debug, Default)]
pub struct Vocabulary {
    /// Lowercase word to its stem's id.
    words: FxHashMap<String, u32>,
    /// Term (stem or CJK gram) to its id.
    terms: FxHashMap<String, u32>,
}

impl Vocabulary {
    /// Distinct terms seen so far; ids are below this.
    pub fn len(&self) -> usize {
        self.terms.len()
    }

    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }

    /// The term ids of `text`, in order, with repeats.
    pub fn term_ids(&mut self, text: &str) -> Vec<u32> {
        self.term_ids_except(text, |_| false)
    }

    /// As [`Self::term_ids`], leaving out the lowercase words `skip` names
    /// too (a longer stop list for one language than [`is_stop_word`]'s).
    pub fn term_ids_except(&mut self, text: &str, skip: impl Fn(&str) -> bool) -> Vec<u32> {
        let Self { words, terms } = self;
        let mut id_of = |term: &str| match terms.get(term) {
            Some(&id) => id,
            None => {
                let id = terms.len() as u32;
                terms.insert(term.to_string(), id);
                id
            }
        };
        let mut out = Vec::new();
        for_each_raw_term(text, |t, stem| {
            if stem && skip(t) {
                return;
            }
            let id = if !stem {
                id_of(t)
            } else if let Some(&id) = words.get(t) {
                id
            } else {
                let id = with_stem(t, &mut id_of);
                words.insert(t.to_string(), id);
                id
            };
            out.push(id);
        });
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn words_split_cjk_per_character() {
        assert_eq!(
            words("Hello, 世界 wide_web"),
            vec!["hello", "世", "界", "wide_web"]
        );
        // The benchmarks' metric keeps a CJK run whole.
        assert_eq!(
            word_runs("Hello, 世界 wide_web"),
            vec!["hello", "世界", "wide_web"]
        );
        assert_eq!(word_count("日本語のテキスト and more"), 10);
        // The byte-wise count agrees with a char-wise one on mixed text.
        let by_chars = |t: &str| {
            let (mut n, mut in_word) = (0, false);
            for c in t.chars() {
                let start = is_cjk(c) || (is_word_char(c) && !in_word);
                n += usize::from(start);
                in_word = is_word_char(c) && !is_cjk(c);
            }
            n
        };
        for t in [
            "",
            "a",
            "Ünïcode straße_2 — l'été, 東京タワー!x",
            "word\u{a0}word\tÖ9 _ __ -- 한국어 text",
            "end.",
        ] {
            assert_eq!(word_count(t), by_chars(t), "{t:?}");
        }
    }

    #[test]
    fn stop_words_are_found_by_their_packed_form() {
        assert!(
            STOP.iter().all(|w| w.len() <= 5),
            "is_stop_word tests the length first"
        );
        assert!(STOP.iter().all(|w| is_stop_word(w)));
        for w in [
            "bridge", "", "th", "thee", "ther", "i\u{0}", "youu", "whic", "été",
        ] {
            assert!(!is_stop_word(w), "{w:?}");
        }
    }

    #[test]
    fn for_each_word_matches_words() {
        for text in [
            "Hello, 世界 wide_web ÉCOLE",
            "naïve Straße, x1_y abcDEF über-ALLES end",
            "tail",
            "",
            "日本語テキストmixed英語",
            "ÀB café9 İstanbul",
        ] {
            let mut seen = Vec::new();
            for_each_word(text, |w| seen.push(w.to_string()));
            assert_eq!(seen, words(text), "{text}");
        }
    }

    #[test]
    fn terms_stem_and_bigram() {
        assert_eq!(terms("The runners were running"), vec!["runner", "run"]);
        assert_eq!(terms("北京大学"), vec!["北京", "京大", "大学"]);
    }

    #[test]
    fn cjk_runs_end_at_anything_else() {
        assert_eq!(
            terms("北京 大学, Tokyo東京タ the runs"),
            vec!["北京", "大学", "tokyo", "東京", "京タ", "run"]
        );
        assert_eq!(terms("京"), vec!["京"]);
    }

    #[test]
    fn vocabulary_ids_follow_terms() {
        let mut v = Vocabulary::default();
        let texts = [
            "The runners were running",
            "北京大学 run 京",
            "Running RUNNERS",
        ];
        let ids: Vec<Vec<u32>> = texts.iter().map(|t| v.term_ids(t)).collect();
        // One id per distinct term, the same wherever it appears.
        let mut by_id: HashMap<u32, String> = HashMap::new();
        for (t, ids) in texts.iter().zip(&ids) {
            let strings = terms(t);
            assert_eq!(ids.len(), strings.len(), "{t}");
            for (id, s) in ids.iter().zip(strings) {
                assert_eq!(by_id.entry(*id).or_insert_with(|| s.clone()), &s);
            }
        }
        assert_eq!(v.len(), by_id.len());
        assert_eq!(ids[0], vec![0, 1]);
        assert_eq!(ids[2], vec![1, 0]);
    }
}
