//! Two-word phrases of common words asked as the pair term the index holds
//! for them (pairs.rs) instead of by word positions. Only the query that
//! matches changes: snippets still mark the phrase's words.

use crate::pairs::{self, CommonWords};
use crate::schema::STEMMED;
use crate::search::SearchIndex;
use std::cell::Cell;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tantivy::query_grammar::{Delimiter, Occur, UserInputAst, UserInputLeaf, UserInputLiteral};
use tantivy::schema::Field;

/// How long the common words read from beside the index are used before
/// they are read again. They only grow (a language's first batch adds its
/// own) and an article of a language is searchable only after its words
/// were written, so words read a moment ago never find too little: a
/// language they lack is searched by positions.
const REREAD: Duration = Duration::from_secs(1);

impl SearchIndex {
    /// The words common in every shard, read again when older than
    /// `REREAD`. A file that cannot be read counts as none (positions).
    fn common_words(&self) -> Arc<CommonWords> {
        let mut known = self.known.lock().unwrap_or_else(|e| e.into_inner());
        if known.1.is_none_or(|at| at.elapsed() >= REREAD) {
            let all: Vec<CommonWords> = self
                .dirs
                .iter()
                .map(|d| CommonWords::load(d).unwrap_or_default())
                .collect();
            *known = (Arc::new(CommonWords::common_to(&all)), Some(Instant::now()));
        }
        known.0.clone()
    }

    /// `ast` with each two-word phrase of common words, asked of a
    /// stemmed field (named, or every field of `titles` and `bodies`
    /// when it names none), asked of that language's pair field instead;
    /// and whether any phrase is still matched by positions.
    pub(crate) fn with_pairs(
        &self,
        ast: UserInputAst,
        titles: &[Field],
        bodies: &[Field],
    ) -> (UserInputAst, bool) {
        let common = self.common_words();
        let pairs = Pairs {
            index: self,
            common: &common,
            titles,
            bodies,
            positional: Cell::new(false),
        };
        let ast = pairs.rewrite(ast);
        (ast, pairs.positional.get())
    }
}

struct Pairs<'a> {
    index: &'a SearchIndex,
    common: &'a CommonWords,
    titles: &'a [Field],
    bodies: &'a [Field],
    /// Whether a phrase was left to be matched by positions somewhere.
    positional: Cell<bool>,
}

impl Pairs<'_> {
    fn rewrite(&self, ast: UserInputAst) -> UserInputAst {
        match ast {
            UserInputAst::Clause(clauses) => UserInputAst::Clause(
                clauses
                    .into_iter()
                    .map(|(occur, a)| (occur, self.rewrite(a)))
                    .collect(),
            ),
            UserInputAst::Boost(a, boost) => UserInputAst::Boost(Box::new(self.rewrite(*a)), boost),
            UserInputAst::Leaf(leaf) => match *leaf {
                UserInputLeaf::Literal(l)
                    if l.delimiter == Delimiter::DoubleQuotes && l.slop == 0 && !l.prefix =>
                {
                    self.phrase(l)
                }
                other => UserInputAst::Leaf(Box::new(other)),
            },
        }
    }

    /// A phrase literal, its pair term where it has one.
    fn phrase(&self, l: UserInputLiteral) -> UserInputAst {
        let schema = self.index.index.schema();
        let fields: Vec<Field> = match &l.field_name {
            Some(name) => match schema.get_field(name) {
                Ok(field) => vec![field],
                Err(_) => {
                    self.positional.set(true);
                    return leaf(l);
                }
            },
            None => self.titles.iter().chain(self.bodies).copied().collect(),
        };
        let asked: Vec<(Field, Option<String>)> = fields
            .iter()
            .map(|&f| (f, self.pair_term(f, &l.phrase)))
            .collect();
        if asked.iter().any(|(_, term)| term.is_none()) {
            self.positional.set(true);
        }
        if asked.iter().all(|(_, term)| term.is_none()) {
            return leaf(l);
        }
        let f = self.index.fields;
        let either = asked
            .into_iter()
            .map(|(field, term)| {
                let mut one = l.clone();
                match term {
                    Some(term) => {
                        let title = f.title_stem.contains(&field);
                        let pair_field = if title { f.title_pairs } else { f.body_pairs };
                        one.field_name = Some(schema.get_field_name(pair_field).to_string());
                        one.phrase = term;
                    }
                    None => one.field_name = Some(schema.get_field_name(field).to_string()),
                }
                (Some(Occur::Should), leaf(one))
            })
            .collect();
        UserInputAst::Clause(either)
    }

    /// The pair term of `phrase` in stemmed `field`: two words, side by
    /// side, both common in the field's language.
    fn pair_term(&self, field: Field, phrase: &str) -> Option<String> {
        let f = self.index.fields;
        let slot =
            (0..STEMMED.len()).find(|&i| f.title_stem[i] == field || f.body_stem[i] == field)?;
        let code = STEMMED[slot].0;
        let common = self.common.get(code)?;
        let mut analyzer = self.index.index.tokenizer_for_field(field).ok()?;
        match pairs::pairs_of(&mut analyzer, code, phrase, |w| common.contains(w)) {
            (pairs, 2) if pairs.len() == 1 => pairs.terms().next().map(str::to_string),
            _ => None,
        }
    }
}

