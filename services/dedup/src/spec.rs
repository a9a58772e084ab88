//! The dedup stage in the registry. On Kafka its window is rebuilt at start
//! from the tail of its own output, so reposts of articles seen before a
//! restart are still caught, and what it recorded on `duplicates` is read
//! back too, so that a replay after a crash records nothing twice.

use crate::{DedupSettings, DedupStage};
use async_trait::async_trait;
use gleaner_core::config::{SectionCheck, SectionOf};
use gleaner_core::messages::{Article, Duplicate};
use gleaner_core::registry::{StageContext, StageSpec};
use gleaner_core::stage::Stage;
use gleaner_core::Topic;

pub struct DedupSpec;

#[async_trait]
impl StageSpec for DedupSpec {
    fn name(&self) -> &'static str {
        "dedup"
    }
    fn about(&self) -> &'static str {
        "Drops reposts (the earliest copy is kept; reposts go to duplicates)"
    }
    fn settings(&self) -> Option<&'static dyn SectionCheck> {
        Some(&SectionOf::<DedupSettings>::NEW)
    }
    fn metrics(&self) -> &'static [gleaner_core::metrics::Metric] {
        crate::metrics::METRICS
    }
    fn output(&self) -> Option<Topic> {
        Some(Topic::UNIQUE)
    }
    fn reads(&self) -> &'static [Topic] {
        &[Topic::ARTICLES, Topic::SUMMARIZED]
    }
    /// Unique articles go on as they came, summaries and all.
    fn passes_through(&self) -> bool {
        true
    }
    fn side_outputs(&self) -> &'static [Topic] {
        &[Topic::DUPLICATES]
    }
    /// One window for every host: on Kafka one instance is active, the
    /// others are standbys.
    fn single_active(&self) -> bool {
        true
    }
    async fn build(&self, ctx: &StageContext) -> anyhow::Result<Box<dyn Stage>> {
        let settings: DedupSettings = ctx.cfg.section()?;
        let window_count = settings.window_count;
        let stage = DedupStage::new(settings).reading(ctx.kind);
        let per_partition =
            (window_count as i64 / i64::from(ctx.cfg.kafka.partitions.max(1))).max(1);
        let bus = ctx.bus.clone();
        // Reading, parsing and judging the tail are blocking and CPU work.
        let (stage, n) = tokio::task::spawn_blocking(move || -> anyhow::Result<_> {
            let mut stage = stage;
            // Summarized articles carry the article's fields too.
            let articles: Vec<Article> = bus
                .tail(Topic::UNIQUE, per_partition)?
                .iter()
                .filter_map(|p| serde_json::from_slice(p).ok())
                .collect();
            let n = stage.remember(&articles);
            let reported: Vec<Duplicate> = bus
                .tail(Topic::DUPLICATES, per_partition)?
                .iter()
                .filter_map(|p| serde_json::from_slice(p).ok())
                .collect();
            stage.remember_reported(&reported);
            Ok((stage, n))
        })
        .await??;
        if n > 0 {
            tracing::info!(articles = n, "dedup window rebuilt from the unique topic");
        }
        Ok(Box::new(stage))
    }
}
