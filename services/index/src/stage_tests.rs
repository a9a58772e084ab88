//! Tests of the index stage.

use super::*;
use crate::pace::MAX_UNSEARCHABLE;
use crate::SearchIndex;
use gleaner_core::messages::{Article, Summary};
use gleaner_core::stage::Origin;

fn input(id: &str, title: &str, text: &str, offset: i64) -> Input {
    input_in(None, id, None, "", title, text, offset)
}

/// An input in `language`, in a dedup cluster, published on `date`.
fn input_in(
    language: Option<&str>,
    id: &str,
    cluster: Option<&str>,
    date: &str,
    title: &str,
    text: &str,
    offset: i64,
) -> Input {
    let s = Summarized {
        article: Article {
            id: id.into(),
            url: format!("http://x.test/{id}"),
            title: title.into(),
            author: None,
            date: Some(date.to_string()).filter(|d| !d.is_empty()),
            language: language.map(str::to_string),
            text: text.into(),
            extractor: "auto".into(),
            fetched_at: String::new(),
            cluster: cluster.map(str::to_string),
            story: None,
            ..Default::default()
        },
        summaries: vec![Summary {
            name: "one".into(),
            text: "s".into(),
        }],
        engine: "extractive".into(),
    };
    let o = Output::of(Topic::SUMMARIZED, id, &s);
    Input {
        topic: Topic::SUMMARIZED,
        key: Some(id.into()),
        payload: Some(o.payload),
        origin: Some(Origin {
            topic: "gleaner.summarized".into(),
            partition: 0,
            offset,
        }),
    }
}

#[tokio::test]
async fn upsert_stem_cjk_and_offsets() {
    let dir = tempfile::tempdir().unwrap();
    let mut st = IndexStage::open(dir.path(), 20_000_000, 1).unwrap();
    let r = st
        .handle_batch(&[
            input(
                "a",
                "Bridge reopens",
                "The harbour bridge reopened after repairs.",
                0,
            ),
            input("b", "東京の天気", "東京は明日雨が降るでしょう。", 1),
        ])
        .await;
    assert!(r.iter().all(|x| x.is_ok()));
    // The same id again replaces, it does not add.
    st.handle_batch(&[input(
        "a",
        "Bridge reopens",
        "The harbour bridge reopened after long repairs.",
        2,
    )])
    .await;
    st.close().await.unwrap();

    let s = SearchIndex::open(dir.path(), 200).unwrap();
    assert_eq!(s.num_docs(), 2);
    let hits = s.search("repair", 10).unwrap();
    assert_eq!(hits.len(), 1, "stemming matches repairs");
    assert!(hits[0].snippet.contains("long repairs"));
    assert_eq!(
        hits[0].snippet, "The harbour bridge reopened after long repairs.",
        "a snippet starts where its sentence starts"
    );
    assert_eq!(
        s.search("\"harbour bridge reopened\"", 10).unwrap().len(),
        1
    );
    assert_eq!(s.search("天気", 10).unwrap()[0].id, "b");
    assert_eq!(s.search("雨が降る", 10).unwrap()[0].id, "b");

    // Reopened, the stage knows offset 2 is done and skips a replay.
    let mut st = IndexStage::open(dir.path(), 20_000_000, 1).unwrap();
    assert_eq!(st.offsets()["gleaner.summarized"][&0], 2);
    st.handle_batch(&[input("c", "Replayed", "should be skipped", 2)])
        .await;
    // An id the reopened index holds is replaced too, as is one twice in
    // a batch.
    st.handle_batch(&[
        input("a", "Bridge reopens", "The bridge reopened at last.", 3),
        input("d", "Ferry", "The ferry sails again.", 4),
        input("d", "Ferry", "The ferry sails again today.", 5),
    ])
    .await;
    st.close().await.unwrap();
    let s = SearchIndex::open(dir.path(), 200).unwrap();
    assert_eq!(s.num_docs(), 3);
    assert!(s.search("\"at last\"", 10).unwrap()[0]
        .snippet
        .contains("at last"));
}

/// A stage closed while merges run (twenty one-document commits set
/// them off) loses nothing, and the next writer goes on from there.
#[tokio::test]
async fn closing_during_merges_keeps_every_document() {
    let dir = tempfile::tempdir().unwrap();
    for round in 0..2 {
        let mut st = IndexStage::open(dir.path(), 20_000_000, 1).unwrap();
        for i in 0..20 {
            let id = format!("{round}-{i}");
            let text = format!("Report {id} on the harbour ferry timetable.");
            let r = st
                .handle_batch(&[input(&id, "Ferry", &text, round * 20 + i)])
                .await;
            assert!(r.iter().all(|x| x.is_ok()));
        }
        st.close().await.unwrap();
        let s = SearchIndex::open(dir.path(), 200).unwrap();
        assert_eq!(s.num_docs(), 20 * (round as u64 + 1));
        assert_eq!(
            s.search("timetable", 100).unwrap().len(),
            20 * (round as usize + 1)
        );
    }
}