fn leaf(l: UserInputLiteral) -> UserInputAst {
    UserInputAst::Leaf(Box::new(UserInputLeaf::Literal(l)))
}

#[cfg(test)]
mod tests {
    use crate::search::tests::article;
    use crate::{IndexStage, SearchIndex, SearchRequest};
    use gleaner_core::stage::Stage;

    fn ask(q: &str) -> SearchRequest {
        SearchRequest {
            q: q.into(),
            limit: 10,
            ..SearchRequest::default()
        }
    }

    #[tokio::test]
    async fn a_phrase_of_common_words_is_found_by_its_pair() {
        let dir = tempfile::tempdir().unwrap();
        let mut st = IndexStage::open(dir.path(), 20_000_000, 1).unwrap();
        let said = "The mayor of the town spoke of the harbour and of the ferries.";
        let mut batch: Vec<_> = (1..=4)
            .map(|i| article(&format!("e{i}"), "x.test", "en", "2026-03-03", None, said))
            .collect();
        let apart = "The ferry left the pier, and of course the crew waved.";
        batch.push(article("e5", "x.test", "en", "2026-03-03", None, apart));
        assert!(st.handle_batch(&batch).await.iter().all(|r| r.is_ok()));
        // A language that comes later learns its own words then.
        let german = "Der Bürgermeister der Stadt sprach von der Fähre der Insel und der Stadt.";
        let later = [article("g1", "y.test", "de", "2026-03-04", None, german)];
        assert!(st.handle_batch(&later).await.iter().all(|r| r.is_ok()));
        st.close().await.unwrap();
        let learned = crate::pairs::CommonWords::load(dir.path()).unwrap();
        let en = learned.get("en").unwrap();
        assert!(en.contains("of") && en.contains("the") && !en.contains("harbour"));
        assert!(learned.get("de").unwrap().contains("der"));

        let s = SearchIndex::open(dir.path(), 200).unwrap();
        let searcher = s.reader.searcher();
        // English: "of" and "the" are common (German fields would read the
        // positions of their few English words).
        let en = Some("en");
        assert!(!s.text_query(&searcher, "\"of the\"", en).positional);
        assert!(s.text_query(&searcher, "\"the harbour\"", en).positional);
        let r = s.find(&ask("\"of the\"")).unwrap();
        let mut ids: Vec<&str> = r.hits.iter().map(|h| h.id.as_str()).collect();
        ids.sort_unstable();
        assert_eq!(ids, vec!["e1", "e2", "e3", "e4"], "e5 has both words apart");
        assert!(
            r.hits[0].highlight.contains("<mark>of the</mark>")
                || r.hits[0]
                    .highlight
                    .contains("<mark>of</mark> <mark>the</mark>"),
            "{}",
            r.hits[0].highlight
        );
        assert_eq!(s.find(&ask("\"the harbour\"")).unwrap().total, 4);
        assert_eq!(s.find(&ask("\"of course\"")).unwrap().total, 1);
        assert_eq!(s.find(&ask("\"der Stadt\"")).unwrap().total, 1);
        // title: names the title fields, and no title has the phrase.
        let titled = s.find(&ask("title:\"of the\"")).unwrap();
        assert_eq!(titled.total, 0, "no title has it");
    }

    /// Words learned again after the file was lost would miss the
    /// articles indexed before: the language gets none, and its phrases
    /// are found by positions.
    #[tokio::test]
    async fn a_lost_word_file_leaves_phrases_to_positions() {
        let dir = tempfile::tempdir().unwrap();
        let said = "The mayor of the town spoke of the harbour and of the ferries.";
        let one = |id: &str| article(id, "x.test", "en", "2026-03-03", None, said);
        let mut st = IndexStage::open(dir.path(), 20_000_000, 1).unwrap();
        assert!(st
            .handle_batch(&[one("e1")])
            .await
            .iter()
            .all(|r| r.is_ok()));
        st.close().await.unwrap();
        drop(st);
        std::fs::remove_file(dir.path().join(crate::pairs::FILE)).unwrap();
        let mut st = IndexStage::open(dir.path(), 20_000_000, 1).unwrap();
        assert!(st
            .handle_batch(&[one("e2")])
            .await
            .iter()
            .all(|r| r.is_ok()));
        st.close().await.unwrap();
        let kept = crate::pairs::CommonWords::load(dir.path()).unwrap();
        assert_eq!(kept.get("en").map(|w| w.len()), Some(0));
        let s = SearchIndex::open(dir.path(), 200).unwrap();
        let searcher = s.reader.searcher();
        assert!(s.text_query(&searcher, "\"of the\"", Some("en")).positional);
        assert_eq!(s.find(&ask("\"of the\"")).unwrap().total, 2);
    }
}
