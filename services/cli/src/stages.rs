//! The stages this binary knows, for `[pipeline] stages` to order. A new
//! stage crate adds its spec here and nowhere else in the CLI.

use gleaner_core::registry::{Flow, StageSpec};
use gleaner_core::Config;

pub fn registry() -> Vec<&'static dyn StageSpec> {
    vec![
        &gleaner_fetch::FetchSpec,
        &gleaner_clean::CleanSpec,
        &gleaner_extract::ExtractSpec,
        &gleaner_dedup::DedupSpec,
        &gleaner_summarize::SummarizeSpec,
        &gleaner_index::IndexSpec,
    ]
}

/// The flow the configuration asks for, checked.
pub fn flow<'a>(cfg: &Config, registry: &[&'a dyn StageSpec]) -> anyhow::Result<Flow<'a>> {
    Flow::new(&cfg.pipeline.stages, registry)
}
