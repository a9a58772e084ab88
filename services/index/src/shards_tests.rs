//! Shards searched as one give what one index of the same articles gives.

use crate::request::{SearchRequest, Sort};
use crate::{IndexStage, SearchIndex, SearchResults};
use gleaner_core::messages::{Article, Summarized};
use gleaner_core::stage::{Input, Output, Stage};
use gleaner_core::Topic;
use std::path::{Path, PathBuf};

const WORDS: &[&str] = &[
    "harbour", "bridge", "council", "budget", "election", "minister", "storm", "river", "school",
    "hospital", "train", "strike", "market", "festival", "museum", "police", "court", "airport",
];

/// Article `i`: a few words of the list, picked by `i`, on one of five
/// sites, dated over three months; every seventh shares a cluster with the
/// one before it (a copy), so that copies fall in different shards.
fn article(i: usize) -> Input {
    let pick = |k: usize| WORDS[(i * 7 + k * 11 + i / 3) % WORDS.len()];
    let text = (0..(5 + i % 9))
        .map(|k| pick(k % 4))
        .collect::<Vec<_>>()
        .join(" ");
    let id = format!("a{i}");
    let cluster = (i % 7 == 1).then(|| format!("a{}", i - 1));
    let s = Summarized {
        article: Article {
            id: id.clone(),
            url: format!("https://site{}.example/{id}", i % 5),
            title: format!("{} {}", pick(1), pick(2)),
            author: None,
            date: Some(format!("2026-0{}-{:02}", 1 + i % 3, 1 + i % 28)),
            language: Some(if i.is_multiple_of(4) { "de" } else { "en" }.into()),
            text: format!("{text}. The {} report.", pick(3)),
            extractor: "auto".into(),
            fetched_at: String::new(),
            cluster,
            story: None,
            ..Default::default()
        },
        summaries: vec![],
        engine: String::new(),
    };
    Input {
        topic: Topic::SUMMARIZED,
        key: Some(id.clone()),
        payload: Some(Output::of(Topic::SUMMARIZED, &id, &s).payload),
        origin: None,
    }
}

/// Indexes `inputs` into `dir`, in commits of ten (several segments).
async fn write(dir: &Path, inputs: &[Input]) {
    let mut stage = IndexStage::open(dir, 20_000_000, 1).unwrap();
    for chunk in inputs.chunks(10) {
        assert!(stage.handle_batch(chunk).await.iter().all(|r| r.is_ok()));
        stage.drain().await;
    }
    stage.close().await.unwrap();
}

/// What a search shows, scores rounded (sums over other segments may
/// differ in the last bits).
fn shown(r: &SearchResults) -> Vec<(String, i64, u32)> {
    r.hits
        .iter()
        .map(|h| (h.id.clone(), (h.score * 1000.0).round() as i64, h.copies))
        .collect()
}

