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
        &gleaner_stories::StoriesSpec,
        &gleaner_summarize::SummarizeSpec,
        &gleaner_index::IndexSpec,
    ]
}

/// The flow the configuration asks for, checked; without `[pipeline]
/// stages`, every stage in the order of [`registry`].
pub fn flow<'a>(cfg: &Config, registry: &[&'a dyn StageSpec]) -> anyhow::Result<Flow<'a>> {
    let all: Vec<String>;
    let order = match &cfg.pipeline.stages {
        Some(order) => order,
        None => {
            all = registry.iter().map(|s| s.name().to_string()).collect();
            &all
        }
    };
    // A flow that cannot run is the config's fault: bad input, exit 2.
    Flow::new(order, registry).map_err(|e| crate::bad_input::bad_input(format!("{e:#}")))
}
