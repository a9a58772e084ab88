//! The clean stage: `pages` in, `cleaned` out.

use crate::{clean_html, CleanError};
use async_trait::async_trait;
use gleaner_core::cpu::CpuPool;
use gleaner_core::messages::{Cleaned, Page};
use gleaner_core::registry::{StageContext, StageSpec};
use gleaner_core::stage::{Handled, Input, Output, Stage};
use gleaner_core::Topic;
use gleaner_core::{MapStage, Mapped};

/// Cleans a page message into a cleaned message.
pub fn clean_page(page: &Page) -> Result<Cleaned, CleanError> {
    let (title, meta, blocks) = clean_html(&page.html)?;
    Ok(Cleaned {
        id: page.id.clone(),
        url: page.url.clone(),
        final_url: page.final_url.clone(),
        fetched_at: page.fetched_at.clone(),
        title,
        meta,
        blocks,
    })
}

/// The clean stage: pages in (from the topic before it in the pipeline),
/// `cleaned` out.
#[derive(Clone)]
pub struct CleanStage {
    /// Where the parsing runs (see [`StageContext::intake`]).
    pub cpu: CpuPool,
}

impl Default for CleanStage {
    fn default() -> Self {
        CleanStage {
            cpu: CpuPool::blocking(),
        }
    }
}

/// The clean stage in the registry.
pub struct CleanSpec;

#[async_trait]
impl StageSpec for CleanSpec {
    fn name(&self) -> &'static str {
        "clean"
    }
    fn about(&self) -> &'static str {
        "Streams each page's HTML through lol_html into text blocks with their features"
    }
    fn output(&self) -> Option<Topic> {
        Some(Topic::CLEANED)
    }
    fn reads(&self) -> &'static [Topic] {
        &[Topic::PAGES]
    }
    async fn build(&self, ctx: &StageContext) -> anyhow::Result<Box<dyn Stage>> {
        Ok(Box::new(Mapped::new(CleanStage {
            cpu: ctx.intake.clone(),
        })))
    }
}

#[async_trait]
impl MapStage for CleanStage {
    async fn map(&self, input: &Input) -> Handled {
        let page = input.decode_shared::<Page>()?;
        let key = input
            .key
            .clone()
            .unwrap_or_else(|| gleaner_core::util::host_of(&page.url));
        // Parsing is CPU work: keep it off the async runtime's threads.
        let cleaned = self.cpu.run(move || clean_page(&page)).await??;
        Ok(vec![Output::new(Topic::CLEANED, key, cleaned)])
    }
}
