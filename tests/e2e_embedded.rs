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

/// A limit that cuts something says so: with one link taken per page, the
/// run reports the links left out and the setting that raises the cap.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn links_beyond_the_cap_are_reported() {
    let (base, _log) = start_site().await;
    let tmp = tempfile::tempdir().unwrap();
    let cfg = test_config(tmp.path(), None);
    let text = std::fs::read_to_string(&cfg).unwrap();
    std::fs::write(
        &cfg,
        text.replace("max_links_per_page = 500", "max_links_per_page = 1"),
    )
    .unwrap();
    let data = tmp.path().join("data");
    let out = run_on_site(&cfg, &data, &base).await;
    let summary = run_summary(&out, &data);
    let cut = &summary["links_cut"];
    assert!(cut["links"].as_u64().unwrap() > 0, "{summary}");
    assert!(cut["pages"].as_u64().unwrap() >= 1, "{summary}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("links cut") && stdout.contains("raise fetch.max_links_per_page"),
        "{stdout}"
    );
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
        let status = Command::new(GLEANER)
            .args(["status", "--config"])
            .arg(&cfg)
            .arg("--data")
            .arg(&data)
            .output()
            .unwrap();
        assert!(
            status.status.success(),
            "{}",
            String::from_utf8_lossy(&status.stderr)
        );
        text = String::from_utf8_lossy(&status.stdout).into_owned();
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

/// Exit statuses and the report: a run whose seed fails finishes with 3 and
/// says why, with the failure per host; bad input is 2, in one line.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_seed_exits_3_with_a_report_and_bad_input_exits_2() {
    let (base, _log) = start_site().await;
    let tmp = tempfile::tempdir().unwrap();
    let cfg = test_config(tmp.path(), None);
    let data = tmp.path().join("data");
    let out = gleaner_run(
        &cfg,
        &data,
        &["--json", "--seeds", &format!("{base}/no-such-page")],
    )
    .output()
    .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(err.contains("HTTP 4xx 1"), "{err}");
    assert!(err.contains("most frequent failures:"), "{err}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let report: serde_json::Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
    assert_eq!(report["failures"]["http_4xx"], 1, "{report}");

    for (args, says) in [
        (vec!["--seeds", "no-such-seeds.txt"], "no such file"),
        (
            vec!["--seeds", "example.com/news"],
            "did you mean https://example.com/news",
        ),
    ] {
        let out = gleaner_run(&cfg, &data, &args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains(says) && err.lines().count() == 1, "{err}");
    }
    let bad_cfg = tmp.path().join("bad.toml");
    std::fs::write(&bad_cfg, "[fetch]\nper_host_dealy_ms = 5\n").unwrap();
    let out = gleaner_run(&bad_cfg, &data, &["--seeds", &format!("{base}/")])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("per_host_delay_ms"),
        "the nearest valid key: {err}"
    );
}

