//! The API against a real index over HTTP on loopback: the shapes the
//! OpenAPI document promises, bad input, paging, the key, and random query
//! strings.

use super::*;
use gleaner_core::messages::{Article, Summarized, Summary};
use gleaner_core::stage::{Input, Output, Stage};
use gleaner_core::Topic;
use proptest::prelude::*;

fn article(id: &str, host: &str, date: &str, cluster: Option<&str>, text: &str) -> Input {
    article_in(id, host, date, cluster, None, text)
}

pub(crate) fn article_in(
    id: &str,
    host: &str,
    date: &str,
    cluster: Option<&str>,
    story: Option<&str>,
    text: &str,
) -> Input {
    let s = Summarized {
        article: Article {
            id: id.into(),
            url: format!("https://{host}/{id}"),
            title: format!("Harbour story {id}"),
            author: None,
            date: Some(date.into()),
            language: Some("en".into()),
            text: text.into(),
            extractor: "auto".into(),
            fetched_at: "2026-03-05T00:00:00Z".into(),
            cluster: cluster.map(str::to_string),
            story: story.map(str::to_string),
            // One publication names itself, its authors and images.
            authors: if host == "a.example.com" {
                vec!["Mara Olsen".into(), "Ken Ito".into()]
            } else {
                Vec::new()
            },
            site_name: (host == "a.example.com").then(|| "Example Daily".into()),
            canonical_url: (host == "a.example.com").then(|| format!("https://{host}/news/{id}")),
            image: (host == "a.example.com").then(|| format!("https://{host}/{id}.jpg")),
        },
        summaries: vec![Summary {
            name: "one_sentence".into(),
            text: "A summary.".into(),
        }],
        engine: "extractive".into(),
    };
    Input {
        topic: Topic::SUMMARIZED,
        key: Some(id.into()),
        payload: Some(Output::of(Topic::SUMMARIZED, id, &s).payload),
        origin: None,
    }
}

/// An index of 25 articles (two of them copies of one), opened for search.
async fn index(dir: &std::path::Path) -> SearchIndex {
    let mut st = gleaner_index::IndexStage::open(dir, 20_000_000, 1).unwrap();
    let mut inputs: Vec<Input> = (0..23)
        .map(|i| {
            let host = ["a.example.com", "b.example.org", "c.test"][i % 3];
            let day = format!("2026-0{}-1{}", 1 + i % 3, i % 10);
            article(
                &format!("n{i}"),
                host,
                &day,
                None,
                &format!("The harbour bridge report number {i}."),
            )
        })
        .collect();
    inputs.push(article(
        "c1",
        "a.example.com",
        "2026-03-01",
        Some("k"),
        "Bridge repairs finished early.",
    ));
    inputs.push(article(
        "c2",
        "copy.example.net",
        "2026-03-02",
        Some("k"),
        "Bridge repairs finished early.",
    ));
    assert!(st.handle_batch(&inputs).await.iter().all(|r| r.is_ok()));
    st.close().await.unwrap();
    SearchIndex::open(dir, 200).unwrap()
}

