//! The index's fields and tokenizers. Title and body are stored as they
//! are, and their words indexed once: with the stemmer of the article's
//! language (one field per language Tantivy stems, so a query is stemmed
//! by each language's rules against that language's articles only), or as
//! plain lowercase words in a language Tantivy does not stem; and CJK text
//! again as bigrams. Indexing every text both plain and stemmed was twice
//! the work for the same articles found (and twice the postings a query
//! reads).

use crate::analyzers::{Accents, CJK};
use anyhow::Context;
use std::path::Path;
use tantivy::schema::{
    DateOptions, DateTimePrecision, Field, IndexRecordOption, Schema, TextFieldIndexing,
    TextOptions, FAST, INDEXED, STORED, STRING,
};
use tantivy::Index;

pub(crate) use crate::analyzers::{PAIRS, STEMMED};

/// Which stemmed fields an article of `language` goes to: its own, or
/// English when the language is unknown (most such pages are English);
/// `None` for a language Tantivy does not stem (plain and CJK fields only).
pub(crate) fn stem_slot(language: Option<&str>) -> Option<usize> {
    let code = match language {
        None | Some("") => "en",
        // Bokmål and Nynorsk share the Norwegian stemmer.
        Some("nb" | "nn") => "no",
        Some(l) => l,
    };
    STEMMED.iter().position(|(c, _, _)| *c == code)
}

/// The fields of the index.
#[derive(Clone, Copy)]
pub(crate) struct Fields {
    pub(crate) id: Field,
    pub(crate) url: Field,
    /// As written (stored, not indexed).
    pub(crate) title: Field,
    /// Lowercase words, for an article in a language with no stemmer.
    pub(crate) title_plain: Field,
    pub(crate) title_cjk: Field,
    pub(crate) body: Field,
    pub(crate) body_plain: Field,
    pub(crate) body_cjk: Field,
    /// Title and body stemmed, one field each per language of `STEMMED`.
    pub(crate) title_stem: [Field; 18],
    pub(crate) body_stem: [Field; 18],
    /// Adjacent common words of the stemmed fields, one term a pair
    /// ("en of the"; pairs.rs): two-word phrases of common words.
    pub(crate) title_pairs: Field,
    pub(crate) body_pairs: Field,
    pub(crate) author: Field,
    pub(crate) date: Field,
    /// ISO 639-1 code (fast: filters and facets).
    pub(crate) language: Field,
    pub(crate) summaries: Field,
    pub(crate) fetched_at: Field,
    /// The dedup cluster: copies of one article share it (fast).
    pub(crate) cluster: Field,
    /// The news story it reports on (fast: grouping, story lists); for an
    /// article no stories stage saw, its dedup cluster.
    pub(crate) story: Field,
    /// `cluster` and `story` as numbers (`group_key`), to group hits by:
    /// naming a hit's cluster from the string column decompressed a block
    /// of its dictionary per hit, 40 a page.
    pub(crate) cluster_key: Field,
    pub(crate) story_key: Field,
    /// When the event was reported: the article's date, else its fetch
    /// time (fast: sorting, date ranges, facets by month; copies are
    /// collapsed to the earliest).
    pub(crate) published: Field,
    /// The URL's registered domain, `bbc.co.uk` (fast: filters, facets).
    pub(crate) site: Field,
    /// Whether the article has summaries (a filter).
    pub(crate) has_summary: Field,
    /// When the index took it in (fast: standing queries ask what is new).
    pub(crate) indexed: Field,
    /// The publication's name, as the page gives it (stored).
    pub(crate) site_name: Field,
    /// The page's canonical URL and its lead image's (stored).
    pub(crate) canonical_url: Field,
    pub(crate) image: Field,
    /// Every author, one value each (stored).
    pub(crate) authors: Field,
    /// A repost dedup dropped, kept only to be listed among its original's
    /// copies: no text, never a hit of its own (search.rs leaves it out).
    pub(crate) copy: Field,
    /// A repost's original (its id; stored).
    pub(crate) copy_of: Field,
    /// The authors' names as words (`author:olsen`), folded as the plain
    /// fields are; an index made before folding has none.
    pub(crate) author_words: Option<Field>,
}