/// Bad input to search, serve and extract is one line and status 2; a
/// reader that goes away (`gleaner search ... | head`) is not an error;
/// `extract --help` names every extractor.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn search_serve_and_extract_refuse_bad_input_in_one_line() {
    let tmp = tempfile::tempdir().unwrap();
    let cfg = test_config(tmp.path(), None);
    let nowhere = tmp.path().join("no-such-dir");
    let run = |args: &[&str]| {
        Command::new(GLEANER)
            .args(args)
            .arg("--config")
            .arg(&cfg)
            .output()
            .unwrap()
    };
    let nowhere_s = nowhere.to_string_lossy().into_owned();
    for (args, says) in [
        (
            vec!["search", "--data", &nowhere_s, "bridge"],
            "no index in",
        ),
        (
            vec!["serve", "--data", &nowhere_s, "--listen", "127.0.0.1:0"],
            "no data directory",
        ),
    ] {
        let out = run(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains(says) && err.lines().count() == 1,
            "{args:?}: {err}"
        );
    }
    let binary = tmp.path().join("photo.html");
    std::fs::write(&binary, b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR").unwrap();
    let out = run(&["extract", &binary.to_string_lossy()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("not HTML (binary data)"), "{err}");
    assert!(out.stdout.is_empty(), "no garbage printed");

    let help = String::from_utf8_lossy(&run(&["extract", "--help"]).stdout).into_owned();
    for name in gleaner_extract::Extractor::NAMES {
        assert!(help.contains(name), "extract --help lacks {name}: {help}");
    }

    // An index to search, and a reader that closes at once.
    let (base, _log) = start_site().await;
    let data = tmp.path().join("data");
    run_summary(&run_on_site(&cfg, &data, &base).await, &data);
    let child = Command::new(GLEANER)
        .args(["search", "--config"])
        .arg(&cfg)
        .arg("--data")
        .arg(&data)
        .arg("bridge")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut child = child;
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(!err.contains("Broken pipe"), "{err}");
}

/// A second run on the same --data goes on where the first ended: nothing
/// fetched again (the server counts the requests), each article once in
/// articles.jsonl; `--refetch` fetches again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_run_resumes_without_fetching_again() {
    let (base, log) = start_site().await;
    let tmp = tempfile::tempdir().unwrap();
    let cfg = test_config(tmp.path(), None);
    let data = tmp.path().join("data");
    let first = run_summary(&run_on_site(&cfg, &data, &base).await, &data);
    let asked = log.lock().unwrap().len();
    assert!(asked > 5, "{asked} requests");
    let articles = || read_jsonl::<serde_json::Value>(&data.join("articles.jsonl")).len();
    let after_first = articles();
    assert_eq!(
        after_first as u64,
        first["produced"]["articles"].as_u64().unwrap()
    );

    let out = run_on_site(&cfg, &data, &base).await;
    assert_eq!(out.status.code(), Some(0), "nothing failed this time");
    assert_eq!(
        log.lock().unwrap().len(),
        asked,
        "no request the second time"
    );
    assert_eq!(articles(), after_first, "each article once across runs");

    let out = gleaner_run(&cfg, &data, &["--refetch", "--seeds", &format!("{base}/")])
        .output()
        .unwrap();
    run_summary(&out, &data);
    assert!(log.lock().unwrap().len() > asked, "--refetch fetches again");
}

/// Ctrl-C stops taking URLs and finishes what is in flight: every page
/// fetched goes through every stage, the URLs not started are kept, and
/// the next run fetches them, each page once over the two runs. A second
/// Ctrl-C ends the run at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_c_finishes_in_flight_work_and_the_next_run_goes_on() {
    const PAGES: usize = 40;
    let (base, log) = linked_site(PAGES, 100).await;
    let tmp = tempfile::tempdir().unwrap();
    let cfg = test_config(tmp.path(), None);
    let data = tmp.path().join("data");
    let pages_served = || {
        log.lock()
            .unwrap()
            .iter()
            .filter(|p| *p != "/robots.txt")
            .cloned()
            .collect::<Vec<_>>()
    };
    let child = gleaner_run(
        &cfg,
        &data,
        &["--depth", "1", "--seeds", &format!("{base}/")],
    )
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    while pages_served().len() < 5 {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let out = interrupt(child).await;
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("finishing what is in flight"), "{err}");
    let summary = run_summary(&out, &data);
    let served = pages_served().len() as u64;
    assert!(served < PAGES as u64, "stopped early: {served}");
    let n = |t: &str| summary["produced"][t].as_u64().unwrap_or(0);
    assert_eq!(
        n("pages"),
        served,
        "every page fetched was produced: {summary}"
    );
    assert_eq!(
        n("cleaned"),
        n("pages"),
        "and went through clean: {summary}"
    );

    let out = gleaner_run(&cfg, &data, &[]).output().unwrap();
    run_summary(&out, &data);
    let all = pages_served();
    let distinct: std::collections::BTreeSet<_> = all.iter().collect();
    assert_eq!(distinct.len(), all.len(), "no page fetched twice: {all:?}");
    assert_eq!(all.len(), PAGES + 1, "the second run fetched the rest");

    // A second Ctrl-C: out at once.
    let (slow, _slow_log) = linked_site(PAGES, 400).await;
    let data2 = tmp.path().join("data2");
    let child = gleaner_run(
        &cfg,
        &data2,
        &["--depth", "1", "--seeds", &format!("{slow}/")],
    )
    .stdout(Stdio::null())
    .stderr(Stdio::null())
    .spawn()
    .unwrap();
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let pid = child.id().to_string();
    Command::new("kill").args(["-INT", &pid]).status().unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    let t0 = Instant::now();
    let out = interrupt(child).await;
    assert_eq!(out.status.code(), Some(130));
    assert!(t0.elapsed() < Duration::from_secs(2), "{:?}", t0.elapsed());
}

