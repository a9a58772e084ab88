//! The index's fields and tokenizers: text is indexed twice, with an
//! English stemming tokenizer and with a CJK bigram tokenizer.

use crate::cjk::CjkBigramTokenizer;
use anyhow::Context;
use std::path::Path;
use tantivy::schema::{
    Field, IndexRecordOption, Schema, TextFieldIndexing, TextOptions, STORED, STRING,
};
use tantivy::tokenizer::{LowerCaser, RemoveLongFilter, SimpleTokenizer, Stemmer, TextAnalyzer};
use tantivy::Index;

pub(crate) const EN: &str = "gleaner_en";
pub(crate) const CJK: &str = "gleaner_cjk";

/// The fields of the index.
#[derive(Clone, Copy)]
pub(crate) struct Fields {
    pub(crate) id: Field,
    pub(crate) url: Field,
    pub(crate) title: Field,
    pub(crate) title_cjk: Field,
    pub(crate) body: Field,
    pub(crate) body_cjk: Field,
    pub(crate) author: Field,
    pub(crate) date: Field,
    pub(crate) language: Field,
    pub(crate) summaries: Field,
    pub(crate) fetched_at: Field,
    /// The dedup cluster: copies of one article share it.
    pub(crate) cluster: Field,
    /// Publication time (Unix seconds), by which copies are collapsed.
    pub(crate) published: Field,
}

pub(crate) fn schema() -> (Schema, Fields) {
    let mut b = Schema::builder();
    let text = |tok: &str, stored: bool| {
        let o = TextOptions::default().set_indexing_options(
            TextFieldIndexing::default()
                .set_tokenizer(tok)
                .set_index_option(IndexRecordOption::WithFreqsAndPositions),
        );
        if stored {
            o.set_stored()
        } else {
            o
        }
    };
    let f = Fields {
        id: b.add_text_field("id", STRING | STORED),
        url: b.add_text_field("url", STRING | STORED),
        title: b.add_text_field("title", text(EN, true)),
        title_cjk: b.add_text_field("title_cjk", text(CJK, false)),
        body: b.add_text_field("body", text(EN, true)),
        body_cjk: b.add_text_field("body_cjk", text(CJK, false)),
        author: b.add_text_field("author", STORED),
        date: b.add_text_field("date", STRING | STORED),
        language: b.add_text_field("language", STRING | STORED),
        summaries: b.add_text_field("summaries", STORED),
        fetched_at: b.add_text_field("fetched_at", STORED),
        cluster: b.add_text_field("cluster", STRING | STORED),
        published: b.add_i64_field("published", STORED),
    };
    (b.build(), f)
}

fn register_tokenizers(index: &Index) {
    let en = TextAnalyzer::builder(SimpleTokenizer::default())
        .filter(RemoveLongFilter::limit(40))
        .filter(LowerCaser)
        .filter(Stemmer::new(tantivy::tokenizer::Language::English))
        .build();
    index.tokenizers().register(EN, en);
    index
        .tokenizers()
        .register(CJK, TextAnalyzer::builder(CjkBigramTokenizer).build());
}

/// Opens the index in `dir`, creating it if it does not exist.
pub(crate) fn open_or_create(dir: &Path) -> anyhow::Result<(Index, Fields)> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let (schema, fields) = schema();
    let mmap = tantivy::directory::MmapDirectory::open(dir)?;
    let index = Index::open_or_create(mmap, schema)
        .context("opening the index (was it made by another version?)")?;
    register_tokenizers(&index);
    Ok((index, fields))
}
