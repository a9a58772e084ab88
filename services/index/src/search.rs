//! Search: ranked hits with sentence snippets, copies of one article
//! (one dedup cluster) collapsed to the earliest published.

use crate::schema::{open_or_create, Fields};
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use tantivy::collector::TopDocs;
use tantivy::query::QueryParser;
use tantivy::schema::{Field, Value};
use tantivy::snippet::SnippetGenerator;
use tantivy::{Index, IndexReader, ReloadPolicy, TantivyDocument};

/// One search result.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Hit {
    pub id: String,
    pub url: String,
    pub title: String,
    pub score: f32,
    pub snippet: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub author: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
    pub summaries: serde_json::Value,
    /// The dedup cluster of the article; other copies of it that matched
    /// are left out of the hits and counted in `copies`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cluster: Option<String>,
    #[serde(skip_serializing_if = "is_zero")]
    pub copies: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// Read access to an index, refreshed as the index stage commits.
pub struct SearchIndex {
    index: Index,
    reader: IndexReader,
    fields: Fields,
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

    /// Number of documents searchable now.
    pub fn num_docs(&self) -> u64 {
        self.reader.searcher().num_docs()
    }

    /// Ranked hits for a query in Tantivy's query language (words, "phrases",
    /// AND/OR, -exclusions). Malformed syntax is read leniently, not refused.
    pub fn search(&self, query: &str, limit: usize) -> anyhow::Result<Vec<Hit>> {
        let f = self.fields;
        let mut fields = vec![f.title, f.body, f.title_cjk, f.body_cjk];
        fields.extend(f.title_stem);
        fields.extend(f.body_stem);
        let mut parser = QueryParser::for_index(&self.index, fields);
        for title in [f.title, f.title_cjk].into_iter().chain(f.title_stem) {
            parser.set_field_boost(title, 2.0);
        }
        let (query, _errors) = parser.parse_query_lenient(query);
        let searcher = self.reader.searcher();
        let top = self.collapsed(&searcher, &*query, limit.max(1))?;
        let generator = |field: Field| -> anyhow::Result<SnippetGenerator> {
            let mut g = SnippetGenerator::create(&searcher, &*query, field)?;
            g.set_max_num_chars(self.snippet_chars);
            Ok(g)
        };
        let plain = generator(f.body)?;
        // Highlights by the stemmer of each hit's language, made on demand.
        let mut stemmed: BTreeMap<usize, SnippetGenerator> = BTreeMap::new();
        let mut hits = Vec::with_capacity(top.len());
        for (score, doc, copies) in top {
            let get = |field: Field| {
                doc.get_first(field)
                    .and_then(|v| v.as_str())
                    .unwrap_or("")
                    .to_string()
            };
            let opt = |field: Field| Some(get(field)).filter(|s| !s.is_empty());
            let body = get(f.body);
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
            let mut snippet = sentence_snippet(&body, fragment.fragment(), self.snippet_chars);
            if snippet.is_empty() {
                // No query term in the body (a title or CJK match): lead text.
                snippet = truncate_chars(&body, self.snippet_chars);
            }
            hits.push(Hit {
                id: get(f.id),
                url: get(f.url),
                title: get(f.title),
                score,
                snippet,
                author: opt(f.author),
                date: opt(f.date),
                language: opt(f.language),
                summaries: serde_json::from_str(&get(f.summaries))
                    .unwrap_or(serde_json::Value::Null),
                cluster: opt(f.cluster),
                copies,
            });
        }
        Ok(hits)
    }

    /// The best `limit` clusters of matching documents, each as (score of
    /// its best match, its earliest published match, other matches),
    /// best first. Reads deeper while copies crowd the top.
    fn collapsed(
        &self,
        searcher: &tantivy::Searcher,
        query: &dyn tantivy::query::Query,
        limit: usize,
    ) -> anyhow::Result<Vec<(f32, TantivyDocument, u32)>> {
        struct Cluster {
            score: f32,
            doc: TantivyDocument,
            published: i64,
            copies: u32,
        }
        let f = self.fields;
        let mut depth = limit.saturating_mul(4).max(16);
        loop {
            let top = searcher.search(query, &TopDocs::with_limit(depth).order_by_score())?;
            let mut order: Vec<String> = Vec::new();
            let mut clusters: HashMap<String, Cluster> = HashMap::new();
            for &(score, addr) in &top {
                let doc: TantivyDocument = searcher.doc(addr)?;
                let cluster = doc
                    .get_first(f.cluster)
                    .and_then(|v| v.as_str())
                    .map(str::to_string)
                    .unwrap_or_else(|| format!("doc:{addr:?}"));
                let published = doc
                    .get_first(f.published)
                    .and_then(|v| v.as_i64())
                    .unwrap_or(i64::MAX);
                match clusters.get_mut(&cluster) {
                    Some(c) => {
                        c.copies += 1;
                        if published < c.published {
                            (c.doc, c.published) = (doc, published);
                        }
                    }
                    None => {
                        order.push(cluster.clone());
                        let copies = 0;
                        clusters.insert(
                            cluster,
                            Cluster {
                                score,
                                doc,
                                published,
                                copies,
                            },
                        );
                    }
                }
            }
            let exhausted = top.len() < depth;
            if order.len() >= limit || exhausted || depth >= 1 << 16 {
                return Ok(order
                    .iter()
                    .take(limit)
                    .filter_map(|c| clusters.remove(c))
                    .map(|c| (c.score, c.doc, c.copies))
                    .collect());
            }
            depth = depth.saturating_mul(4);
        }
    }
}

