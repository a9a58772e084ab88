//! Reposts in the index. Dedup keeps the earliest copy of an article and
//! reports the others on `duplicates`; the index keeps each of those as a
//! small document (its id, URL, site, date and cluster, no text) so that
//! the original's hit and article view list where else it was published.
//! Such a document is never a hit, a facet count or a document of the
//! index's total: every search leaves it out.

use crate::schema::{self, Fields};
use gleaner_core::messages::Duplicate;
use rustc_hash::FxHashMap;
use tantivy::collector::Count;
use tantivy::query::{BooleanQuery, Occur, Query, TermQuery, TermSetQuery};
use tantivy::schema::IndexRecordOption;
use tantivy::{Searcher, TantivyDocument, Term};

/// The document of a repost: listed among its cluster's copies.
pub(crate) fn document(f: &Fields, d: &Duplicate) -> TantivyDocument {
    let mut doc = TantivyDocument::default();
    doc.add_text(f.id, &d.id);
    doc.add_text(f.url, &d.url);
    doc.add_bool(f.copy, true);
    doc.add_text(f.copy_of, &d.original_id);
    // A repost dedup gave no cluster: the original's id names it, as the
    // original's own cluster when it had none.
    let cluster = d.cluster.as_deref().unwrap_or(&d.original_id);
    doc.add_text(f.cluster, cluster);
    doc.add_u64(f.cluster_key, schema::group_key(cluster));
    let host = gleaner_core::util::host_of(&d.url);
    doc.add_text(f.site, gleaner_core::util::registered_domain(&host));
    if let Some(t) = d
        .published
        .as_deref()
        .and_then(|p| p.parse::<jiff::Timestamp>().ok())
    {
        doc.add_date(
            f.published,
            tantivy::DateTime::from_timestamp_secs(t.as_second()),
        );
    }
    doc
}

/// Matches every repost's document.
pub(crate) fn all(f: &Fields) -> TermQuery {
    TermQuery::new(
        Term::from_field_bool(f.copy, true),
        IndexRecordOption::Basic,
    )
}

/// Whether the index holds any repost (deleted ones may count: this only
/// decides whether searches need to leave them out).
pub(crate) fn any(searcher: &Searcher, f: &Fields) -> bool {
    searcher
        .doc_freq(&Term::from_field_bool(f.copy, true))
        .is_ok_and(|n| n > 0)
}

/// `query` without the reposts' documents, when the index has any.
pub(crate) fn left_out(searcher: &Searcher, f: &Fields, query: Box<dyn Query>) -> Box<dyn Query> {
    if !any(searcher, f) {
        return query;
    }
    Box::new(BooleanQuery::new(vec![
        (Occur::Must, query),
        (Occur::MustNot, Box::new(all(f))),
    ]))
}

/// Live repost documents (not counted among the index's articles).
pub(crate) fn count(searcher: &Searcher, f: &Fields) -> u64 {
    if !any(searcher, f) {
        return 0;
    }
    searcher.search(&all(f), &Count).map_or(0, |n| n as u64)
}

