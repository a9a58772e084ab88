//! The `[stories]` section of pipelines.toml, where each option is explained.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct StorySettings {
    /// Least similarity for an article to join a story.
    pub threshold: f32,
    /// Least similarity to a second story for the two to be merged.
    pub merge_threshold: f32,
    /// Days a story stays open after its latest report.
    pub window_days: f32,
    /// Similarity fades by exp(-days / decay_days) with the days since the
    /// story's latest report.
    pub decay_days: f32,
    /// Extra count of each headline word.
    pub title_weight: f32,
    /// Count of each name-like word (capitalised inside a sentence), as a
    /// term of its own beside the word.
    pub name_weight: f32,
    /// Most stories kept open at once (the oldest are closed first).
    pub max_open: usize,
}

/// The values pipelines.toml documents (a test in the binary checks that
/// the file and these agree).
impl Default for StorySettings {
    fn default() -> Self {
        StorySettings {
            threshold: 0.18,
            merge_threshold: 0.3,
            window_days: 30.0,
            decay_days: 15.0,
            title_weight: 1.0,
            name_weight: 2.0,
            max_open: 100_000,
        }
    }
}

impl gleaner_core::config::Section for StorySettings {
    const NAME: &'static str = "stories";

    fn validate(&self) -> anyhow::Result<()> {
        for (name, v) in [
            ("threshold", self.threshold),
            ("merge_threshold", self.merge_threshold),
        ] {
            anyhow::ensure!(
                (0.0..=1.0).contains(&v),
                "stories.{name} must be within 0..=1"
            );
        }
        for (name, v) in [
            ("window_days", self.window_days),
            ("decay_days", self.decay_days),
        ] {
            anyhow::ensure!(v > 0.0, "stories.{name} must be above 0");
        }
        for (name, v) in [
            ("title_weight", self.title_weight),
            ("name_weight", self.name_weight),
        ] {
            anyhow::ensure!(v >= 0.0, "stories.{name} must not be negative");
        }
        anyhow::ensure!(self.max_open > 0, "stories.max_open must be above 0");
        Ok(())
    }
}
