//! Pairs of common words. A phrase of two very common words ("of the", or
//! in scripts/bench-search.sh's Zipfian text "ma da") is in most articles,
//! and checking each one's word positions made such phrases the slowest
//! queries (40-65 ms at 200,000 articles, the bench's p99). As Lucene's
//! CommonGrams filter does, each two adjacent common words of a title or
//! body are also indexed as one term (the `title_pairs` and `body_pairs`
//! fields, without positions), and a two-word phrase of common words is
//! looked up as that term: a single posting list, no positions read.
//!
//! Which words are common is learned per language from the first batch of
//! that language the index takes (the words that make at least a thousandth
//! of its tokens, up to 128), then fixed in `common-words.json` beside the
//! index before any article of the language is added: every article of a
//! language is indexed with the same words, so a pair term finds every
//! article with the phrase. (A word list per language would miss the
//! common words of a corpus it was not made for; a set that changed
//! later would leave earlier articles without their pairs.)
//!
//! At indexing the pairs are made by tokenizers (pair_tokens.rs).

use anyhow::Context;
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::{Arc, RwLock};
use tantivy::tokenizer::{TextAnalyzer, Token, TokenStream};

pub(crate) const FILE: &str = "common-words.json";
/// Most common words kept per language. With 32, the phrases
/// scripts/bench-search.sh found slow were those of a top-32 word and one
/// ranked 33-128 (`"fa ri"`, `"bo na"`: 20-24 ms); with 128 they are
/// pairs too. Each costs about the same to index (the pairs are made in a
/// second pass over the words, whatever their number).
const MOST: usize = 128;
/// A common word makes at least this share of the sample's tokens, and
/// comes at least `MIN_COUNT` times (a sample of one short article).
const MIN_SHARE: f64 = 0.001;
const MIN_COUNT: u64 = 5;

/// The common words (as indexed: stemmed) of each language, by the code
/// of its stemmed fields (schema::STEMMED).
#[derive(Debug, Default, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub(crate) struct CommonWords(BTreeMap<String, BTreeSet<String>>);

impl CommonWords {
    /// The words learned for the index in `dir` (none before any).
    pub(crate) fn load(dir: &Path) -> anyhow::Result<Self> {
        let path = dir.join(FILE);
        match std::fs::read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes)
                .with_context(|| format!("reading {}", path.display())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Self::default()),
            Err(e) => Err(anyhow::Error::new(e).context(format!("reading {}", path.display()))),
        }
    }

    /// Writes the words beside the index, whole or not at all.
    pub(crate) fn save(&self, dir: &Path) -> anyhow::Result<()> {
        let path = dir.join(FILE);
        let tmp = dir.join(format!("{FILE}.tmp"));
        let write = || -> std::io::Result<()> {
            let mut f = std::fs::File::create(&tmp)?;
            std::io::Write::write_all(&mut f, &serde_json::to_vec(self)?)?;
            f.sync_all()?;
            std::fs::rename(&tmp, &path)
        };
        write().with_context(|| format!("writing {}", path.display()))
    }

    pub(crate) fn get(&self, code: &str) -> Option<&BTreeSet<String>> {
        self.0.get(code)
    }

    pub(crate) fn insert(&mut self, code: &str, words: BTreeSet<String>) {
        self.0.insert(code.to_string(), words);
    }

    /// The words as the indexing tokenizers look them up.
    pub(crate) fn to_shared(&self) -> Shared {
        let sets = self
            .0
            .iter()
            .map(|(code, words)| (code.clone(), Arc::new(words.iter().cloned().collect())))
            .collect();
        Arc::new(RwLock::new(sets))
    }

    /// The words of `shared`, to be written.
    pub(crate) fn of_shared(shared: &Shared) -> Self {
        let sets = shared.read().unwrap_or_else(|e| e.into_inner());
        CommonWords(
            sets.iter()
                .map(|(code, words)| (code.clone(), words.iter().cloned().collect()))
                .collect(),
        )
    }

    /// The words common in every one of `all` (shards searched as one): a
    /// pair term finds an article only where its shard indexed that pair.
    /// A language missing from any has none.
    pub(crate) fn common_to(all: &[CommonWords]) -> CommonWords {
        let Some((first, rest)) = all.split_first() else {
            return CommonWords::default();
        };
        let mut out = first.clone();
        out.0.retain(|code, words| {
            rest.iter().all(|other| match other.get(code) {
                Some(theirs) => {
                    words.retain(|w| theirs.contains(w));
                    true
                }
                None => false,
            })
        });
        out
    }
}

