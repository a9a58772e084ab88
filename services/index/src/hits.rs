//! The hits of a page, made on the search cores at once: each shown
//! article's stored fields, its copies' URLs and its snippet. Reading a
//! stored article (a block decompressed) and finding its best fragment
//! (its body tokenized and stemmed again) were a third of a query's time
//! on scripts/bench-search.sh's index, one hit after another on one core.

use crate::collapse::Group;
use crate::request::Hit;
use crate::schema::{stem_slot, stored_text, Fields, STEMMED};
use crate::snippet::{highlight, sentence_snippet, truncate_chars};
use std::sync::OnceLock;
use tantivy::query::Query;
use tantivy::schema::{Field, Value};
use tantivy::snippet::{Snippet, SnippetGenerator};
use tantivy::{Searcher, TantivyDocument};

/// Snippet generators for one query, each made when a hit first needs it:
/// the stemmed body of each language, the CJK body (its bigrams), and the
/// plain body (articles in a language with no stemmer, or whose match was
/// not in the body).
struct Snippets<'a> {
    searcher: &'a Searcher,
    query: &'a dyn Query,
    chars: usize,
    /// The query's lone CJK characters (`TextQuery::lone`).
    lone: Vec<char>,
    plain: OnceLock<Option<SnippetGenerator>>,
    cjk: OnceLock<Option<SnippetGenerator>>,
    stemmed: [OnceLock<Option<SnippetGenerator>>; STEMMED.len()],
}

impl Snippets<'_> {
    fn generator<'s>(
        &'s self,
        cell: &'s OnceLock<Option<SnippetGenerator>>,
        field: Field,
    ) -> Option<&'s SnippetGenerator> {
        cell.get_or_init(|| {
            let mut g = SnippetGenerator::create(self.searcher, self.query, field).ok()?;
            g.set_max_num_chars(self.chars);
            Some(g)
        })
        .as_ref()
    }

    /// The best fragment of `body`: by the stems of the article's
    /// language where it has a stemmer, else (or if that finds none) by
    /// its CJK bigrams when it has CJK text, else by its plain words. The
    /// plain words hold a run of CJK characters as one word, so a CJK
    /// word was marked only where it stood alone ("谷歌(微博)", not the
    /// "人工智能" of "收购的人工智能公司").
    fn fragment(&self, f: &Fields, body: &str, language: Option<&str>) -> Option<Snippet> {
        let found = |s: &Snippet| !s.fragment().is_empty();
        if let Some(i) = stem_slot(language) {
            let by_stem = self
                .generator(&self.stemmed[i], f.body_stem[i])
                .map(|g| g.snippet(body));
            if let Some(s) = by_stem.filter(found) {
                return Some(s);
            }
        }
        if crate::cjk::has_cjk(body) {
            let by_bigram = self
                .generator(&self.cjk, f.body_cjk)
                .map(|g| g.snippet(body));
            if let Some(s) = by_bigram.filter(found) {
                return Some(s);
            }
        }
        Some(self.generator(&self.plain, f.body_plain)?.snippet(body))
    }
}

/// Most reposts' URLs listed with one hit.
const MAX_COPY_URLS: usize = 100;