/// An article is stemmed by its language's rules: German "Häuser" is
/// found by "Haus", which English stemming would not do.
#[tokio::test]
async fn each_article_is_stemmed_in_its_language() {
    let dir = tempfile::tempdir().unwrap();
    let mut st = IndexStage::open(dir.path(), 20_000_000, 1).unwrap();
    let text = "Die Häuser am Fluss wurden renoviert.";
    st.handle_batch(&[
        input_in(Some("de"), "de", None, "", "Am Fluss", text, 0),
        input_in(None, "unknown", None, "", "Am Fluss", text, 1),
    ])
    .await;
    st.close().await.unwrap();
    let s = SearchIndex::open(dir.path(), 200).unwrap();
    let hits = s.search("Haus", 10).unwrap();
    let ids: Vec<&str> = hits.iter().map(|h| h.id.as_str()).collect();
    assert_eq!(ids, ["de"], "only the German article is stemmed as German");
    assert!(hits[0].snippet.contains("Häuser"), "{}", hits[0].snippet);
    assert_eq!(
        s.search("Häuser", 10).unwrap().len(),
        2,
        "plain words match both"
    );
}

#[tokio::test]
async fn commits_gather_batches_and_the_rest_is_committed_on_close() {
    let dir = tempfile::tempdir().unwrap();
    let mut st = IndexStage::open(dir.path(), 20_000_000, 1)
        .unwrap()
        .committing_every(std::time::Duration::from_secs(3600));
    let docs = || SearchIndex::open(dir.path(), 200).map_or(0, |s| s.num_docs());
    st.handle_batch(&[input("a", "One", "first text", 0)]).await;
    st.handle_batch(&[input("b", "Two", "second text", 1)])
        .await;
    assert_eq!(st.held(), 2, "added, not committed: held until the commit");
    assert!(st.tick().await.is_empty());
    assert_eq!(docs(), 0, "nothing searchable before the commit");
    st.close().await.unwrap();
    assert_eq!(docs(), 2);
    let st = IndexStage::open(dir.path(), 20_000_000, 1).unwrap();
    assert_eq!(
        st.offsets()["gleaner.summarized"][&0],
        1,
        "offsets ride the gathered commit"
    );
    drop(st);
    // The run has nothing else in flight: committed now, not when due.
    let mut st = IndexStage::open(dir.path(), 20_000_000, 1)
        .unwrap()
        .committing_every(std::time::Duration::from_secs(3600));
    st.handle_batch(&[input("b2", "Two", "second text again", 5)])
        .await;
    assert_eq!(st.held(), 1);
    assert!(st.idle().await.is_empty());
    assert_eq!((st.held(), docs()), (0, 3), "committed when idle");
    st.close().await.unwrap();

    // Due at once: each batch starts a commit in the background, and the
    // stage holds its documents until the commit is done.
    let st = IndexStage::open(dir.path(), 20_000_000, 1).unwrap();
    let mut st = st.committing_every(std::time::Duration::ZERO);
    st.handle_batch(&[input("c", "Three", "third text", 6)])
        .await;
    assert_eq!(st.held(), 1, "committing in the background");
    // Batches that come meanwhile wait for it, then make the next commit.
    st.handle_batch(&[input("d", "Four", "fourth text", 7)])
        .await;
    st.handle_batch(&[input("e", "Five", "fifth text", 8)])
        .await;
    assert_eq!(st.held(), 3);
    for _ in 0..3 {
        tokio::time::timeout(std::time::Duration::from_secs(10), st.ready())
            .await
            .expect("the running commit finishes and says so");
        assert!(st.tick().await.is_empty());
        if st.held() == 0 {
            break;
        }
    }
    assert_eq!((st.held(), docs()), (0, 6));
    assert_eq!(st.offsets()["gleaner.summarized"][&0], 8);
    st.close().await.unwrap();
}

