//! An article as a stage that passes articles on receives it: bare (from
//! `articles`), or with its summaries when summarize runs before it. Such a
//! stage (dedup, stories) reads the article, annotates it, and sends the
//! message on as it came.

use crate::messages::{Article, Summarized};
use crate::stage::{Input, Output};
use crate::Topic;

pub enum Carried {
    Article(Article),
    Summarized(Summarized),
}

impl Carried {
    /// The input as the kind of message its topic carries (`kind`, named
    /// by the built-in topic of that kind); an article without an id is an
    /// error.
    pub fn decode(input: &Input, kind: Topic) -> anyhow::Result<Self> {
        let msg = if kind == Topic::SUMMARIZED {
            Carried::Summarized(input.decode()?)
        } else {
            Carried::Article(input.decode()?)
        };
        anyhow::ensure!(!msg.article().id.is_empty(), "article without an id");
        Ok(msg)
    }

    pub fn article(&self) -> &Article {
        match self {
            Carried::Article(a) => a,
            Carried::Summarized(s) => &s.article,
        }
    }

    pub fn article_mut(&mut self) -> &mut Article {
        match self {
            Carried::Article(a) => a,
            Carried::Summarized(s) => &mut s.article,
        }
    }

    /// The message as it came (with what was set on its article), on
    /// `topic`, keyed by the article's id.
    pub fn into_output(self, topic: Topic) -> Output {
        match self {
            Carried::Article(a) => Output::new(topic, a.id.clone(), a),
            Carried::Summarized(s) => Output::new(topic, s.article.id.clone(), s),
        }
    }
}