#[tokio::test]
async fn shards_search_as_one_index() {
    let tmp = tempfile::tempdir().unwrap();
    let (whole, a, b): (PathBuf, PathBuf, PathBuf) = (
        tmp.path().join("whole"),
        tmp.path().join("a"),
        tmp.path().join("b"),
    );
    let all: Vec<Input> = (0..120).map(article).collect();
    // Split as partitions would: by a hash of the id, unevenly.
    let in_a = |id: &str| id.bytes().map(u32::from).sum::<u32>() % 3 == 0;
    let (left, right): (Vec<Input>, Vec<Input>) = all
        .iter()
        .cloned()
        .partition(|i| in_a(i.key.as_deref().unwrap()));
    assert!(!left.is_empty() && !right.is_empty());
    write(&whole, &all).await;
    write(&a, &left).await;
    write(&b, &right).await;
    let one = SearchIndex::open(&whole, 200).unwrap();
    let shards = SearchIndex::open_shards(&[a.clone(), b.clone()], 200).unwrap();
    assert_eq!(shards.num_docs(), 120);
    let asks = [
        SearchRequest {
            q: "harbour".into(),
            limit: 100,
            facets: true,
            ..SearchRequest::default()
        },
        SearchRequest {
            q: "bridge council".into(),
            limit: 7,
            offset: 5,
            ..SearchRequest::default()
        },
        SearchRequest {
            q: "\"storm river\"".into(),
            limit: 20,
            facets: true,
            ..SearchRequest::default()
        },
        SearchRequest {
            q: "school -train".into(),
            limit: 10,
            sort: Sort::Newest,
            lang: Some("en".into()),
            ..SearchRequest::default()
        },
        SearchRequest {
            q: String::new(),
            limit: 30,
            sites: vec!["site2.example".into()],
            facets: true,
            ..SearchRequest::default()
        },
        // A typo: matched fuzzily over every shard.
        SearchRequest {
            q: "hospitl".into(),
            limit: 10,
            ..SearchRequest::default()
        },
    ];
    let mut hits = 0;
    for ask in &asks {
        let (x, y) = (one.find(ask).unwrap(), shards.find(ask).unwrap());
        assert_eq!((x.total, x.fuzzy), (y.total, y.fuzzy), "{:?}", ask.q);
        assert_eq!(x.facets, y.facets, "{:?}", ask.q);
        let (mut sx, mut sy) = (shown(&x), shown(&y));
        // Equal scores may come in either order.
        sx.sort_by(|p, q| q.1.cmp(&p.1).then(p.0.cmp(&q.0)));
        sy.sort_by(|p, q| q.1.cmp(&p.1).then(p.0.cmp(&q.0)));
        if ask.sort == Sort::Relevance && ask.offset == 0 && x.total as usize <= ask.limit {
            assert_eq!(sx, sy, "{:?}", ask.q);
        } else {
            assert_eq!(sx.len(), sy.len(), "{:?}", ask.q);
        }
        hits += y.hits.len();
    }
    assert!(hits > 30, "the queries found too little to compare: {hits}");
    // The article view finds copies in the other shard.
    let copied = (0..120)
        .find(|i| i % 7 == 1 && in_a(&format!("a{i}")) != in_a(&format!("a{}", i - 1)))
        .unwrap();
    let view = shards.article(&format!("a{copied}")).unwrap().unwrap();
    assert_eq!(view.copies.len(), 2, "{view:?}");
    assert!(shards.stats().index_bytes > one.stats().index_bytes / 2);
}

#[tokio::test]
async fn a_commit_in_any_shard_is_searchable_and_bad_shards_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    write(&a, &[article(1)]).await;
    write(&b, &[article(2)]).await;
    let shards = SearchIndex::open_shards(&[a.clone(), b.clone()], 200).unwrap();
    assert_eq!(shards.num_docs(), 2);
    // The shard's writer goes on while it is searched (the meta lock is
    // shared, not held).
    write(&b, &[article(3), article(4)]).await;
    shards.reload().unwrap();
    assert_eq!(shards.num_docs(), 4);
    let missing = tmp.path().join("none");
    let err = SearchIndex::open_shards(&[a.clone(), missing], 200)
        .err()
        .unwrap();
    assert!(err.to_string().contains("no index in"), "{err}");
    let not_index = tmp.path().join("junk");
    std::fs::create_dir_all(&not_index).unwrap();
    std::fs::write(not_index.join("meta.json"), "{not json").unwrap();
    let err = SearchIndex::open_shards(&[a, not_index], 200)
        .err()
        .unwrap();
    assert!(format!("{err:#}").contains("meta.json"), "{err:#}");
    // A shard made before accents were folded has other fields: refused,
    // with the reason, not searched with the wrong analyzers.
    let old = tmp.path().join("old");
    std::fs::create_dir_all(&old).unwrap();
    let (schema, _) = crate::schema::schema(crate::analyzers::Accents::Kept);
    tantivy::Index::create_in_dir(&old, schema).unwrap();
    write(&old, &[article(5)]).await;
    let err = SearchIndex::open_shards(&[b, old], 200).err().unwrap();
    assert!(
        format!("{err:#}").contains("another version of gleaner"),
        "{err:#}"
    );
}

/// An article in two shards (its partition moved between index instances
/// before its shard committed) is one hit, not a copy of itself.
#[tokio::test]
async fn an_article_in_two_shards_is_shown_once() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    write(&a, &[article(5), article(6)]).await;
    write(&b, &[article(5)]).await;
    let shards = SearchIndex::open_shards(&[a, b], 200).unwrap();
    let found = shards
        .find(&SearchRequest {
            limit: 10,
            ..SearchRequest::default()
        })
        .unwrap();
    let ids: Vec<(&str, u32)> = found
        .hits
        .iter()
        .map(|h| (h.id.as_str(), h.copies))
        .collect();
    assert_eq!(ids.len(), 2, "{ids:?}");
    assert!(ids.contains(&("a5", 0)), "{ids:?}");
    let view = shards.article("a5").unwrap().unwrap();
    assert_eq!(view.copies.len(), 1, "{view:?}");
}