/// `gleaner report` on a crawl with known failures: one HTML file with its
/// charts, the answers per host counted right, the Zipf exponent; `gleaner
/// serve` shows it at /report.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_crawl_report_counts_what_happened() {
    let (base, _log) = start_site().await;
    let tmp = tempfile::tempdir().unwrap();
    let cfg = test_config(tmp.path(), None);
    let data = tmp.path().join("data");
    run_summary(&run_on_site(&cfg, &data, &base).await, &data);
    let out = Command::new(GLEANER)
        .args(["report", "--config"])
        .arg(&cfg)
        .arg("--data")
        .arg(&data)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let html = std::fs::read_to_string(data.join("report.html")).unwrap();
    assert!(html.matches("<svg").count() >= 6, "charts");
    for section in [
        "Pages and articles over time",
        "Answers per host",
        "Fetch latency",
        "Extractor used",
        "Duplicate clusters",
        "Top terms",
        "Word rank and frequency",
    ] {
        assert!(html.contains(section), "no {section}");
    }
    // The example site: 9 pages answered 200, 7 links to missing pages,
    // 1 disallowed by robots.txt, one repost.
    let host = base
        .trim_start_matches("http://")
        .split(':')
        .next()
        .unwrap();
    let header: Vec<&str> = html
        .split("<h2>Answers per host</h2><table><tr>")
        .nth(1)
        .unwrap()
        .split("</tr>")
        .next()
        .unwrap()
        .split("<th>")
        .skip(2)
        .map(|c| c.trim_end_matches("</th>"))
        .collect();
    let row: Vec<&str> = html
        .split(&format!("<tr><td>{host}</td>"))
        .nth(1)
        .unwrap()
        .split("</tr>")
        .next()
        .unwrap()
        .split("<td>")
        .skip(1)
        .map(|c| c.trim_end_matches("</td>"))
        .collect();
    let cell = |answer: &str| row[header.iter().position(|h| *h == answer).unwrap()];
    assert_eq!(
        (cell("200"), cell("http_4xx"), cell("robots_disallowed")),
        ("9", "7", "1")
    );
    assert!(html.contains("1 originals with reposts"));
    let s: f64 = html
        .split("Zipf exponent <b>s = ")
        .nth(1)
        .unwrap()
        .split('<')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!((0.2..2.0).contains(&s), "{s}");

    let listen = free_addr();
    let mut serve = Command::new(GLEANER)
        .args(["serve", "--config"])
        .arg(&cfg)
        .arg("--data")
        .arg(&data)
        .args(["--listen", &listen])
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let got = http_until(
        &format!("http://{listen}/report"),
        Duration::from_secs(10),
        |s, _| s == 200,
    )
    .await;
    let _ = serve.kill();
    let _ = serve.wait();
    assert!(got.is_some_and(|(_, b)| b.contains("Crawl report")));
}
