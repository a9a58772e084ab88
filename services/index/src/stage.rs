//! The index stage: summarized articles into the Tantivy index, upserted
//! by id, with the consumed offsets in each commit's payload.

use crate::pace::Pace;
use crate::schema::{open_or_create, Fields};
use crate::writer::Writer;
use crate::{Offsets, FETCH_TO_SEARCHABLE};
use anyhow::Context;
use async_trait::async_trait;
use gleaner_core::messages::{Duplicate, Summarized};
use gleaner_core::metrics;
use gleaner_core::stage::{Handled, Input, InputPositions, Output, Stage};
use gleaner_core::Topic;
use std::path::Path;
use std::time::{Duration, Instant};
use tantivy::TantivyDocument;

/// The index stage: `summarized` in, nothing out.
pub struct IndexStage {
    index: tantivy::Index,
    fields: Fields,
    /// Story merges from `story-log`, applied to what is indexed.
    merges: crate::merges::StoryMerges,
    documents: crate::document::Documents,
    writer: Writer,
    offsets: Offsets,
    pub indexed: u64,
    input: Topic,
    /// Whether the input carries summaries (`summarized`) or bare articles.
    kind: Topic,
    /// Commit at most this often, in the background, the documents of
    /// several batches at once (in-process, where inputs are not durable
    /// anyway); `None`: commit every batch before returning, so that Kafka
    /// offsets are stored only for committed documents.
    commit_every: Option<Duration>,
    last_commit: Instant,
    /// Documents decoded but not yet added (a commit was running).
    queued: Vec<(String, TantivyDocument)>,
    /// Ids (with when they were fetched) not yet in a commit, and the
    /// offsets they bring.
    pending: Vec<(String, String)>,
    pending_offsets: Offsets,
    /// Ids in the running commit, and its offsets.
    committing: Vec<(String, String)>,
    committing_offsets: Offsets,
    /// Dead letters for lost documents not yet returned.
    unsent: Vec<Output>,
    /// How often to commit: often while live, seldom in a bulk load.
    pace: Pace,
}

/// Documents a commit (or an add) lost, and why.
struct Lost {
    error: String,
    ids: Vec<String>,
}

impl IndexStage {
    /// Opens (or creates) the index in `dir` with a writer of `threads`
    /// indexing threads sharing `heap_bytes` (at least 15 MB each).
    pub fn open(dir: &Path, heap_bytes: usize, threads: usize) -> anyhow::Result<Self> {
        let (index, fields) = open_or_create(dir)?;
        let payload = index.load_metas()?.payload;
        let offsets: Offsets = match payload {
            Some(p) => {
                serde_json::from_str(&p).context("reading offsets from the index commit payload")?
            }
            None => Offsets::new(),
        };
        // Before the writer: it takes the pair tokenizer this registers.
        let documents = crate::document::Documents::open(&index, fields, dir.to_path_buf())?;
        let threads = threads.max(1);
        let writer =
            index.writer_with_num_threads(threads, heap_bytes.max(threads * 15_000_000))?;
        let merges = crate::merges::StoryMerges::load(dir)?;
        Ok(IndexStage {
            index,
            merges,
            documents,
            fields,
            writer: Writer::new(writer, fields.id),
            offsets: offsets.clone(),
            indexed: 0,
            input: Topic::SUMMARIZED,
            kind: Topic::SUMMARIZED,
            commit_every: None,
            last_commit: Instant::now(),
            queued: Vec::new(),
            pending: Vec::new(),
            pending_offsets: offsets,
            committing: Vec::new(),
            committing_offsets: Offsets::new(),
            unsent: Vec::new(),
            pace: Pace::of(&crate::IndexSettings::default()),
        })
    }

    /// Commits at most every `every` (and when the run is idle or the
    /// stage closes), in the background, instead of every batch: many
    /// batches per commit when input flows fast.
    pub fn committing_every(mut self, every: Duration) -> Self {
        self.commit_every = Some(every);
        self.pace.set_live(every);
        self
    }