/// The API served on loopback; its base URL.
pub(crate) async fn serve_api(idx: SearchIndex, key: Option<&str>) -> String {
    let api = Arc::new(Api {
        idx: Arc::new(idx),
        key: key.map(str::to_string),
        timeout: Duration::from_secs(5),
        streams: Default::default(),
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move {
        axum::serve(listener, super::super::v1_routes(api))
            .await
            .unwrap()
    });
    base
}

pub(crate) async fn get(url: &str) -> (u16, serde_json::Value) {
    let r = reqwest::get(url).await.unwrap();
    let status = r.status().as_u16();
    (status, r.json().await.unwrap())
}

/// Every property the OpenAPI document requires of `schema` is in `v`.
pub(crate) fn conforms(v: &serde_json::Value, schema: &str) {
    let doc: serde_json::Value = serde_json::from_str(OPENAPI).unwrap();
    let s = &doc["components"]["schemas"][schema];
    for p in s["required"].as_array().unwrap() {
        let p = p.as_str().unwrap();
        assert!(v.get(p).is_some(), "{schema} lacks {p}: {v}");
    }
    for p in v.as_object().unwrap().keys() {
        assert!(
            s["properties"].get(p).is_some(),
            "{schema}: {p} is not documented"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn answers_have_the_documented_shapes() {
    let dir = tempfile::tempdir().unwrap();
    let base = serve_api(index(dir.path()).await, None).await;
    let (status, r) = get(&format!(
        "{base}/api/v1/search?q=bridge+after:2026-01-01&site=example.com&sort=newest"
    ))
    .await;
    assert_eq!(status, 200, "{r}");
    conforms(&r, "SearchResults");
    conforms(&r["facets"], "Facets");
    for h in r["hits"].as_array().unwrap() {
        conforms(h, "Hit");
        assert_eq!(h["site"], "example.com");
    }
    // The copies of cluster k (on two sites) are one hit, the earliest
    // shown, the other's URL with it.
    let (_, r) = get(&format!("{base}/api/v1/search?q=repairs")).await;
    let k = &r["hits"][0];
    assert_eq!(
        (k["id"].as_str(), k["copies"].as_u64()),
        (Some("c1"), Some(1)),
        "{r}"
    );
    assert_eq!(k["copy_urls"][0], "https://copy.example.net/c2");
    assert_eq!(r["total"], 2);
    let (status, a) = get(&format!("{base}/api/v1/articles/c2")).await;
    assert_eq!(status, 200, "{a}");
    conforms(&a, "Article");
    assert_eq!(a["copies"][0]["id"], "c1");
    // What the page said of itself travels to the hit and the article view.
    let (status, a) = get(&format!("{base}/api/v1/articles/c1")).await;
    assert_eq!(status, 200, "{a}");
    conforms(&a, "Article");
    assert_eq!(a["site_name"], "Example Daily");
    assert_eq!(a["authors"], serde_json::json!(["Mara Olsen", "Ken Ito"]));
    assert_eq!(a["canonical_url"], "https://a.example.com/news/c1");
    assert_eq!(a["image"], "https://a.example.com/c1.jpg");
    let (_, r) = get(&format!("{base}/api/v1/search?q=bridge&site=example.com")).await;
    let hit = &r["hits"][0];
    conforms(hit, "Hit");
    assert_eq!(hit["site_name"], "Example Daily");
    assert!(hit["image"]
        .as_str()
        .unwrap()
        .starts_with("https://a.example.com/"));
    assert_eq!(hit["authors"], serde_json::json!(["Mara Olsen", "Ken Ito"]));
    // `author:` asks for an author's articles, and only those.
    let (status, r) = get(&format!(
        "{base}/api/v1/search?q=author:%22ken%20ito%22&limit=100"
    ))
    .await;
    assert_eq!(status, 200, "{r}");
    let hits = r["hits"].as_array().unwrap();
    assert!(!hits.is_empty(), "{r}");
    assert!(hits.iter().all(|h| h["authors"][1] == "Ken Ito"), "{r}");
    let (status, s) = get(&format!("{base}/api/v1/stats")).await;
    assert_eq!((status, s["documents"].as_u64()), (200, Some(25)));
    conforms(&s, "Stats");
    let (status, doc) = get(&format!("{base}/api/v1/openapi.json")).await;
    assert_eq!((status, doc["openapi"].as_str()), (200, Some("3.1.0")));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_input_is_a_400_that_says_why_and_a_cursor_pages_through_every_hit() {
    let dir = tempfile::tempdir().unwrap();
    let base = serve_api(index(dir.path()).await, None).await;
    let long = "x".repeat(1001);
    for (query, says) in [
        ("limit=0", "limit must be within"),
        ("limit=101", "limit must be within"),
        ("limit=10000000000000000000000", "limit must be within"),
        ("limit=-1", "whole number"),
        ("limit=ten", "whole number"),
        ("sort=best", "sort must be"),
        ("from=yesterday", "not a date"),
        ("from=2026-03-02&to=2026-03-01", "from must be before to"),
        ("has_summary=maybe", "true or false"),
        ("qq=bridge", "unknown parameter"),
        ("cursor=zzz", "not a cursor"),
        ("q=bridge+after:soon", "not a date"),
        ("q=title:/(/", "not a pattern"),
        ("cursor=o10&offset=3", "not both"),
        ("lang=english", "ISO 639-1"),
        ("q=bridge+lang:english", "ISO 639-1"),
        ("q=bridge&q=ferry", "q given twice"),
        ("limit=5&limit=6", "limit given twice"),
        (&format!("q={long}")[..], "longer than"),
    ] {
        let (status, e) = get(&format!("{base}/api/v1/search?{query}")).await;
        assert_eq!(status, 400, "{query}: {e}");
        conforms(&e, "Error");
        assert!(e["detail"].as_str().unwrap().contains(says), "{query}: {e}");
    }
    let (status, e) = get(&format!("{base}/api/v1/articles/none")).await;
    assert_eq!((status, e["error"].as_str()), (404, Some("not_found")));
    // An id that is not UTF-8 is a 400, and a path the API does not have
    // a 404, both in the API's error shape.
    for (path, status_wanted, code) in [
        ("/api/v1/articles/%ff", 400, "bad_request"),
        ("/api/v1/stories/%ff%fe", 400, "bad_request"),
        ("/api/v1/nope", 404, "not_found"),
        ("/api/v1/articles/", 404, "not_found"),
        ("/api/v2/search", 404, "not_found"),
        ("/api", 404, "not_found"),
    ] {
        let (status, e) = get(&format!("{base}{path}")).await;
        assert_eq!(
            (status, e["error"].as_str()),
            (status_wanted, Some(code)),
            "{path}"
        );
        conforms(&e, "Error");
    }
    let r = reqwest::Client::new()
        .post(format!("{base}/api/v1/search?q=bridge"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 405);
    assert_eq!(r.headers()["allow"], "GET, HEAD");
    let e: serde_json::Value = r.json().await.unwrap();
    assert_eq!(e["error"], "method_not_allowed", "{e}");
    // Fields a form left blank filter nothing.
    let (_, all) = get(&format!("{base}/api/v1/search?q=bridge")).await;
    let (status, blank) = get(&format!(
        "{base}/api/v1/search?q=bridge&site=&lang=&from=&to="
    ))
    .await;
    assert_eq!(status, 200, "{blank}");
    assert_eq!(blank["total"], all["total"]);
    assert!(all["total"].as_u64().unwrap() > 0);
    // Ten at a time, the cursor walks through all 24 hits (25 articles,
    // two of them copies) once each.
    let mut seen = std::collections::BTreeSet::new();
    let mut url = format!("{base}/api/v1/search?sort=oldest&limit=10");
    for _ in 0..5 {
        let (status, r) = get(&url).await;
        assert_eq!(status, 200, "{r}");
        for h in r["hits"].as_array().unwrap() {
            assert!(
                seen.insert(h["id"].as_str().unwrap().to_string()),
                "twice: {h}"
            );
        }
        match r["next_cursor"].as_str() {
            Some(c) => url = format!("{base}/api/v1/search?sort=oldest&limit=10&cursor={c}"),
            None => break,
        }
    }
    assert_eq!(seen.len(), 24);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_pages_answer_a_bad_address_with_a_page_saying_why() {
    let dir = tempfile::tempdir().unwrap();
    let idx = index(dir.path()).await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let app = super::super::router(idx, dir.path(), None, Duration::from_secs(5));
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    for (path, status, says) in [
        ("/article/none", 404, "No such article"),
        ("/story/none", 404, "No such story"),
        ("/article/%ff", 400, "The id in the address"),
        ("/story/%ff%fe", 400, "The id in the address"),
        ("/stories?from=yesterday", 400, "from"),
        // The search page refuses what the API refuses, and keeps its form.
        ("/?q=bridge&from=yesterday", 400, "from"),
        ("/?q=bridge&lang=english", 400, "ISO 639-1"),
        ("/nope", 404, "There is no page at /nope."),
    ] {
        let r = reqwest::get(format!("{base}{path}")).await.unwrap();
        assert_eq!(r.status().as_u16(), status, "{path}");
        let ct = r.headers()["content-type"].to_str().unwrap().to_string();
        assert!(ct.starts_with("text/html"), "{path}: {ct}");
        let body = r.text().await.unwrap();
        // The way back: a link to search, or the search form itself.
        let back = body.contains("href=\"/\"") || body.contains("action=\"/\"");
        assert!(body.contains(says) && back, "{path}: {body}");
    }
    // The part search.js asks for as the user types says it too.
    let r = reqwest::Client::new()
        .get(format!("{base}/?q=bridge&lang=english"))
        .header("X-Gleaner-Partial", "1")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 400);
    let part = r.text().await.unwrap();
    assert!(
        part.contains("ISO 639-1") && !part.contains("<form"),
        "{part}"
    );
    // The API keeps its own JSON shape under the page's fallback.
    let (status, e) = get(&format!("{base}/api/v1/nope")).await;
    assert_eq!((status, e["error"].as_str()), (404, Some("not_found")));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_a_key_every_request_needs_it() {
    let dir = tempfile::tempdir().unwrap();
    let base = serve_api(index(dir.path()).await, Some("s3cret")).await;
    let (status, e) = get(&format!("{base}/api/v1/stats")).await;
    assert_eq!((status, e["error"].as_str()), (401, Some("unauthorized")));
    let r = reqwest::Client::new()
        .get(format!("{base}/api/v1/stats"))
        .header("Authorization", "Bearer s3cret")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    let r = reqwest::Client::new()
        .get(format!("{base}/api/v1/search?q=bridge"))
        .header("Authorization", "Bearer wrong")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 401);
}

#[test]
fn random_query_strings_are_answered_never_a_panic() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let idx = rt.block_on(index(dir.path()));
    let keys =
        "(q|site|lang|from|to|has_summary|sort|offset|limit|cursor|facets|group|min_reports|x)";
    let strategy = proptest::collection::vec((keys, "[ -~\u{80}-\u{10FFFF}]{0,40}"), 0..6);
    proptest!(ProptestConfig::with_cases(300), |(pairs in strategy)| {
        let raw: String = url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .finish();
        if let Ok(req) = parse_search(&raw) {
            let found = idx.find(&req).unwrap();
            prop_assert!(found.hits.len() <= req.limit);
        }
        // The stories list takes the same kind of string.
        if let Ok(req) = super::super::stories_api::parse_stories(&raw) {
            let list = idx.stories(&req).unwrap();
            prop_assert!(list.stories.len() <= req.limit);
        }
    });
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_feed_lists_the_newest_matches_in_atom() {
    let dir = tempfile::tempdir().unwrap();
    let base = serve_api(index(dir.path()).await, None).await;
    let r = reqwest::get(format!("{base}/api/v1/feed?q=bridge&limit=5"))
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    assert!(r.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("application/atom+xml"));
    let feed = atom_syndication::Feed::read_from(&r.bytes().await.unwrap()[..]).unwrap();
    assert_eq!(feed.entries().len(), 5);
    let times: Vec<_> = feed.entries().iter().map(|e| *e.updated()).collect();
    assert!(
        times.windows(2).all(|w| w[0] >= w[1]),
        "newest first: {times:?}"
    );
    assert!(feed.entries()[0].links()[0].href().starts_with("https://"));
    let (status, _) = get(&format!("{base}/api/v1/feed?limit=0")).await;
    assert_eq!(status, 400);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_pushes_each_new_match_within_a_second_of_its_commit() {
    use futures::StreamExt;
    let dir = tempfile::tempdir().unwrap();
    // A writer that commits every batch, as the index service does, and a
    // server reading the same directory.
    let mut writer = gleaner_index::IndexStage::open(dir.path(), 20_000_000, 1).unwrap();
    let first = [article(
        "old",
        "a.example.com",
        "2026-01-01",
        None,
        "An old ferry story.",
    )];
    assert!(writer.handle_batch(&first).await.iter().all(|r| r.is_ok()));
    let base = serve_api(SearchIndex::open(dir.path(), 200).unwrap(), None).await;
    let r = reqwest::get(format!("{base}/api/v1/stream?q=ferry"))
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    let mut body = r.bytes_stream();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let batch = [
        article(
            "new",
            "b.example.org",
            "2026-03-09",
            None,
            "The new ferry sails at dawn.",
        ),
        article(
            "other",
            "b.example.org",
            "2026-03-09",
            None,
            "Nothing about boats.",
        ),
    ];
    assert!(writer.handle_batch(&batch).await.iter().all(|r| r.is_ok()));
    let committed = std::time::Instant::now();
    let mut seen = String::new();
    while !seen.contains("\"id\":\"new\"") {
        let chunk = tokio::time::timeout(Duration::from_secs(3), body.next())
            .await
            .expect("an event within 3 s")
            .unwrap()
            .unwrap();
        seen.push_str(&String::from_utf8_lossy(&chunk));
    }
    let after = committed.elapsed();
    assert!(
        after < Duration::from_millis(1500),
        "{after:?} after the commit"
    );
    assert!(seen.starts_with("event: article"), "{seen}");
    assert!(
        !seen.contains("\"id\":\"old\"") && !seen.contains("\"id\":\"other\""),
        "{seen}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streams_past_the_cap_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let base = serve_api(index(dir.path()).await, None).await;
    let mut open = Vec::new();
    for _ in 0..super::super::standing::MAX_STREAMS {
        let r = reqwest::get(format!("{base}/api/v1/stream?q=ferry"))
            .await
            .unwrap();
        assert_eq!(r.status().as_u16(), 200);
        open.push(r);
    }
    let (status, e) = get(&format!("{base}/api/v1/stream?q=ferry")).await;
    assert_eq!(
        (status, e["error"].as_str()),
        (503, Some("too_many_streams"))
    );
}
