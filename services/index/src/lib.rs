//! The index stage and search: a Tantivy index of summarized articles.
//!
//! Text is indexed twice: with an English stemming tokenizer, and with a
//! CJK bigram tokenizer for Chinese and Japanese (no spaces between words).
//! Documents are upserted by id, and the consumed offsets are stored in the
//! Tantivy commit payload, so a replay after a crash neither loses nor
//! repeats a document: inputs at or below the stored offset are skipped.

mod cjk;

use anyhow::Context;
use async_trait::async_trait;
use gleaner_core::messages::Summarized;
use gleaner_core::stage::{Handled, Input, Stage};
use gleaner_core::Topic;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use tantivy::collector::TopDocs;
use tantivy::query::QueryParser;
use tantivy::schema::{
    Field, IndexRecordOption, Schema, TextFieldIndexing, TextOptions, Value, STORED, STRING,
};
use tantivy::snippet::SnippetGenerator;
use tantivy::tokenizer::{LowerCaser, RemoveLongFilter, SimpleTokenizer, Stemmer, TextAnalyzer};
use tantivy::{Index, IndexReader, IndexWriter, ReloadPolicy, TantivyDocument, Term};

pub use cjk::CjkBigramTokenizer;

const EN: &str = "gleaner_en";
const CJK: &str = "gleaner_cjk";

/// The fields of the index.
#[derive(Clone, Copy)]
struct Fields {
    id: Field,
    url: Field,
    title: Field,
    title_cjk: Field,
    body: Field,
    body_cjk: Field,
    author: Field,
    date: Field,
    language: Field,
    summaries: Field,
    fetched_at: Field,
}

fn schema() -> (Schema, Fields) {
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
fn open_or_create(dir: &Path) -> anyhow::Result<(Index, Fields)> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let (schema, fields) = schema();
    let mmap = tantivy::directory::MmapDirectory::open(dir)?;
    let index = Index::open_or_create(mmap, schema)
        .context("opening the index (was it made by another version?)")?;
    register_tokenizers(&index);
    Ok((index, fields))
}

/// Consumed offsets per topic and partition, kept in the commit payload.
type Offsets = BTreeMap<String, BTreeMap<i32, i64>>;

/// The index stage: `summarized` in, nothing out.
pub struct IndexStage {
    fields: Fields,
    writer: Option<IndexWriter>,
    offsets: Offsets,
    pub indexed: u64,
    input: Topic,
}

impl IndexStage {
    pub fn open(dir: &Path, heap_bytes: usize) -> anyhow::Result<Self> {
        let (index, fields) = open_or_create(dir)?;
        let payload = index.load_metas()?.payload;
        let offsets: Offsets = match payload {
            Some(p) => {
                serde_json::from_str(&p).context("reading offsets from the index commit payload")?
            }
            None => Offsets::new(),
        };
        let writer = index.writer_with_num_threads(1, heap_bytes.max(15_000_000))?;
        Ok(IndexStage {
            fields,
            writer: Some(writer),
            offsets,
            indexed: 0,
            input: Topic::Summarized,
        })
    }

    /// Reads `unique` instead of `summarized`: when summaries are made
    /// before dedup, the unique articles already carry them.
    pub fn reading_unique(mut self, yes: bool) -> Self {
        self.input = if yes {
            Topic::Unique
        } else {
            Topic::Summarized
        };
        self
    }

    /// The offsets this index has made durable.
    pub fn offsets(&self) -> &Offsets {
        &self.offsets
    }

    fn already_indexed(&self, input: &Input) -> bool {
        input.origin.as_ref().is_some_and(|o| {
            self.offsets
                .get(&o.topic)
                .and_then(|p| p.get(&o.partition))
                .is_some_and(|&done| o.offset <= done)
        })
    }

    fn document(&self, s: &Summarized) -> anyhow::Result<TantivyDocument> {
        let f = &self.fields;
        let a = &s.article;
        let mut d = TantivyDocument::default();
        d.add_text(f.id, &a.id);
        d.add_text(f.url, &a.url);
        d.add_text(f.title, &a.title);
        d.add_text(f.title_cjk, &a.title);
        d.add_text(f.body, &a.text);
        d.add_text(f.body_cjk, &a.text);
        d.add_text(f.author, a.author.as_deref().unwrap_or(""));
        d.add_text(f.date, a.date.as_deref().unwrap_or(""));
        d.add_text(f.language, a.language.as_deref().unwrap_or(""));
        d.add_text(f.summaries, serde_json::to_string(&s.summaries)?);
        d.add_text(f.fetched_at, &a.fetched_at);
        Ok(d)
    }
}

