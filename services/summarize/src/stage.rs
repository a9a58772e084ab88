//! The summarize stage: asks the configured engine for each article's
//! summaries, the summary cache first, the built-in engine standing in
//! when a remote one fails.

use crate::cache::{self, CacheEntry, SummaryCache};
use crate::extractive::extractive;
use crate::http::HttpEngine;
use crate::openai::{OpenAiEngine, PROMPT_VERSION};
use crate::SummaryLength;
use async_trait::async_trait;
use gleaner_core::messages::{Article, Summarized, Summary};
use gleaner_core::stage::{Handled, Input, Output};
use gleaner_core::MapStage;
use gleaner_core::Topic;
use std::time::Duration;

/// Where summaries come from.
#[derive(Clone)]
pub enum Engine {
    /// Built in: no request, no cache.
    Extractive,
    /// Any OpenAI-compatible chat completions server.
    OpenAi(OpenAiEngine),
    /// gleaner's own HTTP protocol.
    Http(HttpEngine),
}

/// What summarizing one article gave.
pub struct Made {
    pub summaries: Vec<Summary>,
    /// The engine, as recorded on the article.
    pub engine: String,
    /// A new cache entry to record, when a remote engine answered.
    pub fresh: Option<CacheEntry>,
}

/// The summarize stage: articles in (from the topic before it in the
/// pipeline), `summarized` out, and each remote engine's new answer on
/// `summary-cache`.
pub struct SummarizeStage {
    pub engine: Engine,
    pub lengths: Vec<SummaryLength>,
    pub cache: SummaryCache,
    concurrency: usize,
}

impl SummarizeStage {
    /// The stage `[summarize]` describes.
    pub fn from_settings(s: &crate::SummarizeSettings) -> anyhow::Result<Self> {
        let (engine, concurrency) = match s.engine.as_str() {
            "openai" => (Engine::OpenAi(OpenAiEngine::new(s)?), s.openai_concurrency),
            "http" => (
                Engine::Http(HttpEngine::new(
                    &s.http_url,
                    Duration::from_millis(s.http_timeout_ms),
                    s.http_retries,
                )?),
                1,
            ),
            _ => (Engine::Extractive, 1),
        };
        Ok(SummarizeStage {
            engine,
            lengths: s.lengths.clone(),
            cache: SummaryCache::default(),
            concurrency: concurrency.max(1),
        })
    }

    /// The engine's name and model, as the cache key and the article
    /// record them.
    fn remote(&self) -> Option<(String, &str)> {
        match &self.engine {
            Engine::Extractive => None,
            Engine::OpenAi(e) => Some((format!("openai:{}", e.model), e.model.as_str())),
            Engine::Http(e) => Some((format!("http:{}", e.url), "")),
        }
    }

    /// Summaries for the article: from the cache, else the engine; a
    /// remote engine that fails (after its retries, or with an answer that
    /// is not a summary) is replaced by the built-in engine, with the
    /// reason recorded in `engine`, so the article is not held back.
    pub async fn summarize(&self, a: &Article) -> (Vec<Summary>, String) {
        let m = self.make(a).await;
        (m.summaries, m.engine)
    }

    pub async fn make(&self, a: &Article) -> Made {
        let Some((name, model)) = self.remote() else {
            return Made {
                summaries: self.local(a).await,
                engine: "extractive".into(),
                fresh: None,
            };
        };
        let key = cache::key(&a.text, &name, model, PROMPT_VERSION, &self.lengths);
        if let Some(hit) = self.cache.get(&key) {
            crate::metrics::cache_hit();
            return Made {
                summaries: hit.summaries,
                engine: hit.engine,
                fresh: None,
            };
        }
        let answer = match &self.engine {
            Engine::OpenAi(e) => e.summarize(a, &self.lengths).await,
            Engine::Http(e) => {
                crate::metrics::engine_call();
                e.summarize(a, &self.lengths)
                    .await
                    .map_err(|e| e.to_string())
            }
            Engine::Extractive => Err(String::new()),
        };
        match answer {
            Ok(summaries) => {
                let entry = CacheEntry {
                    key,
                    summaries: summaries.clone(),
                    engine: name.clone(),
                };
                self.cache.put(entry.clone());
                Made {
                    summaries,
                    engine: name,
                    fresh: Some(entry),
                }
            }
            Err(why) => {
                tracing::warn!(id = %a.id, reason = %why, "summary engine failed; built-in summaries used");
                crate::metrics::fallback(reason_code(&why));
                Made {
                    summaries: self.local(a).await,
                    engine: format!("extractive (fallback: {why})"),
                    fresh: None,
                }
            }
        }
    }

    async fn local(&self, a: &Article) -> Vec<Summary> {
        let text = a.text.clone();
        let title = a.title.clone();
        let language = a.language.clone();
        let lengths = self.lengths.clone();
        tokio::task::spawn_blocking(move || {
            extractive(&title, &text, language.as_deref(), &lengths)
        })
        .await
        .unwrap_or_default()
    }
}

/// A short label of why the engine failed, for the fallback counter.
fn reason_code(why: &str) -> &'static str {
    match why {
        w if w.starts_with("HTTP 429") => "rate_limited",
        w if w.starts_with("HTTP 5") => "server_error",
        w if w.starts_with("HTTP 4") => "refused",
        w if w.contains("timed out") => "timeout",
        w if w.contains("unreachable") => "unreachable",
        w if w.contains("malformed") => "malformed",
        w if w.starts_with("answer over") => "too_long",
        "empty answer" => "empty",
        "refusal" => "refusal",
        "too long" => "too_long",
        "wrong language" => "wrong_language",
        _ => "other",
    }
}

#[async_trait]
impl MapStage for SummarizeStage {
    async fn map(&self, input: &Input) -> Handled {
        let article: Article = input.decode()?;
        let made = self.make(&article).await;
        let key = article.id.clone();
        let mut outs = vec![Output::new(
            Topic::SUMMARIZED,
            key,
            Summarized {
                article,
                summaries: made.summaries,
                engine: made.engine,
            },
        )];
        if let Some(entry) = made.fresh {
            outs.push(Output::new(Topic::SUMMARY_CACHE, entry.key.clone(), entry));
        }
        Ok(outs)
    }

    fn concurrency(&self) -> usize {
        self.concurrency
    }
}
