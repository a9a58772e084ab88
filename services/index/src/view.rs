//! One article whole (its text, every summary, its copies) and the
//! index's own figures, for the API's article view and stats.

use crate::schema::{all_texts, docs_with_term, stored_text};
use crate::search::SearchIndex;
use serde::Serialize;
use tantivy::collector::Count;
use tantivy::query::TermQuery;
use tantivy::schema::{Field, IndexRecordOption, Value};
use tantivy::{TantivyDocument, Term};

/// An article as the index holds it.
#[derive(Debug, Clone, Serialize)]
pub struct ArticleView {
    pub id: String,
    pub url: String,
    pub title: String,
    pub text: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub author: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
    pub site: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub published: Option<String>,
    pub fetched_at: String,
    pub summaries: serde_json::Value,
    pub cluster: String,
    /// Every copy in its cluster (itself included), earliest first.
    pub copies: Vec<Copy>,
    /// Every author the page names.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub authors: Vec<String>,
    /// The publication's name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub site_name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub canonical_url: Option<String>,
    /// The lead image's URL.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub image: Option<String>,
    /// The news story it reports (`/api/v1/stories/{story}`), and how
    /// many reports that story has, itself among them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub story: Option<String>,
    #[serde(skip_serializing_if = "is_zero")]
    pub story_reports: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// One copy of an article.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Copy {
    pub id: String,
    pub url: String,
    pub site: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub published: Option<String>,
}

/// What the index holds.
#[derive(Debug, Clone, Serialize)]
pub struct Stats {
    pub documents: u64,
    /// When the newest searchable commit was made (RFC 3339), if known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_commit: Option<String>,
    pub index_bytes: u64,
}

/// Most copies listed for one article.
const MAX_COPIES: usize = 1000;

impl SearchIndex {
    /// The documents whose `field` is `value`, at most `n`.
    pub(crate) fn by_term(
        &self,
        field: Field,
        value: &str,
        n: usize,
    ) -> anyhow::Result<Vec<TantivyDocument>> {
        docs_with_term(&self.reader.searcher(), field, value, n)
    }

    /// The article with this id, with its copies (a repost's id gives its
    /// original); `None` if the index has none.
    pub fn article(&self, id: &str) -> anyhow::Result<Option<ArticleView>> {
        let f = self.fields;
        let Some(mut doc) = self.by_term(f.id, id, 1)?.into_iter().next() else {
            return Ok(None);
        };
        // A repost is shown as its original, the article it copies (which
        // a correction may have made a repost of an earlier one since).
        for _ in 0..4 {
            let original = stored_text(&doc, f.copy_of);
            if original.is_empty() {
                break;
            }
            match self.by_term(f.id, &original, 1)?.into_iter().next() {
                Some(d) => doc = d,
                None => return Ok(None),
            }
        }
        if !stored_text(&doc, f.copy_of).is_empty() {
            return Ok(None);
        }
        let text = stored_text;
        let opt =
            |d: &TantivyDocument, field: Field| Some(text(d, field)).filter(|s| !s.is_empty());
        let published = |d: &TantivyDocument| {
            d.get_first(f.published)
                .and_then(|v| v.as_datetime())
                .map(|t| t.into_timestamp_secs())
        };
        let rfc3339 = |secs: Option<i64>| {
            secs.and_then(|s| jiff::Timestamp::from_second(s).ok())
                .map(|t| t.to_string())
        };
        let cluster = text(&doc, f.cluster);
        let mut copies: Vec<(Option<i64>, Copy)> = self
            .by_term(f.cluster, &cluster, MAX_COPIES)?
            .iter()
            .map(|d| {
                let at = published(d);
                let copy = Copy {
                    id: text(d, f.id),
                    url: text(d, f.url),
                    site: text(d, f.site),
                    published: rfc3339(at),
                };
                (at, copy)
            })
            .collect();
        copies.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.url.cmp(&b.1.url)));
        // One article in two shards (its partition moved between index
        // instances) is listed once.
        copies.dedup_by(|a, b| a.1.id == b.1.id);
        let story = opt(&doc, f.story);
        let story_reports = match &story {
            Some(story) => self.reader.searcher().search(
                &TermQuery::new(
                    Term::from_field_text(f.story, story),
                    IndexRecordOption::Basic,
                ),
                &Count,
            )? as u64,
            None => 0,
        };
        Ok(Some(ArticleView {
            id: text(&doc, f.id),
            url: text(&doc, f.url),
            title: text(&doc, f.title),
            text: text(&doc, f.body),
            author: opt(&doc, f.author),
            date: opt(&doc, f.date),
            language: opt(&doc, f.language),
            site: text(&doc, f.site),
            published: rfc3339(published(&doc)),
            fetched_at: text(&doc, f.fetched_at),
            summaries: serde_json::from_str(&text(&doc, f.summaries))
                .unwrap_or(serde_json::Value::Null),
            cluster,
            copies: copies.into_iter().map(|(_, c)| c).collect(),
            authors: all_texts(&doc, f.authors),
            site_name: opt(&doc, f.site_name),
            canonical_url: opt(&doc, f.canonical_url),
            image: opt(&doc, f.image),
            story,
            story_reports,
        }))
    }

    /// Documents, the time of the last commit and the bytes on disk.
    pub fn stats(&self) -> Stats {
        let mut index_bytes = 0;
        let mut last = None;
        for dir in &self.dirs {
            let Ok(entries) = std::fs::read_dir(dir) else {
                continue;
            };
            for e in entries.flatten() {
                if let Ok(m) = e.metadata() {
                    index_bytes += m.len();
                    if e.file_name() == "meta.json" {
                        last = last.max(m.modified().ok());
                    }
                }
            }
        }
        let last_commit = last
            .and_then(|t| jiff::Timestamp::try_from(t).ok())
            .map(|t| format!("{t:.0}"));
        Stats {
            documents: self.num_docs(),
            last_commit,
            index_bytes,
        }
    }
}
