//! The stages this binary knows, for `[pipeline] stages` to order. A new
//! stage crate adds its spec here and nowhere else in the CLI.

use gleaner_core::config::{SectionCheck, SectionOf};
use gleaner_core::registry::{Flow, StageSpec};
use gleaner_core::Config;
use std::path::Path;

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

/// The sections of pipelines.toml besides core's: each stage's, and the
/// commands' own.
pub fn sections(registry: &[&dyn StageSpec]) -> Vec<&'static dyn SectionCheck> {
    let mut known: Vec<&'static dyn SectionCheck> =
        registry.iter().filter_map(|s| s.settings()).collect();
    known.push(&SectionOf::<crate::commands::serve::ServeSettings>::NEW);
    known
}

/// The configuration at `path` (or the defaults), every section checked:
/// a misspelt key or section is an error here, not a surprise later.
pub fn load_config(path: Option<&Path>) -> anyhow::Result<Config> {
    let cfg = Config::load(path)?;
    let checked = cfg.check_sections(&sections(&registry()));
    match path {
        Some(p) => checked.map_err(|e| e.context(format!("parsing config {}", p.display())))?,
        None => checked?,
    }
    Ok(cfg)
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
    Flow::new(order, registry).map_err(|e| crate::commands::bad_input(format!("{e:#}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The documented pipelines.toml is what the code does with no config:
    /// every section it writes equals its owner's defaults, and every
    /// section a stage or command owns is documented there.
    #[test]
    fn the_documented_config_is_the_defaults() {
        let text = include_str!("../../../pipelines.toml");
        let documented = Config::from_toml(text).unwrap();
        let defaults = Config::default_config();
        // Core's sections; the stages are compared below.
        let core = |c: &Config| {
            let mut c = c.clone();
            c.sections.clear();
            c.pipeline.stages = None;
            toml::Value::try_from(c).unwrap()
        };
        assert_eq!(core(&documented), core(&defaults));
        // Written out for the reader; left out, the order is the same.
        let listed = documented.pipeline.stages.clone().unwrap();
        let names: Vec<String> = registry().iter().map(|s| s.name().to_string()).collect();
        assert_eq!(listed, names, "[pipeline] stages");
        let known = sections(&registry());
        for section in &known {
            assert!(
                documented.sections.contains_key(section.name()),
                "[{}] is not documented in pipelines.toml",
                section.name()
            );
            assert_eq!(
                section.effective(&documented).unwrap(),
                section.effective(&defaults).unwrap(),
                "[{}] in pipelines.toml differs from its defaults in code",
                section.name()
            );
        }
        documented.check_sections(&known).unwrap();
    }
}
