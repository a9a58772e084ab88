//! The summarize stage: asks the configured engine for each article's
//! summaries, the built-in engine standing in when it fails.

use crate::extractive::extractive;
use crate::http::{EngineLength, EngineRequest};
use crate::{Engine, SummaryLength};
use async_trait::async_trait;
use gleaner_core::messages::{Article, Summarized, Summary};
use gleaner_core::stage::{Handled, Input, Output};
use gleaner_core::MapStage;
use gleaner_core::Topic;
use std::time::Duration;

/// The summarize stage: articles in (from the topic before it in the
/// pipeline), `summarized` out.
pub struct SummarizeStage {
    pub engine: Engine,
    pub lengths: Vec<SummaryLength>,
}

impl SummarizeStage {
    /// The stage `[summarize]` describes.
    pub fn from_settings(s: &crate::SummarizeSettings) -> anyhow::Result<Self> {
        let engine = match s.engine.as_str() {
            "http" => Engine::http(
                &s.http_url,
                Duration::from_millis(s.http_timeout_ms),
                s.http_retries,
            )?,
            _ => Engine::Extractive,
        };
        Ok(SummarizeStage {
            engine,
            lengths: s.lengths.clone(),
        })
    }

    /// Summaries from the engine; an HTTP engine that still fails after its
    /// retries falls back to the extractive engine, recorded in `engine`, so
    /// the article is not held back by the summary service.
    pub async fn summarize(&self, a: &Article) -> (Vec<Summary>, String) {
        match &self.engine {
            Engine::Extractive => (self.local(a).await, "extractive".to_string()),
            Engine::Http {
                client,
                url,
                retries,
            } => {
                let req = EngineRequest {
                    id: &a.id,
                    title: &a.title,
                    text: &a.text,
                    lengths: self
                        .lengths
                        .iter()
                        .map(|l| EngineLength {
                            name: &l.name,
                            sentences: l.sentences,
                            words: l.words,
                        })
                        .collect(),
                };
                // Retries with exponential, jittered pauses (backon).
                let mut pauses = backon::BackoffBuilder::build(
                    backon::ExponentialBuilder::default()
                        .with_min_delay(Duration::from_millis(400))
                        .with_max_delay(Duration::from_secs(15))
                        .with_jitter()
                        .with_max_times(*retries as usize),
                );
                let mut attempt = 0;
                let why = loop {
                    match Engine::ask(client, url, &req).await {
                        Ok(s) => return (s, format!("http:{url}")),
                        Err(e) => {
                            tracing::warn!(id = %a.id, attempt, error = %e, "summary engine failed");
                            match pauses.next() {
                                Some(pause) => tokio::time::sleep(pause).await,
                                None => break e.to_string(),
                            }
                            attempt += 1;
                        }
                    }
                };
                (self.local(a).await, format!("extractive (fallback: {why})"))
            }
        }
    }

    async fn local(&self, a: &Article) -> Vec<Summary> {
        let text = a.text.clone();
        let lengths = self.lengths.clone();
        tokio::task::spawn_blocking(move || extractive(&text, &lengths))
            .await
            .unwrap_or_default()
    }
}

#[async_trait]
impl MapStage for SummarizeStage {
    async fn map(&self, input: &Input) -> Handled {
        let article: Article = input.decode()?;
        let (summaries, engine) = self.summarize(&article).await;
        let key = article.id.clone();
        Ok(vec![Output::new(
            Topic::SUMMARIZED,
            key,
            Summarized {
                article,
                summaries,
                engine,
            },
        )])
    }
}