#[async_trait]
impl Stage for IndexStage {
    fn name(&self) -> &'static str {
        "index"
    }
    fn inputs(&self) -> Vec<Topic> {
        vec![self.input]
    }
    fn outputs(&self) -> Vec<Topic> {
        vec![]
    }

    async fn handle(&mut self, input: &Input) -> Handled {
        self.handle_batch(std::slice::from_ref(input))
            .await
            .pop()
            .unwrap_or(Ok(vec![]))
    }

    /// Adds the batch and commits once, with the batch's offsets in the
    /// payload; the runner stores the Kafka offsets only after this returns.
    async fn handle_batch(&mut self, inputs: &[Input]) -> Vec<Handled> {
        let mut results = Vec::with_capacity(inputs.len());
        let mut docs = Vec::new();
        let mut offsets = self.offsets.clone();
        for input in inputs {
            if self.already_indexed(input) {
                results.push(Ok(vec![]));
                continue;
            }
            let doc = input
                .decode::<Summarized>()
                .and_then(|s| Ok((s.article.id.clone(), self.document(&s)?)));
            match doc {
                Ok(d) => {
                    docs.push(d);
                    results.push(Ok(vec![]));
                }
                Err(e) => results.push(Err(e)),
            }
            if let Some(o) = &input.origin {
                let p = offsets
                    .entry(o.topic.clone())
                    .or_default()
                    .entry(o.partition)
                    .or_insert(o.offset);
                *p = (*p).max(o.offset);
            }
        }
        let Some(mut writer) = self.writer.take() else {
            return inputs
                .iter()
                .map(|_| Err(anyhow::anyhow!("index writer is closed")))
                .collect();
        };
        let id_field = self.fields.id;
        let n = docs.len() as u64;
        let payload = serde_json::to_string(&offsets).unwrap_or_default();
        // Adding and committing is blocking I/O: off the async runtime.
        let committed = tokio::task::spawn_blocking(move || {
            let r = (|| -> anyhow::Result<()> {
                for (id, doc) in docs {
                    writer.delete_term(Term::from_field_text(id_field, &id));
                    writer.add_document(doc)?;
                }
                let mut commit = writer.prepare_commit()?;
                commit.set_payload(&payload);
                commit.commit()?;
                Ok(())
            })();
            (writer, r)
        })
        .await;
        match committed {
            Ok((writer, Ok(()))) => {
                self.writer = Some(writer);
                self.offsets = offsets;
                self.indexed += n;
                results
            }
            Ok((mut writer, Err(e))) => {
                let _ = writer.rollback();
                self.writer = Some(writer);
                let msg = format!("index commit failed: {e:#}");
                inputs
                    .iter()
                    .map(|_| Err(anyhow::anyhow!(msg.clone())))
                    .collect()
            }
            Err(e) => {
                let msg = format!("index task failed: {e}");
                inputs
                    .iter()
                    .map(|_| Err(anyhow::anyhow!(msg.clone())))
                    .collect()
            }
        }
    }

    async fn close(&mut self) -> anyhow::Result<()> {
        if let Some(w) = self.writer.take() {
            tokio::task::spawn_blocking(move || w.wait_merging_threads()).await??;
        }
        Ok(())
    }
}

/// One search result.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Hit {
    pub id: String,
    pub url: String,
    pub title: String,
    pub score: f32,
    pub snippet: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub author: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
    pub summaries: serde_json::Value,
}

/// Read access to an index, refreshed as the index stage commits.
pub struct SearchIndex {
    index: Index,
    reader: IndexReader,
    fields: Fields,
    snippet_chars: usize,
    pub dir: PathBuf,
}

