//! Queries from a search request: the query language over the text fields
//! that hold any words (the filters are in filters.rs, the typo-tolerant
//! retry in fuzzy.rs, prefixes in prefix.rs).
//!
//! Each article's words are in one field of a kind (schema.rs): its
//! language's stemmed field, or the plain one when Tantivy has no stemmer
//! for it. So a query word is looked up in every text field, and each
//! article is found through exactly one of them.

use crate::query_tree::map_leaves;
use crate::search::{SearchIndex, TextQuery};
use tantivy::query::{Query, QueryParser};
use tantivy::query_grammar::{self, UserInputAst, UserInputLeaf};
use tantivy::schema::Field;
use tantivy::Searcher;

impl SearchIndex {
    /// The text fields of `kind` (title or body) that hold any words now:
    /// the plain and CJK ones and those of the languages the index has. A
    /// field no article uses costs a dictionary look-up per segment and
    /// word, and there are 18 languages of them. With `lang` (a request's
    /// language filter), only the fields an article of that language is
    /// in: its stemmed one (else the plain one) and the CJK one. The
    /// others match only articles the filter drops, and a common word's
    /// postings in four other languages were read to be dropped.
    pub(crate) fn fields_in_use(
        &self,
        searcher: &Searcher,
        title: bool,
        lang: Option<&str>,
    ) -> Vec<Field> {
        let f = self.fields;
        let mut all: Vec<Field> = if title {
            [f.title_plain, f.title_cjk]
                .into_iter()
                .chain(f.title_stem)
                .collect()
        } else {
            [f.body_plain, f.body_cjk]
                .into_iter()
                .chain(f.body_stem)
                .collect()
        };
        if let Some(lang) = lang.map(|l| l.trim().to_ascii_lowercase()) {
            let (plain, cjk, stems) = if title {
                (f.title_plain, f.title_cjk, f.title_stem)
            } else {
                (f.body_plain, f.body_cjk, f.body_stem)
            };
            let words = crate::schema::stem_slot(Some(&lang)).map_or(plain, |i| stems[i]);
            all.retain(|&field| field == words || field == cjk);
        }
        let used: Vec<Field> = all
            .iter()
            .copied()
            .filter(|&field| {
                searcher.segment_readers().iter().any(|s| {
                    s.inverted_index(field)
                        .is_ok_and(|ii| ii.terms().num_terms() > 0)
                })
            })
            .collect();
        // An empty index: any field, so that a query still parses.
        if used.is_empty() {
            vec![all[0]]
        } else {
            used
        }
    }

    /// The title fields in use, then the text fields (`fields_in_use`).
    pub(crate) fn text_fields_in_use(&self, searcher: &Searcher, lang: Option<&str>) -> Vec<Field> {
        let mut fields = self.fields_in_use(searcher, true, lang);
        fields.extend(self.fields_in_use(searcher, false, lang));
        fields
    }

