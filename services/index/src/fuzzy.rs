//! The typo-tolerant retry of a query that matched nothing: every word
//! again, those of five letters or more that no article has matched
//! within one edit. A word the index holds is not a typo: a query of
//! such words that matched nothing (they are never together, or a filter
//! drops every article) is not retried, and was the slowest query
//! scripts/bench-search.sh sent (a three-word retry with a site and a
//! month filter: 70 ms, to find articles the user had filtered out).
//!
//! A plain field holds words as written, so a Levenshtein automaton over
//! its dictionary finds them. A stemmed field holds stems, and a typo can
//! hide a suffix from the stemmer (brdge is not stemmed as bridge is, and
//! the stems are two edits apart): there every word one edit away is
//! stemmed as the field stems, and the stems the dictionary has are found
//! in one walk of it per segment (`WordSet`), then matched and ranked as
//! any word. Hand-written because no crate walks an FST with a set of
//! words; Tantivy's term-set query does, but then reads every posting of
//! every match into a bitset. A three-word retry on scripts/bench-search.sh's
//! 200,000 articles (whose short made-up words have many neighbours): 91 ms
//! looking each stem up in each segment, 140 ms with the term-set query,
//! 46 ms with this walk.

use crate::search::SearchIndex;
use std::collections::BTreeSet;
use tantivy::query::{BooleanQuery, FuzzyTermQuery, Occur, Query, TermQuery};
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::{Searcher, Term};

impl SearchIndex {
    /// The words of `q` again, those of five letters or more that the
    /// index does not hold matched within one edit, every word required:
    /// for a query that matched nothing as written. `None` for a query
    /// with operators or phrases, which say exactly what they want, and
    /// for one with no word the index lacks (a prefix, `bri*`, included).
    pub(crate) fn fuzzy_query(
        &self,
        searcher: &Searcher,
        q: &str,
        lang: Option<&str>,
    ) -> Option<Box<dyn Query>> {
        if q.contains(['"', ':', '(', '+', '*']) || q.split_whitespace().any(|w| w.starts_with('-'))
        {
            return None;
        }
        let words = gleaner_text::words(q);
        if words.is_empty() || !words.iter().any(|w| w.chars().count() >= 5) {
            return None;
        }
        let mut fields = self.text_fields_in_use(searcher, lang);
        let f = self.fields;
        fields.retain(|&field| field != f.title_cjk && field != f.body_cjk);
        let typo = |w: &String| w.chars().count() >= 5 && !self.holds(searcher, &fields, w);
        let typos: Vec<bool> = words.iter().map(typo).collect();
        if !typos.contains(&true) {
            return None;
        }
        let plain = [f.title_plain, f.body_plain];
        let clauses = words
            .iter()
            .zip(typos)
            .map(|(w, fuzzy)| {
                let near = if fuzzy { one_edit(w) } else { vec![w.clone()] };
                let either: Vec<(Occur, Box<dyn Query>)> = fields
                    .iter()
                    .flat_map(|&field| -> Vec<Box<dyn Query>> {
                        if fuzzy && plain.contains(&field) {
                            let term = Term::from_field_text(field, w);
                            return vec![Box::new(FuzzyTermQuery::new(term, 1, true))];
                        }
                        self.stems_in_index(searcher, field, &near)
                            .into_iter()
                            .map(|t| {
                                let term = Term::from_field_text(field, &t);
                                Box::new(TermQuery::new(term, IndexRecordOption::WithFreqs))
                                    as Box<dyn Query>
                            })
                            .collect()
                    })
                    .map(|q| (Occur::Should, q))
                    .collect();
                (
                    Occur::Must,
                    Box::new(BooleanQuery::new(either)) as Box<dyn Query>,
                )
            })
            .collect();
        Some(Box::new(BooleanQuery::new(clauses)))
    }

    /// Whether any of `fields` holds `word`, as each field's analyzer
    /// makes it.
    pub(crate) fn holds(&self, searcher: &Searcher, fields: &[Field], word: &str) -> bool {
        let word = [word.to_string()];
        fields
            .iter()
            .any(|&field| !self.stems_in_index(searcher, field, &word).is_empty())
    }

