//! The `[extract]` section of pipelines.toml, where each option is explained.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ExtractSettings {
    /// auto, qread, density, link-ratio, lines, template or rules.
    pub extractor: String,
    /// Pages whose main text has fewer words are not articles (a CJK
    /// character counts as a word, so one threshold is fair to every
    /// script: 150 characters of Chinese news carry about what 90 English
    /// words do).
    pub min_text_words: usize,
    /// Nor are pages whose main text is mostly link text.
    pub max_link_share: f64,
}

/// The values pipelines.toml documents (a test in the binary checks that
/// the file and these agree).
impl Default for ExtractSettings {
    fn default() -> Self {
        ExtractSettings {
            extractor: "auto".into(),
            min_text_words: 35,
            max_link_share: 0.5,
        }
    }
}

impl gleaner_core::config::Section for ExtractSettings {
    const NAME: &'static str = "extract";

    fn validate(&self) -> anyhow::Result<()> {
        self.extractor.parse::<crate::extractor::Extractor>()?;
        anyhow::ensure!(
            (0.0..=1.0).contains(&self.max_link_share),
            "extract.max_link_share must be within 0..=1"
        );
        Ok(())
    }
}