/// However fast articles come, those not yet searchable stay bounded: the
/// stage waits for a commit and starts the next, due or not.
#[tokio::test]
async fn documents_waiting_for_a_commit_are_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let mut st = IndexStage::open(dir.path(), 20_000_000, 1)
        .unwrap()
        .committing_every(std::time::Duration::from_secs(3600));
    let mut most = 0;
    for b in 0..60 {
        let batch: Vec<Input> = (0..10)
            .map(|i| {
                let n = b * 10 + i;
                input(&format!("d{n}"), "Title", &format!("text number {n}"), n)
            })
            .collect();
        st.handle_batch(&batch).await;
        most = most.max(st.held());
    }
    assert!(most <= 2 * MAX_UNSEARCHABLE + 10, "held {most}");
    assert!(st.idle().await.is_empty());
    assert_eq!(st.held(), 0);
    assert_eq!(SearchIndex::open(dir.path(), 200).unwrap().num_docs(), 600);
}

/// On Kafka (no commit interval) a batch is committed before it is
/// answered, so the runner may store its offsets.
#[tokio::test]
async fn without_an_interval_each_batch_is_committed_before_it_returns() {
    let dir = tempfile::tempdir().unwrap();
    let mut st = IndexStage::open(dir.path(), 20_000_000, 1).unwrap();
    let r = st
        .handle_batch(&[
            input("a", "One", "first text", 0),
            input("b", "Two", "second text", 1),
        ])
        .await;
    assert!(r.iter().all(|r| r.as_ref().is_ok_and(|o| o.is_empty())));
    assert_eq!(st.held(), 0);
    assert_eq!(st.offsets()["gleaner.summarized"][&0], 1);
    assert_eq!(SearchIndex::open(dir.path(), 200).unwrap().num_docs(), 2);
}

/// The consumer's offsets may be committed only as far as the index has
/// committed its documents: a restart then resumes where the index ends.
#[tokio::test]
async fn input_offsets_are_committable_as_far_as_the_last_commit() {
    let dir = tempfile::tempdir().unwrap();
    let mut st = IndexStage::open(dir.path(), 20_000_000, 1)
        .unwrap()
        .committing_every(std::time::Duration::from_secs(3600));
    let acked = |next: i64| {
        InputPositions::from([
            (("gleaner.summarized".to_string(), 0), next),
            (("gleaner.story-log".to_string(), 1), 9),
        ])
    };
    st.handle_batch(&[
        input("a", "One", "first text", 0),
        input("b", "Two", "second text", 1),
    ])
    .await;
    // Nothing of partition 0 is committed yet; the story log is not the
    // index's to hold back.
    assert_eq!(
        st.committable(&acked(2)),
        InputPositions::from([(("gleaner.story-log".to_string(), 1), 9)])
    );
    assert!(st.idle().await.is_empty());
    st.handle_batch(&[input("c", "Three", "third text", 2)])
        .await;
    // Committed through offset 1, so reading resumes at 2 (c, added but
    // not committed, is read again after a crash).
    assert_eq!(st.committable(&acked(3)), {
        let mut p = acked(3);
        p.insert(("gleaner.summarized".to_string(), 0), 2);
        p
    });
    st.close().await.unwrap();
}

#[tokio::test]
async fn copies_of_one_article_collapse_to_the_earliest_published() {
    let dir = tempfile::tempdir().unwrap();
    let mut st = IndexStage::open(dir.path(), 20_000_000, 1).unwrap();
    let text = "The harbour bridge reopened after eight months of repairs.";
    let r = st
        .handle_batch(&[
            // The first copy seen was published last.
            input_in(
                None,
                "late",
                Some("late"),
                "2026-03-02",
                "Bridge reopens",
                text,
                0,
            ),
            input_in(
                None,
                "early",
                Some("late"),
                "2026-03-01",
                "Bridge reopens",
                text,
                1,
            ),
            input_in(
                None,
                "other",
                None,
                "",
                "Bridge tolls",
                "Tolls on the harbour bridge rise.",
                2,
            ),
        ])
        .await;
    assert!(r.iter().all(|x| x.is_ok()));
    st.close().await.unwrap();
    let s = SearchIndex::open(dir.path(), 200).unwrap();
    assert_eq!(s.num_docs(), 3);
    let hits = s.search("harbour bridge", 10).unwrap();
    let ids: Vec<&str> = hits.iter().map(|h| h.id.as_str()).collect();
    assert_eq!(ids.len(), 2, "{ids:?}");
    let copy = hits
        .iter()
        .find(|h| h.cluster.as_deref() == Some("late"))
        .unwrap();
    assert_eq!((copy.id.as_str(), copy.copies), ("early", 1));
    assert!(ids.contains(&"other"));
    // A limit of one still finds a whole cluster's best.
    assert_eq!(s.search("reopened", 1).unwrap()[0].id, "early");
}
