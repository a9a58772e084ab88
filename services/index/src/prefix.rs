//! Words by their start: `bri*` asks for the words of the index that start
//! with "bri", and a query that matches nothing as written is tried again
//! with its last word so (the search page asks on each keystroke, so
//! "harbour bri" finds the harbour bridge before "bridge" is typed out).
//!
//! Tantivy's parser reads `bri*` as a phrase prefix, which needs two words
//! (a lone word failed and asked nothing). Here the word is looked up in
//! each field's dictionary and replaced by the words found, the most
//! common first (dictionary.rs), each an ordinary word of the query:
//! ranked by BM25 and marked in the snippets, where a regular expression
//! (`/bri.*/`) scores every match alike and marks none.

use crate::search::SearchIndex;
use tantivy::query_grammar::{Delimiter, UserInputAst, UserInputLeaf, UserInputLiteral};
use tantivy::schema::Field;
use tantivy::Searcher;

impl SearchIndex {
    /// `ast` with each word ending in `*` (`bri*`, `title:bri*`, `"bri"*`)
    /// replaced by the words each field holds that start with it, any one
    /// matching; a word without a field is asked of `defaults`. A phrase
    /// ending in `*` (`"harbour bri"*`) is left to Tantivy's phrase prefix.
    pub(crate) fn prefixes_expanded(
        &self,
        searcher: &Searcher,
        ast: UserInputAst,
        defaults: &[String],
    ) -> UserInputAst {
        let prefixes = crate::query_tree::leaves(&ast)
            .into_iter()
            .filter(|leaf| matches!(leaf, UserInputLeaf::Literal(l) if typed_prefix(l).is_some()))
            .count();
        let each = crate::dictionary::expansions_each(prefixes);
        crate::query_tree::map_leaves(ast, &|leaf| match leaf {
            UserInputLeaf::Literal(literal) => match typed_prefix(&literal).map(str::to_string) {
                Some(typed) => self.prefix_words(searcher, &literal, &typed, defaults, each),
                None => UserInputAst::Leaf(Box::new(UserInputLeaf::Literal(literal))),
            },
            other => UserInputAst::Leaf(Box::new(other)),
        })
    }

    /// The words of the literal's field (or of `defaults`) that start with
    /// `typed`, at most `each` per field, any one matching.
    fn prefix_words(
        &self,
        searcher: &Searcher,
        literal: &UserInputLiteral,
        typed: &str,
        defaults: &[String],
        each: usize,
    ) -> UserInputAst {
        let names: Vec<String> = match &literal.field_name {
            Some(name) => vec![name.clone()],
            None => defaults.to_vec(),
        };
        // No word starts so: a set of no words, which matches
        // nothing (a clause of nothing matches everything).
        let none = UserInputAst::Leaf(Box::new(UserInputLeaf::Set {
            field: names.first().cloned(),
            elements: Vec::new(),
        }));
        let mut either = Vec::new();
        let mut no_word = true;
        for name in names {
            let Ok(field) = self.index.schema().get_field(&name) else {
                continue;
            };
            if self.tokens(field, typed) == 0 {
                // The field indexes nothing of it (`😀*`, `.*`).
                continue;
            }
            no_word = false;
            let Some(words) = self.words_starting(searcher, field, typed, each) else {
                // Not one word in this field: a phrase prefix.
                let phrase = UserInputLiteral {
                    field_name: Some(name),
                    phrase: typed.to_string(),
                    prefix: true,
                    ..literal.clone()
                };
                either.push(crate::query_tree::should(UserInputLeaf::Literal(phrase)));
                continue;
            };
            either.extend(
                words
                    .into_iter()
                    .map(|word| crate::query_tree::word_in(&name, word)),
            );
        }
        if no_word {
            // As if typed without its star: `😀*` asks what `😀` asks
            // (alone nothing, beside other words nothing more), where a
            // prefix of no word had matched every article.
            let plain = UserInputLiteral {
                phrase: typed.to_string(),
                prefix: false,
                ..literal.clone()
            };
            UserInputAst::Leaf(Box::new(UserInputLeaf::Literal(plain)))
        } else if either.is_empty() {
            none
        } else {
            UserInputAst::Clause(either)
        }
    }

    /// `q` with its last word as the start of words (`last_word_as_prefix`)
    /// when no field in use holds that word: a word the index holds is
    /// taken as written, as the typo retry takes it, and a query of such
    /// words that matched nothing (for its filters, say) is not widened,
    /// which would cost a second search for hits the user filtered out.
    pub(crate) fn as_typed(
        &self,
        searcher: &Searcher,
        q: &str,
        lang: Option<&str>,
    ) -> Option<String> {
        let (typed, word) = last_word_as_prefix(q)?;
        let fields = self.text_fields_in_use(searcher, lang);
        (!self.holds(searcher, &fields, word)).then_some(typed)
    }