    /// The terms `field`'s analyzer makes of `words` that some segment's
    /// dictionary holds.
    fn stems_in_index(&self, searcher: &Searcher, field: Field, words: &[String]) -> Vec<String> {
        let Ok(mut analyzer) = self.index.tokenizer_for_field(field) else {
            return Vec::new();
        };
        let mut stems: Vec<Vec<u8>> = words
            .iter()
            .filter_map(|w| Some(analyzer.token_stream(w).next()?.text.clone().into_bytes()))
            .filter(|t| !t.is_empty())
            .collect();
        stems.sort_unstable();
        stems.dedup();
        let set = WordSet(stems);
        let mut found = BTreeSet::new();
        for segment in searcher.segment_readers() {
            let Ok(index) = segment.inverted_index(field) else {
                continue;
            };
            let Ok(mut stream) = index.terms().search(&set).into_stream() else {
                continue;
            };
            while stream.advance() {
                found.insert(String::from_utf8_lossy(stream.key()).into_owned());
            }
        }
        found.into_iter().collect()
    }
}

/// A sorted set of words as an automaton over bytes: a state is the range
/// of words that start with what was read, and how much was read.
struct WordSet(Vec<Vec<u8>>);

impl tantivy_fst::Automaton for &WordSet {
    type State = (usize, usize, usize);

    fn start(&self) -> Self::State {
        (0, self.0.len(), 0)
    }

    fn is_match(&self, &(from, to, depth): &Self::State) -> bool {
        // Sorted: a word that ends here is the range's first.
        from < to && self.0[from].len() == depth
    }

    fn can_match(&self, &(from, to, _): &Self::State) -> bool {
        from < to
    }

    fn accept(&self, &(from, to, depth): &Self::State, byte: u8) -> Self::State {
        let range = &self.0[from..to];
        let at = |w: &Vec<u8>| w.get(depth).copied();
        let start = range.partition_point(|w| at(w) < Some(byte));
        let end = range.partition_point(|w| at(w) <= Some(byte));
        (from + start, from + end, depth + 1)
    }
}

/// `word` and every word one edit from it (a letter left out, added,
/// changed, or two side by side swapped), the letters added or changed
/// taken from the word's own and its script's lowercase alphabet.
fn one_edit(word: &str) -> Vec<String> {
    let chars: Vec<char> = word.chars().collect();
    let mut alphabet: Vec<char> = chars.clone();
    let scripts: [(char, char); 4] = [('a', 'z'), ('à', 'ÿ'), ('α', 'ω'), ('а', 'я')];
    for (from, to) in scripts {
        if from == 'a' || chars.iter().any(|c| (from..=to).contains(c)) {
            alphabet.extend((from..=to).filter(|c| c.is_lowercase()));
        }
    }
    alphabet.sort_unstable();
    alphabet.dedup();
    let mut out = vec![word.to_string()];
    let join = |cs: &[char]| cs.iter().collect::<String>();
    for i in 0..chars.len() {
        let mut v = chars.clone();
        v.remove(i);
        out.push(join(&v));
        if i + 1 < chars.len() {
            let mut v = chars.clone();
            v.swap(i, i + 1);
            out.push(join(&v));
        }
        for &c in &alphabet {
            let mut v = chars.clone();
            v[i] = c;
            out.push(join(&v));
        }
    }
    for i in 0..=chars.len() {
        for &c in &alphabet {
            let mut v = chars.clone();
            v.insert(i, c);
            out.push(join(&v));
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use tantivy_fst::Automaton;

    #[test]
    fn one_edit_makes_every_word_one_edit_away() {
        let near = one_edit("brdge");
        for w in ["brdge", "bridge", "brdg", "rbdge", "brdgs", "brdgee"] {
            assert!(near.contains(&w.to_string()), "{w}");
        }
        assert!(!near.contains(&"bridg".to_string()), "two edits");
        // A Cyrillic word takes Cyrillic letters, a Latin one none.
        assert!(one_edit("дом").contains(&"дым".to_string()));
        assert!(!one_edit("dom").iter().any(|w| w.contains('ы')));
    }

    #[test]
    fn a_word_set_accepts_its_words_only() {
        let set = WordSet(vec![b"bri".to_vec(), b"bridg".to_vec(), b"brig".to_vec()]);
        let set = &set;
        let run = |w: &[u8]| {
            let mut s = set.start();
            for &b in w {
                s = set.accept(&s, b);
            }
            set.is_match(&s)
        };
        for w in [&b"bri"[..], b"bridg", b"brig"] {
            assert!(run(w), "{}", String::from_utf8_lossy(w));
        }
        for w in [&b"br"[..], b"brid", b"bridge", b"brigg", b"x"] {
            assert!(!run(w), "{}", String::from_utf8_lossy(w));
        }
        assert!(!set.can_match(&set.accept(&set.start(), b'x')));
    }
}