impl SearchIndex {
    pub fn open(dir: &Path, snippet_chars: usize) -> anyhow::Result<Self> {
        anyhow::ensure!(
            dir.join("meta.json").exists(),
            "no index in {} (run `gleaner run` or the index service first)",
            dir.display()
        );
        let (index, fields) = open_or_create(dir)?;
        let reader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::OnCommitWithDelay)
            .try_into()?;
        Ok(SearchIndex {
            index,
            reader,
            fields,
            snippet_chars,
            dir: dir.to_path_buf(),
        })
    }

    /// Number of documents searchable now.
    pub fn num_docs(&self) -> u64 {
        self.reader.searcher().num_docs()
    }

    /// Ranked hits for a query in Tantivy's query language (words, "phrases",
    /// AND/OR, -exclusions). Malformed syntax is read leniently, not refused.
    pub fn search(&self, query: &str, limit: usize) -> anyhow::Result<Vec<Hit>> {
        let f = self.fields;
        let mut parser =
            QueryParser::for_index(&self.index, vec![f.title, f.body, f.title_cjk, f.body_cjk]);
        parser.set_field_boost(f.title, 2.0);
        parser.set_field_boost(f.title_cjk, 2.0);
        let (query, _errors) = parser.parse_query_lenient(query);
        let searcher = self.reader.searcher();
        let top = searcher.search(&query, &TopDocs::with_limit(limit.max(1)).order_by_score())?;
        let mut snippets = SnippetGenerator::create(&searcher, &*query, f.body)?;
        snippets.set_max_num_chars(self.snippet_chars);
        let mut hits = Vec::with_capacity(top.len());
        for (score, addr) in top {
            let doc: TantivyDocument = searcher.doc(addr)?;
            let get = |field: Field| {
                doc.get_first(field)
                    .and_then(|v| v.as_str())
                    .unwrap_or("")
                    .to_string()
            };
            let opt = |field: Field| Some(get(field)).filter(|s| !s.is_empty());
            let body = get(f.body);
            let mut snippet = sentence_snippet(
                &body,
                snippets.snippet_from_doc(&doc).fragment(),
                self.snippet_chars,
            );
            if snippet.is_empty() {
                // No query term in the body (a title or CJK match): lead text.
                snippet = truncate_chars(&body, self.snippet_chars);
            }
            hits.push(Hit {
                id: get(f.id),
                url: get(f.url),
                title: get(f.title),
                score,
                snippet,
                author: opt(f.author),
                date: opt(f.date),
                language: opt(f.language),
                summaries: serde_json::from_str(&get(f.summaries))
                    .unwrap_or(serde_json::Value::Null),
            });
        }
        Ok(hits)
    }
}

fn truncate_chars(s: &str, n: usize) -> String {
    s.chars().take(n).collect()
}

/// The matched fragment moved to start where its sentence starts (when that
/// is at most a fifth of the snippet back), cut at a word to `max_chars`,
/// with `…` where it starts or ends mid-sentence. Empty when there is no
/// fragment.
fn sentence_snippet(body: &str, fragment: &str, max_chars: usize) -> String {
    let fragment = fragment.trim();
    if fragment.is_empty() {
        return String::new();
    }
    let Some(at) = body.find(fragment) else {
        return fragment.to_string();
    };
    let ends_sentence = |c: char| matches!(c, '.' | '!' | '?' | '\n' | '。' | '！' | '？');
    let look_back = (max_chars / 5).max(1);
    // Byte offset where the fragment's sentence starts, if close enough.
    let mut start = None;
    for (n, (i, c)) in body[..at].char_indices().rev().enumerate() {
        if ends_sentence(c) {
            start = Some(i + c.len_utf8());
            break;
        }
        if n >= look_back {
            break;
        }
    }
    // Else the next sentence, if it starts early in the fragment
    // ("falling. The agreement, ..." starts at "The").
    let next_sentence = || {
        let mut chars = body[at..].char_indices().take(look_back).peekable();
        while let Some((i, c)) = chars.next() {
            if ends_sentence(c) && chars.peek().is_some_and(|&(_, n)| n.is_whitespace()) {
                return Some(at + i + c.len_utf8());
            }
        }
        None
    };
    let start = match start {
        Some(s) => s,
        None if at == 0 => 0,
        None => next_sentence().unwrap_or(at),
    };
    let from_sentence = start == 0 || body[..start].trim_end().ends_with(ends_sentence);
    let rest = body[start..].trim_start();
    let mut out: String = rest.chars().take(max_chars).collect();
    if out.len() < rest.len() {
        // Cut at the last space, if one is in the second half.
        if let Some(sp) = out.rfind(' ').filter(|&sp| sp > out.len() / 2) {
            out.truncate(sp);
        }
        let trimmed = out.trim_end().len();
        out.truncate(trimmed);
        if !out.ends_with(ends_sentence) {
            out.push('…');
        }
    }
    if !from_sentence {
        out.insert(0, '…');
    }
    out
}

#[cfg(test)]
mod snippet_tests {
    use super::sentence_snippet;

