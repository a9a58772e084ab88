//! How the index makes its words: the analyzers of the plain and stemmed
//! fields, registered under names the schema gives each field, and the
//! two versions of them an index may have been made with.
//!
//! Accents are folded (`é` to `e`, `ã` to `a`, `ß` to `ss`, after the
//! stemmer, which reads them): "nepal" finds "Népal", "Sao Paulo" finds
//! "São Paulo", as Meilisearch and Typesense do by default. An index made
//! before folding names its tokenizers as it did then and keeps the
//! analyzers it was made with: folding only its queries would lose the
//! accented words it holds. It folds once rebuilt.

use crate::stem::CachedStemmer;
use frostem::Algorithm;
use tantivy::tokenizer::{
    AsciiFoldingFilter, Language, LowerCaser, RawTokenizer, RemoveLongFilter, TextAnalyzer,
    Tokenizer,
};
use tantivy::Index;

/// The languages Tantivy stems, by ISO 639-1 code, with Tantivy's name
/// for each and the frostem algorithm its stemmer runs.
pub(crate) const STEMMED: [(&str, Language, Algorithm); 18] = [
    ("ar", Language::Arabic, Algorithm::Arabic),
    ("da", Language::Danish, Algorithm::Danish),
    ("nl", Language::Dutch, Algorithm::Dutch),
    ("en", Language::English, Algorithm::English),
    ("fi", Language::Finnish, Algorithm::Finnish),
    ("fr", Language::French, Algorithm::French),
    ("de", Language::German, Algorithm::German),
    ("el", Language::Greek, Algorithm::Greek),
    ("hu", Language::Hungarian, Algorithm::Hungarian),
    ("it", Language::Italian, Algorithm::Italian),
    ("no", Language::Norwegian, Algorithm::Norwegian),
    ("pt", Language::Portuguese, Algorithm::Portuguese),
    ("ro", Language::Romanian, Algorithm::Romanian),
    ("ru", Language::Russian, Algorithm::Russian),
    ("es", Language::Spanish, Algorithm::Spanish),
    ("sv", Language::Swedish, Algorithm::Swedish),
    ("ta", Language::Tamil, Algorithm::Tamil),
    ("tr", Language::Turkish, Algorithm::Turkish),
];

pub(crate) const CJK: &str = "gleaner_cjk";
/// The pair fields' tokenizer: a pair term as it is when searching; the
/// index stage registers its own that makes the pairs (pairs.rs).
pub(crate) const PAIRS: &str = "gleaner_pairs";

/// Whether an index's words have their accents folded: the version of
/// its schema, which also says whether it holds the authors' words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Accents {
    Folded,
    /// An index made before folding (its tokenizers' old names).
    Kept,
}

impl Accents {
    pub(crate) const BOTH: [Accents; 2] = [Accents::Folded, Accents::Kept];

    /// The plain fields' tokenizer.
    pub(crate) fn plain(self) -> &'static str {
        match self {
            Accents::Folded => "gleaner_words",
            Accents::Kept => "gleaner_plain",
        }
    }

    /// The tokenizer of the stemmed fields of the language of `code`.
    pub(crate) fn stem(self, code: &str) -> String {
        match self {
            Accents::Folded => format!("gleaner_folded_{code}"),
            Accents::Kept => format!("gleaner_stem_{code}"),
        }
    }

    /// How `index`'s words were made, read from its plain field's tokenizer.
    pub(crate) fn of(index: &Index) -> Accents {
        let schema = index.schema();
        let Ok(field) = schema.get_field("body_plain") else {
            return Accents::Folded;
        };
        let name = match schema.get_field_entry(field).field_type() {
            tantivy::schema::FieldType::Str(o) => o.get_indexing_options().map(|i| i.tokenizer()),
            _ => None,
        };
        if name == Some(Accents::Kept.plain()) {
            Accents::Kept
        } else {
            Accents::Folded
        }
    }

    /// The analyzer of the stemmed fields of the language of `code`
    /// (`None` for a language Tantivy does not stem).
    pub(crate) fn stem_analyzer(self, code: &str) -> Option<TextAnalyzer> {
        let (_, _, algorithm) = STEMMED.iter().find(|(c, _, _)| *c == code)?;
        let stemmed = words().filter(CachedStemmer::new(*algorithm));
        Some(match self {
            Accents::Folded => stemmed.filter(AsciiFoldingFilter).build(),
            Accents::Kept => stemmed.build(),
        })
    }

    /// `stem_analyzer` as a function, for the pair tokenizer.
    pub(crate) fn stem_analyzer_fn(self) -> fn(&str) -> Option<TextAnalyzer> {
        match self {
            Accents::Folded => |code| Accents::Folded.stem_analyzer(code),
            Accents::Kept => |code| Accents::Kept.stem_analyzer(code),
        }
    }

    fn plain_analyzer(self) -> TextAnalyzer {
        match self {
            Accents::Folded => words().filter(AsciiFoldingFilter).build(),
            Accents::Kept => words().build(),
        }
    }
}

