//! The summarize stage in the registry.

use crate::{SummarizeSettings, SummarizeStage};
use async_trait::async_trait;
use gleaner_core::config::{SectionCheck, SectionOf};
use gleaner_core::registry::{StageContext, StageSpec};
use gleaner_core::stage::Stage;
use gleaner_core::Topic;

pub struct SummarizeSpec;

#[async_trait]
impl StageSpec for SummarizeSpec {
    fn name(&self) -> &'static str {
        "summarize"
    }
    fn about(&self) -> &'static str {
        "Summaries of every configured length from the summary engine"
    }
    fn settings(&self) -> Option<&'static dyn SectionCheck> {
        Some(&SectionOf::<SummarizeSettings>::NEW)
    }
    fn output(&self) -> Option<Topic> {
        Some(Topic::SUMMARIZED)
    }
    fn reads(&self) -> &'static [Topic] {
        &[Topic::ARTICLES]
    }
    fn metrics(&self) -> &'static [gleaner_core::metrics::Metric] {
        crate::metrics::METRICS
    }
    fn side_outputs(&self) -> &'static [Topic] {
        &[Topic::SUMMARY_CACHE]
    }
    /// What remote engines answered, read back whole at start.
    fn state_topics(&self) -> &'static [Topic] {
        &[Topic::SUMMARY_CACHE]
    }
    async fn build(&self, ctx: &StageContext) -> anyhow::Result<Box<dyn Stage>> {
        let s: SummarizeSettings = ctx.cfg.section()?;
        let stage = SummarizeStage::from_settings(&s)?;
        if !matches!(stage.engine, crate::Engine::Extractive) {
            let bus = ctx.bus.clone();
            // The compacted topic whole (a sink file in gleaner run).
            let entries: Vec<crate::cache::CacheEntry> = tokio::task::spawn_blocking(move || {
                bus.tail(Topic::SUMMARY_CACHE, i64::MAX).map(|records| {
                    records
                        .iter()
                        .filter_map(|p| serde_json::from_slice(p).ok())
                        .collect()
                })
            })
            .await??;
            for e in entries {
                stage.cache.put(e);
            }
            if !stage.cache.is_empty() {
                tracing::info!(entries = stage.cache.len(), "summary cache read back");
            }
        }
        Ok(Box::new(gleaner_core::Mapped::new(stage)))
    }
}
