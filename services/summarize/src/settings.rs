//! The `[summarize]` section of pipelines.toml, where each option is explained.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SummarizeSettings {
    /// extractive (built in), openai or http.
    pub engine: String,
    /// The OpenAI-compatible server's base URL (`.../v1`).
    pub openai_url: String,
    pub openai_model: String,
    /// The environment variable holding the API key.
    pub openai_key_env: String,
    pub openai_max_tokens: u32,
    pub openai_temperature: f32,
    pub openai_timeout_ms: u64,
    /// Requests in flight at once, per process.
    pub openai_concurrency: usize,
    pub openai_retries: u32,
    /// Longer texts are summarised in two passes.
    pub openai_max_input_chars: usize,
    pub http_url: String,
    pub http_timeout_ms: u64,
    pub http_retries: u32,
    /// The summaries made for every article.
    pub lengths: Vec<SummaryLength>,
}

/// One summary: a name and either a number of sentences or an approximate
/// number of words.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SummaryLength {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sentences: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub words: Option<usize>,
}

/// The values pipelines.toml documents (a test in the binary checks that
/// the file and these agree).
impl Default for SummarizeSettings {
    fn default() -> Self {
        let length = |name: &str, sentences, words| SummaryLength {
            name: name.into(),
            sentences,
            words,
        };
        SummarizeSettings {
            engine: "extractive".into(),
            openai_url: "http://127.0.0.1:11434/v1".into(),
            openai_model: "llama3.2".into(),
            openai_key_env: "OPENAI_API_KEY".into(),
            openai_max_tokens: 400,
            openai_temperature: 0.2,
            openai_timeout_ms: 120_000,
            openai_concurrency: 4,
            openai_retries: 4,
            openai_max_input_chars: 24_000,
            http_url: "http://127.0.0.1:8000/summarize".into(),
            http_timeout_ms: 30_000,
            http_retries: 3,
            lengths: vec![
                length("one_sentence", Some(1), None),
                length("three_sentences", Some(3), None),
                length("about_100_words", None, Some(100)),
            ],
        }
    }
}

impl gleaner_core::config::Section for SummarizeSettings {
    const NAME: &'static str = "summarize";

    fn validate(&self) -> anyhow::Result<()> {
        anyhow::ensure!(
            matches!(self.engine.as_str(), "extractive" | "openai" | "http"),
            "summarize.engine must be \"extractive\", \"openai\" or \"http\""
        );
        anyhow::ensure!(
            self.openai_concurrency >= 1,
            "summarize.openai_concurrency must be at least 1"
        );
        anyhow::ensure!(
            (0.0..=2.0).contains(&self.openai_temperature),
            "summarize.openai_temperature must be within 0..=2"
        );
        for l in &self.lengths {
            anyhow::ensure!(
                l.sentences.is_some() != l.words.is_some(),
                "summary length {:?} needs exactly one of sentences or words",
                l.name
            );
            anyhow::ensure!(
                l.sentences.or(l.words) != Some(0),
                "summary length {:?} asks for nothing: sentences or words must be at least 1",
                l.name
            );
            anyhow::ensure!(
                !l.name.trim().is_empty(),
                "a summary length needs a name (it keys the summary in articles and the index)"
            );
            anyhow::ensure!(
                self.lengths.iter().filter(|m| m.name == l.name).count() == 1,
                "summary length {:?} is named twice",
                l.name
            );
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gleaner_core::config::Section;

    fn with_length(name: &str, sentences: Option<usize>, words: Option<usize>) -> String {
        let mut s = SummarizeSettings::default();
        s.lengths.push(SummaryLength {
            name: name.into(),
            sentences,
            words,
        });
        s.validate()
            .map_or_else(|e| e.to_string(), |()| "ok".into())
    }

    #[test]
    fn a_length_must_ask_for_something_under_a_name_of_its_own() {
        assert_eq!(with_length("lead", Some(2), None), "ok");
        assert!(with_length("none", Some(0), None).contains("asks for nothing"));
        assert!(with_length("none", None, Some(0)).contains("asks for nothing"));
        assert!(with_length("both", Some(1), Some(9)).contains("exactly one"));
        assert!(with_length(" ", Some(1), None).contains("needs a name"));
        assert!(with_length("one_sentence", Some(2), None).contains("named twice"));
    }
}
