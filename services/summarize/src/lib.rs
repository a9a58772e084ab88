//! The summarize stage: summaries of the configured lengths for each unique
//! article, from the built-in extractive engine or an HTTP summary engine.

mod settings;
mod spec;

pub use settings::{SummarizeSettings, SummaryLength};
pub use spec::SummarizeSpec;

use async_trait::async_trait;
use gleaner_core::messages::{Article, Summarized, Summary};
use gleaner_core::stage::{Handled, Input, Output};
use gleaner_core::MapStage;
use gleaner_core::Topic;
use gleaner_text::{sentences, word_count, Vocabulary};
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// Ranks sentences by similarity to the whole text (TF-IDF over the
/// article's sentences) with a bonus for coming early, as news leads do.
/// `words` holds each sentence's word count.
fn ranked(sents: &[&str], words: &[usize]) -> Vec<usize> {
    // Terms as ids of one vocabulary: each sentence's (id, count), sorted.
    let mut vocab = Vocabulary::default();
    let counts: Vec<Vec<(usize, u32)>> = sents
        .iter()
        .map(|s| {
            let mut ids = vocab.term_ids(s);
            ids.sort_unstable();
            let mut c: Vec<(usize, u32)> = Vec::new();
            for id in ids {
                match c.last_mut() {
                    Some((last, n)) if *last == id as usize => *n += 1,
                    _ => c.push((id as usize, 1)),
                }
            }
            c
        })
        .collect();
    // Smoothed IDF over sentences: ln((1 + N) / (1 + df)) + 1.
    let (mut df, mut all) = (vec![0u32; vocab.len()], vec![0u32; vocab.len()]);
    for c in &counts {
        for &(t, n) in c {
            df[t] += 1;
            all[t] += n;
        }
    }
    let docs = counts.len() as f64;
    let idf: Vec<f64> = df
        .iter()
        .map(|&d| ((1.0 + docs) / (1.0 + f64::from(d))).ln() + 1.0)
        .collect();
    // Sublinear TF times IDF, L2-normalised.
    let weight = |t: usize, n: u32| (1.0 + f64::from(n).ln()) * idf[t];
    let mut centroid: Vec<f64> = all
        .iter()
        .enumerate()
        .map(|(t, &n)| if n == 0 { 0.0 } else { weight(t, n) })
        .collect();
    let norm = centroid.iter().map(|x| x * x).sum::<f64>().sqrt();
    if norm > 0.0 {
        centroid.iter_mut().for_each(|x| *x /= norm);
    }
    let n = sents.len() as f64;
    let mut scored: Vec<(f64, usize)> = counts
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let words = words[i] as f64;
            let norm = c
                .iter()
                .map(|&(t, n)| weight(t, n).powi(2))
                .sum::<f64>()
                .sqrt();
            let dot: f64 = c.iter().map(|&(t, n)| weight(t, n) * centroid[t]).sum();
            let sim = if norm > 0.0 { dot / norm } else { 0.0 };
            let lead = 0.3 * (1.0 - i as f64 / n.max(1.0));
            // Fragments and run-ons make poor summaries.
            let shape = if (6.0..=60.0).contains(&words) {
                1.0
            } else {
                0.5
            };
            ((sim + lead) * shape, i)
        })
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    scored.into_iter().map(|(_, i)| i).collect()
}

/// Whether a sentence ends as one (a headline or a caption does not).
fn ends_a_sentence(s: &str) -> bool {
    s.trim_end().ends_with([
        '.', '!', '?', '…', '。', '！', '？', '"', '”', '’', '\'', ')',
    ])
}

/// The built-in extractive engine: the best sentences, in text order.
/// Headlines and other lines without a full stop are kept out while the
/// text has real sentences; when it has none, each chosen line gets one, so
/// no two run together.
pub fn extractive(text: &str, lengths: &[SummaryLength]) -> Vec<Summary> {
    let mut sents = sentences(text);
    if sents.iter().any(|s| ends_a_sentence(s)) {
        sents.retain(|s| ends_a_sentence(s));
    }
    // Counted once: ranking and the word-length summaries both need them.
    let words: Vec<usize> = sents.iter().map(|s| word_count(s)).collect();
    let order = ranked(&sents, &words);
    lengths
        .iter()
        .map(|l| {
            let mut chosen: Vec<usize> = Vec::new();
            if let Some(n) = l.sentences {
                chosen.extend(order.iter().take(n));
            } else if let Some(target) = l.words {
                let mut taken = 0;
                for &i in &order {
                    if taken >= target {
                        break;
                    }
                    let w = words[i];
                    // Stop before overshooting by more than half a sentence.
                    if taken > 0 && taken + w > target + w / 2 {
                        continue;
                    }
                    taken += w;
                    chosen.push(i);
                }
            }
            chosen.sort_unstable();
            let text = chosen
                .iter()
                .map(|&i| match sents[i].trim_end() {
                    s if ends_a_sentence(s) => s.to_string(),
                    s => format!("{s}."),
                })
                .collect::<Vec<_>>()
                .join(" ");
            Summary {
                name: l.name.clone(),
                text,
            }
        })
        .collect()
}

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

    async fn ask(
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

/// The summarize stage: articles in (from the topic before it in the
/// pipeline), `summarized` out.
pub struct SummarizeStage {
    pub engine: Engine,
    pub lengths: Vec<SummaryLength>,
}

impl SummarizeStage {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn lengths() -> Vec<SummaryLength> {
        vec![
            SummaryLength {
                name: "one".into(),
                sentences: Some(1),
                words: None,
            },
            SummaryLength {
                name: "three".into(),
                sentences: Some(3),
                words: None,
            },
            SummaryLength {
                name: "w100".into(),
                sentences: None,
                words: Some(100),
            },
        ]
    }

    #[test]
    fn a_headline_is_not_glued_to_the_first_sentence() {
        let one = [SummaryLength {
            name: "one".into(),
            sentences: Some(2),
            words: None,
        }];
        let text = "Bridge reopens after repairs\nThe harbour bridge reopened on Monday after eight months of repairs. Buses crossed it before dawn.";
        let s = &extractive(text, &one)[0].text;
        assert!(!s.contains("repairs The"), "{s}");
        assert!(
            !s.starts_with("Bridge reopens"),
            "the headline is kept out: {s}"
        );
        // Only lines without full stops: each ends with one.
        let s = &extractive("First line here\nSecond line there", &one)[0].text;
        assert_eq!(s, "First line here. Second line there.");
    }

    #[test]
    fn extractive_lengths() {
        let text = (0..20)
            .map(|i| format!("Sentence number {i} talks about the harbour bridge repairs and the city budget in some detail."))
            .collect::<Vec<_>>()
            .join(" ");
        let s = extractive(&text, &lengths());
        assert_eq!(sentences(&s[0].text).len(), 1);
        assert_eq!(sentences(&s[1].text).len(), 3);
        let w = word_count(&s[2].text);
        assert!((80..=130).contains(&w), "{w} words");
        // Sentences keep their order in the text.
        let pos: Vec<usize> = sentences(&s[1].text)
            .iter()
            .map(|x| text.find(x).unwrap())
            .collect();
        assert!(pos.windows(2).all(|p| p[0] < p[1]));
    }
}
