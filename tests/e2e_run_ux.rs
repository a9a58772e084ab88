//! `gleaner run` as a user meets it: exit statuses and the end-of-run
//! report, bad input in one line, a limit that says so, resume on the same
//! data directory, Ctrl-C, and the crawl report.

mod common;

use common::*;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A limit that cuts something says so: with two links taken per page, the
/// run reports the links left out and the setting that raises the cap; with
/// URLs capped at 30 characters (the seed's fit), the links longer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn links_beyond_the_cap_are_reported() {
    let (base, _log) = start_site().await;
    let tmp = tempfile::tempdir().unwrap();
    let cfg = test_config(tmp.path(), None);
    edit_config(
        &cfg,
        &[
            ("max_links_per_page = 500", "max_links_per_page = 2"),
            ("max_url_length = 2083", "max_url_length = 30"),
        ],
    );
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
    let too_long = &summary["links_too_long"];
    assert!(too_long["links"].as_u64().unwrap() > 0, "{summary}");
    assert_eq!(too_long["max_url_length"], 30, "{summary}");
    assert!(
        stdout.contains("links too long") && stdout.contains("fetch.max_url_length"),
        "{stdout}"
    );
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

    // A host that refuses connections is reported as such, not as a
    // robots.txt that could not be read.
    let out = gleaner_run(
        &cfg,
        &tmp.path().join("refused"),
        &["--json", "--seeds", "http://127.0.0.1:1/"],
    )
    .output()
    .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(err.contains("connection refused 1"), "{err}");
    assert!(!err.contains("robots.txt unavailable"), "{err}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let report: serde_json::Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
    assert_eq!(report["failures"]["connection_refused"], 1, "{report}");

    for (args, says) in [
        (vec!["--seeds", "no-such-seeds.txt"], "no such file"),
        (vec!["--seeds", "/"], "is a directory"),
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
    // A value that would quietly do nothing, or a flow that cannot run, is
    // the config's fault, named in one line.
    let odd_cfg = tmp.path().join("odd.toml");
    for (toml, says) in [
        (
            "[dedup]\nwindow_count = 0\n",
            "dedup.window_count must be at least 1",
        ),
        (
            "[fetch]\nmax_body_bytes = 10\n",
            "fetch.max_body_bytes must be at least 1024",
        ),
        ("[pipeline]\nstages = []\n", "[pipeline] stages is empty"),
    ] {
        std::fs::write(&odd_cfg, toml).unwrap();
        let out = gleaner_run(&odd_cfg, &data, &["--seeds", &format!("{base}/")])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{toml}: {err}");
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
    // --config before the subcommand is read as well; given on both sides,
    // it is refused rather than one silently winning.
    let before = |args: &[&str]| {
        let out = Command::new(GLEANER)
            .arg("--config")
            .arg(&bad_cfg)
            .args(args)
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, err) = before(&["extract", "--json", "-"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("per_host_delay_ms"), "{err}");
    let (code, err) = before(&["search", "--config", "other.toml", "bridge"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("--config given twice"), "{err}");
}

/// Bad input to search, serve and extract is one line and status 2; a
/// reader that goes away (`gleaner search ... | head`) is not an error;
/// `extract --help` names every extractor.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn search_serve_and_extract_refuse_bad_input_in_one_line() {
    let tmp = tempfile::tempdir().unwrap();
    let cfg = test_config(tmp.path(), None);
    let nowhere = tmp.path().join("no-such-dir");
    let run = |args: &[&str]| gleaner_on(&cfg, None, args).output().unwrap();
    let nowhere_s = nowhere.to_string_lossy().into_owned();
    // Nested this deep, Tantivy's query grammar overflowed the stack (an abort).
    let nested = format!("{}bridge{}", "(".repeat(400), ")".repeat(400));
    for (args, says) in [
        (
            vec!["search", &nested],
            "the query nests parentheses 400 deep; at most 32",
        ),
        (
            vec!["search", "--data", &nowhere_s, "bridge"],
            "no index in",
        ),
        (
            vec!["serve", "--data", &nowhere_s, "--listen", "127.0.0.1:0"],
            "no data directory",
        ),
        (
            vec!["search", "--limit", "abc", "bridge"],
            "invalid value 'abc' for '--limit <LIMIT>'",
        ),
        (
            vec!["search", "--limit", "0", "bridge"],
            "invalid value '0' for '--limit <LIMIT>': a limit is 1 or more",
        ),
        (
            vec!["search", "--sort", "best", "bridge"],
            "invalid value 'best' for '--sort <SORT>'",
        ),
        (vec!["stage", "dedupe"], "did you mean \"dedup\"?"),
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

    // A URL or a path says what it is: a missing page (status 3: finished,
    // a page could not be fetched), a page that is not HTML, an address
    // without its scheme, each in one line.
    let (base, _log) = start_site().await;
    let schemeless = format!("{}/news/a.html", base.trim_start_matches("http://"));
    for (input, code, says) in [
        (
            format!("{base}/no-such-page.html"),
            3,
            "HTTP 404 (Not Found)".to_string(),
        ),
        (
            format!("{base}/robots.txt"),
            2,
            "not HTML (served as text/plain)".into(),
        ),
        (
            schemeless.clone(),
            2,
            format!("no such file; did you mean https://{schemeless}?"),
        ),
    ] {
        let out = run(&["extract", &input]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(code), "{input}: {err}");
        assert!(
            err.contains(&says) && err.lines().count() == 1,
            "{input}: {err}"
        );
        assert!(out.stdout.is_empty(), "{input}: nothing printed");
    }

    // A page with no text is no error, but it is said.
    let empty = tmp.path().join("empty.html");
    std::fs::write(&empty, "<html><body><div id=app></div></body></html>").unwrap();
    let out = run(&["extract", &empty.to_string_lossy()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("no main text found"), "{err}");

    // Seeds on stdin (`grep ... | gleaner seed -`), a bad line named.
    let seeds_dir = tmp.path().join("seeded");
    std::fs::create_dir_all(&seeds_dir).unwrap();
    for (input, code, says) in [
        (
            "https://example.com/a\n# later\nhttps://example.org/b\n",
            Some(0),
            "queued 2 seed(s)",
        ),
        (
            "https://example.com/a\nnope\n",
            Some(2),
            "stdin:2: bad seed URL",
        ),
    ] {
        let out = with_stdin(
            gleaner_on(&cfg, Some(&seeds_dir), &["seed", "-"]),
            input.as_bytes(),
        );
        let said = String::from_utf8_lossy(&out.stdout) + String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), code, "{said}");
        assert!(said.contains(says), "{said}");
    }

    // HTML on stdin (`curl -s URL | gleaner extract -`).
    let out = with_stdin(
        gleaner_on(&cfg, None, &["extract", "-"]),
        b"<html><head><title>Ferry strike</title></head><body><article><p>The ferry \
          crews walked out at dawn on Monday, and the harbour crossing stayed shut \
          until the council met the union in the afternoon.</p></article></body></html>",
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.starts_with("==> - <==\nFerry strike\n\nThe ferry crews walked out at dawn"),
        "{text}"
    );

    let help = String::from_utf8_lossy(&run(&["extract", "--help"]).stdout).into_owned();
    for name in gleaner_extract::Extractor::NAMES {
        assert!(help.contains(name), "extract --help lacks {name}: {help}");
    }

    // An index to search, and a reader that closes at once.
    let (base, _log) = start_site().await;
    let data = tmp.path().join("data");
    run_summary(&run_on_site(&cfg, &data, &base).await, &data);
    let child = gleaner_on(&cfg, Some(&data), &["search", "bridge"])
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

    // Filters given empty (`--site "$SITE"` with SITE unset) filter nothing.
    let hits = |extra: &[&str]| {
        let mut args = vec!["search", "--json"];
        args.extend_from_slice(extra);
        args.push("bridge");
        let out = gleaner_on(&cfg, Some(&data), &args).output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).lines().count()
    };
    let all = hits(&[]);
    assert!(all > 0);
    assert_eq!(
        hits(&["--site", "", "--lang", " ", "--from", "", "--to", ""]),
        all
    );
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
    let dead = || read_jsonl::<serde_json::Value>(&data.join("dead-letter.jsonl")).len();
    let dead_after_first = dead();
    assert!(dead_after_first > 0, "the site has pages that fail");
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
    assert_eq!(
        dead(),
        dead_after_first,
        "each dead letter once across runs"
    );

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
        n("articles"),
        n("pages"),
        "and every page, each an article, went through extract: {summary}"
    );
    assert_eq!(
        summary["index_docs"].as_u64(),
        Some(served),
        "and reached the index: {summary}"
    );

    let out = gleaner_run(&cfg, &data, &[]).output().unwrap();
    let summary = run_summary(&out, &data);
    let all = pages_served();
    assert_eq!(
        summary["index_docs"].as_u64(),
        Some(all.len() as u64),
        "the two runs indexed every page: {summary}"
    );
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
    let out = gleaner_on(&cfg, Some(&data), &["report"]).output().unwrap();
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
    assert!(html.contains("1 original with reposts"), "{html}");
    // robots.txt's refusal is by design, not a failure.
    assert!(
        html.contains("<b>7</b> URLs failed, <b>1</b> passed over by robots.txt"),
        "{html}"
    );
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

    let (mut serve, listen) = serve_data(&cfg, &data).await;
    let got = http_get(&format!("http://{listen}/report")).await;
    let _ = serve.kill();
    let _ = serve.wait();
    assert!(got.is_some_and(|(_, b)| b.contains("Crawl report")));
}

/// A one-shot Kafka command with no broker to answer says so within
/// seconds (it waited a minute or more without a word).
#[test]
fn kafka_commands_without_a_broker_say_so() {
    let tmp = tempfile::tempdir().unwrap();
    let cfg = test_config(tmp.path(), None);
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .to_string();
    for args in [
        vec!["topics"],
        vec!["status"],
        vec!["seed", "https://example.com/"],
    ] {
        let started = Instant::now();
        let out = gleaner_on(&cfg, None, &args)
            .args(["--brokers", &closed])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(
            err.contains(&format!("no Kafka broker answers at {closed}")),
            "{args:?}: {err}"
        );
        assert!(started.elapsed() < Duration::from_secs(20), "{args:?}");
    }
}

/// Runs `cmd` with `input` on its stdin, its output kept.
fn with_stdin(mut cmd: Command, input: &[u8]) -> std::process::Output {
    use std::io::Write;
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    child.wait_with_output().unwrap()
}
