//! The client of an HTTP summary engine of gleaner's own protocol:
//! `{id, title, text, lengths}` in, `{summaries}` out. Kept as a second
//! engine for services written to it; model servers speak OpenAI's API
//! (`openai.rs`).

use crate::SummaryLength;
use gleaner_core::messages::{Article, Summary};
use serde::{Deserialize, Serialize};
use std::time::Duration;

#[derive(Serialize)]
struct EngineRequest<'a> {
    id: &'a str,
    title: &'a str,
    text: &'a str,
    lengths: Vec<EngineLength<'a>>,
}

#[derive(Serialize)]
struct EngineLength<'a> {
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    sentences: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    words: Option<usize>,
}

#[derive(Deserialize)]
struct EngineResponse {
    summaries: Vec<Summary>,
}

/// An HTTP summary engine at `url`.
#[derive(Clone)]
pub struct HttpEngine {
    client: reqwest::Client,
    pub url: String,
    retries: u32,
}

impl HttpEngine {
    pub fn new(url: &str, timeout: Duration, retries: u32) -> anyhow::Result<Self> {
        let client = reqwest::Client::builder().timeout(timeout).build()?;
        Ok(HttpEngine {
            client,
            url: url.to_string(),
            retries,
        })
    }

    async fn ask(&self, req: &EngineRequest<'_>) -> anyhow::Result<Vec<Summary>> {
        let resp = self
            .client
            .post(&self.url)
            .json(req)
            .send()
            .await?
            .error_for_status()?;
        let body = crate::body::read_capped(resp, crate::body::MAX_ANSWER_BYTES).await?;
        Ok(serde_json::from_slice::<EngineResponse>(&body)?.summaries)
    }

    /// The engine's summaries, retried with exponential, jittered pauses
    /// (backon); the last error when every attempt failed.
    pub async fn summarize(
        &self,
        a: &Article,
        lengths: &[SummaryLength],
    ) -> anyhow::Result<Vec<Summary>> {
        let req = EngineRequest {
            id: &a.id,
            title: &a.title,
            text: &a.text,
            lengths: lengths
                .iter()
                .map(|l| EngineLength {
                    name: &l.name,
                    sentences: l.sentences,
                    words: l.words,
                })
                .collect(),
        };
        let mut pauses = backon::BackoffBuilder::build(
            backon::ExponentialBuilder::default()
                .with_min_delay(Duration::from_millis(400))
                .with_max_delay(Duration::from_secs(15))
                .with_jitter()
                .with_max_times(self.retries as usize),
        );
        let mut attempt = 0;
        loop {
            match self.ask(&req).await {
                Ok(s) => return Ok(s),
                // The same question gets the same answer: not asked again.
                Err(e) if e.downcast_ref() == Some(&crate::body::BodyError::TooLong) => {
                    return Err(e)
                }
                Err(e) => {
                    tracing::warn!(id = %a.id, attempt, error = %e, "summary engine failed");
                    match pauses.next() {
                        Some(pause) => tokio::time::sleep(pause).await,
                        None => return Err(e),
                    }
                    attempt += 1;
                }
            }
        }
    }
}
