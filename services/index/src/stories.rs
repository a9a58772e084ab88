//! Stories as the index holds them: the list of stories with reports in a
//! time range (by size or by growth), and one story's timeline. Counted
//! from the fast fields (story, site, published) in one pass over the
//! documents, then the titles of the page's stories read from their
//! reports.

use crate::schema::stored_text;
use crate::search::SearchIndex;
use rustc_hash::FxHashMap;
use serde::Serialize;
use std::collections::BTreeSet;
use tantivy::collector::{Collector, SegmentCollector};
use tantivy::columnar::{Column, StrColumn};
use tantivy::query::AllQuery;
use tantivy::schema::Value;
use tantivy::{DocId, Score, SegmentOrdinal, SegmentReader};

/// How the story list is ordered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum StorySort {
    /// Most reports in all.
    #[default]
    Size,
    /// Most reports within the range.
    Growth,
}

/// Which stories to list.
#[derive(Debug, Clone, Default)]
pub struct StoriesRequest {
    /// Reports published at or after (Unix seconds).
    pub from: Option<i64>,
    /// Reports published before (Unix seconds).
    pub to: Option<i64>,
    pub sort: StorySort,
    /// Least reports in all (1: single reports too).
    pub min_reports: u64,
    pub offset: usize,
    pub limit: usize,
}

/// One story in the list.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct StorySummary {
    pub id: String,
    /// The headline of its most central report (the one whose headline
    /// shares most words with the others').
    pub title: String,
    pub reports: u64,
    /// Reports within the range asked for.
    pub reports_in_range: u64,
    pub sites: Vec<String>,
    pub first_report: String,
    pub last_report: String,
}

/// The stories with reports in the range, and how many there are.
#[derive(Debug, Clone, Serialize)]
pub struct StoryList {
    pub total: u64,
    pub stories: Vec<StorySummary>,
    pub took_ms: f64,
}

/// One report in a story's timeline.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Report {
    pub id: String,
    pub url: String,
    pub title: String,
    pub site: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub published: Option<String>,
}

/// A story whole: its reports, the first first.
#[derive(Debug, Clone, Serialize)]
pub struct StoryView {
    pub id: String,
    pub title: String,
    pub sites: Vec<String>,
    pub reports: Vec<Report>,
}

/// Most reports read for one story's timeline or title.
const MAX_REPORTS: usize = 10_000;
/// Headlines compared for a story's title.
const TITLE_CANDIDATES: usize = 50;

#[derive(Default, Clone)]
struct Agg {
    total: u64,
    in_range: u64,
    first: i64,
    last: i64,
    sites: BTreeSet<String>,
}

struct StoryCollector {
    from: i64,
    to: i64,
}

struct SegmentStories {
    from: i64,
    to: i64,
    story: Option<StrColumn>,
    site: Option<StrColumn>,
    published: Column<tantivy::DateTime>,
    by_ord: FxHashMap<u64, (Agg, BTreeSet<u64>)>,
}

impl Collector for StoryCollector {
    type Fruit = FxHashMap<String, Agg>;
    type Child = SegmentStories;

    fn for_segment(&self, _: SegmentOrdinal, r: &SegmentReader) -> tantivy::Result<SegmentStories> {
        let fast = r.fast_fields();
        Ok(SegmentStories {
            from: self.from,
            to: self.to,
            story: fast.str("story")?,
            site: fast.str("site")?,
            published: fast.date("published")?,
            by_ord: FxHashMap::default(),
        })
    }

    fn requires_scoring(&self) -> bool {
        false
    }

    fn merge_fruits(&self, segments: Vec<FxHashMap<String, Agg>>) -> tantivy::Result<Self::Fruit> {
        let mut all: FxHashMap<String, Agg> = FxHashMap::default();
        for seg in segments {
            for (id, a) in seg {
                match all.get_mut(&id) {
                    Some(b) => {
                        b.total += a.total;
                        b.in_range += a.in_range;
                        b.first = b.first.min(a.first);
                        b.last = b.last.max(a.last);
                        b.sites.extend(a.sites);
                    }
                    None => {
                        all.insert(id, a);
                    }
                }
            }
        }
        Ok(all)
    }
}

impl SegmentCollector for SegmentStories {
    type Fruit = FxHashMap<String, Agg>;

    fn collect(&mut self, doc: DocId, _: Score) {
        let Some(story) = self.story.as_ref().and_then(|c| c.ords().first(doc)) else {
            return;
        };
        let t = self
            .published
            .first(doc)
            .map_or(0, |d| d.into_timestamp_secs());
        let site = self.site.as_ref().and_then(|c| c.ords().first(doc));
        let (agg, sites) = self.by_ord.entry(story).or_insert_with(|| {
            (
                Agg {
                    first: i64::MAX,
                    last: i64::MIN,
                    ..Agg::default()
                },
                BTreeSet::new(),
            )
        });
        agg.total += 1;
        if (self.from..self.to).contains(&t) {
            agg.in_range += 1;
        }
        agg.first = agg.first.min(t);
        agg.last = agg.last.max(t);
        sites.extend(site);
    }

