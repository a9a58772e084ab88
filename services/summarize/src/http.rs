//! The client of an HTTP summary engine: `{id, title, text, lengths}` in,
//! `{summaries}` out.

use gleaner_core::messages::Summary;
use serde::{Deserialize, Serialize};
use std::time::Duration;

#[derive(Serialize)]
pub(crate) struct EngineRequest<'a> {
    pub(crate) id: &'a str,
    pub(crate) title: &'a str,
    pub(crate) text: &'a str,
    pub(crate) lengths: Vec<EngineLength<'a>>,
}

#[derive(Serialize)]
pub(crate) struct EngineLength<'a> {
    pub(crate) name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) sentences: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) words: Option<usize>,
}

#[derive(Deserialize)]
struct EngineResponse {
    summaries: Vec<Summary>,
}

/// Where summaries come from.
#[derive(Clone)]
pub enum Engine {
    Extractive,
    Http {
        client: reqwest::Client,
        url: String,
        retries: u32,
    },
}

impl Engine {
    pub fn http(url: &str, timeout: Duration, retries: u32) -> anyhow::Result<Self> {
        let client = reqwest::Client::builder().timeout(timeout).build()?;
        Ok(Engine::Http {
            client,
            url: url.to_string(),
            retries,
        })
    }

    pub(crate) async fn ask(
        client: &reqwest::Client,
        url: &str,
        req: &EngineRequest<'_>,
    ) -> anyhow::Result<Vec<Summary>> {
        let resp = client
            .post(url)
            .json(req)
            .send()
            .await?
            .error_for_status()?;
        Ok(resp.json::<EngineResponse>().await?.summaries)
    }
}