/// The URLs of the reposts of each of `clusters` (at most `per_cluster`
/// each), by cluster: one search for a page of hits.
pub(crate) fn urls_by_cluster(
    searcher: &Searcher,
    f: &Fields,
    clusters: &[&str],
    per_cluster: usize,
) -> tantivy::Result<FxHashMap<String, Vec<String>>> {
    let mut out: FxHashMap<String, Vec<String>> = FxHashMap::default();
    if clusters.is_empty() {
        return Ok(out);
    }
    let terms = clusters.iter().map(|c| Term::from_field_text(f.cluster, c));
    let q = BooleanQuery::new(vec![
        (
            Occur::Must,
            Box::new(TermSetQuery::new(terms)) as Box<dyn Query>,
        ),
        (Occur::Must, Box::new(all(f))),
    ]);
    let limit = per_cluster.saturating_mul(clusters.len()).max(1);
    let top = searcher.search(
        &q,
        &tantivy::collector::TopDocs::with_limit(limit).order_by_score(),
    )?;
    for (_, addr) in top {
        let d: TantivyDocument = searcher.doc(addr)?;
        let urls = out.entry(schema::stored_text(&d, f.cluster)).or_default();
        if urls.len() < per_cluster {
            urls.push(schema::stored_text(&d, f.url));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use crate::{IndexStage, SearchIndex, SearchRequest, Sort};
    use gleaner_core::messages::{Article, Duplicate, Summarized};
    use gleaner_core::stage::{Input, Output, Stage};
    use gleaner_core::Topic;

    fn article(id: &str, host: &str, title: &str, text: &str) -> Input {
        let s = Summarized {
            article: Article {
                id: id.into(),
                url: format!("http://{host}/{id}"),
                title: title.into(),
                date: Some("2026-03-02".into()),
                language: Some("en".into()),
                text: text.into(),
                extractor: "auto".into(),
                cluster: Some(id.into()),
                ..Default::default()
            },
            summaries: vec![],
            engine: "extractive".into(),
        };
        input(Topic::SUMMARIZED, id, &s)
    }

    fn input<T: serde::Serialize + Clone + Send + Sync + 'static>(
        topic: Topic,
        id: &str,
        message: &T,
    ) -> Input {
        Input {
            topic,
            key: Some(id.into()),
            payload: Some(Output::of(topic, id, message).payload),
            origin: None,
        }
    }

    fn repost(id: &str, host: &str, of: &str) -> Input {
        let d = Duplicate {
            id: id.into(),
            url: format!("http://{host}/{id}"),
            original_id: of.into(),
            original_url: format!("http://a.example.com/{of}"),
            similarity: 0.97,
            containment: 0.95,
            cluster: Some(of.into()),
            correction: false,
            published: Some("2026-03-04T10:00:00Z".into()),
        };
        input(Topic::DUPLICATES, id, &d)
    }

    /// A repost dedup dropped is listed with its original (hit and article
    /// view) and is otherwise invisible: no hit, no count, no facet.
    #[tokio::test]
    async fn reposts_are_listed_with_their_original_and_nowhere_else() {
        let dir = tempfile::tempdir().unwrap();
        let mut st = IndexStage::open(dir.path(), 20_000_000, 1).unwrap();
        let r = st
            .handle_batch(&[
                article(
                    "bridge",
                    "a.example.com",
                    "Bridge reopens",
                    "The harbour bridge reopened after eight months of repairs.",
                ),
                repost("copy", "b.example.org", "bridge"),
                article(
                    "tolls",
                    "a.example.com",
                    "Tolls rise",
                    "Tolls on the harbour bridge rise next month.",
                ),
            ])
            .await;
        assert!(r.iter().all(|x| x.is_ok()), "{r:?}");
        st.close().await.unwrap();
        let s = SearchIndex::open(dir.path(), 200).unwrap();
        assert_eq!(s.num_docs(), 2);
        // Words: the original's hit lists the repost's URL.
        let hits = s.search("reopened", 10).unwrap();
        assert_eq!(hits.len(), 1);
        assert_eq!(hits[0].id, "bridge");
        assert_eq!(hits[0].copies, 1);
        assert_eq!(hits[0].copy_urls, ["http://b.example.org/copy"]);
        // No words, filters alone: the repost is no hit and no facet.
        let every = s
            .find(&SearchRequest {
                sort: Sort::Newest,
                limit: 10,
                facets: true,
                ..SearchRequest::default()
            })
            .unwrap();
        assert_eq!(every.total, 2);
        let facets = every.facets.unwrap();
        assert_eq!(facets.site, [("example.com".to_string(), 2)]);
        let other_site = s
            .find(&SearchRequest {
                sites: vec!["example.org".into()],
                limit: 10,
                ..SearchRequest::default()
            })
            .unwrap();
        assert_eq!(other_site.total, 0);
        // Exclusions alone match every document without the word: not the
        // repost's.
        let without = s
            .find(&SearchRequest {
                q: "-tolls".into(),
                limit: 10,
                ..SearchRequest::default()
            })
            .unwrap();
        assert_eq!(without.total, 1);
        // The article view lists both, earliest first; the repost's id
        // shows its original.
        let view = s.article("bridge").unwrap().unwrap();
        let copies: Vec<(&str, Option<&str>)> = view
            .copies
            .iter()
            .map(|c| (c.url.as_str(), c.published.as_deref()))
            .collect();
        assert_eq!(
            copies,
            [
                ("http://a.example.com/bridge", Some("2026-03-02T00:00:00Z")),
                ("http://b.example.org/copy", Some("2026-03-04T10:00:00Z")),
            ]
        );
        assert_eq!(view.copies[1].site, "example.org");
        assert_eq!(s.article("copy").unwrap().unwrap().id, "bridge");
    }
}
