//! The stories stage in the registry. On either bus its window is rebuilt
//! at start from the tail of its own output and its story log (on Kafka
//! the topics, in `gleaner run` the data directory's sink files), so a
//! restart goes on with the same open stories and ids.

use crate::stage::{StoriesStage, GROUPED};
use crate::StorySettings;
use async_trait::async_trait;
use gleaner_core::config::{SectionCheck, SectionOf};
use gleaner_core::messages::{Article, StoryEvent};
use gleaner_core::registry::{StageContext, StageSpec};
use gleaner_core::stage::Stage;
use gleaner_core::Topic;

pub struct StoriesSpec;

#[async_trait]
impl StageSpec for StoriesSpec {
    fn name(&self) -> &'static str {
        "stories"
    }
    fn about(&self) -> &'static str {
        "Groups reports of one news story as they arrive (ids that last; merges on story-log)"
    }
    fn settings(&self) -> Option<&'static dyn SectionCheck> {
        Some(&SectionOf::<StorySettings>::NEW)
    }
    fn metrics(&self) -> &'static [gleaner_core::metrics::Metric] {
        crate::metrics::METRICS
    }
    fn output(&self) -> Option<Topic> {
        Some(GROUPED)
    }
    fn reads(&self) -> &'static [Topic] {
        &[Topic::ARTICLES, Topic::SUMMARIZED]
    }
    /// Articles go on as they came, with their story id.
    fn passes_through(&self) -> bool {
        true
    }
    fn side_outputs(&self) -> &'static [Topic] {
        &[Topic::STORY_LOG]
    }
    fn state_topics(&self) -> &'static [Topic] {
        &[GROUPED, Topic::STORY_LOG]
    }
    /// One window for every host: on Kafka one instance is active, the
    /// others are standbys.
    fn single_active(&self) -> bool {
        true
    }
    async fn build(&self, ctx: &StageContext) -> anyhow::Result<Box<dyn Stage>> {
        let settings: StorySettings = ctx.cfg.section()?;
        let per_partition =
            (settings.max_open as i64 / i64::from(ctx.cfg.kafka.partitions.max(1))).max(1);
        let stage = StoriesStage::new(settings, ctx.kind);
        let bus = ctx.bus.clone();
        let out = ctx.output.unwrap_or(GROUPED);
        // Reading and placing the tail is blocking and CPU work.
        let (stage, n) = tokio::task::spawn_blocking(move || -> anyhow::Result<_> {
            let placed: Vec<Article> = bus
                .tail(out, per_partition)?
                .iter()
                .filter_map(|p| serde_json::from_slice(p).ok())
                .collect();
            let log: Vec<StoryEvent> = bus
                .tail(Topic::STORY_LOG, per_partition)?
                .iter()
                .filter_map(|p| serde_json::from_slice(p).ok())
                .collect();
            let n = stage.remember(&placed, &log);
            Ok((stage, n))
        })
        .await??;
        if n > 0 {
            tracing::info!(articles = n, "story window rebuilt from the stage's output");
        }
        Ok(Box::new(stage))
    }
}