    /// How many words `field`'s analyzer makes of `text`.
    fn tokens(&self, field: Field, text: &str) -> usize {
        let Ok(mut analyzer) = self.index.tokenizer_for_field(field) else {
            return 0;
        };
        let mut stream = analyzer.token_stream(text);
        let mut n = 0;
        while stream.advance() {
            n += 1;
        }
        n
    }

    /// The words of `field` that start with `typed` as the field reads it
    /// (lowercased, accents folded, and, in a stemmed field, also as its
    /// stem: "studie" is stemmed "studi", the stem of "studies"), the `n`
    /// most common first; `None` when `typed` is not one word to the field.
    /// Only words that the field's analyzer leaves as they are, since each
    /// is asked as a word of the query again.
    fn words_starting(
        &self,
        searcher: &Searcher,
        field: Field,
        typed: &str,
        n: usize,
    ) -> Option<Vec<String>> {
        let mut analyzer = self.index.tokenizer_for_field(field).ok()?;
        let one = |analyzer: &mut tantivy::tokenizer::TextAnalyzer, text: &str| {
            let mut stream = analyzer.token_stream(text);
            let mut tokens = Vec::new();
            while stream.advance() {
                tokens.push(stream.token().text.clone());
            }
            (tokens.len() == 1).then(|| tokens.remove(0))
        };
        let stem = one(&mut analyzer, typed)?;
        let mut starts = vec![stem];
        if let Ok(mut plain) = self.index.tokenizer_for_field(self.fields.body_plain) {
            starts.extend(one(&mut plain, typed));
        }
        starts.sort_unstable();
        starts.dedup();
        let tally = crate::dictionary::Tally::starting(searcher, field, &starts);
        Some(tally.most_common(n, |word| one(&mut analyzer, word).as_deref() == Some(word)))
    }
}

/// What a literal asks as the start of words: `"bri"*` (the grammar's
/// prefix), or `bri*` (a word the grammar keeps with its star, which the
/// analyzer then dropped: `bri*` asked for the word "bri").
fn typed_prefix(literal: &UserInputLiteral) -> Option<&str> {
    if literal.prefix {
        return Some(&literal.phrase);
    }
    let typed = literal.phrase.strip_suffix('*')?;
    (literal.delimiter == Delimiter::None && !typed.is_empty() && !typed.ends_with('*'))
        .then_some(typed)
}

/// Letters of a last word before it is widened to the words it starts:
/// two letters start too many (on `examples/bench_index.rs`'s 100,000
/// articles, `ka*` asked for 50 words in every field over nearly every
/// article: 210 ms; `kal*` 14 ms). `bri*` typed out asks at any length.
const MIN_TYPED: usize = 3;

/// `q` with its last word asked as the start of words (`harbour bri` as
/// `harbour bri*`), and that word, for a query that matched nothing as
/// written, while its last word is being typed; `None` when the query ends in a space,
/// a phrase, a group or an operator, when the last word is excluded or
/// already a prefix, or is shorter than `MIN_TYPED` letters.
pub(crate) fn last_word_as_prefix(q: &str) -> Option<(String, &str)> {
    if q.ends_with(char::is_whitespace) || q.matches('"').count() % 2 == 1 {
        return None;
    }
    let last = q.split_whitespace().last()?;
    let word = last.rsplit(':').next().unwrap_or(last);
    let plain = |c: char| c.is_alphanumeric() || matches!(c, '-' | '\'' | '’' | '.');
    if last.starts_with(['-', '+'])
        || matches!(last, "AND" | "OR" | "NOT")
        || !word.chars().all(plain)
        || !word.chars().last().is_some_and(char::is_alphanumeric)
        || word.chars().filter(|c| c.is_alphanumeric()).count() < MIN_TYPED
        || last.matches(':').count() > 1
    {
        return None;
    }
    Some((format!("{q}*"), word))
}

#[cfg(test)]
mod tests {
    use super::last_word_as_prefix;

    #[test]
    fn the_last_word_being_typed_is_a_prefix() {
        for (q, prefixed) in [
            ("harbour bri", Some("harbour bri*")),
            ("bri", Some("bri*")),
            ("title:bri", Some("title:bri*")),
            ("Népa", Some("Népa*")),
            ("o'br", Some("o'br*")),
            ("harbour b", None),
            ("harbour br", None),
            ("harbour bri ", None),
            ("\"harbour bri\"", None),
            ("\"harbour bri", None),
            ("(ferry OR bri)", None),
            ("harbour -bri", None),
            ("harbour OR", None),
            ("bri*", None),
            ("https://bbc", None),
            ("", None),
        ] {
            let typed = last_word_as_prefix(q);
            assert_eq!(typed.as_ref().map(|t| t.0.as_str()), prefixed, "{q}");
        }
    }
}
