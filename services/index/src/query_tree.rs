//! Helpers over the query language's tree (Tantivy's `UserInputAst`):
//! its leaves read and rewritten, and the alternatives that the query
//! (query.rs), prefixes (prefix.rs) and lone CJK characters (lone_char.rs)
//! put in place of a leaf.

use tantivy::query_grammar::{self, UserInputAst, UserInputLeaf};

/// `ast` with each leaf replaced by what `f` makes of it, the clauses and
/// boosts around it kept.
pub(crate) fn map_leaves(
    ast: UserInputAst,
    f: &impl Fn(UserInputLeaf) -> UserInputAst,
) -> UserInputAst {
    match ast {
        UserInputAst::Clause(clauses) => UserInputAst::Clause(
            clauses
                .into_iter()
                .map(|(occur, a)| (occur, map_leaves(a, f)))
                .collect(),
        ),
        UserInputAst::Boost(a, boost) => UserInputAst::Boost(Box::new(map_leaves(*a, f)), boost),
        UserInputAst::Leaf(leaf) => f(*leaf),
    }
}

/// `leaf` as one alternative of a clause.
pub(crate) fn should(leaf: UserInputLeaf) -> (Option<query_grammar::Occur>, UserInputAst) {
    (
        Some(query_grammar::Occur::Should),
        UserInputAst::Leaf(Box::new(leaf)),
    )
}

/// A word of `field`'s dictionary as one alternative of a clause: the
/// words a prefix or a lone CJK character stands for.
pub(crate) fn word_in(field: &str, word: String) -> (Option<query_grammar::Occur>, UserInputAst) {
    should(UserInputLeaf::Literal(query_grammar::UserInputLiteral {
        field_name: Some(field.to_string()),
        phrase: word,
        delimiter: query_grammar::Delimiter::None,
        slop: 0,
        prefix: false,
    }))
}

/// Every leaf of `ast`, in order.
pub(crate) fn leaves(ast: &UserInputAst) -> Vec<&UserInputLeaf> {
    match ast {
        UserInputAst::Clause(clauses) => clauses.iter().flat_map(|(_, a)| leaves(a)).collect(),
        UserInputAst::Boost(a, _) => leaves(a),
        UserInputAst::Leaf(leaf) => vec![leaf],
    }
}