fn words() -> tantivy::tokenizer::TextAnalyzerBuilder<impl Tokenizer> {
    TextAnalyzer::builder(crate::words::WordTokenizer::default())
        .filter(RemoveLongFilter::limit(40))
        .filter(LowerCaser)
}

/// Makes the stemmed fields' analyzers of `index` (whose words are made as
/// `accents` says) keep the pairs of common words they see (pair_tokens.rs): the index stage's, whose pair
/// tokenizer takes them.
pub(crate) fn register_pair_keeping(
    index: &Index,
    accents: Accents,
    common: &crate::pairs::Shared,
) {
    for (code, _, algorithm) in STEMMED {
        let keeping = crate::pair_tokens::StashPairs::new(code, common.clone());
        let stemmed = words().filter(CachedStemmer::new(algorithm));
        let analyzer = match accents {
            Accents::Folded => stemmed.filter(AsciiFoldingFilter).filter(keeping).build(),
            Accents::Kept => stemmed.filter(keeping).build(),
        };
        index.tokenizers().register(&accents.stem(code), analyzer);
    }
}

/// Registers every analyzer of both versions: an index finds its own by
/// the names its schema gives.
pub(crate) fn register(index: &Index) {
    for accents in Accents::BOTH {
        index
            .tokenizers()
            .register(accents.plain(), accents.plain_analyzer());
        for (code, _, _) in STEMMED {
            if let Some(stem) = accents.stem_analyzer(code) {
                index.tokenizers().register(&accents.stem(code), stem);
            }
        }
    }
    index.tokenizers().register(
        CJK,
        TextAnalyzer::builder(crate::cjk::CjkBigramTokenizer).build(),
    );
    index.tokenizers().register(PAIRS, RawTokenizer::default());
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(mut a: TextAnalyzer, text: &str) -> Vec<String> {
        let mut out = Vec::new();
        let mut stream = a.token_stream(text);
        while stream.advance() {
            out.push(stream.token().text.clone());
        }
        out
    }

    #[test]
    fn folded_words_lose_their_accents_after_the_stemmer() {
        let fr = |a: Accents, t| tokens(a.stem_analyzer("fr").unwrap(), t);
        assert_eq!(fr(Accents::Folded, "Népal séisme"), ["nepal", "seism"]);
        assert_eq!(fr(Accents::Folded, "nepal seisme"), ["nepal", "seism"]);
        assert_eq!(fr(Accents::Kept, "Népal séisme"), ["népal", "séism"]);
        let en = |t| tokens(Accents::Folded.stem_analyzer("en").unwrap(), t);
        assert_eq!(en("São Paulo, Zürich"), en("Sao Paulo, Zurich"));
        assert_eq!(
            tokens(Accents::Folded.plain_analyzer(), "Straße Łódź"),
            ["strasse", "lodz"]
        );
        assert_eq!(
            tokens(Accents::Folded.plain_analyzer(), "東京 Москва"),
            ["東京", "москва"],
            "other scripts pass"
        );
    }
}
