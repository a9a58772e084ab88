//! The `[index]` section of pipelines.toml, where each option is explained.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct IndexSettings {
    /// Tantivy writer memory budget, shared by its threads.
    pub writer_heap_bytes: usize,
    /// Threads Tantivy indexes on (each writes its own segments).
    pub writer_threads: usize,
    /// Commit at most this often while the stage keeps up.
    pub commit_interval_ms: u64,
    /// Commit at most this often in a bulk load ...
    pub bulk_commit_interval_ms: u64,
    /// ... that is, from this many articles a second.
    pub bulk_articles_per_second: f64,
    /// Longest snippet in search results.
    pub snippet_chars: usize,
}

/// The values pipelines.toml documents (a test in the binary checks that
/// the file and these agree).
impl Default for IndexSettings {
    fn default() -> Self {
        IndexSettings {
            writer_heap_bytes: 400_000_000,
            writer_threads: 2,
            commit_interval_ms: 500,
            bulk_commit_interval_ms: 20_000,
            bulk_articles_per_second: 1000.0,
            snippet_chars: 200,
        }
    }
}

impl gleaner_core::config::Section for IndexSettings {
    const NAME: &'static str = "index";

    fn validate(&self) -> anyhow::Result<()> {
        anyhow::ensure!(
            self.bulk_articles_per_second > 0.0,
            "index.bulk_articles_per_second must be above 0"
        );
        // The range a search may ask for (`snippet_chars` in the API).
        let range = crate::request::SNIPPET_CHARS;
        anyhow::ensure!(
            range.contains(&self.snippet_chars),
            "index.snippet_chars must be within {}..={} (got {})",
            range.start(),
            range.end(),
            self.snippet_chars
        );
        gleaner_core::config::ensure_at_least(&[(
            "index.writer_threads",
            self.writer_threads as i64,
            1,
        )])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gleaner_core::config::Section;

    #[test]
    fn a_snippet_length_is_one_a_search_may_ask_for() {
        let with = |n| IndexSettings {
            snippet_chars: n,
            ..IndexSettings::default()
        };
        assert!(with(200).validate().is_ok());
        for bad in [0, 5, 5_000] {
            let e = with(bad).validate().unwrap_err().to_string();
            assert!(e.contains("within 20..=1000"), "{bad}: {e}");
        }
    }
}
