//! `gleaner serve` beside a running `gleaner run --follow` on one data
//! directory: no lock error, and an article handed to the run is pushed to
//! a standing query's stream and found by the API as soon as it is
//! committed.

mod common;

use common::*;
use futures::StreamExt;
use std::process::Stdio;
use std::time::{Duration, Instant};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_follows_a_running_run_and_streams_what_it_indexes() {
    let (base, _log) = start_site().await;
    let tmp = tempfile::tempdir().unwrap();
    let cfg = test_config(tmp.path(), None);
    let data = tmp.path().join("data");
    let seed = format!("{base}{}", ARTICLES[0].0);
    let mut run = gleaner_run(&cfg, &data, &["--follow", "--depth", "0", "--seeds", &seed])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // serve waits for an index only in a data directory that exists (a
    // mistyped one is refused): start it once the run has made its own.
    let t0 = Instant::now();
    while !data.join("index").join("meta.json").exists() && t0.elapsed() < Duration::from_secs(30) {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let listen = free_addr();
    let mut serve = gleaner_on(&cfg, Some(&data), &["serve", "--listen", &listen])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let api = format!("http://{listen}/api/v1");
    // The run's own seed, through the API.
    let phrase0 = urlencode(&format!("\"{}\"", ARTICLES[0].1));
    let found = http_until(
        &format!("{api}/search?q={phrase0}"),
        Duration::from_secs(30),
        |status, body| status == 200 && body.contains(ARTICLES[0].0),
    )
    .await;
    assert!(
        found.is_some_and(|(s, b)| s == 200 && b.contains(ARTICLES[0].0)),
        "the run's seed never reached the API"
    );

    // A standing query for another article, then that article handed to
    // the running run.
    let phrase2 = urlencode(&format!("\"{}\"", ARTICLES[2].1));
    let stream = reqwest::get(format!("{api}/stream?q={phrase2}"))
        .await
        .unwrap();
    assert_eq!(stream.status().as_u16(), 200);
    let mut events = stream.bytes_stream();
    let handed = Instant::now();
    let url2 = format!("{base}{}", ARTICLES[2].0);
    let seeded = gleaner_on(&cfg, Some(&data), &["seed", "--depth", "0", &url2])
        .output()
        .unwrap();
    assert!(seeded.status.success());
    let mut seen = String::new();
    while !seen.contains(ARTICLES[2].0) {
        let chunk = tokio::time::timeout(Duration::from_secs(15), events.next())
            .await
            .expect("the article was pushed within 15 s")
            .unwrap()
            .unwrap();
        seen.push_str(&String::from_utf8_lossy(&chunk));
    }
    let pushed = handed.elapsed();
    assert!(seen.contains("event: article"), "{seen}");
    let (status, body) = http_get(&format!("{api}/search?q={phrase2}"))
        .await
        .unwrap();
    assert!(status == 200 && body.contains(ARTICLES[2].0), "{body}");
    eprintln!("seed handed to the run -> pushed by serve's stream: {pushed:?}");
    let _ = run.kill();
    let _ = run.wait();
    let _ = serve.kill();
    let out = serve.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("error") && !err.contains("lock"), "{err}");
}

fn urlencode(s: &str) -> String {
    url::form_urlencoded::byte_serialize(s.as_bytes()).collect()
}
