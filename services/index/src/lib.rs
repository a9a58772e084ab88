//! The index stage and search: a Tantivy index of summarized articles.
//!
//! Title and body are indexed stemmed in the article's language (plain
//! words in a language with no stemmer), and CJK text as bigrams
//! (schema.rs). Documents are upserted by id,
//! and the consumed offsets are stored in the Tantivy commit payload, so a
//! replay after a crash neither loses nor repeats a document: inputs at or
//! below the stored offset are skipped. Reposts (dedup's `duplicates`) are
//! kept as small documents listed among their original's copies
//! (copies.rs).

mod analyzers;
mod cjk;
mod collapse;
mod copies;
mod dictionary;
mod document;
mod facets;
mod filters;
mod fuzzy;
mod hits;
mod lone_char;
mod merges;
pub mod metrics;
mod pace;
mod pair_tokens;
mod pairs;
mod phrases;
mod prefix;
mod query;
mod query_tree;
mod request;
mod schema;
mod search;
mod settings;
mod shards;
mod snippet;
mod spec;
mod stage;
mod stem;
mod stories;
mod view;
mod warm;
mod words;
mod writer;

use std::collections::BTreeMap;

pub use cjk::CjkBigramTokenizer;
pub use request::{
    check_language, check_query, parse_date, Facets, Hit, SearchRequest, SearchResults, Sort,
    MAX_LIMIT, MAX_QUERY_CHARS, MAX_QUERY_NESTING, SNIPPET_CHARS,
};
pub use search::SearchIndex;
pub use settings::IndexSettings;
pub use spec::IndexSpec;
pub use stage::IndexStage;
pub use stories::{Report, StoriesRequest, StoryList, StorySort, StorySummary, StoryView};
pub use view::{ArticleView, Copy, Stats};
pub use warm::warm_page_cache;

/// The name under which each article's fetch-to-searchable time is kept
/// (gleaner_core::samples) for the end-of-run summary.
pub const FETCH_TO_SEARCHABLE: &str = "fetch_to_searchable_seconds";

/// Consumed offsets per topic and partition, kept in the commit payload.
type Offsets = BTreeMap<String, BTreeMap<i32, i64>>;
