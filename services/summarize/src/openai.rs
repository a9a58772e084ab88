//! The `openai` engine: any server that speaks OpenAI's chat completions
//! API (Ollama, llama.cpp's llama-server, vLLM, LM Studio, hosted APIs).
//! One request per configured length, at most `openai_concurrency` in
//! flight per process; 429, 5xx, time-outs and refused connections are
//! retried with jittered exponential pauses (backon) that wait at least as
//! long as a Retry-After header asks; an article longer than
//! `openai_max_input_chars` is summarised in two passes (its parts, then
//! what they say), since servers truncate or refuse past their context.

use crate::answer::accept;
use crate::body::BodyError;
use crate::{SummarizeSettings, SummaryLength};
use futures::future::try_join_all;
use gleaner_core::messages::{Article, Summary};
use serde::Deserialize;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Semaphore;

/// Changes whenever the prompts do: part of the cache key, so a new
/// prompt asks again.
pub const PROMPT_VERSION: &str = "1";

const SYSTEM: &str =
    "You write faithful, neutral summaries of news articles, using only facts the article states. \
Answer with the summary alone: no title, no preamble, no comment.";

/// Longest pause before a retry, whatever Retry-After says.
const MAX_PAUSE: Duration = Duration::from_secs(60);

#[derive(Deserialize)]
struct Completion {
    choices: Vec<Choice>,
}

#[derive(Deserialize)]
struct Choice {
    message: Message,
}

#[derive(Deserialize)]
struct Message {
    #[serde(default)]
    content: Option<String>,
}

/// Why a request gave no answer: worth another try (with the server's
/// Retry-After, if it sent one) or not.
enum Failure {
    Retry(String, Option<Duration>),
    Fatal(String),
}

#[derive(Clone)]
pub struct OpenAiEngine {
    client: reqwest::Client,
    url: String,
    pub model: String,
    key: Option<String>,
    max_tokens: u32,
    temperature: f32,
    retries: u32,
    max_input_chars: usize,
    slots: Arc<Semaphore>,
}

impl OpenAiEngine {
    /// The engine `[summarize]` describes; the API key is read from the
    /// environment variable it names (never from the file, never logged).
    pub fn new(s: &SummarizeSettings) -> anyhow::Result<Self> {
        let client = reqwest::Client::builder()
            .timeout(Duration::from_millis(s.openai_timeout_ms))
            .build()?;
        let key = std::env::var(&s.openai_key_env)
            .ok()
            .filter(|k| !k.trim().is_empty());
        Ok(OpenAiEngine {
            client,
            url: format!("{}/chat/completions", s.openai_url.trim_end_matches('/')),
            model: s.openai_model.clone(),
            key,
            max_tokens: s.openai_max_tokens,
            temperature: s.openai_temperature,
            retries: s.openai_retries,
            max_input_chars: s.openai_max_input_chars.max(1000),
            slots: Arc::new(Semaphore::new(s.openai_concurrency.max(1))),
        })
    }