    #[test]
    fn snippets_start_at_a_sentence_and_cut_at_a_word() {
        let body = "Rain fell all day. The agreement, signed on Monday, ends the strike at the port after nine weeks. Talks resume in May.";
        // Fragment starting mid-sentence, near its start: moved back.
        assert_eq!(
            sentence_snippet(body, "signed on Monday, ends the strike", 80),
            "The agreement, signed on Monday, ends the strike at the port after nine weeks."
        );
        // The sentence start is too far back, and the next one too far on:
        // an ellipsis says so.
        assert_eq!(
            sentence_snippet(body, "port after nine weeks.", 40),
            "…port after nine weeks. Talks resume in…"
        );
        // The next sentence starts early in the fragment: it starts there.
        assert_eq!(
            sentence_snippet(body, "weeks. Talks resume", 40),
            "Talks resume in May."
        );
        // Whole sentences that fit end without an ellipsis.
        assert_eq!(
            sentence_snippet(body, "Talks resume in May.", 200),
            "Talks resume in May."
        );
        assert_eq!(sentence_snippet(body, "  ", 50), "");
        // Multi-byte text is cut on characters, never mid-character.
        let cjk = "東京は晴れ。明日は雨が降るでしょう。週末は曇り。";
        assert_eq!(
            sentence_snippet(cjk, "雨が降る", 15),
            "明日は雨が降るでしょう。週末は…"
        );
        assert_eq!(sentence_snippet(cjk, "雨が降る", 8), "…雨が降るでしょう…");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gleaner_core::messages::{Article, Summary};
    use gleaner_core::stage::{Origin, Output};

    fn input(id: &str, title: &str, text: &str, offset: i64) -> Input {
        let s = Summarized {
            article: Article {
                id: id.into(),
                url: format!("http://x.test/{id}"),
                title: title.into(),
                author: None,
                date: None,
                language: None,
                text: text.into(),
                extractor: "auto".into(),
                fetched_at: String::new(),
            },
            summaries: vec![Summary {
                name: "one".into(),
                text: "s".into(),
            }],
            engine: "extractive".into(),
        };
        let o = Output::json(Topic::Summarized, id, &s);
        Input {
            topic: Topic::Summarized,
            key: Some(id.into()),
            payload: Some(o.payload),
            origin: Some(Origin {
                topic: "gleaner.summarized".into(),
                partition: 0,
                offset,
            }),
        }
    }

    #[tokio::test]
    async fn upsert_stem_cjk_and_offsets() {
        let dir = tempfile::tempdir().unwrap();
        let mut st = IndexStage::open(dir.path(), 20_000_000).unwrap();
        let r = st
            .handle_batch(&[
                input(
                    "a",
                    "Bridge reopens",
                    "The harbour bridge reopened after repairs.",
                    0,
                ),
                input("b", "東京の天気", "東京は明日雨が降るでしょう。", 1),
            ])
            .await;
        assert!(r.iter().all(|x| x.is_ok()));
        // The same id again replaces, it does not add.
        st.handle_batch(&[input(
            "a",
            "Bridge reopens",
            "The harbour bridge reopened after long repairs.",
            2,
        )])
        .await;
        st.close().await.unwrap();

        let s = SearchIndex::open(dir.path(), 200).unwrap();
        assert_eq!(s.num_docs(), 2);
        let hits = s.search("repair", 10).unwrap();
        assert_eq!(hits.len(), 1, "stemming matches repairs");
        assert!(hits[0].snippet.contains("long repairs"));
        assert_eq!(
            hits[0].snippet, "The harbour bridge reopened after long repairs.",
            "a snippet starts where its sentence starts"
        );
        assert_eq!(
            s.search("\"harbour bridge reopened\"", 10).unwrap().len(),
            1
        );
        assert_eq!(s.search("天気", 10).unwrap()[0].id, "b");
        assert_eq!(s.search("雨が降る", 10).unwrap()[0].id, "b");

        // Reopened, the stage knows offset 2 is done and skips a replay.
        let mut st = IndexStage::open(dir.path(), 20_000_000).unwrap();
        assert_eq!(st.offsets()["gleaner.summarized"][&0], 2);
        st.handle_batch(&[input("c", "Replayed", "should be skipped", 2)])
            .await;
        st.close().await.unwrap();
        let s = SearchIndex::open(dir.path(), 200).unwrap();
        assert_eq!(s.num_docs(), 2);
    }
}
