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
    async fn build(&self, ctx: &StageContext) -> anyhow::Result<Box<dyn Stage>> {
        let s: SummarizeSettings = ctx.cfg.section()?;
        Ok(Box::new(gleaner_core::Mapped::new(
            SummarizeStage::from_settings(&s)?,
        )))
    }
}
