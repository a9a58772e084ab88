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
use tantivy::query_grammar::{Delimiter, Occur, UserInputAst, UserInputLeaf, UserInputLiteral};
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
        let lone = crate::query::count_leaves(
            &ast,
            &|leaf| matches!(leaf, UserInputLeaf::Literal(l) if lone_character(l).is_some()),
        );
        let each = crate::dictionary::expansions_each(lone);
        crate::query::map_leaves(ast, &|leaf| {
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
            let mut either = vec![(
                Some(Occur::Should),
                UserInputAst::Leaf(Box::new(leaf.clone())),
            )];
            for name in fields {
                let Ok(field) = schema.get_field(name) else {
                    continue;
                };
                let tally = Tally::matching(searcher, field, &automaton);
                let more = tally.len() > each;
                either.extend(tally.most_common(each, |_| true).into_iter().map(|word| {
                    let literal = UserInputLiteral {
                        field_name: Some(name.clone()),
                        phrase: word,
                        delimiter: Delimiter::None,
                        slop: 0,
                        prefix: false,
                    };
                    let leaf = UserInputLeaf::Literal(literal);
                    (Some(Occur::Should), UserInputAst::Leaf(Box::new(leaf)))
                }));
                if more {
                    let rest = UserInputLeaf::Regex {
                        field: Some(name.clone()),
                        pattern: pattern.clone(),
                    };
                    either.push((Some(Occur::Should), UserInputAst::Leaf(Box::new(rest))));
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

/// The lone CJK characters of query `q`, as `lone_character` reads them:
/// its whitespace-parted words of one CJK character (after a field's
/// name or a sign), outside quotes.
pub(crate) fn lone_characters(q: &str) -> Vec<char> {
    let mut quoted = false;
    let mut out = Vec::new();
    for word in q.split_whitespace() {
        let was_quoted = quoted;
        quoted ^= word.matches('"').count() % 2 == 1;
        if was_quoted || word.contains('"') {
            continue;
        }
        let word = word.rsplit(':').next().unwrap_or(word);
        let mut chars = word.trim_start_matches(['+', '-']).chars();
        if let (Some(c), None) = (chars.next(), chars.next()) {
            if gleaner_text::is_cjk(c) && !out.contains(&c) {
                out.push(c);
            }
        }
    }
    out
}

/// What of a matched `term` to mark: a CJK bigram that matched for one
/// of the query's `lone` characters is marked as that character ("猫" in
/// "喜欢猫", not "欢猫"); any other term whole.
pub(crate) fn marked_part<'t>(term: &'t str, lone: &[char]) -> &'t str {
    let mut chars = term.char_indices();
    let (Some((_, a)), Some((at, b)), None) = (chars.next(), chars.next(), chars.next()) else {
        return term;
    };
    match (lone.contains(&a), lone.contains(&b)) {
        (true, false) => &term[..at],
        (false, true) => &term[at..],
        _ => term,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lone_characters_are_read_from_the_query() {
        assert_eq!(
            lone_characters("人 -猫 title:雨 \"鱼\" 人工 bridge 猫"),
            ['人', '猫', '雨']
        );
        assert_eq!(lone_characters("\"a 鱼 b\" 鱼"), ['鱼']);
        assert_eq!(marked_part("欢猫", &['猫']), "猫");
        assert_eq!(marked_part("猫咪", &['猫']), "猫");
        assert_eq!(marked_part("人工", &['猫']), "人工");
        assert_eq!(marked_part("猫猫", &['猫']), "猫猫");
        assert_eq!(marked_part("bridge", &['猫']), "bridge");
    }
}
