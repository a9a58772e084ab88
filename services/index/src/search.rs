//! Search: a query with filters (site, language, dates, summaries), in
//! relevance or date order, paged, with sentence snippets, the total and
//! facet counts; copies of one article (one dedup cluster) collapsed to the
//! earliest published, with the others' URLs.

use crate::facets::FacetCollector;
use crate::request::{Hit, SearchRequest, SearchResults, Sort, SNIPPET_CHARS};
use crate::schema::{open_or_create, Fields};
use crate::snippet::{highlight, sentence_snippet, truncate_chars};
use std::collections::{BTreeMap, HashMap};
use std::ops::Bound;
use std::path::{Path, PathBuf};
use tantivy::collector::{Count, TopDocs};
use tantivy::query::{
    AllQuery, BooleanQuery, ConstScoreQuery, FuzzyTermQuery, Occur, Query, QueryParser, RangeQuery,
    TermQuery, TermSetQuery,
};
use tantivy::schema::{Field, IndexRecordOption, Value};
use tantivy::snippet::SnippetGenerator;
use tantivy::{
    DateTime, DocAddress, Index, IndexReader, Order, ReloadPolicy, TantivyDocument, Term,
};

/// Read access to an index, refreshed as the index stage commits.
pub struct SearchIndex {
    pub(crate) index: Index,
    pub(crate) reader: IndexReader,
    pub(crate) fields: Fields,
    snippet_chars: usize,
    pub dir: PathBuf,
}