    /// The words of `q` as a query over every text field in use, titles
    /// weighing double; every article when `q` has none. `title:` and
    /// `body:` name every field of their kind, `author:` the authors'
    /// words (nothing in an index made before they were indexed).
    pub(crate) fn text_query(&self, searcher: &Searcher, q: &str, lang: Option<&str>) -> TextQuery {
        let q = &*lone_signs_dropped(q);
        if q.trim().is_empty() {
            let all = || Box::new(tantivy::query::AllQuery) as Box<dyn Query>;
            return TextQuery {
                matching: all(),
                terms: all(),
                positional: false,
                needs_words: false,
                lone: Vec::new(),
            };
        }
        let titles = self.fields_in_use(searcher, true, lang);
        let bodies = self.fields_in_use(searcher, false, lang);
        let mut parser =
            QueryParser::for_index(&self.index, titles.iter().chain(&bodies).copied().collect());
        // Every word must match, as people expect of a search box; OR says
        // otherwise.
        parser.set_conjunction_by_default();
        // `title:/bridg.*/`: a regular expression over a field's words. One
        // without a field is left out (a pasted `/r/rust` or `https://` is
        // no pattern), as the lenient parser leaves out what it cannot ask.
        parser.allow_regexes();
        for &title in titles.iter().chain([&self.fields.title_pairs]) {
            parser.set_field_boost(title, 2.0);
        }
        let name = |field: &Field| self.index.schema().get_field_name(*field).to_string();
        let title_names: Vec<String> = titles.iter().map(name).collect();
        let body_names: Vec<String> = bodies.iter().map(name).collect();
        let (ast, _) = query_grammar::parse_query_lenient(&operator_runs_collapsed(q));
        let ast = any_value_as_all(
            without_dangling_operators(ast),
            self.fields.author_words.is_some(),
        );
        let schema = self.index.schema();
        let ast = unknown_fields_as_words(ast, &|name| {
            matches!(name, "title" | "body") || schema.get_field(name).is_ok()
        });
        let needs_words = needs_words(&ast);
        let author_names: Vec<String> = self.fields.author_words.iter().map(name).collect();
        let mut spread = vec![("title", &title_names), ("body", &body_names)];
        if !author_names.is_empty() {
            spread.push(("author", &author_names));
        }
        let ast = spread_field(ast, &spread);
        let defaults: Vec<String> = title_names.iter().chain(&body_names).cloned().collect();
        let ast = self.prefixes_expanded(searcher, ast, &defaults);
        let lone = crate::lone_char::lone_characters(&ast);
        let ast = self.lone_characters_widened(searcher, ast);
        let (paired, positional) = self.with_pairs(ast.clone(), &titles, &bodies);
        TextQuery {
            matching: parser.build_query_from_user_input_ast_lenient(paired).0,
            terms: parser.build_query_from_user_input_ast_lenient(ast).0,
            positional,
            needs_words,
            lone,
        }
    }
}

/// `ast` with each `field:*` ("any value") asking nothing: every article
/// has a title and a text, the fields a query names. Tantivy reads it as
/// an exists query, which needs a fast field, and failed the whole search
/// with a schema error ("Field title is not a fast field"). Not every
/// article has an author: where authors are indexed, `author:*` asks for
/// any word of theirs (`-author:*`: articles without one).
fn any_value_as_all(ast: UserInputAst, authors: bool) -> UserInputAst {
    map_leaves(ast, &|leaf| match leaf {
        UserInputLeaf::Exists { field } if authors && field == "author" => {
            UserInputAst::Leaf(Box::new(UserInputLeaf::Regex {
                field: Some(field),
                pattern: ".+".into(),
            }))
        }
        UserInputLeaf::Exists { .. } => UserInputAst::Leaf(Box::new(UserInputLeaf::All)),
        other => UserInputAst::Leaf(Box::new(other)),
    })
}

/// `ast` with each `name:word` whose name is no field (`Breaking: bridge`,
/// `Re:ferry`, a headline's "Analysis:" pasted) read as the two words it
/// is, both required. Tantivy leaves out a word addressed to a field it
/// does not have, so such a query found nothing, or dropped the word.
/// A value starting with `/` (`https://...`) stays as it was: a URL's
/// scheme is no word to find.
fn unknown_fields_as_words(ast: UserInputAst, known: &dyn Fn(&str) -> bool) -> UserInputAst {
    use query_grammar::{Delimiter, Occur, UserInputLiteral};
    map_leaves(ast, &|leaf| match leaf {
        UserInputLeaf::Literal(literal)
            if literal
                .field_name
                .as_deref()
                .is_some_and(|name| !known(name))
                && !literal.phrase.starts_with('/') =>
        {
            let name = UserInputLiteral {
                field_name: None,
                phrase: literal.field_name.clone().unwrap_or_default(),
                delimiter: Delimiter::None,
                slop: 0,
                prefix: false,
            };
            let value = UserInputLiteral {
                field_name: None,
                ..literal
            };
            let must = |l| (Some(Occur::Must), UserInputAst::Leaf(Box::new(l)));
            UserInputAst::Clause(vec![
                must(UserInputLeaf::Literal(name)),
                must(UserInputLeaf::Literal(value)),
            ])
        }
        other => UserInputAst::Leaf(Box::new(other)),
    })
}

