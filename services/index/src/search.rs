//! Search: a query with filters (site, language, dates, summaries), in
//! relevance or date order, paged, with sentence snippets, the total and
//! facet counts; copies of one article (one dedup cluster) collapsed to the
//! earliest published, with the others' URLs.

use crate::collapse::group_hits;
use crate::facets::FacetCollector;
use crate::pairs::CommonWords;
use crate::request::{Facets, Hit, SearchRequest, SearchResults, Sort, SNIPPET_CHARS};
use crate::schema::{open_or_create, open_union, Fields};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;
use tantivy::collector::{Collector, Count, TopDocs};
use tantivy::query::{BooleanQuery, Occur, Query};
use tantivy::{DateTime, DocAddress, Index, IndexReader, Order, ReloadPolicy, Searcher};

/// Read access to an index (or to several shards as one), refreshed as
/// the index stages commit.
pub struct SearchIndex {
    pub(crate) index: Index,
    pub(crate) reader: IndexReader,
    pub(crate) fields: Fields,
    snippet_chars: usize,
    /// The index directory, or each shard's.
    pub dirs: Vec<PathBuf>,
    /// The common words whose pairs the index holds (of every shard), as
    /// last read, and when (phrases.rs).
    pub(crate) known: Mutex<(Arc<CommonWords>, Option<Instant>)>,
}

/// A search's words as the query that finds the articles, and as the
/// one whose terms the snippets mark (the same but for a phrase of common
/// words, found as one pair term: phrases.rs).
pub(crate) struct TextQuery {
    pub(crate) matching: Box<dyn Query>,
    pub(crate) terms: Box<dyn Query>,
    /// Whether `matching` reads word positions (a phrase).
    pub(crate) positional: bool,
    /// Whether only a document with words can match it: a repost's, which
    /// has none, then needs no leaving out (copies.rs).
    pub(crate) needs_words: bool,
    /// Its lone CJK characters, marked alone where a bigram holding one
    /// matched (lone_char.rs).
    pub(crate) lone: Vec<char>,
}

impl SearchIndex {
    pub fn open(dir: &Path, snippet_chars: usize) -> anyhow::Result<Self> {
        Self::open_shards(&[dir.to_path_buf()], snippet_chars)
    }

