//! End to end, in one process: the example news site (examples/site)
//! served by a real HTTP server on loopback, crawled by `gleaner run`. The
//! checks in common::check are the same as for the Kafka services.

mod common;

use common::*;
use std::path::Path;
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
    let stderr = String::from_utf8_lossy(&out.stderr);
    // The site's navigation links to seven missing pages: status 3, and
    // the report says so.
    assert_eq!(
        out.status.code(),
        Some(3),
        "gleaner run:\n{stdout}\n{stderr}"
    );
    assert!(stderr.contains("HTTP 4xx 7"), "{stderr}");
    // The report's host line: 9 pages, 7 articles, 1 duplicate.
    let host_line: Vec<&str> = stderr
        .lines()
        .find(|l| l.starts_with("127.0.0.1"))
        .unwrap_or_default()
        .split_whitespace()
        .collect();
    assert_eq!(host_line.get(1..4), Some(&["9", "7", "1"][..]), "{stderr}");
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
    // `gleaner status --data` after the run: its final counts, nothing
    // queued (the run is shorter than a progress tick).
    let text = status_text(&cfg, &data);
    let row = |topic: &str| -> Vec<String> {
        text.lines()
            .find(|l| l.split_whitespace().next() == Some(topic))
            .map(|l| l.split_whitespace().skip(1).map(str::to_string).collect())
            .unwrap_or_default()
    };
    assert!(text.contains(": not running"), "{text}");
    assert_eq!(row("pages"), ["9", "0"], "{text}");
    assert_eq!(row("articles"), ["7", "0"], "{text}");
    assert!(text.contains("in flight: 0"), "{text}");
    let outcome = Outcome {
        produced: serde_json::from_value(summary["produced"].clone()).unwrap(),
        articles: read_jsonl(&data.join("articles.jsonl")),
        duplicates: read_jsonl(&data.join("duplicates.jsonl")),
        dead_letters: read_jsonl(&data.join("dead-letter.jsonl")),
        skipped: read_jsonl(&data.join("skipped.jsonl")),
        index_docs: gleaner_index::SearchIndex::open(&data.join("index"), 200)
            .unwrap()
            .num_docs(),
        shards: Vec::new(),
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
    let dedup_first =
        r#"stages = ["fetch", "clean", "extract", "dedup", "stories", "summarize", "index"]"#;
    assert!(text.contains(dedup_first));
    std::fs::write(
        &cfg,
        text.replace(
            dedup_first,
            r#"stages = ["fetch", "clean", "extract", "summarize", "dedup", "stories", "index"]"#,
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
    // The bridge story in one sentence is its lead, not its aside on tolls.
    let hits = search(&cfg, &data, "\"harbour bridge reopened\"");
    let one = hits[0]["summaries"]
        .as_array()
        .and_then(|s| s.iter().find(|s| s["name"] == "one_sentence"))
        .and_then(|s| s["text"].as_str())
        .unwrap_or_default()
        .to_string();
    assert!(one.starts_with("The harbour bridge reopened"), "{one}");
}

/// `gleaner run --every SECS` keeps running and fetches its seeds again on
/// schedule until it is interrupted, then ends cleanly with its summary.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn embedded_run_recrawls_on_schedule_until_interrupted() {
    let (base, log) = start_site().await;
    let tmp = tempfile::tempdir().unwrap();
    let cfg = test_config(tmp.path(), None);
    let data = tmp.path().join("data");
    let seed = format!("{base}{}", ARTICLES[0].0);
    let child = gleaner_run(
        &cfg,
        &data,
        &["--depth", "0", "--every", "1", "--seeds", &seed],
    )
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
    let out = interrupt(child).await;
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

/// Polls `gleaner search` until `phrase` has a hit (the index may not exist
/// yet); the seconds it took.
async fn searchable_within(cfg: &Path, data: &Path, phrase: &str, limit: Duration) -> Option<f64> {
    let t0 = Instant::now();
    while t0.elapsed() < limit {
        let out = Command::new(GLEANER)
            .args(["search", "--json", "--config"])
            .arg(cfg)
            .arg("--data")
            .arg(data)
            .arg(format!("\"{phrase}\""))
            .output()
            .unwrap();
        if out.status.success() && !out.stdout.is_empty() {
            return Some(t0.elapsed().as_secs_f64());
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    None
}

/// A running `gleaner run --follow` takes seeds from `gleaner seed --data`;
/// a second run on the same directory says who holds it and exits non-zero;
/// `gleaner status --data` shows it running.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn seeds_reach_a_running_run_and_a_second_run_is_refused() {
    let (base, _log) = start_site().await;
    let tmp = tempfile::tempdir().unwrap();
    let cfg = test_config(tmp.path(), None);
    let data = tmp.path().join("data");
    let seed = format!("{base}{}", ARTICLES[0].0);
    let metrics = free_addr();
    let child = gleaner_run(
        &cfg,
        &data,
        &[
            "--follow",
            "--depth",
            "0",
            "--metrics",
            &metrics,
            "--seeds",
            &seed,
        ],
    )
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    let first = searchable_within(&cfg, &data, ARTICLES[0].1, Duration::from_secs(20)).await;
    assert!(first.is_some(), "the run's own seed was never searchable");

    // `--metrics`: a healthy run, and Prometheus text with HELP and TYPE
    // lines, per-stage batch times and the fetch-to-searchable histogram.
    let health = http_get(&format!("http://{metrics}/health")).await;
    assert_eq!(health, Some((200, "ok\n".to_string())));
    let (status, text) = http_until(
        &format!("http://{metrics}/metrics"),
        Duration::from_secs(10),
        |_, b| b.contains("gleaner_index_fetch_to_searchable_seconds_count"),
    )
    .await
    .unwrap();
    assert_eq!(status, 200);
    for want in [
        "# HELP gleaner_stage_batch_seconds ",
        "# TYPE gleaner_stage_batch_seconds histogram",
        "gleaner_stage_batch_seconds_bucket{stage=\"extract\",le=\"0.25\"}",
        "# TYPE gleaner_fetch_response_seconds histogram",
        "gleaner_index_fetch_to_searchable_seconds_count 1",
        "# TYPE gleaner_queue_depth gauge",
        "gleaner_fetch_pages_total{status=\"200\"} 1",
    ] {
        assert!(text.contains(want), "no {want:?} in\n{text}");
    }

    let second = gleaner_run(&cfg, &data, &["--seeds", &format!("{base}/")])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&second.stderr);
    assert!(!second.status.success());
    assert!(
        err.contains("in use by another gleaner run")
            && err.contains(&format!("pid {}", child.id()))
            && err.lines().count() == 1,
        "{err}"
    );

    let seeded = Command::new(GLEANER)
        .args(["seed", "--depth", "0", "--config"])
        .arg(&cfg)
        .arg("--data")
        .arg(&data)
        .arg(format!("{base}{}", ARTICLES[2].0))
        .output()
        .unwrap();
    assert!(seeded.status.success());
    assert!(String::from_utf8_lossy(&seeded.stdout).contains("handed 1 seed(s) to the run"));
    let took = searchable_within(&cfg, &data, ARTICLES[2].1, Duration::from_secs(20)).await;
    assert!(
        took.is_some(),
        "a seed handed to the running run was never searchable"
    );

    // `gleaner status --data` shows the run: alive, with its counts (the
    // status file is written at each progress tick).
    let mut text = String::new();
    for _ in 0..30 {
        text = status_text(&cfg, &data);
        let pages = text
            .lines()
            .find(|l| l.starts_with("pages "))
            .and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok());
        if pages == Some(2) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert!(
        text.contains(": running") && text.contains("pages "),
        "{text}"
    );
    assert!(
        text.lines()
            .any(|l| l.starts_with("pages ") && l.split_whitespace().nth(1) == Some("2")),
        "{text}"
    );

    let out = interrupt(child).await;
    let summary = run_summary(&out, &data);
    assert_eq!(summary["index_docs"].as_u64(), Some(2), "{summary}");

    // With no run on the directory, the next run takes queued seeds.
    let queued = Command::new(GLEANER)
        .args(["seed", "--depth", "0", "--config"])
        .arg(&cfg)
        .arg("--data")
        .arg(&data)
        .arg(format!("{base}{}", ARTICLES[3].0))
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&queued.stdout).contains("the next `gleaner run"));
    let out = gleaner_run(&cfg, &data, &[]).output().unwrap();
    let summary = run_summary(&out, &data);
    assert_eq!(summary["produced"]["pages"].as_u64(), Some(1), "{summary}");
}

/// What `gleaner status --data DATA` prints (it must succeed).
fn status_text(cfg: &Path, data: &Path) -> String {
    let status = succeeded(&mut gleaner_on(cfg, Some(data), &["status"]));
    String::from_utf8_lossy(&status.stdout).into_owned()
}