/// `ast` with each word, phrase, set or regular expression addressed to a
/// name that `spread` maps to several fields (`title:` to every title
/// field) asked of each of them, any one matching.
fn spread_field(ast: UserInputAst, spread: &[(&str, &Vec<String>)]) -> UserInputAst {
    map_leaves(ast, &|leaf| {
        let named = spread
            .iter()
            .find(|(name, _)| field_named(&leaf) == Some(*name))
            .map(|(_, fields)| *fields);
        match named {
            Some(fields) => UserInputAst::Clause(
                fields
                    .iter()
                    .map(|field| {
                        let one = with_field(leaf.clone(), field);
                        (
                            Some(query_grammar::Occur::Should),
                            UserInputAst::Leaf(Box::new(one)),
                        )
                    })
                    .collect(),
            ),
            None => UserInputAst::Leaf(Box::new(leaf)),
        }
    })
}

/// The field a leaf names, if it is one `spread_field` spreads.
fn field_named(leaf: &UserInputLeaf) -> Option<&str> {
    match leaf {
        UserInputLeaf::Literal(literal) => literal.field_name.as_deref(),
        UserInputLeaf::Regex { field, .. } | UserInputLeaf::Set { field, .. } => field.as_deref(),
        _ => None,
    }
}

/// `leaf` addressed to `name` instead.
fn with_field(mut leaf: UserInputLeaf, name: &str) -> UserInputLeaf {
    match &mut leaf {
        UserInputLeaf::Literal(literal) => literal.field_name = Some(name.to_string()),
        UserInputLeaf::Regex { field, .. } | UserInputLeaf::Set { field, .. } => {
            *field = Some(name.to_string())
        }
        _ => {}
    }
    leaf
}

/// (start, end, whether it is inside quotes) of each whitespace-separated
/// token of `q`; a token that opens quotes is not inside them.
fn tokens(q: &str) -> impl Iterator<Item = (usize, usize, bool)> + '_ {
    let mut in_quotes = false;
    let mut at = 0;
    q.split_inclusive(char::is_whitespace)
        .filter_map(move |piece| {
            let start = at;
            at += piece.len();
            let word = piece.trim_end_matches(char::is_whitespace);
            if word.is_empty() {
                return None;
            }
            let quoted = in_quotes;
            in_quotes ^= word.matches('"').count() % 2 == 1;
            Some((start, start + word.len(), quoted))
        })
}

/// `q` without a `-` or `+` standing alone between spaces: a dash in a
/// pasted headline ("Friday Facts #282 - 0.17 in sight", "Brexit - what
/// next"), not a sign. The grammar took it for the word after it, so
/// that word was left out (`-` excludes) and the headline found nothing.
/// `-closed` still excludes; in quotes it is text.
fn lone_signs_dropped(q: &str) -> std::borrow::Cow<'_, str> {
    let mut out = String::new();
    let mut copied = 0;
    for (start, end, quoted) in tokens(q) {
        if !quoted && matches!(&q[start..end], "-" | "+") {
            out.push_str(&q[copied..start]);
            copied = end;
        }
    }
    if copied == 0 {
        return q.into();
    }
    out.push_str(&q[copied..]);
    out.into()
}

/// `q` with each run of operator words typed one after another (`ferry OR
/// OR bridge`, `ferry AND OR bridge`) said once: its last AND or OR,
/// followed by NOT when the run ends with one (`AND NOT` stays). The
/// lenient parser reads a second operator as a word and the word after it
/// as required, so `ferry OR OR bridge` found only articles holding
/// "bridge". Words in quotes are never operators.
fn operator_runs_collapsed(q: &str) -> std::borrow::Cow<'_, str> {
    // (start, end, is an operator) of each whitespace-separated token.
    let tokens: Vec<(usize, usize, bool)> = tokens(q)
        .map(|(s, e, quoted)| (s, e, !quoted && matches!(&q[s..e], "AND" | "OR" | "NOT")))
        .collect();
    let mut out = String::new();
    let mut copied = 0;
    let mut i = 0;
    while i < tokens.len() {
        let run = tokens[i..].iter().take_while(|t| t.2).count();
        if run < 2 {
            i += 1;
            continue;
        }
        let words: Vec<&str> = tokens[i..i + run].iter().map(|t| &q[t.0..t.1]).collect();
        let binary = words.iter().rev().find(|w| **w != "NOT");
        let negated = words.last() == Some(&"NOT");
        let said: Vec<&str> = binary
            .into_iter()
            .copied()
            .chain(negated.then_some("NOT"))
            .collect();
        out.push_str(&q[copied..tokens[i].0]);
        out.push_str(&said.join(" "));
        copied = tokens[i + run - 1].1;
        i += run;
    }
    if copied == 0 {
        return q.into();
    }
    out.push_str(&q[copied..]);
    out.into()
}

