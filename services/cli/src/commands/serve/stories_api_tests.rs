//! The stories API against a real index over HTTP on loopback: the list,
//! a merged story's timeline, reports grouped in search, an article's
//! story.

use super::super::api::tests::{article_in, conforms, get, serve_api};
use gleaner_core::stage::{Input, Output, Stage};
use gleaner_core::Topic;
use gleaner_index::SearchIndex;

/// Reports of two stories, then a merge of the younger into the older on
/// the story log: the index moves the reports, and the API lists one story
/// of four reports, its timeline first report first, and search groups by it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stories_are_listed_merged_and_grouped() {
    let dir = tempfile::tempdir().unwrap();
    let mut st = gleaner_index::IndexStage::open(dir.path(), 20_000_000, 1).unwrap();
    let inputs = vec![
        article_in(
            "r2",
            "b.example.org",
            "2026-03-02",
            None,
            Some("r1"),
            "Ferry strike talks resume.",
        ),
        article_in(
            "r1",
            "a.example.com",
            "2026-03-01",
            None,
            Some("r1"),
            "Ferry strike begins at dawn.",
        ),
        article_in(
            "r3",
            "c.test",
            "2026-03-03",
            None,
            Some("r3"),
            "Ferry strike: unions meet ministers.",
        ),
        article_in(
            "r4",
            "c.test",
            "2026-03-04",
            None,
            Some("r3"),
            "Ferry strike ends after talks.",
        ),
        article_in(
            "lone",
            "a.example.com",
            "2026-03-02",
            None,
            Some("lone"),
            "Tram timetable changes.",
        ),
    ];
    assert!(st.handle_batch(&inputs).await.iter().all(|r| r.is_ok()));
    let merge = gleaner_core::messages::StoryEvent {
        kind: "merged".into(),
        story: "r3".into(),
        into: Some("r1".into()),
        article: "r4".into(),
        at: "2026-03-04T00:00:00Z".into(),
    };
    let log = Input {
        topic: Topic::STORY_LOG,
        key: Some("r3".into()),
        payload: Some(Output::of(Topic::STORY_LOG, "r3", &merge).payload),
        origin: None,
    };
    assert!(st.handle_batch(&[log]).await.iter().all(|r| r.is_ok()));
    st.close().await.unwrap();
    let base = serve_api(SearchIndex::open(dir.path(), 200).unwrap(), None).await;
    let (status, list) = get(&format!("{base}/api/v1/stories")).await;
    assert_eq!(status, 200, "{list}");
    conforms(&list, "StoryList");
    assert_eq!(list["total"], 1, "single reports are left out: {list}");
    let top = &list["stories"][0];
    conforms(top, "StorySummary");
    assert_eq!(
        (top["id"].as_str(), top["reports"].as_u64()),
        (Some("r1"), Some(4))
    );
    assert_eq!(top["first_report"], "2026-03-01T00:00:00Z");
    // Growth in a range counts the reports in it.
    let (_, grown) = get(&format!(
        "{base}/api/v1/stories?from=2026-03-03&sort=growth&min_reports=1"
    ))
    .await;
    assert_eq!(grown["stories"][0]["reports_in_range"], 2, "{grown}");
    let (status, story) = get(&format!("{base}/api/v1/stories/r1")).await;
    assert_eq!(status, 200, "{story}");
    conforms(&story, "Story");
    let ids: Vec<&str> = story["reports"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["r1", "r2", "r3", "r4"]);
    let (status, _) = get(&format!("{base}/api/v1/stories/r3")).await;
    assert_eq!(status, 404, "the merged id has no reports left");
    // An article names its story and how many reports it has, merged in.
    let (status, a) = get(&format!("{base}/api/v1/articles/r4")).await;
    assert_eq!(status, 200, "{a}");
    conforms(&a, "Article");
    assert_eq!(
        (a["story"].as_str(), a["story_reports"].as_u64()),
        (Some("r1"), Some(4))
    );
    let (_, lone) = get(&format!("{base}/api/v1/articles/lone")).await;
    assert_eq!(lone["story_reports"], 1, "{lone}");
    let (_, grouped) = get(&format!("{base}/api/v1/search?q=ferry&group=story")).await;
    let hits = grouped["hits"].as_array().unwrap();
    assert_eq!(hits.len(), 1, "{grouped}");
    assert_eq!(
        (hits[0]["story"].as_str(), hits[0]["more_reports"].as_u64()),
        (Some("r1"), Some(3))
    );
    for (query, says) in [
        ("sort=biggest", "sort must be"),
        ("limit=0", "limit must be"),
        ("from=2026-03-05&to=2026-03-01", "before"),
        ("story=x", "unknown parameter"),
    ] {
        let (status, e) = get(&format!("{base}/api/v1/stories?{query}")).await;
        assert_eq!(status, 400, "{query}: {e}");
        assert!(e["detail"].as_str().unwrap().contains(says), "{query}: {e}");
    }
    let (status, _) = get(&format!("{base}/api/v1/search?q=ferry&group=site")).await;
    assert_eq!(status, 400);
}