fn truncate_chars(s: &str, n: usize) -> String {
    s.chars().take(n).collect()
}

/// The matched fragment moved to start where its sentence starts (when that
/// is at most a fifth of the snippet back), cut at a word to `max_chars`,
/// with `…` where it starts or ends mid-sentence. Empty when there is no
/// fragment.
fn sentence_snippet(body: &str, fragment: &str, max_chars: usize) -> String {
    let fragment = fragment.trim();
    if fragment.is_empty() {
        return String::new();
    }
    let Some(at) = body.find(fragment) else {
        return fragment.to_string();
    };
    let ends_sentence = |c: char| matches!(c, '.' | '!' | '?' | '\n' | '。' | '！' | '？');
    let look_back = (max_chars / 5).max(1);
    // Byte offset where the fragment's sentence starts, if close enough.
    let mut start = None;
    for (n, (i, c)) in body[..at].char_indices().rev().enumerate() {
        if ends_sentence(c) {
            start = Some(i + c.len_utf8());
            break;
        }
        if n >= look_back {
            break;
        }
    }
    // Else the next sentence, if it starts early in the fragment
    // ("falling. The agreement, ..." starts at "The").
    let next_sentence = || {
        let mut chars = body[at..].char_indices().take(look_back).peekable();
        while let Some((i, c)) = chars.next() {
            if ends_sentence(c) && chars.peek().is_some_and(|&(_, n)| n.is_whitespace()) {
                return Some(at + i + c.len_utf8());
            }
        }
        None
    };
    let start = match start {
        Some(s) => s,
        None if at == 0 => 0,
        None => next_sentence().unwrap_or(at),
    };
    let from_sentence = start == 0 || body[..start].trim_end().ends_with(ends_sentence);
    let rest = body[start..].trim_start();
    let mut out: String = rest.chars().take(max_chars).collect();
    if out.len() < rest.len() {
        // Cut at the last space, if one is in the second half.
        if let Some(sp) = out.rfind(' ').filter(|&sp| sp > out.len() / 2) {
            out.truncate(sp);
        }
        let trimmed = out.trim_end().len();
        out.truncate(trimmed);
        if !out.ends_with(ends_sentence) {
            out.push('…');
        }
    }
    if !from_sentence {
        out.insert(0, '…');
    }
    out
}

#[cfg(test)]
mod snippet_tests {
    use super::sentence_snippet;

    #[test]
    fn snippets_start_at_a_sentence_and_cut_at_a_word() {
        let body = "Rain fell all day. The agreement, signed on Monday, ends the strike at the port after nine weeks. Talks resume in May.";
        // Fragment starting mid-sentence, near its start: moved back.
        assert_eq!(
            sentence_snippet(body, "signed on Monday, ends the strike", 80),
            "The agreement, signed on Monday, ends the strike at the port after nine weeks."
        );
        // The sentence start is too far back, and the next one too far on:
        // an ellipsis says so.
        assert_eq!(
            sentence_snippet(body, "port after nine weeks.", 40),
            "…port after nine weeks. Talks resume in…"
        );
        // The next sentence starts early in the fragment: it starts there.
        assert_eq!(
            sentence_snippet(body, "weeks. Talks resume", 40),
            "Talks resume in May."
        );
        // Whole sentences that fit end without an ellipsis.
        assert_eq!(
            sentence_snippet(body, "Talks resume in May.", 200),
            "Talks resume in May."
        );
        assert_eq!(sentence_snippet(body, "  ", 50), "");
        // Multi-byte text is cut on characters, never mid-character.
        let cjk = "東京は晴れ。明日は雨が降るでしょう。週末は曇り。";
        assert_eq!(
            sentence_snippet(cjk, "雨が降る", 15),
            "明日は雨が降るでしょう。週末は…"
        );
        assert_eq!(sentence_snippet(cjk, "雨が降る", 8), "…雨が降るでしょう…");
    }
}