impl SearchIndex {
    pub fn open(dir: &Path, snippet_chars: usize) -> anyhow::Result<Self> {
        anyhow::ensure!(
            dir.join("meta.json").exists(),
            "no index in {} (run `gleaner run` or the index service first)",
            dir.display()
        );
        let (index, fields) = open_or_create(dir)?;
        let reader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::OnCommitWithDelay)
            .try_into()?;
        Ok(SearchIndex {
            index,
            reader,
            fields,
            snippet_chars,
            dir: dir.to_path_buf(),
        })
    }

    /// Makes the last commit searchable now (the reader otherwise follows
    /// commits by itself, within about a second).
    pub fn reload(&self) -> anyhow::Result<()> {
        Ok(self.reader.reload()?)
    }

    /// Number of documents searchable now.
    pub fn num_docs(&self) -> u64 {
        self.reader.searcher().num_docs()
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

    /// The words of `q` as a query over every text field, titles weighing
    /// double; every article when `q` has none.
    fn text_query(&self, q: &str) -> Box<dyn Query> {
        if q.trim().is_empty() {
            return Box::new(AllQuery);
        }
        let f = self.fields;
        let mut fields = vec![f.title, f.body, f.title_cjk, f.body_cjk];
        fields.extend(f.title_stem);
        fields.extend(f.body_stem);
        let mut parser = QueryParser::for_index(&self.index, fields);
        // Every word must match, as people expect of a search box; OR says
        // otherwise.
        parser.set_conjunction_by_default();
        for title in [f.title, f.title_cjk].into_iter().chain(f.title_stem) {
            parser.set_field_boost(title, 2.0);
        }
        parser.parse_query_lenient(q).0
    }

    /// The words of `q` again, those of five letters or more matched
    /// within one edit, every word required: for a query that matched
    /// nothing as written. `None` for a query with operators or phrases,
    /// which say exactly what they want.
    fn fuzzy_query(&self, q: &str) -> Option<Box<dyn Query>> {
        if q.contains(['"', ':', '(', '+']) || q.split_whitespace().any(|w| w.starts_with('-')) {
            return None;
        }
        let f = self.fields;
        let words = gleaner_text::words(q);
        if words.is_empty() || !words.iter().any(|w| w.chars().count() >= 5) {
            return None;
        }
        let clauses = words
            .iter()
            .map(|w| {
                let either: Vec<(Occur, Box<dyn Query>)> = [f.title, f.body]
                    .into_iter()
                    .map(|field| {
                        let term = Term::from_field_text(field, w);
                        let q: Box<dyn Query> = if w.chars().count() >= 5 {
                            Box::new(FuzzyTermQuery::new(term, 1, true))
                        } else {
                            Box::new(TermQuery::new(term, IndexRecordOption::WithFreqs))
                        };
                        (Occur::Should, q)
                    })
                    .collect();
                (
                    Occur::Must,
                    Box::new(BooleanQuery::new(either)) as Box<dyn Query>,
                )
            })
            .collect();
        Some(Box::new(BooleanQuery::new(clauses)))
    }

    /// The filters of `req` as queries that match without scoring.
    fn filters(&self, req: &SearchRequest) -> Vec<Box<dyn Query>> {
        let f = self.fields;
        let mut out: Vec<Box<dyn Query>> = Vec::new();
        if !req.sites.is_empty() {
            let terms = req
                .sites
                .iter()
                .map(|s| Term::from_field_text(f.site, &s.trim().to_ascii_lowercase()));
            out.push(Box::new(TermSetQuery::new(terms)));
        }
        if let Some(lang) = &req.lang {
            let term = Term::from_field_text(f.language, &lang.trim().to_ascii_lowercase());
            out.push(Box::new(TermQuery::new(term, IndexRecordOption::Basic)));
        }
        if req.from.is_some() || req.to.is_some() {
            let at = |secs: i64| {
                Term::from_field_date_for_search(f.published, DateTime::from_timestamp_secs(secs))
            };
            let lower = req
                .from
                .map_or(Bound::Unbounded, |s| Bound::Included(at(s)));
            let upper = req.to.map_or(Bound::Unbounded, |s| Bound::Excluded(at(s)));
            out.push(Box::new(RangeQuery::new(lower, upper)));
        }
        if let Some(secs) = req.indexed_from {
            let at =
                Term::from_field_date_for_search(f.indexed, DateTime::from_timestamp_secs(secs));
            out.push(Box::new(RangeQuery::new(
                Bound::Included(at),
                Bound::Unbounded,
            )));
        }
        if let Some(has) = req.has_summary {
            let term = Term::from_field_bool(f.has_summary, has);
            out.push(Box::new(TermQuery::new(term, IndexRecordOption::Basic)));
        }
        out.into_iter()
            .map(|q| Box::new(ConstScoreQuery::new(q, 0.0)) as Box<dyn Query>)
            .collect()
    }

    /// A page of hits for `req`, with the total and, if asked, the facet
    /// counts of the whole result set.
    pub fn find(&self, req: &SearchRequest) -> anyhow::Result<SearchResults> {
        let started = std::time::Instant::now();
        let found = self.find_with(req, self.text_query(&req.q), started)?;
        if found.total > 0 {
            return Ok(found);
        }
        match self.fuzzy_query(&req.q) {
            Some(q) => Ok(SearchResults {
                fuzzy: true,
                ..self.find_with(req, q, started)?
            }),
            None => Ok(found),
        }
    }

    fn find_with(
        &self,
        req: &SearchRequest,
        text: Box<dyn Query>,
        started: std::time::Instant,
    ) -> anyhow::Result<SearchResults> {
        let f = self.fields;
        let filters = self.filters(req);
        let query: Box<dyn Query> = if filters.is_empty() {
            text.box_clone()
        } else {
            let mut all = vec![(Occur::Must, text.box_clone())];
            all.extend(filters.into_iter().map(|q| (Occur::Must, q)));
            Box::new(BooleanQuery::new(all))
        };
        let searcher = self.reader.searcher();
        let (total, facets) = if req.facets {
            let (n, facets) = searcher.search(&*query, &(Count, FacetCollector))?;
            (n as u64, Some(facets))
        } else {
            (searcher.search(&*query, &Count)? as u64, None)
        };
        // No page asks for more than the index holds.
        let want = req
            .offset
            .saturating_add(req.limit.max(1))
            .min(searcher.num_docs() as usize);
        let group = if req.group_by_story {
            f.story
        } else {
            f.cluster
        };
        let top = self.collapsed(&searcher, &*query, want, req.sort, group)?;
        let chars = req.snippet_chars.map_or(self.snippet_chars, |n| {
            n.clamp(*SNIPPET_CHARS.start(), *SNIPPET_CHARS.end())
        });
        let generator = |field: Field| -> anyhow::Result<SnippetGenerator> {
            let mut g = SnippetGenerator::create(&searcher, &*text, field)?;
            g.set_max_num_chars(chars);
            Ok(g)
        };
        let plain = generator(f.body)?;
        // Highlights by the stemmer of each hit's language, made on demand.
        let mut stemmed: BTreeMap<usize, SnippetGenerator> = BTreeMap::new();
        let mut hits = Vec::with_capacity(top.len());
        for (score, doc, copy_urls) in top.into_iter().skip(req.offset) {
            let get = |field: Field| crate::schema::stored_text(&doc, field);
            let opt = |field: Field| Some(get(field)).filter(|s| !s.is_empty());
            let full = get(f.body);
            // A body that starts with its headline would repeat the title
            // shown just above: the snippet reads from after it.
            let title = get(f.title);
            let body = match full.strip_prefix(title.trim()) {
                Some(rest) if !title.trim().is_empty() && !rest.trim().is_empty() => {
                    rest.trim_start().to_string()
                }
                _ => full,
            };
            let mut fragment = plain.snippet(&body);
            if let Some(i) = crate::schema::stem_slot(opt(f.language).as_deref()) {
                let by_stem = match stemmed.entry(i) {
                    std::collections::btree_map::Entry::Occupied(g) => g.into_mut(),
                    std::collections::btree_map::Entry::Vacant(slot) => {
                        slot.insert(generator(f.body_stem[i])?)
                    }
                }
                .snippet(&body);
                if !by_stem.fragment().is_empty() {
                    fragment = by_stem;
                }
            }
            let mut snippet = sentence_snippet(&body, fragment.fragment(), chars);
            if snippet.is_empty() {
                // No query term in the body (a title or CJK match): lead text.
                snippet = truncate_chars(&body, chars);
            }
            let terms: Vec<&str> = fragment
                .highlighted()
                .iter()
                .filter_map(|r| fragment.fragment().get(r.clone()))
                .collect();
            let highlight = highlight(&snippet, &terms);
            let published = doc
                .get_first(f.published)
                .and_then(|v| v.as_datetime())
                .and_then(|d| jiff::Timestamp::from_second(d.into_timestamp_secs()).ok())
                .map(|t| t.to_string());
            hits.push(Hit {
                id: get(f.id),
                url: get(f.url),
                title: get(f.title),
                score,
                snippet,
                highlight,
                author: opt(f.author),
                date: opt(f.date),
                language: opt(f.language),
                site: get(f.site),
                published,
                summaries: serde_json::from_str(&get(f.summaries))
                    .unwrap_or(serde_json::Value::Null),
                cluster: opt(f.cluster),
                story: opt(f.story),
                more_reports: if req.group_by_story {
                    copy_urls.len() as u32
                } else {
                    0
                },
                copies: if req.group_by_story {
                    0
                } else {
                    copy_urls.len() as u32
                },
                copy_urls: if req.group_by_story {
                    Vec::new()
                } else {
                    copy_urls
                },
            });
        }
        Ok(SearchResults {
            total,
            hits,
            facets,
            fuzzy: false,
            took_ms: started.elapsed().as_secs_f64() * 1000.0,
        })
    }

    /// The best `limit` clusters (or stories: `group`) of matching
    /// documents in `sort` order,
    /// each as (score of its best match, its earliest published match, the
    /// URLs of its other matches, earliest first). Reads deeper while
    /// copies crowd the top.
    fn collapsed(
        &self,
        searcher: &tantivy::Searcher,
        query: &dyn Query,
        limit: usize,
        sort: Sort,
        group: Field,
    ) -> anyhow::Result<Vec<(f32, TantivyDocument, Vec<String>)>> {
        struct Cluster {
            score: f32,
            doc: TantivyDocument,
            published: i64,
            /// Every match: (published, URL).
            members: Vec<(i64, String)>,
        }
        if limit == 0 {
            return Ok(Vec::new());
        }
        let f = self.fields;
        let all = searcher.num_docs() as usize;
        let mut depth = limit.saturating_mul(4).max(16).min(all.max(1));
        loop {
            let top: Vec<(f32, DocAddress)> = match sort {
                Sort::Relevance => {
                    searcher.search(query, &TopDocs::with_limit(depth).order_by_score())?
                }
                Sort::Newest | Sort::Oldest => {
                    let order = if sort == Sort::Newest {
                        Order::Desc
                    } else {
                        Order::Asc
                    };
                    let by_date = TopDocs::with_limit(depth)
                        .order_by_fast_field::<DateTime>("published", order);
                    searcher
                        .search(query, &by_date)?
                        .into_iter()
                        .map(|(_, addr)| (0.0, addr))
                        .collect()
                }
            };
            let mut order: Vec<String> = Vec::new();
            let mut clusters: HashMap<String, Cluster> = HashMap::new();
            for &(score, addr) in &top {
                let doc: TantivyDocument = searcher.doc(addr)?;
                let text = |field: Field| doc.get_first(field).and_then(|v| v.as_str());
                let cluster = text(group)
                    .map(str::to_string)
                    .unwrap_or_else(|| format!("doc:{addr:?}"));
                let url = text(f.url).unwrap_or("").to_string();
                let published = doc
                    .get_first(f.published)
                    .and_then(|v| v.as_datetime())
                    .map_or(i64::MAX, |d| d.into_timestamp_secs());
                match clusters.get_mut(&cluster) {
                    Some(c) => {
                        c.members.push((published, url));
                        if published < c.published {
                            (c.doc, c.published) = (doc, published);
                        }
                    }
                    None => {
                        order.push(cluster.clone());
                        let members = vec![(published, url)];
                        clusters.insert(
                            cluster,
                            Cluster {
                                score,
                                doc,
                                published,
                                members,
                            },
                        );
                    }
                }
            }
            let exhausted = top.len() < depth || depth >= all;
            if order.len() >= limit || exhausted {
                return Ok(order
                    .iter()
                    .take(limit)
                    .filter_map(|c| clusters.remove(c))
                    .map(|mut c| {
                        c.members.sort();
                        let shown = c
                            .doc
                            .get_first(f.url)
                            .and_then(|v| v.as_str())
                            .unwrap_or("");
                        let copies = c
                            .members
                            .iter()
                            .map(|(_, u)| u.clone())
                            .filter(|u| u != shown)
                            .collect();
                        (c.score, c.doc, copies)
                    })
                    .collect());
            }
            depth = depth.saturating_mul(4).min(all);
        }
    }
}

#[cfg(test)]
#[path = "search_tests.rs"]
mod tests;