    /// Commits as `settings` say: every `commit_interval_ms` while the
    /// stage keeps up, every `bulk_commit_interval_ms` in a bulk load
    /// (pace.rs).
    pub fn committing_as(mut self, settings: &crate::IndexSettings) -> Self {
        self.pace = Pace::of(settings);
        self.commit_every = Some(Duration::from_millis(settings.commit_interval_ms));
        self
    }

    fn commit_due(&self) -> bool {
        self.commit_every.is_none() || self.last_commit.elapsed() >= self.pace.interval()
    }

    /// Takes the result of a finished commit (waiting for it if `wait`):
    /// what it made searchable is counted, what it lost is returned.
    async fn settle(&mut self, wait: bool) -> Option<Lost> {
        let result = self.writer.outcome(wait).await?;
        let ids = std::mem::take(&mut self.committing);
        let offsets = std::mem::take(&mut self.committing_offsets);
        // The interval runs from the end of a commit: the documents that
        // waited for it are added now, and Tantivy indexes them and what
        // comes next during the interval, so the next commit waits for
        // little. Counted from the start, each commit began at once with
        // all that waited still to index, and took longer each time.
        self.last_commit = Instant::now();
        match result {
            Ok(()) => {
                self.offsets = offsets;
                self.indexed += ids.len() as u64;
                // Searchable from now: the time from each page's fetch.
                let now = jiff::Timestamp::now();
                for (_, fetched_at) in ids {
                    if let Ok(t) = fetched_at.parse::<jiff::Timestamp>() {
                        let secs = now.duration_since(t).as_secs_f64();
                        metrics::observe("gleaner_index_fetch_to_searchable_seconds", &[], secs);
                        gleaner_core::samples::keep(FETCH_TO_SEARCHABLE, secs);
                    }
                }
                None
            }
            Err(e) => Some(Lost {
                error: format!("index commit failed: {e:#}"),
                ids: ids.into_iter().map(|(id, _)| id).collect(),
            }),
        }
    }

    /// Adds the queued documents, when no commit runs.
    async fn add_queued(&mut self) -> Option<Lost> {
        if self.queued.is_empty() || !self.writer.is_ready() {
            return None;
        }
        let docs = std::mem::take(&mut self.queued);
        let e = self.writer.add(docs).await.err()?;
        // Rolled back: everything added since the last commit.
        Some(Lost {
            error: format!("index write failed: {e:#}"),
            ids: std::mem::take(&mut self.pending)
                .into_iter()
                .map(|(id, _)| id)
                .collect(),
        })
    }

    /// Starts a commit of what was added, when none runs.
    fn start_commit(&mut self) -> Option<Lost> {
        if self.pending.is_empty() || !self.queued.is_empty() || !self.writer.is_ready() {
            return None;
        }
        let payload = serde_json::to_string(&self.pending_offsets).unwrap_or_default();
        if let Err(e) = self.writer.start_commit(payload) {
            return Some(Lost {
                error: format!("index commit failed: {e:#}"),
                ids: vec![],
            });
        }
        self.committing = std::mem::take(&mut self.pending);
        self.committing_offsets = self.pending_offsets.clone();
        None
    }

    /// Moves things on without waiting: takes a finished commit, adds what
    /// waited for it, and starts the next commit when one is due.
    async fn advance(&mut self) -> Vec<Lost> {
        let mut lost = Vec::new();
        lost.extend(self.settle(false).await);
        lost.extend(self.add_queued().await);
        if self.commit_due() {
            lost.extend(self.start_commit());
        }
        lost
    }

    /// Waits for the running commit, then starts one of what waited for
    /// it and was added, due or not.
    async fn commit_now(&mut self) -> Vec<Lost> {
        let mut lost = Vec::new();
        lost.extend(self.settle(true).await);
        lost.extend(self.add_queued().await);
        lost.extend(self.start_commit());
        lost
    }

    /// Makes everything added or queued searchable now, waiting for it.
    async fn commit_all(&mut self) -> Vec<Lost> {
        let mut lost = self.commit_now().await;
        lost.extend(self.settle(true).await);
        lost
    }

    /// The dead letters not yet sent and those for `lost`.
    fn unsent_and(&mut self, lost: Vec<Lost>) -> Vec<Output> {
        let mut dead = std::mem::take(&mut self.unsent);
        dead.extend(self.dead_letters(lost));
        dead
    }

