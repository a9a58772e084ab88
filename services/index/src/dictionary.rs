//! The words of a field's dictionary that a query word stands for (the
//! words a prefix starts, the CJK words holding one character), read over
//! every segment and tallied, so that the most common can be asked as
//! ordinary words of the query: ranked by BM25 and marked in snippets.

use std::collections::HashMap;
use tantivy::schema::Field;
use tantivy::termdict::TermStreamer;
use tantivy::Searcher;
use tantivy_fst::Automaton;

/// Words a query word stands for, per field: the most common of those
/// found. Elasticsearch's `match_phrase_prefix` expands to 50 terms too
/// (the first 50 in term order; the most common here).
pub(crate) const MAX_EXPANSIONS: usize = 50;

/// Words all the query words of one kind stand for together, per field:
/// a query of many prefixes (`ka* OR kb* OR ...`, 50 of them in 350
/// characters) shares them, each its part, so its cost stays that of a
/// few (it took 950 ms on `examples/bench_index.rs`'s 100,000 articles
/// with 50 words each).
const MAX_EXPANSIONS_PER_QUERY: usize = 200;

/// How many words each of `n` query words may stand for.
pub(crate) fn expansions_each(n: usize) -> usize {
    (MAX_EXPANSIONS_PER_QUERY / n.max(1)).clamp(1, MAX_EXPANSIONS)
}

/// Dictionary entries read per segment and walk before the most common are
/// chosen, so that a one-letter prefix on a large index stays cheap.
const MAX_SCANNED: usize = 20_000;

/// The words found in one field, with how many articles hold each.
#[derive(Default)]
pub(crate) struct Tally(HashMap<String, u64>);

impl Tally {
    /// The words of `field` that start with any of `starts`.
    pub(crate) fn starting(searcher: &Searcher, field: Field, starts: &[String]) -> Self {
        let mut tally = Tally::default();
        for segment in searcher.segment_readers() {
            let Ok(index) = segment.inverted_index(field) else {
                continue;
            };
            for start in starts {
                let from = index.terms().range().ge(start.as_bytes()).into_stream();
                tally.add(from, Some(start.as_bytes()));
            }
        }
        tally
    }

    /// The words of `field` that `automaton` accepts.
    pub(crate) fn matching<A>(searcher: &Searcher, field: Field, automaton: &A) -> Self
    where
        A: Automaton,
        A::State: Clone,
    {
        let mut tally = Tally::default();
        for segment in searcher.segment_readers() {
            let Ok(index) = segment.inverted_index(field) else {
                continue;
            };
            tally.add(index.terms().search(automaton).into_stream(), None);
        }
        tally
    }

    /// Counts the words of `stream`, up to `MAX_SCANNED` of them, and
    /// while they start with `start` when given (a range read in order).
    fn add<A>(&mut self, stream: std::io::Result<TermStreamer<'_, A>>, start: Option<&[u8]>)
    where
        A: Automaton,
        A::State: Clone,
    {
        let Ok(mut stream) = stream else {
            return;
        };
        let mut scanned = 0;
        while scanned < MAX_SCANNED && stream.advance() {
            if start.is_some_and(|s| !stream.key().starts_with(s)) {
                break;
            }
            scanned += 1;
            let word = String::from_utf8_lossy(stream.key()).into_owned();
            *self.0.entry(word).or_default() += u64::from(stream.value().doc_freq);
        }
    }

    /// How many words were found.
    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }

    /// The `n` most common words that `keep` takes, the most common first.
    pub(crate) fn most_common(self, n: usize, mut keep: impl FnMut(&str) -> bool) -> Vec<String> {
        let mut words: Vec<(String, u64)> = self.0.into_iter().collect();
        words.sort_unstable_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        words
            .into_iter()
            .map(|(word, _)| word)
            .filter(|word| keep(word))
            .take(n)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::expansions_each;

    #[test]
    fn many_query_words_share_the_expansions() {
        for (n, each) in [(0, 50), (1, 50), (4, 50), (5, 40), (50, 4), (1000, 1)] {
            assert_eq!(expansions_each(n), each, "{n}");
        }
    }
}