/// `ast` without the operator words an operator did not take (`harbour
/// OR`, `AND bridge`): the lenient parser reads them as words every
/// article must hold, so a half-typed query found only the articles that
/// happen to hold "or" or "and" (none, on short texts).
/// A query of nothing but such words keeps them (`OR` may be Oregon), as
/// does one in quotes.
fn without_dangling_operators(ast: UserInputAst) -> UserInputAst {
    let is_operator = |a: &UserInputAst| {
        matches!(a, UserInputAst::Leaf(leaf) if matches!(&**leaf,
            UserInputLeaf::Literal(l) if l.field_name.is_none()
                && l.delimiter == query_grammar::Delimiter::None
                && matches!(l.phrase.as_str(), "AND" | "OR" | "NOT")))
    };
    match ast {
        UserInputAst::Clause(clauses) => {
            let clauses: Vec<_> = clauses
                .into_iter()
                .map(|(occur, a)| (occur, without_dangling_operators(a)))
                .collect();
            if clauses.iter().all(|(_, a)| is_operator(a)) {
                return UserInputAst::Clause(clauses);
            }
            let mut kept: Vec<_> = clauses
                .into_iter()
                .filter(|(_, a)| !is_operator(a))
                .collect();
            match kept.as_slice() {
                // One word required: the word itself, as the parser gives it.
                [(None | Some(query_grammar::Occur::Must), _)] => kept.remove(0).1,
                _ => UserInputAst::Clause(kept),
            }
        }
        UserInputAst::Boost(a, boost) => {
            UserInputAst::Boost(Box::new(without_dangling_operators(*a)), boost)
        }
        leaf => leaf,
    }
}