/// The common words of `texts` as `analyzer` makes their tokens.
pub(crate) fn learn<'a>(
    analyzer: &mut TextAnalyzer,
    texts: impl Iterator<Item = &'a str>,
) -> BTreeSet<String> {
    let mut counts: FxHashMap<String, u64> = FxHashMap::default();
    let mut total = 0u64;
    for text in texts {
        let mut stream = analyzer.token_stream(text);
        while stream.advance() {
            total += 1;
            let word = &stream.token().text;
            match counts.get_mut(word.as_str()) {
                Some(n) => *n += 1,
                None => {
                    counts.insert(word.clone(), 1);
                }
            }
        }
    }
    let least = MIN_COUNT.max((total as f64 * MIN_SHARE).ceil() as u64);
    let mut words: Vec<(String, u64)> = counts.into_iter().filter(|(_, n)| *n >= least).collect();
    words.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    words.into_iter().take(MOST).map(|(w, _)| w).collect()
}

/// The common words of each language, shared by the stage that learns
/// them and the tokenizer that makes pairs with them.
pub(crate) type Shared = Arc<RwLock<FxHashMap<String, Arc<FxHashSet<String>>>>>;

/// The pair terms of `text` as `analyzer` makes its words: each two side
/// by side (no word left out between them) that are both `common`; and
/// the number of words. Streamed: only the pairs are kept.
pub(crate) fn pairs_of(
    analyzer: &mut TextAnalyzer,
    code: &str,
    text: &str,
    common: impl Fn(&str) -> bool,
) -> (Pairs, usize) {
    let mut pairs = PairMaker::default();
    let mut words = 0;
    let mut stream = analyzer.token_stream(text);
    while stream.advance() {
        words += 1;
        let t = stream.token();
        pairs.push(code, t, common(&t.text));
    }
    (pairs.out, words)
}

/// The pair terms of a text, in one buffer: a token each would cost an
/// allocation per pair (a fifth of a text's words in the bench's Zipfian
/// text), made and freed on Tantivy's indexing threads.
#[derive(Debug, Default)]
pub(crate) struct Pairs {
    texts: String,
    /// Each pair's start and end in the text, and the end of its term in
    /// `texts` (it starts where the one before ends).
    spans: Vec<(usize, usize, usize)>,
}

impl Pairs {
    pub(crate) fn len(&self) -> usize {
        self.spans.len()
    }

    /// The pair terms, in order.
    pub(crate) fn terms(&self) -> impl Iterator<Item = &str> {
        let mut start = 0;
        self.spans.iter().map(move |&(_, _, end)| {
            let t = &self.texts[start..end];
            start = end;
            t
        })
    }

    /// Adds the term of two adjacent words, `"{code} {first} {second}"`.
    fn push(&mut self, code: &str, first: &str, second: &str, from: usize, to: usize) {
        for (i, part) in [code, first, second].into_iter().enumerate() {
            if i > 0 {
                self.texts.push(' ');
            }
            self.texts.push_str(part);
        }
        self.spans.push((from, to, self.texts.len()));
    }

    /// The pairs as Tantivy tokens, one at a time.
    pub(crate) fn into_stream(self) -> PairStream {
        PairStream {
            pairs: self,
            next: 0,
            start: 0,
            token: Token::default(),
        }
    }
}

/// The tokens of `Pairs`, each a pair term at the next position.
pub(crate) struct PairStream {
    pairs: Pairs,
    next: usize,
    /// Where the next term starts in `pairs.texts`.
    start: usize,
    token: Token,
}

