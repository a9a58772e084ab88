//! Story merges as the index applies them. When the stories stage merges a
//! story into an older one (a record on `story-log`), the reports already
//! indexed under the merged id are indexed again under the surviving id,
//! and a report still on its way is given it as it arrives. The merges are
//! kept beside the index (`story-merges.jsonl`, one `{story, into}` per
//! line) so that a restarted index still knows them.

use crate::schema::{docs_with_term, stored_text};
use gleaner_core::messages::{Article, StoryEvent, Summarized};
use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};

pub(crate) const FILE: &str = "story-merges.jsonl";

#[derive(Debug, Default)]
pub(crate) struct StoryMerges {
    into: HashMap<String, String>,
    file: Option<PathBuf>,
}

impl StoryMerges {
    /// The merges recorded in `dir` (none if it has no file yet).
    pub(crate) fn load(dir: &Path) -> anyhow::Result<Self> {
        let path = dir.join(FILE);
        let mut into = HashMap::new();
        match std::fs::read_to_string(&path) {
            Ok(text) => {
                for line in text.lines() {
                    // A line cut short by a crash is the only bad one.
                    if let Ok(e) = serde_json::from_str::<StoryEvent>(line) {
                        if let Some(to) = e.into {
                            into.insert(e.story, to);
                        }
                    }
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => {
                return Err(anyhow::Error::new(e).context(format!("reading {}", path.display())))
            }
        }
        Ok(StoryMerges {
            into,
            file: Some(path),
        })
    }

    /// The id the story has now: merges followed to the survivor.
    pub(crate) fn resolve<'a>(&'a self, story: &'a str) -> &'a str {
        let mut s = story;
        // Each merge points to an older story; the bound guards a bad log.
        for _ in 0..64 {
            match self.into.get(s) {
                Some(next) if next != s => s = next,
                _ => break,
            }
        }
        s
    }

    /// Records a merge; false if it was known already.
    pub(crate) fn record(&mut self, e: &StoryEvent) -> anyhow::Result<bool> {
        let Some(into) = &e.into else {
            return Ok(false);
        };
        if self.into.get(&e.story) == Some(into) {
            return Ok(false);
        }
        if let Some(path) = &self.file {
            let mut f = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)?;
            let mut line = serde_json::to_vec(e)?;
            line.push(b'\n');
            f.write_all(&line)?;
        }
        self.into.insert(e.story.clone(), into.clone());
        Ok(true)
    }
}

/// Most reports of one story indexed again at a merge.
const MAX_REINDEXED: usize = 100_000;

/// The committed documents of story `from` as the messages they came from,
/// now of story `into`, to be indexed again.
pub(crate) fn reindexed(
    index: &tantivy::Index,
    f: &crate::schema::Fields,
    from: &str,
    into: &str,
) -> anyhow::Result<Vec<Summarized>> {
    let reader = index
        .reader_builder()
        .reload_policy(tantivy::ReloadPolicy::Manual)
        .try_into()?;
    let docs = docs_with_term(&reader.searcher(), f.story, from, MAX_REINDEXED)?;
    let mut out = Vec::with_capacity(docs.len());
    for d in docs {
        let text = |field| stored_text(&d, field);
        let opt = |field| Some(text(field)).filter(|s| !s.is_empty());
        out.push(Summarized {
            article: Article {
                id: text(f.id),
                url: text(f.url),
                title: text(f.title),
                author: opt(f.author),
                date: opt(f.date),
                language: opt(f.language),
                text: text(f.body),
                extractor: String::new(),
                fetched_at: text(f.fetched_at),
                cluster: opt(f.cluster),
                story: Some(into.to_string()),
                authors: crate::schema::all_texts(&d, f.authors),
                site_name: opt(f.site_name),
                canonical_url: opt(f.canonical_url),
                image: opt(f.image),
            },
            summaries: serde_json::from_str(&text(f.summaries)).unwrap_or_default(),
            engine: String::new(),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn merged(story: &str, into: &str) -> StoryEvent {
        StoryEvent {
            kind: "merged".into(),
            story: story.into(),
            into: Some(into.into()),
            article: "x".into(),
            at: "2005-01-01T00:00:00Z".into(),
        }
    }

    /// A merged story's reports are indexed again whole: what the page
    /// said of itself (authors, publication, canonical URL, image) too.
    #[tokio::test]
    async fn reports_indexed_again_keep_their_metadata() {
        use gleaner_core::messages::{Article, Summarized};
        use gleaner_core::stage::{Input, Output, Stage};
        let dir = tempfile::tempdir().unwrap();
        let s = Summarized {
            article: Article {
                id: "a1".into(),
                url: "https://example.com/a1".into(),
                title: "Bridge".into(),
                text: "The bridge reopened.".into(),
                story: Some("s1".into()),
                authors: vec!["Mara Olsen".into(), "Ken Ito".into()],
                site_name: Some("Example Daily".into()),
                canonical_url: Some("https://example.com/news/a1".into()),
                image: Some("https://example.com/a1.jpg".into()),
                ..Default::default()
            },
            summaries: vec![],
            engine: "extractive".into(),
        };
        let mut st = crate::IndexStage::open(dir.path(), 20_000_000, 1).unwrap();
        let input = Input {
            topic: gleaner_core::Topic::SUMMARIZED,
            key: Some("a1".into()),
            payload: Some(Output::of(gleaner_core::Topic::SUMMARIZED, "a1", &s).payload),
            origin: None,
        };
        assert!(st.handle_batch(&[input]).await[0].is_ok());
        st.close().await.unwrap();
        let (index, f) = crate::schema::open_or_create(dir.path()).unwrap();
        let again = reindexed(&index, &f, "s1", "s0").unwrap();
        assert_eq!(again.len(), 1);
        let a = &again[0].article;
        assert_eq!(a.story.as_deref(), Some("s0"));
        assert_eq!(
            (&a.authors, &a.site_name, &a.canonical_url, &a.image),
            (
                &s.article.authors,
                &s.article.site_name,
                &s.article.canonical_url,
                &s.article.image
            )
        );
    }

    #[test]
    fn merges_chain_and_survive_a_restart() {
        let dir = tempfile::tempdir().unwrap();
        let mut m = StoryMerges::load(dir.path()).unwrap();
        assert!(m.record(&merged("c", "b")).unwrap());
        assert!(m.record(&merged("b", "a")).unwrap());
        assert!(!m.record(&merged("b", "a")).unwrap());
        assert_eq!((m.resolve("c"), m.resolve("z")), ("a", "z"));
        let again = StoryMerges::load(dir.path()).unwrap();
        assert_eq!(again.resolve("c"), "a");
    }
}