    /// The index in `dirs` (one directory), or the shards in them searched
    /// as one index (shards.rs).
    pub fn open_shards(dirs: &[PathBuf], snippet_chars: usize) -> anyhow::Result<Self> {
        for dir in dirs {
            anyhow::ensure!(
                dir.join("meta.json").exists(),
                "no index in {} (run `gleaner run` or the index service first)",
                dir.display()
            );
        }
        let (mut index, fields) = match dirs {
            [one] => open_or_create(one)?,
            _ => open_union(dirs)?,
        };
        // A query's segments are searched on every core at once: one
        // costly query (a phrase of common words) no longer waits on one.
        index.set_default_multithread_executor()?;
        let reader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::OnCommitWithDelay)
            .try_into()?;
        Ok(SearchIndex {
            index,
            reader,
            fields,
            snippet_chars,
            dirs: dirs.to_vec(),
            known: Mutex::default(),
        })
    }

    /// Makes the last commit searchable now (the reader otherwise follows
    /// commits by itself, within about a second).
    pub fn reload(&self) -> anyhow::Result<()> {
        Ok(self.reader.reload()?)
    }

    /// Number of articles searchable now (reposts kept only as copies
    /// not counted).
    pub fn num_docs(&self) -> u64 {
        let searcher = self.reader.searcher();
        searcher
            .num_docs()
            .saturating_sub(crate::copies::count(&searcher, &self.fields))
    }

    /// Ranked hits for a query in the query language (words, "phrases",
    /// OR, -exclusions, field:value). Malformed syntax is read leniently,
    /// not refused.
    pub fn search(&self, query: &str, limit: usize) -> anyhow::Result<Vec<Hit>> {
        let req = SearchRequest {
            q: query.to_string(),
            limit,
            ..SearchRequest::default()
        };
        Ok(self.find(&req)?.hits)
    }

    /// A page of hits for `req`, with the total and, if asked, the facet
    /// counts of the whole result set.
    pub fn find(&self, req: &SearchRequest) -> anyhow::Result<SearchResults> {
        let started = std::time::Instant::now();
        let searcher = self.reader.searcher();
        let text = self.text_query(&searcher, &req.q, req.lang.as_deref());
        let found = self.find_with(&searcher, req, text, started)?;
        if found.total > 0 {
            return Ok(found);
        }
        let typed = (!req.whole_words)
            .then(|| self.as_typed(&searcher, &req.q, req.lang.as_deref()))
            .flatten();
        if let Some(q) = typed {
            let text = self.text_query(&searcher, &q, req.lang.as_deref());
            let found = self.find_with(&searcher, req, text, started)?;
            if found.total > 0 {
                return Ok(SearchResults {
                    prefix: true,
                    ..found
                });
            }
        }
        match self.fuzzy_query(&searcher, &req.q, req.lang.as_deref()) {
            Some(q) => {
                let text = TextQuery {
                    terms: q.box_clone(),
                    matching: q,
                    positional: false,
                    needs_words: true,
                    // The typo retry asks no CJK field.
                    lone: Vec::new(),
                };
                let widened = self.find_with(&searcher, req, text, started)?;
                // Nothing within one typo either: the query as written.
                if widened.total == 0 {
                    return Ok(SearchResults {
                        took_ms: started.elapsed().as_secs_f64() * 1000.0,
                        ..found
                    });
                }
                Ok(SearchResults {
                    fuzzy: true,
                    ..widened
                })
            }
            None => Ok(found),
        }
    }

    fn find_with(
        &self,
        searcher: &Searcher,
        req: &SearchRequest,
        text: TextQuery,
        started: std::time::Instant,
    ) -> anyhow::Result<SearchResults> {
        let f = self.fields;
        let filters = self.filters(req);
        let query: Box<dyn Query> = if filters.is_empty() {
            text.matching
        } else {
            let mut all = vec![(Occur::Must, text.matching)];
            all.extend(filters.into_iter().map(|q| (Occur::Must, q)));
            Box::new(BooleanQuery::new(all))
        };
        // A repost's document has no words, but an empty query, one of
        // filters alone or of exclusions alone would find it.
        let query = if text.needs_words {
            query
        } else {
            crate::copies::left_out(searcher, &f, query)
        };
        // No page asks for more than the index holds.
        let all = searcher.num_docs() as usize;
        let want = req.offset.saturating_add(req.limit.max(1)).min(all);
        let group = if req.group_by_story {
            "story_key"
        } else {
            "cluster_key"
        };
        let mut depth = want.saturating_mul(4).max(16).min(all.max(1));
        // A phrase matched by positions is costly (every position of its
        // words; one of common words is a pair term, as cheap as a word): one
        // pass counts, tallies facets and ranks. Words are cheap to match,
        // and ranked alone Tantivy skips blocks that cannot reach the top:
        // counting apart and ranking apart is quicker (took_ms on
        // bench-search's 200,000 articles: a phrase of two common words
        // 193 ms in two passes, 131 in one; two common words 12.3 ms in
        // two, 14.8 in one; the builds compared also grouped copies
        // differently, see collapse.rs).
        let (total, facets, mut ranked) = if text.positional {
            ranked(searcher, &*query, req.sort, depth, Some(req.facets))?
        } else {
            let (total, facets) = if req.facets {
                let (n, facets) = searcher.search(&*query, &(Count, FacetCollector))?;
                (n as u64, Some(facets))
            } else {
                (searcher.search(&*query, &Count)? as u64, None)
            };
            (
                total,
                facets,
                ranked(searcher, &*query, req.sort, depth, None)?.2,
            )
        };
        // Deeper only while copies crowd the page.
        let groups = loop {
            let groups = group_hits(searcher, &ranked, group)?;
            if groups.len() >= want || ranked.len() < depth || depth >= all {
                break groups;
            }
            depth = depth.saturating_mul(4).min(all);
            ranked = self::ranked(searcher, &*query, req.sort, depth, None)?.2;
        };
        let shown = groups.into_iter().take(want).skip(req.offset).collect();
        let chars = req.snippet_chars.map_or(self.snippet_chars, |n| {
            n.clamp(*SNIPPET_CHARS.start(), *SNIPPET_CHARS.end())
        });
        let hits = crate::hits::page_hits(
            searcher,
            &f,
            &*text.terms,
            &text.lone,
            chars,
            shown,
            req.group_by_story,
        )?;
        Ok(SearchResults {
            total,
            hits,
            facets,
            fuzzy: false,
            prefix: false,
            took_ms: started.elapsed().as_secs_f64() * 1000.0,
        })
    }
}

/// A query's total (0 when not counted), facets (if tallied) and first
/// hits with their scores.
type Tallied = (u64, Option<Facets>, Vec<(f32, DocAddress)>);

/// The first `depth` hits of `query` in `sort` order, with, when `tally`
/// says so, the number of every hit and (`Some(true)`) their facets, all
/// in one pass over the matches.
fn ranked(
    searcher: &Searcher,
    query: &dyn Query,
    sort: Sort,
    depth: usize,
    tally: Option<bool>,
) -> tantivy::Result<Tallied> {
    match sort {
        Sort::Relevance => tallied(
            searcher,
            query,
            tally,
            TopDocs::with_limit(depth).order_by_score(),
        ),
        Sort::Newest | Sort::Oldest => {
            let order = if sort == Sort::Newest {
                Order::Desc
            } else {
                Order::Asc
            };
            let by_date =
                TopDocs::with_limit(depth).order_by_fast_field::<DateTime>("published", order);
            let (n, facets, top) = tallied(searcher, query, tally, by_date)?;
            Ok((n, facets, top.into_iter().map(|(_, a)| (0.0, a)).collect()))
        }
    }
}

fn tallied<C: Collector>(
    searcher: &Searcher,
    query: &dyn Query,
    tally: Option<bool>,
    top: C,
) -> tantivy::Result<(u64, Option<Facets>, C::Fruit)> {
    Ok(match tally {
        Some(true) => {
            let (n, facets, top) = searcher.search(query, &(Count, FacetCollector, top))?;
            (n as u64, Some(facets), top)
        }
        Some(false) => {
            let (n, top) = searcher.search(query, &(Count, top))?;
            (n as u64, None, top)
        }
        None => (0, None, searcher.search(query, &top)?),
    })
}

#[cfg(test)]
#[path = "search_tests.rs"]
pub(crate) mod tests;

#[cfg(test)]
#[path = "search_words_tests.rs"]
mod words_tests;