impl TokenStream for PairStream {
    fn advance(&mut self) -> bool {
        let Some(&(from, to, end)) = self.pairs.spans.get(self.next) else {
            return false;
        };
        self.token.text.clear();
        self.token.text.push_str(&self.pairs.texts[self.start..end]);
        self.token.offset_from = from;
        self.token.offset_to = to;
        self.token.position = self.next;
        self.token.position_length = 1;
        self.start = end;
        self.next += 1;
        true
    }

    fn token(&self) -> &Token {
        &self.token
    }

    fn token_mut(&mut self) -> &mut Token {
        &mut self.token
    }
}

/// Pairs made from a text's words one at a time.
#[derive(Default)]
pub(crate) struct PairMaker {
    /// The last word, if common: where it starts and its position (its
    /// text in `first`, whose buffer is kept from word to word).
    before: Option<(usize, usize)>,
    first: String,
    pub(crate) out: Pairs,
}

impl PairMaker {
    /// The next word, and whether it is common.
    pub(crate) fn push(&mut self, code: &str, t: &Token, common: bool) {
        if !common {
            self.before = None;
            return;
        }
        if let Some((from, at)) = self.before {
            if t.position == at + 1 {
                self.out.push(code, &self.first, &t.text, from, t.offset_to);
            }
        }
        self.before = Some((t.offset_from, t.position));
        self.first.clear();
        self.first.push_str(&t.text);
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use tantivy::tokenizer::{LowerCaser, SimpleTokenizer};

    pub(crate) fn analyzer() -> TextAnalyzer {
        TextAnalyzer::builder(SimpleTokenizer::default())
            .filter(LowerCaser)
            .build()
    }

    #[test]
    fn the_common_words_are_those_that_come_often() {
        let text = "the bridge of the town and the pier of the harbour and the ferry of the \
                    island and the council of the city opened the gates of the old port";
        let words = learn(&mut analyzer(), std::iter::once(text));
        assert_eq!(
            words,
            ["the", "of"].into_iter().map(String::from).collect(),
            "and comes 3 times, fewer than five"
        );
        assert!(learn(&mut analyzer(), std::iter::empty()).is_empty());
    }

    #[test]
    fn pairs_are_adjacent_common_words() {
        let common: BTreeSet<String> = ["of", "the", "in"].into_iter().map(String::from).collect();
        let text = "Most of the town, in the end of it";
        let (pairs, words) = pairs_of(&mut analyzer(), "en", text, |w| common.contains(w));
        let got: Vec<&str> = pairs.terms().collect();
        assert_eq!(got, vec!["en of the", "en in the"]);
        assert_eq!(words, 9);
        let mut stream = pairs.into_stream();
        let mut tokens = Vec::new();
        while stream.advance() {
            let t = stream.token();
            tokens.push((
                t.text.clone(),
                t.position,
                &text[t.offset_from..t.offset_to],
            ));
        }
        assert_eq!(
            tokens,
            vec![
                ("en of the".to_string(), 0, "of the"),
                ("en in the".to_string(), 1, "in the")
            ]
        );
    }

    #[test]
    fn shards_share_only_the_words_common_to_all() {
        let set = |ws: &[&str]| ws.iter().map(|w| w.to_string()).collect::<BTreeSet<_>>();
        let mut a = CommonWords::default();
        a.insert("en", set(&["the", "of", "to"]));
        a.insert("de", set(&["der"]));
        let mut b = CommonWords::default();
        b.insert("en", set(&["the", "of", "and"]));
        let both = CommonWords::common_to(&[a.clone(), b]);
        assert_eq!(both.get("en"), Some(&set(&["the", "of"])));
        assert_eq!(both.get("de"), None, "no German words in the second");
        assert_eq!(CommonWords::common_to(&[a.clone()]), a);
    }

    #[test]
    fn the_words_are_kept_beside_the_index() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(
            CommonWords::load(dir.path()).unwrap(),
            CommonWords::default()
        );
        let mut w = CommonWords::default();
        w.insert("en", ["the".to_string()].into_iter().collect());
        w.save(dir.path()).unwrap();
        assert_eq!(CommonWords::load(dir.path()).unwrap(), w);
        std::fs::write(dir.path().join(FILE), b"{not json").unwrap();
        assert!(CommonWords::load(dir.path()).is_err());
    }
}
