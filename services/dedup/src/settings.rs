//! The `[dedup]` section of pipelines.toml, where each option is explained.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DedupSettings {
    /// Least share of one article's TF-IDF weight on words the other has.
    pub threshold: f64,
    /// Least share of the shorter text's word 4-grams found in the other.
    pub containment: f64,
    pub window_count: usize,
    pub window_age_secs: u64,
    /// Terms kept in each article's vector.
    pub vector_terms: usize,
    /// Shingle hashes kept in each article's sketch.
    pub sketch_size: usize,
    /// Of those, how many an article is posted under in the candidate
    /// index (its rarest and smallest in turns: `keys.rs`); it is looked
    /// up under twice as many at least.
    pub index_keys: usize,
    /// Articles with fewer distinct words (not stop words, not numbers)
    /// are never compared.
    pub min_content_words: usize,
}

/// The values pipelines.toml documents (a test in the binary checks that
/// the file and these agree).
impl Default for DedupSettings {
    fn default() -> Self {
        DedupSettings {
            threshold: 0.75,
            containment: 0.5,
            window_count: 100_000,
            window_age_secs: 604_800,
            vector_terms: 32,
            sketch_size: 48,
            index_keys: 8,
            min_content_words: 20,
        }
    }
}

impl gleaner_core::config::Section for DedupSettings {
    const NAME: &'static str = "dedup";

    fn validate(&self) -> anyhow::Result<()> {
        anyhow::ensure!(
            (0.0..=1.0).contains(&self.threshold),
            "dedup.threshold must be within 0..=1"
        );
        anyhow::ensure!(
            (0.0..=1.0).contains(&self.containment),
            "dedup.containment must be within 0..=1"
        );
        gleaner_core::config::ensure_at_least(&[
            ("dedup.window_count", self.window_count as i64, 1),
            ("dedup.window_age_secs", self.window_age_secs as i64, 1),
            ("dedup.vector_terms", self.vector_terms as i64, 1),
            ("dedup.sketch_size", self.sketch_size as i64, 1),
            ("dedup.index_keys", self.index_keys as i64, 1),
        ])
    }
}
