//! The fetch stage in the registry.

use crate::{FetchSettings, FetchStage};
use async_trait::async_trait;
use gleaner_core::config::{SectionCheck, SectionOf};
use gleaner_core::registry::{StageContext, StageSpec};
use gleaner_core::stage::Stage;
use gleaner_core::Topic;

pub struct FetchSpec;

#[async_trait]
impl StageSpec for FetchSpec {
    fn name(&self) -> &'static str {
        "fetch"
    }
    fn about(&self) -> &'static str {
        "The polite crawler: seeds and frontier links in, pages out"
    }
    fn settings(&self) -> Option<&'static dyn SectionCheck> {
        Some(&SectionOf::<FetchSettings>::NEW)
    }
    fn reasons(&self) -> &'static [gleaner_core::outcome::Reason] {
        crate::error::reasons::ALL
    }
    fn metrics(&self) -> &'static [gleaner_core::metrics::Metric] {
        crate::metrics::METRICS
    }
    fn output(&self) -> Option<Topic> {
        Some(Topic::PAGES)
    }
    fn reads(&self) -> &'static [Topic] {
        &[Topic::SEEDS]
    }
    fn side_inputs(&self) -> &'static [Topic] {
        &[Topic::FRONTIER]
    }
    fn side_outputs(&self) -> &'static [Topic] {
        &[Topic::FRONTIER]
    }
    async fn build(&self, ctx: &StageContext) -> anyhow::Result<Box<dyn Stage>> {
        let mut stage = FetchStage::new(&ctx.cfg.section()?, ctx.allow_private)?
            .wait_for_paused_hosts(ctx.long_running);
        if let Some(dir) = &ctx.state {
            stage = stage.with_state(dir)?;
        }
        Ok(Box::new(stage))
    }
}
