//! A lone CJK character as a query word (人, 猫, 雨: single-character
//! words are common in Chinese, and a Japanese or Korean search may be
//! one character too). The CJK fields hold character bigrams (cjk.rs), a
//! character standing alone as itself, so such a query found only the
//! articles where the character stood alone: "人" found no article about
//! people. Here it also asks for the bigrams that hold it, first or
//! second: the most common as words of the query (ranked, marked; 50,
//! fewer each when a query has many such characters), and,
//! when there are more, the rest as one pattern, so every article holding
//! the character matches. Lucene's CJK bigram filter has the same gap
//! unless it indexes unigrams too, which would double the CJK postings of
//! every index and need each rebuilt; this needs neither.

use crate::dictionary::Tally;
use crate::search::SearchIndex;
use tantivy::query_grammar::{Delimiter, UserInputAst, UserInputLeaf, UserInputLiteral};
use tantivy::Searcher;

impl SearchIndex {
    /// `ast` with each lone CJK character (a word of the text, or of a
    /// title or text CJK field) also asked as the CJK words that hold it.
    pub(crate) fn lone_characters_widened(
        &self,
        searcher: &Searcher,
        ast: UserInputAst,
    ) -> UserInputAst {
        let schema = self.index.schema();
        let cjk = [self.fields.title_cjk, self.fields.body_cjk]
            .map(|field| schema.get_field_name(field).to_string());
        let each = crate::dictionary::expansions_each(lone_characters(&ast).len());
        crate::query_tree::map_leaves(ast, &|leaf| {
            let UserInputLeaf::Literal(literal) = &leaf else {
                return UserInputAst::Leaf(Box::new(leaf));
            };
            let fields: Vec<&String> = match &literal.field_name {
                None => cjk.iter().collect(),
                Some(name) => cjk.iter().filter(|f| *f == name).collect(),
            };
            let Some(c) = lone_character(literal).filter(|_| !fields.is_empty()) else {
                return UserInputAst::Leaf(Box::new(leaf));
            };
            let pattern = format!("{c}.|.{c}");
            let Ok(automaton) = tantivy_fst::Regex::new(&pattern) else {
                return UserInputAst::Leaf(Box::new(leaf));
            };
            let mut either = vec![crate::query_tree::should(leaf.clone())];
            for name in fields {
                let Ok(field) = schema.get_field(name) else {
                    continue;
                };
                let tally = Tally::matching(searcher, field, &automaton);
                let more = tally.len() > each;
                let words = tally.most_common(each, |_| true);
                either.extend(
                    words
                        .into_iter()
                        .map(|word| crate::query_tree::word_in(name, word)),
                );
                if more {
                    either.push(crate::query_tree::should(UserInputLeaf::Regex {
                        field: Some(name.clone()),
                        pattern: pattern.clone(),
                    }));
                }
            }
            UserInputAst::Clause(either)
        })
    }
}

/// The CJK character `literal` is, alone and unquoted (a quoted one asks
/// for the character as it stands).
fn lone_character(literal: &UserInputLiteral) -> Option<char> {
    if literal.delimiter != Delimiter::None || literal.prefix {
        return None;
    }
    let mut chars = literal.phrase.chars();
    let c = chars.next()?;
    (chars.next().is_none() && gleaner_text::is_cjk(c)).then_some(c)
}

/// The lone CJK characters of `ast`, each once, in order (excluded ones
/// too: they mark nothing, as no hit holds them).
pub(crate) fn lone_characters(ast: &UserInputAst) -> Vec<char> {
    let mut out = Vec::new();
    for leaf in crate::query_tree::leaves(ast) {
        if let UserInputLeaf::Literal(literal) = leaf {
            if let Some(c) = lone_character(literal).filter(|c| !out.contains(c)) {
                out.push(c);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::lone_characters;
    use tantivy::query_grammar::parse_query_lenient;

    #[test]
    fn lone_characters_are_read_from_the_query() {
        let read = |q: &str| lone_characters(&parse_query_lenient(q).0);
        assert_eq!(
            read("人 -猫 title:雨 \"鱼\" 人工 bridge 猫"),
            ['人', '猫', '雨']
        );
        assert_eq!(read("\"a 鱼 b\" 鱼"), ['鱼']);
    }
}
