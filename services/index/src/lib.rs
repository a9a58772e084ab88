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
mod stem;

use anyhow::Context;
use async_trait::async_trait;
use gleaner_core::messages::Summarized;
use gleaner_core::metrics;
use gleaner_core::stage::{Handled, Input, Output, Stage};
use gleaner_core::Topic;
use schema::{open_or_create, Fields};
use std::collections::BTreeMap;
use std::path::Path;

/// The name under which each article's fetch-to-searchable time is kept
/// (gleaner_core::samples) for the end-of-run summary.
pub const FETCH_TO_SEARCHABLE: &str = "fetch_to_searchable_seconds";
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
    /// Commit at most this often, the documents of several batches at once
    /// (in-process, where inputs are not durable anyway); `None`: commit
    /// every batch before returning, so that Kafka offsets are stored only
    /// for committed documents.
    commit_every: Option<std::time::Duration>,
    last_commit: std::time::Instant,
    /// Ids added since the last commit (with when they were fetched), and
    /// the offsets they bring.
    pending: Vec<(String, String)>,
    pending_offsets: Offsets,
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
            offsets: offsets.clone(),
            indexed: 0,
            input: Topic::SUMMARIZED,
            kind: Topic::SUMMARIZED,
            commit_every: None,
            last_commit: std::time::Instant::now(),
            pending: Vec::new(),
            pending_offsets: offsets.clone(),
        })
    }

    /// Commits at most every `every` (and when the stage closes) instead of
    /// every batch: many batches per commit when input flows fast.
    pub fn committing_every(mut self, every: std::time::Duration) -> Self {
        self.commit_every = Some(every);
        self
    }

    fn commit_due(&self) -> bool {
        self.commit_every
            .is_none_or(|every| self.last_commit.elapsed() >= every)
    }

    /// Adds documents and, when `commit`, commits everything added so far
    /// with `offsets` in the commit payload. On a failed commit the
    /// uncommitted documents are rolled back.
    async fn write(
        &mut self,
        docs: Vec<(String, TantivyDocument)>,
        commit: Option<Offsets>,
    ) -> anyhow::Result<()> {
        let mut writer = self
            .writer
            .take()
            .ok_or_else(|| anyhow::anyhow!("index writer is closed"))?;
        let id_field = self.fields.id;
        let payload = commit
            .as_ref()
            .map(|o| serde_json::to_string(o).unwrap_or_default());
        // Adding and committing is blocking I/O: off the async runtime.
        let (writer, result) = tokio::task::spawn_blocking(move || {
            let r = (|| -> anyhow::Result<()> {
                for (id, doc) in docs {
                    writer.delete_term(Term::from_field_text(id_field, &id));
                    writer.add_document(doc)?;
                }
                if let Some(payload) = payload {
                    let mut commit = writer.prepare_commit()?;
                    commit.set_payload(&payload);
                    commit.commit()?;
                }
                Ok(())
            })();
            if r.is_err() {
                let _ = writer.rollback();
            }
            (writer, r)
        })
        .await
        .map_err(|e| anyhow::anyhow!("index task failed: {e}"))?;
        self.writer = Some(writer);
        if let (Ok(()), Some(offsets)) = (&result, commit) {
            self.offsets = offsets;
            self.indexed += self.pending.len() as u64;
            // Searchable from now: the time from each page's fetch.
            let now = jiff::Timestamp::now();
            for (_, fetched_at) in self.pending.drain(..) {
                if let Ok(t) = fetched_at.parse::<jiff::Timestamp>() {
                    let secs = now.duration_since(t).as_secs_f64();
                    metrics::observe("gleaner_index_fetch_to_searchable_seconds", &[], secs);
                    gleaner_core::samples::keep(FETCH_TO_SEARCHABLE, secs);
                }
            }
            self.last_commit = std::time::Instant::now();
        }
        result
    }

    /// Commits what is pending; on failure each pending document becomes a
    /// dead letter (their inputs were already answered).
    async fn commit_pending(&mut self) -> Vec<Output> {
        if self.pending.is_empty() {
            return vec![];
        }
        let offsets = self.pending_offsets.clone();
        match self.write(vec![], Some(offsets)).await {
            Ok(()) => vec![],
            Err(e) => {
                let msg = format!("index commit failed: {e:#}");
                tracing::warn!(error = %msg, docs = self.pending.len(), "uncommitted documents dropped");
                std::mem::take(&mut self.pending)
                    .into_iter()
                    .map(|(id, _)| {
                        let input = Input {
                            topic: self.input,
                            key: Some(id),
                            payload: None,
                            origin: None,
                        };
                        Output::dead_letter("index", input.dead_letter("index", &msg))
                    })
                    .collect()
            }
        }
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
        if let Some(i) = schema::stem_slot(a.language.as_deref()) {
            d.add_text(f.title_stem[i], &a.title);
            d.add_text(f.body_stem[i], &a.text);
        }
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
    /// Replays are recognised by the stage itself.
    fn replay_guard(&self) -> bool {
        false
    }
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
        gleaner_core::stage::handle_as_batch(self, input).await
    }

    /// Adds the batch and commits once, with the batch's offsets in the
    /// payload; the runner stores the Kafka offsets only after this returns.
    async fn handle_batch(&mut self, inputs: &[Input]) -> Vec<Handled> {
        let mut results = Vec::with_capacity(inputs.len());
        let mut docs = Vec::new();
        let mut offsets = self.pending_offsets.clone();
        for input in inputs {
            if self.already_indexed(input) {
                results.push(Ok(vec![]));
                continue;
            }
            let doc = self.decode(input).and_then(|s| {
                let fetched = s.article.fetched_at.clone();
                Ok((s.article.id.clone(), self.document(&s)?, fetched))
            });
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
        let ids: Vec<(String, String)> = docs
            .iter()
            .map(|(id, _, fetched)| (id.clone(), fetched.clone()))
            .collect();
        let docs = docs.into_iter().map(|(id, doc, _)| (id, doc)).collect();
        self.pending_offsets = offsets.clone();
        let commit = self.commit_due().then_some(offsets);
        self.pending.extend(ids);
        match self.write(docs, commit).await {
            Ok(()) => results,
            Err(e) => {
                // Rolled back: everything since the last commit, this batch
                // included, is lost to the index.
                let msg = format!("index commit failed: {e:#}");
                self.pending.clear();
                self.pending_offsets = self.offsets.clone();
                inputs
                    .iter()
                    .map(|_| Err(anyhow::anyhow!(msg.clone())))
                    .collect()
            }
        }
    }

    async fn tick(&mut self) -> Vec<Output> {
        if self.commit_due() {
            self.commit_pending().await
        } else {
            vec![]
        }
    }

    /// Nothing else is coming: no more batches to gather into this commit.
    async fn idle(&mut self) -> Vec<Output> {
        self.commit_pending().await
    }

    fn held(&self) -> usize {
        self.pending.len()
    }

    async fn close(&mut self) -> anyhow::Result<()> {
        let lost = self.commit_pending().await;
        anyhow::ensure!(
            lost.is_empty(),
            "{} documents could not be committed",
            lost.len()
        );
        // Merges still running are abandoned rather than waited for (at the
        // end of a crawl that was half of the run's last second): every
        // document is in a committed segment already, Tantivy replaces
        // meta.json only whole, and the next writer merges and removes
        // what a merge left.
        if let Some(w) = self.writer.take() {
            tokio::task::spawn_blocking(move || drop(w)).await?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gleaner_core::messages::{Article, Summary};
    use gleaner_core::stage::Origin;

    fn input(id: &str, title: &str, text: &str, offset: i64) -> Input {
        copy_input(id, None, "", title, text, offset)
    }

    fn copy_input(
        id: &str,
        cluster: Option<&str>,
        date: &str,
        title: &str,
        text: &str,
        offset: i64,
    ) -> Input {
        input_in(None, id, cluster, date, title, text, offset)
    }

    /// An input in `language`, in a dedup cluster, published on `date`.
    fn input_in(
        language: Option<&str>,
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
                language: language.map(str::to_string),
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

    /// A stage closed while merges run (twenty one-document commits set
    /// them off) loses nothing, and the next writer goes on from there.
    #[tokio::test]
    async fn closing_during_merges_keeps_every_document() {
        let dir = tempfile::tempdir().unwrap();
        for round in 0..2 {
            let mut st = IndexStage::open(dir.path(), 20_000_000).unwrap();
            for i in 0..20 {
                let id = format!("{round}-{i}");
                let text = format!("Report {id} on the harbour ferry timetable.");
                let r = st
                    .handle_batch(&[input(&id, "Ferry", &text, round * 20 + i)])
                    .await;
                assert!(r.iter().all(|x| x.is_ok()));
            }
            st.close().await.unwrap();
            let s = SearchIndex::open(dir.path(), 200).unwrap();
            assert_eq!(s.num_docs(), 20 * (round as u64 + 1));
            assert_eq!(
                s.search("timetable", 100).unwrap().len(),
                20 * (round as usize + 1)
            );
        }
    }

    /// An article is stemmed by its language's rules: German "Häuser" is
    /// found by "Haus", which English stemming would not do.
    #[tokio::test]
    async fn each_article_is_stemmed_in_its_language() {
        let dir = tempfile::tempdir().unwrap();
        let mut st = IndexStage::open(dir.path(), 20_000_000).unwrap();
        let text = "Die Häuser am Fluss wurden renoviert.";
        st.handle_batch(&[
            input_in(Some("de"), "de", None, "", "Am Fluss", text, 0),
            input_in(None, "unknown", None, "", "Am Fluss", text, 1),
        ])
        .await;
        st.close().await.unwrap();
        let s = SearchIndex::open(dir.path(), 200).unwrap();
        let hits = s.search("Haus", 10).unwrap();
        let ids: Vec<&str> = hits.iter().map(|h| h.id.as_str()).collect();
        assert_eq!(ids, ["de"], "only the German article is stemmed as German");
        assert!(hits[0].snippet.contains("Häuser"), "{}", hits[0].snippet);
        assert_eq!(
            s.search("Häuser", 10).unwrap().len(),
            2,
            "plain words match both"
        );
    }

    #[tokio::test]
    async fn commits_gather_batches_and_the_rest_is_committed_on_close() {
        let dir = tempfile::tempdir().unwrap();
        let mut st = IndexStage::open(dir.path(), 20_000_000)
            .unwrap()
            .committing_every(std::time::Duration::from_secs(3600));
        let docs = || SearchIndex::open(dir.path(), 200).map_or(0, |s| s.num_docs());
        st.handle_batch(&[input("a", "One", "first text", 0)]).await;
        st.handle_batch(&[input("b", "Two", "second text", 1)])
            .await;
        assert_eq!(st.held(), 2, "added, not committed: held until the commit");
        assert!(st.tick().await.is_empty());
        assert_eq!(docs(), 0, "nothing searchable before the commit");
        st.close().await.unwrap();
        assert_eq!(docs(), 2);
        let st = IndexStage::open(dir.path(), 20_000_000).unwrap();
        assert_eq!(
            st.offsets()["gleaner.summarized"][&0],
            1,
            "offsets ride the gathered commit"
        );
        drop(st);
        // The run has nothing else in flight: committed now, not when due.
        let mut st = IndexStage::open(dir.path(), 20_000_000)
            .unwrap()
            .committing_every(std::time::Duration::from_secs(3600));
        st.handle_batch(&[input("b2", "Two", "second text again", 5)])
            .await;
        assert_eq!(st.held(), 1);
        assert!(st.idle().await.is_empty());
        assert_eq!((st.held(), docs()), (0, 3), "committed when idle");
        st.close().await.unwrap();

        // Due at once: each batch commits, nothing is held.
        let st = IndexStage::open(dir.path(), 20_000_000).unwrap();
        let mut st = st.committing_every(std::time::Duration::ZERO);
        st.handle_batch(&[input("c", "Three", "third text", 6)])
            .await;
        assert_eq!(st.held(), 0);
        assert_eq!(docs(), 4);
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
