//! End to end, in one process: the example news site (examples/site)
//! served by a real HTTP server on loopback, crawled by `gleaner run`. The
//! checks in common::check are the same as for the Kafka services.

mod common;

use common::*;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn embedded_run_end_to_end() {
    let (base, log) = start_site().await;
    let tmp = tempfile::tempdir().unwrap();
    let cfg = test_config(tmp.path(), None);
    let data = tmp.path().join("data");
    let started = Instant::now();
    let out = run_on_site(&cfg, &data, &base).await;
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "gleaner run failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    eprintln!(
        "gleaner run took {:.2}s:\n{stdout}",
        started.elapsed().as_secs_f64()
    );
    assert!(
        stdout.contains("pages fetched")
            && stdout.contains("duplicates")
            && stdout.contains("indexed")
    );

    let summary = run_summary(&out, &data);
    let outcome = Outcome {
        produced: serde_json::from_value(summary["produced"].clone()).unwrap(),
        articles: read_jsonl(&data.join("articles.jsonl")),
        duplicates: read_jsonl(&data.join("duplicates.jsonl")),
        dead_letters: read_jsonl(&data.join("dead-letter.jsonl")),
        index_docs: gleaner_index::SearchIndex::open(&data.join("index"), 200)
            .unwrap()
            .num_docs(),
    };
    check(&base, &log, &cfg, &data, &outcome);
}

/// With summarize before dedup in `[pipeline] stages`, every article is
/// summarized (the repost too), dedup still drops the repost, and the index
/// gets the unique articles with their summaries.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn embedded_run_can_summarize_before_dedup() {
    let (base, _log) = start_site().await;
    let tmp = tempfile::tempdir().unwrap();
    let cfg = test_config(tmp.path(), None);
    let text = std::fs::read_to_string(&cfg).unwrap();
    let dedup_first = r#"stages = ["fetch", "clean", "extract", "dedup", "summarize", "index"]"#;
    assert!(text.contains(dedup_first));
    std::fs::write(
        &cfg,
        text.replace(
            dedup_first,
            r#"stages = ["fetch", "clean", "extract", "summarize", "dedup", "index"]"#,
        ),
    )
    .unwrap();
    let data = tmp.path().join("data");
    let out = run_on_site(&cfg, &data, &base).await;
    let summary = run_summary(&out, &data);
    let n = |t: &str| summary["produced"][t].as_u64().unwrap_or(0);
    assert_eq!(n("summarized"), n("articles"), "{summary}");
    assert_eq!(n("duplicates"), 1, "{summary}");
    assert_eq!(n("unique") + n("duplicates"), n("articles"), "{summary}");
    assert_eq!(summary["index_docs"].as_u64(), Some(n("unique")));
    assert_eq!(n("unique"), ARTICLES.len() as u64);
    for (path, phrase) in ARTICLES {
        let hits = search(&cfg, &data, &format!("\"{phrase}\""));
        assert_eq!(hits.len(), 1, "phrase {phrase:?}");
        assert_eq!(hits[0]["url"], format!("{base}{path}"));
        let summaries = hits[0]["summaries"].as_array().map_or(0, Vec::len);
        assert!(summaries > 0, "no summaries for {path}: {}", hits[0]);
    }
}

/// `gleaner run --every SECS` keeps running and fetches its seeds again on
/// schedule until it is interrupted, then ends cleanly with its summary.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn embedded_run_recrawls_on_schedule_until_interrupted() {
    let (base, log) = start_site().await;
    let tmp = tempfile::tempdir().unwrap();
    let cfg = test_config(tmp.path(), None);
    let data = tmp.path().join("data");
    let child = Command::new(GLEANER)
        .args([
            "run",
            "--allow-private",
            "--depth",
            "0",
            "--every",
            "1",
            "--config",
        ])
        .arg(&cfg)
        .arg("--data")
        .arg(&data)
        .args(["--seeds", &format!("{base}{}", ARTICLES[0].0)])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    tokio::time::sleep(Duration::from_millis(3600)).await;
    let fetched = log
        .lock()
        .unwrap()
        .iter()
        .filter(|p| *p == ARTICLES[0].0)
        .count();
    assert!(
        fetched >= 3,
        "the seed was fetched {fetched} times in 3.6 s"
    );
    Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    let out = tokio::task::spawn_blocking(move || child.wait_with_output().unwrap())
        .await
        .unwrap();
    let summary = run_summary(&out, &data);
    assert!(
        summary["produced"]["pages"].as_u64().unwrap() >= 3,
        "{summary}"
    );
    // Every fetch is extracted again (the site's template learned from the
    // stream does not swallow a page seen before) and updates one document.
    assert!(
        summary["produced"]["articles"].as_u64().unwrap() >= 3,
        "{summary}"
    );
    assert_eq!(
        summary["produced"]["dead-letter"].as_u64(),
        Some(0),
        "{summary}"
    );
    assert_eq!(summary["index_docs"].as_u64(), Some(1), "{summary}");
}