    /// Dead letters for documents lost after their inputs were answered.
    fn dead_letters(&self, lost: Vec<Lost>) -> Vec<Output> {
        lost.into_iter()
            .flat_map(|l| {
                tracing::warn!(error = %l.error, docs = l.ids.len(), "documents lost to the index");
                l.ids.into_iter().map(move |id| {
                    let input = Input {
                        topic: self.input,
                        key: Some(id),
                        payload: None,
                        origin: None,
                    };
                    Output::dead_letter("index", input.dead_letter("index", &l.error))
                })
            })
            .collect()
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

    fn note_offset(&mut self, input: &Input) {
        if let Some(o) = &input.origin {
            let p = self
                .pending_offsets
                .entry(o.topic.clone())
                .or_default()
                .entry(o.partition)
                .or_insert(o.offset);
            *p = (*p).max(o.offset);
        }
    }

    /// A record of the story log: a merge is recorded (and collected in
    /// `merged` to be applied to what is indexed); a creation needs nothing.
    fn story_event(&mut self, input: &Input, merged: &mut Vec<(String, String)>) -> Handled {
        let e: gleaner_core::messages::StoryEvent = input.decode()?;
        if let (true, Some(into)) = (self.merges.record(&e)?, &e.into) {
            merged.push((e.story.clone(), into.clone()));
        }
        Ok(vec![])
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
}

#[async_trait]
impl Stage for IndexStage {
    /// Replays are recognised by the stage itself.
    fn replay_guard(&self) -> bool {
        false
    }

    async fn handle(&mut self, input: &Input) -> Handled {
        gleaner_core::stage::handle_as_batch(self, input).await
    }

    /// Queues the batch's documents. On Kafka they are committed before
    /// this returns, with the batch's offsets in the payload (the runner
    /// stores the Kafka offsets only after); in-process the commit comes
    /// when due, in the background.
    async fn handle_batch(&mut self, inputs: &[Input]) -> Vec<Handled> {
        let mut results = Vec::with_capacity(inputs.len());
        let mut merged: Vec<(String, String)> = Vec::new();
        let mut decoded: Vec<Option<anyhow::Result<Summarized>>> = inputs
            .iter()
            .map(|input| {
                let new = !self.already_indexed(input)
                    && input.topic != Topic::STORY_LOG
                    && input.topic != Topic::DUPLICATES;
                new.then(|| self.decode(input))
            })
            .collect();
        // A language's common words, before its first article is added.
        let articles: Vec<&Summarized> = decoded.iter().flatten().flatten().collect();
        if let Err(e) = self.documents.learn(&articles) {
            let e = format!("{e:#}");
            return inputs
                .iter()
                .map(|_| Err(anyhow::anyhow!(e.clone())))
                .collect();
        }
        for (input, decoded) in inputs.iter().zip(&mut decoded) {
            if self.already_indexed(input) {
                results.push(Ok(vec![]));
                continue;
            }
            if input.topic == Topic::STORY_LOG {
                results.push(self.story_event(input, &mut merged));
                self.note_offset(input);
                continue;
            }
            let doc = if input.topic == Topic::DUPLICATES {
                // A repost: listed among its original's copies. No fetch
                // time: its page is not what the latency counts.
                input.decode::<Duplicate>().map(|d| {
                    (
                        d.id.clone(),
                        crate::copies::document(&self.fields, &d),
                        String::new(),
                    )
                })
            } else {
                decoded
                    .take()
                    .unwrap_or_else(|| self.decode(input))
                    .and_then(|s| {
                        let doc = self.documents.document(&self.merges, &s)?;
                        Ok((s.article.id, doc, s.article.fetched_at))
                    })
            };
            match doc {
                Ok((id, doc, fetched)) => {
                    self.queued.push((id.clone(), doc));
                    self.pending.push((id, fetched));
                    results.push(Ok(vec![]));
                }
                Err(e) => results.push(Err(e)),
            }
            self.note_offset(input);
        }
        if !merged.is_empty() {
            // What is indexed under a merged story is read back committed,
            // then indexed again under the survivor with this batch.
            let mut lost = self.commit_all().await;
            for (from, into) in merged {
                // Reading back up to a story's every report: off the runtime.
                let (index, fields) = (self.index.clone(), self.fields);
                let (f, i) = (from.clone(), into.clone());
                let read = tokio::task::spawn_blocking(move || {
                    crate::merges::reindexed(&index, &fields, &f, &i)
                })
                .await
                .map_err(anyhow::Error::from)
                .and_then(|r| r);
                match read {
                    Ok(docs) => {
                        if let Err(e) = self.documents.learn(&docs.iter().collect::<Vec<_>>()) {
                            tracing::warn!(error = %e, "common words not learned");
                        }
                        for s in docs {
                            match self.documents.document(&self.merges, &s) {
                                Ok(doc) => {
                                    self.queued.push((s.article.id.clone(), doc));
                                    // No fetch time: not a new page's latency.
                                    self.pending.push((s.article.id, String::new()));
                                }
                                Err(e) => lost.push(Lost {
                                    error: format!("story merge: {e:#}"),
                                    ids: vec![s.article.id],
                                }),
                            }
                        }
                    }
                    Err(e) => tracing::warn!(error = %e, %from, %into, "story merge not applied"),
                }
            }
            self.unsent.extend(self.dead_letters(lost));
        }
        if self.commit_every.is_none() {
            // Only this batch was pending: a failure fails its inputs.
            if let Some(l) = self.commit_all().await.into_iter().next() {
                return inputs
                    .iter()
                    .map(|_| Err(anyhow::anyhow!(l.error.clone())))
                    .collect();
            }
            return results;
        }
        self.pace.record(inputs.len());
        let mut lost = self.advance().await;
        if self.pending.len() + self.committing.len() >= self.pace.bound() {
            lost.extend(self.commit_now().await);
        }
        let mut dead = self.dead_letters(lost);
        if !dead.is_empty() {
            // With the first input that has outputs, or the next tick.
            match results.iter_mut().find_map(|r| r.as_mut().ok()) {
                Some(outs) => outs.append(&mut dead),
                None => self.unsent.append(&mut dead),
            }
        }
        results
    }

    /// Up to the last commit's offsets for the topics it indexes (nothing
    /// of a partition none of whose records is committed yet); the story
    /// log, whose merges are written down as they come, as acknowledged.
    fn committable(&self, acked: &InputPositions) -> InputPositions {
        acked
            .iter()
            .filter_map(|((topic, partition), next)| {
                let indexes =
                    self.pending_offsets.contains_key(topic) || self.offsets.contains_key(topic);
                if !indexes {
                    return Some(((topic.clone(), *partition), *next));
                }
                let done = self.offsets.get(topic)?.get(partition)?;
                Some(((topic.clone(), *partition), (*next).min(done + 1)))
            })
            .collect()
    }

    async fn tick(&mut self) -> Vec<Output> {
        let lost = self.advance().await;
        self.unsent_and(lost)
    }

    /// A commit finished: the next tick takes it and starts the next.
    async fn ready(&mut self) {
        self.writer.finished().await
    }

    /// Nothing else is coming: no more batches to gather into this commit.
    async fn idle(&mut self) -> Vec<Output> {
        let lost = self.commit_all().await;
        self.unsent_and(lost)
    }

    fn held(&self) -> usize {
        self.pending.len() + self.committing.len() + self.unsent.len()
    }

    async fn close(&mut self) -> anyhow::Result<()> {
        let lost: usize = self.commit_all().await.iter().map(|l| l.ids.len()).sum();
        anyhow::ensure!(lost == 0, "{lost} documents could not be committed");
        // Merges still running are abandoned rather than waited for (at the
        // end of a crawl that was half of the run's last second): every
        // document is in a committed segment already, Tantivy replaces
        // meta.json only whole, and the next writer merges and removes
        // what a merge left.
        if let Some(w) = self.writer.take().await {
            tokio::task::spawn_blocking(move || drop(w)).await?;
        }
        Ok(())
    }
}

#[cfg(test)]
#[path = "stage_tests.rs"]
mod tests;
