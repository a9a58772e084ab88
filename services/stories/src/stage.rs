//! The stories stage: unique articles in (bare or with their summaries),
//! the same articles out with their story id, and every story created or
//! merged on `story-log`. One worker, inputs in order: a story's id is its
//! first report's, so order is what makes ids repeatable.

use crate::settings::StorySettings;
use crate::window::Stories;
use async_trait::async_trait;
use gleaner_core::carried::Carried;
use gleaner_core::messages::{Article, StoryEvent};
use gleaner_core::stage::{Handled, Input, Output, Stage};
use gleaner_core::sync::Locked;
use gleaner_core::Topic;
use std::sync::{Arc, Mutex};

/// Unique articles with their story id.
pub const GROUPED: Topic = Topic::new("grouped");

pub struct StoriesStage {
    window: Arc<Mutex<Stories>>,
    /// What the input carries (`articles` or `summarized`).
    kind: Topic,
}

impl StoriesStage {
    pub fn new(settings: StorySettings, kind: Topic) -> Self {
        StoriesStage {
            window: Arc::new(Mutex::new(Stories::new(settings))),
            kind,
        }
    }

    /// Takes back what the stage wrote before a restart: its articles
    /// (with their stories) and the merges on its story log. Returns the
    /// articles taken back.
    pub fn remember(&self, placed: &[Article], log: &[StoryEvent]) -> usize {
        let now = gleaner_core::util::unix_now() as i64;
        let mut w = self.window.locked();
        let mut n = 0;
        for a in placed {
            if let Some(story) = &a.story {
                w.remember(a, story, now);
                n += 1;
            }
        }
        for e in log {
            if let (Some(into), "merged") = (&e.into, e.kind.as_str()) {
                w.remember_merge(&e.story, into);
            }
        }
        n
    }
}

/// Places each decoded message in order; the outputs of each.
fn place(window: &Mutex<Stories>, msgs: Vec<anyhow::Result<Carried>>) -> Vec<Handled> {
    let now = gleaner_core::util::unix_now() as i64;
    let mut w = window.locked();
    msgs.into_iter()
        .map(|m| {
            let mut m = m?;
            let assigned = w.assign(m.article(), now);
            m.article_mut().story = Some(assigned.story);
            let mut outs = vec![m.into_output(GROUPED)];
            for e in assigned.events {
                crate::metrics::record(&e);
                outs.push(Output::new(Topic::STORY_LOG, e.story.clone(), e));
            }
            Ok(outs)
        })
        .collect()
}

#[async_trait]
impl Stage for StoriesStage {
    async fn handle(&mut self, input: &Input) -> Handled {
        gleaner_core::stage::handle_as_batch(self, input).await
    }

    async fn handle_batch(&mut self, inputs: &[Input]) -> Vec<Handled> {
        let msgs: Vec<anyhow::Result<Carried>> = inputs
            .iter()
            .map(|i| Carried::decode(i, self.kind))
            .collect();
        let window = self.window.clone();
        // Vectors and candidates are CPU work: off the runtime's workers.
        match tokio::task::spawn_blocking(move || place(&window, msgs)).await {
            Ok(handled) => handled,
            Err(e) => inputs
                .iter()
                .map(|_| Err(anyhow::anyhow!("stories worker failed: {e}")))
                .collect(),
        }
    }

    /// An article seen again keeps its story: a replay is recognised here.
    fn replay_guard(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gleaner_core::payload::Payload;

    fn input(a: &Article) -> Input {
        Input {
            topic: Topic::UNIQUE,
            key: Some(a.id.clone()),
            payload: Some(Payload::Bytes(Arc::new(serde_json::to_vec(a).unwrap()))),
            origin: None,
        }
    }

    fn article(id: &str, text: &str) -> Article {
        Article {
            id: id.into(),
            url: format!("https://a.example/{id}"),
            title: "t".into(),
            author: None,
            date: Some("2005-03-01".into()),
            language: None,
            text: text.into(),
            extractor: "test".into(),
            fetched_at: "2005-03-01T00:00:00Z".into(),
            cluster: None,
            story: None,
            ..Default::default()
        }
    }

    #[tokio::test]
    async fn articles_go_on_with_their_story_and_bad_input_is_an_error() {
        let mut stage = StoriesStage::new(StorySettings::default(), Topic::ARTICLES);
        let a = article(
            "a",
            "The harbour bridge reopened after eight months of repairs.",
        );
        let bad = Input {
            payload: Some(Payload::Bytes(Arc::new(b"{not json".to_vec()))),
            ..input(&a)
        };
        let handled = stage.handle_batch(&[input(&a), bad]).await;
        let outs = handled[0].as_ref().unwrap();
        let placed: Article = outs[0].decode().unwrap();
        assert_eq!(
            (outs[0].topic, placed.story.as_deref()),
            (GROUPED, Some("a"))
        );
        let created: StoryEvent = outs[1].decode().unwrap();
        assert_eq!(
            (outs[1].topic, created.kind.as_str()),
            (Topic::STORY_LOG, "created")
        );
        assert!(handled[1].is_err());
        // Rebuilt from its output, a second stage places the replay alike.
        let again = StoriesStage::new(StorySettings::default(), Topic::ARTICLES);
        assert_eq!(again.remember(&[placed], &[created]), 1);
        let mut again = again;
        let outs = again.handle(&input(&a)).await.unwrap();
        assert_eq!(outs.len(), 1, "no new story for an article seen before");
    }
}
