//! The index stage in the registry.

use crate::{IndexSettings, IndexStage};
use async_trait::async_trait;
use gleaner_core::config::{SectionCheck, SectionOf};
use gleaner_core::registry::{StageContext, StageSpec};
use gleaner_core::stage::Stage;
use gleaner_core::Topic;

pub struct IndexSpec;

#[async_trait]
impl StageSpec for IndexSpec {
    fn name(&self) -> &'static str {
        "index"
    }
    fn about(&self) -> &'static str {
        "Adds articles to the Tantivy index in DATA/index (upserted by id)"
    }
    fn settings(&self) -> Option<&'static dyn SectionCheck> {
        Some(&SectionOf::<IndexSettings>::NEW)
    }
    fn metrics(&self) -> &'static [gleaner_core::metrics::Metric] {
        crate::metrics::METRICS
    }
    fn output(&self) -> Option<Topic> {
        None
    }
    fn reads(&self) -> &'static [Topic] {
        &[Topic::SUMMARIZED, Topic::ARTICLES]
    }
    /// Story merges, so that a merged story's reports take the older id;
    /// reposts, listed among their original's copies.
    fn side_inputs(&self) -> &'static [Topic] {
        &[Topic::STORY_LOG, Topic::DUPLICATES]
    }
    /// Each index instance writes a shard of its own: every one applies
    /// every merge to the reports it holds.
    fn every_instance_reads(&self) -> &'static [Topic] {
        &[Topic::STORY_LOG]
    }
    async fn build(&self, ctx: &StageContext) -> anyhow::Result<Box<dyn Stage>> {
        let dir = ctx.data.join("index");
        let settings: IndexSettings = ctx.cfg.section()?;
        let (heap, threads) = (settings.writer_heap_bytes, settings.writer_threads);
        // Opening an index reads its files: off the async runtime.
        let stage =
            tokio::task::spawn_blocking(move || IndexStage::open(&dir, heap, threads)).await??;
        // Commits gather batches, on Kafka too: there the runner commits
        // the consumer's offsets no further than the last index commit
        // (`Stage::committable`), so a restart resumes where the index ends.
        Ok(Box::new(
            stage.reading(ctx.input, ctx.kind).committing_as(&settings),
        ))
    }
}
