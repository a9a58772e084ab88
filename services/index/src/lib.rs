//! The index stage and search: a Tantivy index of summarized articles.
//!
//! Text is indexed twice: with an English stemming tokenizer, and with a
//! CJK bigram tokenizer for Chinese and Japanese (no spaces between words).
//! Documents are upserted by id, and the consumed offsets are stored in the
//! Tantivy commit payload, so a replay after a crash neither loses nor
//! repeats a document: inputs at or below the stored offset are skipped.

mod cjk;
mod schema;
mod search;
mod spec;

use anyhow::Context;
use async_trait::async_trait;
use gleaner_core::messages::Summarized;
use gleaner_core::stage::{Handled, Input, Stage};
use gleaner_core::Topic;
use schema::{open_or_create, Fields};
use std::collections::BTreeMap;
use std::path::Path;
use tantivy::{IndexWriter, TantivyDocument, Term};

pub use cjk::CjkBigramTokenizer;
pub use search::{Hit, SearchIndex};
pub use spec::IndexSpec;

/// Consumed offsets per topic and partition, kept in the commit payload.
type Offsets = BTreeMap<String, BTreeMap<i32, i64>>;

/// The index stage: `summarized` in, nothing out.
pub struct IndexStage {
    fields: Fields,
    writer: Option<IndexWriter>,
    offsets: Offsets,
    pub indexed: u64,
    input: Topic,
    /// Whether the input carries summaries (`summarized`) or bare articles.
    kind: Topic,
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
            input: Topic::SUMMARIZED,
            kind: Topic::SUMMARIZED,
        })
    }

    /// Reads `topic` (the one before it in the pipeline), which carries
    /// messages of `kind`: `summarized`, or `articles` (a pipeline without
    /// summarize: indexed with no summaries).
    pub fn reading(mut self, topic: Topic, kind: Topic) -> Self {
        self.input = topic;
        self.kind = kind;
        self
    }

    fn decode(&self, input: &Input) -> anyhow::Result<Summarized> {
        if self.kind == Topic::ARTICLES {
            Ok(Summarized {
                article: input.decode()?,
                summaries: vec![],
                engine: String::new(),
            })
        } else {
            input.decode()
        }
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
        // No cluster (dedup did not see it): the article is its own.
        d.add_text(f.cluster, a.cluster.as_deref().unwrap_or(&a.id));
        let now = gleaner_core::util::unix_now() as i64;
        d.add_i64(f.published, gleaner_core::event::Event::of(a, now).secs);
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
            let doc = self
                .decode(input)
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

#[cfg(test)]
mod tests {
    use super::*;
    use gleaner_core::messages::{Article, Summary};
    use gleaner_core::stage::{Origin, Output};

    fn input(id: &str, title: &str, text: &str, offset: i64) -> Input {
        copy_input(id, None, "", title, text, offset)
    }

    /// An input in a dedup cluster, published on `date`.
    fn copy_input(
        id: &str,
        cluster: Option<&str>,
        date: &str,
        title: &str,
        text: &str,
        offset: i64,
    ) -> Input {
        let s = Summarized {
            article: Article {
                id: id.into(),
                url: format!("http://x.test/{id}"),
                title: title.into(),
                author: None,
                date: Some(date.to_string()).filter(|d| !d.is_empty()),
                language: None,
                text: text.into(),
                extractor: "auto".into(),
                fetched_at: String::new(),
                cluster: cluster.map(str::to_string),
            },
            summaries: vec![Summary {
                name: "one".into(),
                text: "s".into(),
            }],
            engine: "extractive".into(),
        };
        let o = Output::of(Topic::SUMMARIZED, id, &s);
        Input {
            topic: Topic::SUMMARIZED,
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

    #[tokio::test]
    async fn copies_of_one_article_collapse_to_the_earliest_published() {
        let dir = tempfile::tempdir().unwrap();
        let mut st = IndexStage::open(dir.path(), 20_000_000).unwrap();
        let text = "The harbour bridge reopened after eight months of repairs.";
        let r = st
            .handle_batch(&[
                // The first copy seen was published last.
                copy_input(
                    "late",
                    Some("late"),
                    "2026-03-02",
                    "Bridge reopens",
                    text,
                    0,
                ),
                copy_input(
                    "early",
                    Some("late"),
                    "2026-03-01",
                    "Bridge reopens",
                    text,
                    1,
                ),
                copy_input(
                    "other",
                    None,
                    "",
                    "Bridge tolls",
                    "Tolls on the harbour bridge rise.",
                    2,
                ),
            ])
            .await;
        assert!(r.iter().all(|x| x.is_ok()));
        st.close().await.unwrap();
        let s = SearchIndex::open(dir.path(), 200).unwrap();
        assert_eq!(s.num_docs(), 3);
        let hits = s.search("harbour bridge", 10).unwrap();
        let ids: Vec<&str> = hits.iter().map(|h| h.id.as_str()).collect();
        assert_eq!(ids.len(), 2, "{ids:?}");
        let copy = hits
            .iter()
            .find(|h| h.cluster.as_deref() == Some("late"))
            .unwrap();
        assert_eq!((copy.id.as_str(), copy.copies), ("early", 1));
        assert!(ids.contains(&"other"));
        // A limit of one still finds a whole cluster's best.
        assert_eq!(s.search("reopened", 1).unwrap()[0].id, "early");
    }
}