/// What a page shows of each group: its hit, with the copies' URLs (or,
/// grouped by story, the count of its other reports).
pub(crate) fn page_hits(
    searcher: &Searcher,
    f: &Fields,
    query: &dyn Query,
    lone: &[char],
    chars: usize,
    groups: Vec<Group>,
    by_story: bool,
) -> anyhow::Result<Vec<Hit>> {
    let snippets = Snippets {
        searcher,
        query,
        chars,
        lone: lone.to_vec(),
        plain: OnceLock::new(),
        cjk: OnceLock::new(),
        stemmed: std::array::from_fn(|_| OnceLock::new()),
    };
    let hit = |g: Group| -> tantivy::Result<Hit> {
        let shown = g.shown();
        let doc = searcher.doc::<TantivyDocument>(shown)?;
        let mut copy_urls = Vec::new();
        let own = stored_text(&doc, f.url);
        for (_, addr) in g.members.iter().filter(|(_, addr)| *addr != shown) {
            let d: TantivyDocument = searcher.doc(*addr)?;
            let url = stored_text(&d, f.url);
            // One article in two shards (its partition moved between
            // index instances) is not a copy of itself.
            if url != own && !copy_urls.contains(&url) {
                copy_urls.push(url);
            }
        }
        Ok(hit_of(&doc, f, &snippets, g.score, copy_urls, by_story))
    };
    let mut hits = searcher
        .index()
        .search_executor()
        .map(hit, groups.into_iter())?;
    // The reposts dedup dropped (copies.rs), which no query matches: one
    // search for the page's clusters.
    if !by_story && crate::copies::any(searcher, f) {
        let clusters: Vec<&str> = hits.iter().filter_map(|h| h.cluster.as_deref()).collect();
        let mut reposts = crate::copies::urls_by_cluster(searcher, f, &clusters, MAX_COPY_URLS)?;
        for h in &mut hits {
            let Some(urls) = h.cluster.as_ref().and_then(|c| reposts.remove(c)) else {
                continue;
            };
            for url in urls {
                if url != h.url && !h.copy_urls.contains(&url) {
                    h.copy_urls.push(url);
                }
            }
            h.copies = h.copy_urls.len() as u32;
        }
    }
    Ok(hits)
}

fn hit_of(
    doc: &TantivyDocument,
    f: &Fields,
    snippets: &Snippets,
    score: f32,
    copy_urls: Vec<String>,
    by_story: bool,
) -> Hit {
    let get = |field: Field| stored_text(doc, field);
    let opt = |field: Field| Some(get(field)).filter(|s| !s.is_empty());
    let full = get(f.body);
    // A body that starts with its headline would repeat the title shown
    // just above: the snippet reads from after it.
    let title = get(f.title);
    let body = match full.strip_prefix(title.trim()) {
        Some(rest) if !title.trim().is_empty() && !rest.trim().is_empty() => {
            rest.trim_start().to_string()
        }
        _ => full,
    };
    let language = opt(f.language);
    let fragment = snippets.fragment(f, &body, language.as_deref());
    let found = fragment.as_ref().map_or("", |s| s.fragment());
    let mut snippet = sentence_snippet(&body, found, snippets.chars);
    if snippet.is_empty() {
        // No query term in the body (a title or CJK match): lead text.
        snippet = truncate_chars(&body, snippets.chars);
    }
    let terms: Vec<String> = fragment.as_ref().map_or(Vec::new(), |s| {
        s.highlighted()
            .iter()
            .filter_map(|r| s.fragment().get(r.clone()))
            .map(|term| crate::snippet::marked_part(term, &snippets.lone).to_string())
            .collect()
    });
    let terms: Vec<&str> = terms.iter().map(String::as_str).collect();
    let highlight = highlight(&snippet, &terms);
    let published = doc
        .get_first(f.published)
        .and_then(|v| v.as_datetime())
        .and_then(|d| jiff::Timestamp::from_second(d.into_timestamp_secs()).ok())
        .map(|t| t.to_string());
    let others = copy_urls.len() as u32;
    Hit {
        id: get(f.id),
        url: get(f.url),
        title,
        score,
        snippet,
        highlight,
        author: opt(f.author),
        authors: crate::schema::all_texts(doc, f.authors),
        date: opt(f.date),
        language,
        site: get(f.site),
        site_name: opt(f.site_name),
        image: opt(f.image),
        published,
        summaries: serde_json::from_str(&get(f.summaries)).unwrap_or(serde_json::Value::Null),
        cluster: opt(f.cluster),
        story: opt(f.story),
        more_reports: if by_story { others } else { 0 },
        copies: if by_story { 0 } else { others },
        copy_urls: if by_story { Vec::new() } else { copy_urls },
    }
}