    async fn request(&self, user: &str) -> Result<String, Failure> {
        let body = serde_json::json!({
            "model": self.model,
            "messages": [
                {"role": "system", "content": SYSTEM},
                {"role": "user", "content": user},
            ],
            "max_tokens": self.max_tokens,
            "temperature": self.temperature,
            "stream": false,
        });
        let _slot = self
            .slots
            .acquire()
            .await
            .map_err(|e| Failure::Fatal(e.to_string()))?;
        let mut req = self.client.post(&self.url).json(&body);
        if let Some(k) = &self.key {
            req = req.bearer_auth(k);
        }
        let resp = req.send().await.map_err(|e| {
            let what = if e.is_timeout() {
                "timed out"
            } else {
                "unreachable"
            };
            Failure::Retry(format!("engine {what}"), None)
        })?;
        let status = resp.status();
        if status.as_u16() == 429 || status.is_server_error() {
            let after = resp
                .headers()
                .get(reqwest::header::RETRY_AFTER)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.trim().parse::<u64>().ok())
                .map(Duration::from_secs);
            return Err(Failure::Retry(format!("HTTP {}", status.as_u16()), after));
        }
        if !status.is_success() {
            let text = crate::body::excerpt(resp, 4096).await;
            let excerpt: String = text.chars().take(200).collect();
            return Err(Failure::Fatal(format!(
                "HTTP {}: {excerpt}",
                status.as_u16()
            )));
        }
        let bytes = crate::body::read_capped(resp, crate::body::MAX_ANSWER_BYTES)
            .await
            .map_err(|e| match e {
                BodyError::Cut => Failure::Retry(e.to_string(), None),
                // The same question gets the same answer: not asked again.
                BodyError::TooLong => Failure::Fatal(e.to_string()),
            })?;
        let c: Completion = serde_json::from_slice(&bytes)
            .map_err(|_| Failure::Fatal("malformed answer (not a chat completion)".into()))?;
        Ok(c.choices
            .into_iter()
            .next()
            .and_then(|c| c.message.content)
            .unwrap_or_default())
    }

    /// One completion, retried as the module says; why, when it failed.
    async fn complete(&self, user: &str) -> Result<String, String> {
        let mut pauses = backon::BackoffBuilder::build(
            backon::ExponentialBuilder::default()
                .with_min_delay(Duration::from_millis(500))
                .with_max_delay(Duration::from_secs(30))
                .with_jitter()
                .with_max_times(self.retries as usize),
        );
        loop {
            crate::metrics::engine_call();
            let started = std::time::Instant::now();
            let result = self.request(user).await;
            crate::metrics::engine_latency(started.elapsed());
            match result {
                Ok(content) => return Ok(content),
                Err(Failure::Fatal(why)) => return Err(why),
                Err(Failure::Retry(why, after)) => match pauses.next() {
                    Some(pause) => {
                        let pause = after.map_or(pause, |a| a.max(pause)).min(MAX_PAUSE);
                        tracing::debug!(%why, ?pause, "summary engine: retrying");
                        tokio::time::sleep(pause).await;
                    }
                    None => return Err(why),
                },
            }
        }
    }

    /// Summaries of every length, or why there are none: any length that
    /// fails fails the article (the stage then uses the built-in engine).
    pub async fn summarize(
        &self,
        a: &Article,
        lengths: &[SummaryLength],
    ) -> Result<Vec<Summary>, String> {
        let text = self.within_budget(a).await?;
        let language = a.language.as_deref().unwrap_or("the article's own");
        try_join_all(lengths.iter().map(|l| {
            let text = &text;
            async move {
                let size = match (l.sentences, l.words) {
                    (Some(1), _) => "one sentence".to_string(),
                    (Some(n), _) => format!("{n} sentences"),
                    (_, Some(n)) => format!("about {n} words"),
                    _ => "one sentence".to_string(),
                };
                let user = format!(
                    "Summarise this news article in {size}, in its language ({language}).\n\n\
                     Title: {}\n\n{text}",
                    a.title
                );
                let content = self.complete(&user).await?;
                let summary = accept(&content, l, &a.text).map_err(str::to_string)?;
                Ok::<_, String>(Summary {
                    name: l.name.clone(),
                    text: summary,
                })
            }
        }))
        .await
    }

    /// The article's text, or for one past the input budget what its parts
    /// say (each part summarised first).
    async fn within_budget(&self, a: &Article) -> Result<String, String> {
        if a.text.chars().count() <= self.max_input_chars {
            return Ok(a.text.clone());
        }
        let parts = chunks(&a.text, self.max_input_chars);
        let summaries = try_join_all(parts.iter().enumerate().map(|(i, part)| {
            let user = format!(
                "This is part {} of {} of a news article titled \"{}\". Summarise what it says in about 150 words, in its language.\n\n{part}",
                i + 1,
                parts.len(),
                a.title
            );
            async move { self.complete(&user).await.map(|c| crate::answer::strip_reasoning(&c)) }
        }))
        .await?;
        Ok(summaries.join("\n\n"))
    }
}

/// `text` in parts of at most `budget` characters, cut between paragraphs
/// where it can be, else between lines, else anywhere.
pub fn chunks(text: &str, budget: usize) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut cur = String::new();
    let mut cur_chars = 0;
    for line in text.split_inclusive('\n') {
        let n = line.chars().count();
        if cur_chars + n > budget && !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
            cur_chars = 0;
        }
        if n > budget {
            // One line past the budget: cut it where it must be cut.
            let chars: Vec<char> = line.chars().collect();
            for piece in chars.chunks(budget) {
                out.push(piece.iter().collect());
            }
            continue;
        }
        cur.push_str(line);
        cur_chars += n;
    }
    if !cur.trim().is_empty() {
        out.push(cur);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::chunks;

    #[test]
    fn long_texts_are_cut_between_lines_within_the_budget() {
        let text = format!(
            "{}\n{}\n{}",
            "a".repeat(40),
            "b".repeat(40),
            "c".repeat(130)
        );
        let parts = chunks(&text, 100);
        assert!(parts.iter().all(|p| p.chars().count() <= 100), "{parts:?}");
        assert_eq!(
            parts[0],
            format!("{}\n{}\n", "a".repeat(40), "b".repeat(40))
        );
        assert_eq!(parts.concat(), text);
    }
}