/// The schema of an index whose words are made as `accents` says
/// (analyzers.rs): the same fields either way, their tokenizers named
/// apart, and the authors' words only in an index that folds (one made
/// before holds none).
pub(crate) fn schema(accents: Accents) -> (Schema, Fields) {
    let mut b = Schema::builder();
    let text = |tok: &str| {
        TextOptions::default().set_indexing_options(
            TextFieldIndexing::default()
                .set_tokenizer(tok)
                .set_index_option(IndexRecordOption::WithFreqsAndPositions),
        )
    };
    // Counted but without positions: a pair term is looked up whole.
    let pairs = || {
        TextOptions::default().set_indexing_options(
            TextFieldIndexing::default()
                .set_tokenizer(PAIRS)
                .set_index_option(IndexRecordOption::WithFreqs),
        )
    };
    let f = Fields {
        id: b.add_text_field("id", STRING | STORED),
        url: b.add_text_field("url", STRING | STORED),
        title: b.add_text_field("title", STORED),
        title_plain: b.add_text_field("title_plain", text(accents.plain())),
        title_cjk: b.add_text_field("title_cjk", text(CJK)),
        body: b.add_text_field("body", STORED),
        body_plain: b.add_text_field("body_plain", text(accents.plain())),
        body_cjk: b.add_text_field("body_cjk", text(CJK)),
        title_stem: STEMMED.map(|(code, _, _)| {
            b.add_text_field(&format!("title_{code}"), text(&accents.stem(code)))
        }),
        body_stem: STEMMED.map(|(code, _, _)| {
            b.add_text_field(&format!("body_{code}"), text(&accents.stem(code)))
        }),
        title_pairs: b.add_text_field("title_pairs", pairs()),
        body_pairs: b.add_text_field("body_pairs", pairs()),
        author: b.add_text_field("author", STORED),
        date: b.add_text_field("date", STRING | STORED),
        language: b.add_text_field("language", STRING | STORED | FAST),
        summaries: b.add_text_field("summaries", STORED),
        fetched_at: b.add_text_field("fetched_at", STORED),
        cluster: b.add_text_field("cluster", STRING | STORED | FAST),
        story: b.add_text_field("story", STRING | STORED | FAST),
        cluster_key: b.add_u64_field("cluster_key", FAST),
        story_key: b.add_u64_field("story_key", FAST),
        published: b.add_date_field(
            "published",
            DateOptions::from(INDEXED | STORED | FAST).set_precision(DateTimePrecision::Seconds),
        ),
        site: b.add_text_field("site", STRING | STORED | FAST),
        has_summary: b.add_bool_field("has_summary", INDEXED | FAST),
        indexed: b.add_date_field(
            "indexed",
            DateOptions::from(INDEXED | FAST).set_precision(DateTimePrecision::Seconds),
        ),
        site_name: b.add_text_field("site_name", STORED),
        canonical_url: b.add_text_field("canonical_url", STORED),
        image: b.add_text_field("image", STORED),
        authors: b.add_text_field("authors", STORED),
        copy: b.add_bool_field("copy", INDEXED),
        copy_of: b.add_text_field("copy_of", STRING | STORED),
        author_words: (accents == Accents::Folded)
            .then(|| b.add_text_field("author_words", text(accents.plain()))),
    };
    (b.build(), f)
}

/// A group's value (a cluster or story id) as a number: SipHash-1-3 with
/// fixed keys, the same in every build (two ids of 64 bits colliding in an
/// index of a million groups: about one chance in 37 million).
pub(crate) fn group_key(value: &str) -> u64 {
    use std::hash::Hasher;
    let mut h = siphasher::sip::SipHasher13::new_with_keys(0x0067_6c65_616e_6572, 0x0067_726f_7570);
    h.write(value.as_bytes());
    h.finish()
}

/// The fields of `index` if its schema is one gleaner makes (either
/// version of its analyzers).
fn known_fields(index: &Index) -> Option<Fields> {
    Accents::BOTH.into_iter().find_map(|accents| {
        let (schema, fields) = schema(accents);
        (index.schema() == schema).then_some(fields)
    })
}

/// Opens the index in `dir`, creating it if it does not exist; a new one
/// folds accents (analyzers.rs).
pub(crate) fn open_or_create(dir: &Path) -> anyhow::Result<(Index, Fields)> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let context = || format!("opening the index in {}", dir.display());
    let mmap = tantivy::directory::MmapDirectory::open(dir).with_context(context)?;
    let index = if Index::exists(&mmap).with_context(context)? {
        Index::open(mmap).with_context(context)?
    } else {
        let (schema, _) = schema(Accents::Folded);
        Index::create(mmap, schema, tantivy::IndexSettings::default()).with_context(context)?
    };
    let fields = known_fields(&index).ok_or_else(|| {
        anyhow::anyhow!(
            "the index in {} was made by another version of gleaner (its fields differ); \
             rebuild it: move it away and run `gleaner run --refetch --data {}` (or replay \
             the summarized and duplicates topics into the index service)",
            dir.display(),
            dir.parent().unwrap_or(dir).display()
        )
    })?;
    crate::analyzers::register(&index);
    Ok((index, fields))
}

/// Every value of a stored text field, in the order added.
pub(crate) fn all_texts(doc: &tantivy::TantivyDocument, field: Field) -> Vec<String> {
    use tantivy::schema::Value;
    doc.get_all(field)
        .filter_map(|v| v.as_str().map(str::to_string))
        .collect()
}

/// Several shards, searched as one read-only index (shards.rs).
pub(crate) fn open_union(dirs: &[std::path::PathBuf]) -> anyhow::Result<(Index, Fields)> {
    let union = crate::shards::ShardsDirectory::open(dirs)?;
    let index = Index::open(union)?;
    let fields = known_fields(&index).ok_or_else(|| {
        anyhow::anyhow!(
            "the shards {} were made by another version of gleaner (their fields differ)",
            dirs.iter()
                .map(|d| d.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )
    })?;
    crate::analyzers::register(&index);
    Ok((index, fields))
}

/// The first value of a stored text field ("" when it has none).
pub(crate) fn stored_text(d: &tantivy::TantivyDocument, field: Field) -> String {
    use tantivy::schema::Value;
    d.get_first(field)
        .and_then(|v| v.as_str())
        .unwrap_or("")
        .to_string()
}

/// The stored documents whose `field` holds `value`, at most `n`.
pub(crate) fn docs_with_term(
    searcher: &tantivy::Searcher,
    field: Field,
    value: &str,
    n: usize,
) -> anyhow::Result<Vec<tantivy::TantivyDocument>> {
    let q = tantivy::query::TermQuery::new(
        tantivy::Term::from_field_text(field, value),
        IndexRecordOption::Basic,
    );
    let top = searcher.search(
        &q,
        &tantivy::collector::TopDocs::with_limit(n.max(1)).order_by_score(),
    )?;
    top.into_iter()
        .map(|(_, addr)| Ok(searcher.doc(addr)?))
        .collect()
}