    fn harvest(self) -> FxHashMap<String, Agg> {
        let name = |c: &Option<StrColumn>, ord: u64| {
            let mut s = String::new();
            c.as_ref()
                .and_then(|c| c.ord_to_str(ord, &mut s).ok())
                .filter(|found| *found)
                .map(|_| s)
        };
        self.by_ord
            .into_iter()
            .filter_map(|(ord, (mut agg, sites))| {
                agg.sites = sites
                    .into_iter()
                    .filter_map(|o| name(&self.site, o))
                    .collect();
                Some((name(&self.story, ord)?, agg))
            })
            .collect()
    }
}

fn rfc3339(secs: i64) -> String {
    jiff::Timestamp::from_second(secs)
        .map(|t| t.to_string())
        .unwrap_or_default()
}

/// The headline sharing most words with the others (ties: the first).
fn central_title(titles: &[String]) -> String {
    let words: Vec<BTreeSet<String>> = titles
        .iter()
        .map(|t| gleaner_text::terms(t).into_iter().collect())
        .collect();
    let score = |i: usize| -> usize {
        (0..words.len())
            .filter(|&j| j != i)
            .map(|j| words[i].intersection(&words[j]).count())
            .sum()
    };
    (0..titles.len())
        .max_by_key(|&i| (score(i), std::cmp::Reverse(i)))
        .map(|i| titles[i].clone())
        .unwrap_or_default()
}

impl SearchIndex {
    /// The reports of a story, the first first.
    fn reports(&self, story: &str, n: usize) -> anyhow::Result<Vec<(i64, Report)>> {
        let f = self.fields;
        let docs = self.by_term(f.story, story, n)?;
        let mut out = Vec::with_capacity(docs.len());
        for d in docs {
            let text = |field| stored_text(&d, field);
            let at = d
                .get_first(f.published)
                .and_then(|v| v.as_datetime())
                .map(|t| t.into_timestamp_secs());
            out.push((
                at.unwrap_or(i64::MAX),
                Report {
                    id: text(f.id),
                    url: text(f.url),
                    title: text(f.title),
                    site: text(f.site),
                    published: at.map(rfc3339),
                },
            ));
        }
        out.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.url.cmp(&b.1.url)));
        Ok(out)
    }

    /// Stories with reports in the range, largest (or fastest growing) first.
    pub fn stories(&self, req: &StoriesRequest) -> anyhow::Result<StoryList> {
        let started = std::time::Instant::now();
        let (from, to) = (req.from.unwrap_or(i64::MIN), req.to.unwrap_or(i64::MAX));
        let all = self
            .reader
            .searcher()
            .search(&AllQuery, &StoryCollector { from, to })?;
        let mut listed: Vec<(String, Agg)> = all
            .into_iter()
            .filter(|(_, a)| a.in_range > 0 && a.total >= req.min_reports.max(1))
            .collect();
        let key = |a: &Agg| match req.sort {
            StorySort::Size => (a.total, a.in_range, a.last),
            StorySort::Growth => (a.in_range, a.total, a.last),
        };
        listed.sort_by(|a, b| key(&b.1).cmp(&key(&a.1)).then_with(|| a.0.cmp(&b.0)));
        let total = listed.len() as u64;
        let mut stories = Vec::new();
        for (id, a) in listed.into_iter().skip(req.offset).take(req.limit) {
            let titles: Vec<String> = self
                .reports(&id, TITLE_CANDIDATES)?
                .into_iter()
                .map(|(_, r)| r.title)
                .collect();
            stories.push(StorySummary {
                title: central_title(&titles),
                id,
                reports: a.total,
                reports_in_range: a.in_range,
                sites: a.sites.into_iter().collect(),
                first_report: rfc3339(a.first),
                last_report: rfc3339(a.last),
            });
        }
        Ok(StoryList {
            total,
            stories,
            took_ms: started.elapsed().as_secs_f64() * 1000.0,
        })
    }

    /// One story's timeline; `None` if the index has no report of it.
    pub fn story(&self, id: &str) -> anyhow::Result<Option<StoryView>> {
        let reports: Vec<Report> = self
            .reports(id, MAX_REPORTS)?
            .into_iter()
            .map(|(_, r)| r)
            .collect();
        if reports.is_empty() {
            return Ok(None);
        }
        let titles: Vec<String> = reports
            .iter()
            .take(TITLE_CANDIDATES)
            .map(|r| r.title.clone())
            .collect();
        let sites: BTreeSet<String> = reports.iter().map(|r| r.site.clone()).collect();
        Ok(Some(StoryView {
            id: id.to_string(),
            title: central_title(&titles),
            sites: sites.into_iter().collect(),
            reports,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::central_title;

    #[test]
    fn the_central_title_shares_most_words() {
        let titles = [
            "Budget day nears".to_string(),
            "Brown's Budget cuts fuel duty".to_string(),
            "Fuel duty frozen in Brown Budget".to_string(),
            "Tories attack".to_string(),
        ];
        assert_eq!(central_title(&titles), "Brown's Budget cuts fuel duty");
        assert_eq!(central_title(&[]), "");
    }
}