/// Whether only a document with words (in its title or body) can match
/// `ast`, as parsed with every word required: a word of the text is
/// required, or every alternative of an OR is one. Any other field, a
/// range, a set or an exclusion alone may match a document without words.
fn needs_words(ast: &UserInputAst) -> bool {
    use query_grammar::Occur;
    match ast {
        // A phrase of no word (`title:""`) asks for nothing.
        UserInputAst::Leaf(leaf) => matches!(
            &**leaf,
            UserInputLeaf::Literal(l)
                if l.field_name.as_deref().is_none_or(|f| f == "title" || f == "body")
                    && l.phrase.chars().any(char::is_alphanumeric)
        ),
        UserInputAst::Boost(inner, _) => needs_words(inner),
        UserInputAst::Clause(clauses) => {
            // With every word required, a clause without an occur must match.
            let must = |o: &Option<Occur>| matches!(o, None | Some(Occur::Must));
            if clauses.iter().any(|(o, a)| must(o) && needs_words(a)) {
                return true;
            }
            let mut should = clauses.iter().filter(|(o, _)| *o == Some(Occur::Should));
            !clauses.iter().any(|(o, _)| must(o))
                && should.clone().next().is_some()
                && should.all(|(_, a)| needs_words(a))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_query_needs_words_when_a_word_of_the_text_must_match() {
        for (q, needs) in [
            ("bridge", true),
            ("\"harbour bridge\" -closed", true),
            ("title:bridge", true),
            ("ferry OR bridge", true),
            ("(ferry OR bridge) -closed", true),
            ("-closed", false),
            ("url:x", false),
            ("ferry OR url:x", false),
            ("*", false),
            ("title:\"\"", false),
            ("\"\" -closed", false),
            ("bridge title:\"\"", true),
            ("桥梁", true),
        ] {
            let (ast, _) = query_grammar::parse_query_lenient(q);
            assert_eq!(needs_words(&ast), needs, "{q}: {ast:?}");
        }
    }

    #[test]
    fn an_operator_left_over_is_no_word_to_match() {
        let read = |q: &str| {
            format!(
                "{:?}",
                without_dangling_operators(query_grammar::parse_query_lenient(q).0)
            )
        };
        assert_eq!(read("harbour OR"), read("harbour"));
        assert_eq!(read("AND harbour"), read("harbour"));
        assert_eq!(read("harbour NOT"), read("harbour"));
        // Alone or quoted, it is the word.
        assert_eq!(read("OR"), "OR");
        assert!(
            read("harbour \"OR\"").contains("OR"),
            "{}",
            read("harbour \"OR\"")
        );
        assert!(read("harbour or").contains("or"));
    }

    #[test]
    fn operators_typed_twice_are_read_once() {
        let read = |q: &str| {
            let q = operator_runs_collapsed(q);
            format!(
                "{:?}",
                without_dangling_operators(query_grammar::parse_query_lenient(&q).0)
            )
        };
        assert_eq!(
            operator_runs_collapsed("ferry OR OR bridge"),
            "ferry OR bridge"
        );
        assert_eq!(read("ferry OR OR bridge"), read("ferry OR bridge"));
        assert_eq!(read("ferry AND OR  bridge"), read("ferry OR bridge"));
        assert_eq!(read("ferry OR AND bridge"), read("ferry AND bridge"));
        assert_eq!(read("ferry NOT OR bridge"), read("ferry OR bridge"));
        assert_eq!(
            operator_runs_collapsed("ferry AND NOT bridge"),
            "ferry AND NOT bridge"
        );
        assert_eq!(
            operator_runs_collapsed("ferry OR NOT NOT bridge"),
            "ferry OR NOT bridge"
        );
        assert_eq!(read("ferry OR OR"), read("ferry"));
        // In quotes they are words, and a query without a run is as typed.
        assert_eq!(
            operator_runs_collapsed("\"OR OR\" ferry"),
            "\"OR OR\" ferry"
        );
        assert_eq!(operator_runs_collapsed("\"a OR\" OR OR b"), "\"a OR\" OR b");
        assert_eq!(operator_runs_collapsed("  ferry\tOR  "), "  ferry\tOR  ");
        // A lone sign goes, in quotes it stays; one on a word is a sign.
        assert_eq!(lone_signs_dropped("a - b + c"), "a  b  c");
        assert_eq!(lone_signs_dropped("\"a - b\" -\tc -d"), "\"a - b\" \tc -d");
        assert_eq!(lone_signs_dropped("-"), "");
        assert_eq!(lone_signs_dropped("a -b"), "a -b");
        assert_eq!(operator_runs_collapsed("über OR OR 桥"), "über OR 桥");
    }

    #[test]
    fn a_field_name_is_spread_over_its_fields() {
        let (ast, _) = query_grammar::parse_query_lenient("title:bridge -body:\"old pier\" ferry");
        let titles = vec!["title_en".to_string(), "title_de".to_string()];
        let bodies = vec!["body_en".to_string()];
        let spread = format!(
            "{:?}",
            spread_field(ast, &[("title", &titles), ("body", &bodies)])
        );
        assert!(
            spread.contains("title_en") && spread.contains("title_de"),
            "{spread}"
        );
        assert!(spread.contains("body_en"), "{spread}");
        assert!(!spread.contains("\"title\":"), "{spread}");
        let (ast, _) = query_grammar::parse_query_lenient("title:/br.*/ title: IN [a b] /x/");
        let spread = format!("{:?}", spread_field(ast, &[("title", &titles)]));
        assert!(
            spread.contains("\"title_de\":/br.*/")
                && spread.contains("\"title_en\": IN [\"a\" \"b\"]"),
            "{spread}"
        );
        assert!(
            spread.contains("/x/") && !spread.contains("\"title\""),
            "{spread}"
        );
    }
}
