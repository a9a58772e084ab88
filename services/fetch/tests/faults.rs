//! Faults: retries and Retry-After, block detection and host pauses, deferred
//! and stalled requests, what is handed back on stopping.

mod common;

use axum::http::{header, StatusCode};
use axum::response::IntoResponse;
use axum::routing::get;
use axum::Router;
use common::*;
use gleaner_core::messages::FrontierLink;
use gleaner_core::stage::{Input, Output, Stage};
use gleaner_core::Topic;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

#[tokio::test]
async fn fetch_retries_honour_retry_after_and_give_up() {
    let hits: Arc<Mutex<Vec<(String, Instant)>>> = Arc::default();
    let h = hits.clone();
    let app = Router::new().fallback(move |uri: axum::http::Uri| {
        let h = h.clone();
        async move {
            let path = uri.path().to_string();
            let n = {
                let mut h = h.lock().unwrap();
                h.push((path.clone(), Instant::now()));
                h.iter().filter(|(p, _)| *p == path).count()
            };
            match (path.as_str(), n) {
                ("/robots.txt", _) => {
                    (StatusCode::NOT_FOUND, [(header::RETRY_AFTER, "0")], "").into_response()
                }
                ("/busy", 1) => (
                    StatusCode::TOO_MANY_REQUESTS,
                    [(header::RETRY_AFTER, "1")],
                    "slow down",
                )
                    .into_response(),
                ("/busy", _) => axum::response::Html("<p>finally</p>").into_response(),
                ("/down", _) => (StatusCode::SERVICE_UNAVAILABLE, "down").into_response(),
                (_, _) => (
                    StatusCode::TOO_MANY_REQUESTS,
                    [(header::RETRY_AFTER, "3600")],
                    "",
                )
                    .into_response(),
            }
        }
    });
    let base = serve(app).await;
    let mut cfg = fetch_cfg();
    cfg.retry_base_ms = 50;
    cfg.max_retries = 2;
    let mut f = gleaner_fetch::FetchStage::new(&cfg, true).unwrap();
    let page = page_of(&f.handle(&seed(&format!("{base}/busy"), 0)).await.unwrap());
    assert!(page.html.contains("finally"));
    let err = fetch_error(&mut f, &format!("{base}/down")).await;
    assert!(err.to_string().contains("HTTP 503"), "{err}");
    let err = fetch_error(&mut f, &format!("{base}/later")).await;
    assert!(err.to_string().contains("HTTP 429"), "{err}");
    let hits = hits.lock().unwrap().clone();
    let times = |p: &str| {
        hits.iter()
            .filter(|(x, _)| x == p)
            .map(|(_, t)| *t)
            .collect::<Vec<_>>()
    };
    let busy = times("/busy");
    assert_eq!(busy.len(), 2);
    assert!(
        busy[1] - busy[0] >= Duration::from_millis(950),
        "Retry-After: 1 honoured"
    );
    assert_eq!(times("/down").len(), 3, "first try and max_retries retries");
    assert_eq!(
        times("/later").len(),
        1,
        "a Retry-After beyond max_retry_after_secs is not waited for"
    );
}

/// A host answering 403 (or challenge pages) is paused and not asked again;
/// other hosts are not affected.
#[tokio::test]
async fn fetch_detects_blocks_and_pauses_the_host() {
    let hits = Arc::new(AtomicUsize::new(0));
    let h = hits.clone();
    let blocking = serve(Router::new().fallback(move || {
        let h = h.clone();
        async move {
            h.fetch_add(1, Ordering::SeqCst);
            (StatusCode::FORBIDDEN, "forbidden")
        }
    }))
    .await;
    let challenge = serve(Router::new().fallback(|| async {
        axum::response::Html("<html><body><h1>Verify you are human</h1><div class='g-recaptcha'></div></body></html>")
    }))
    .await;
    let fine =
        serve(Router::new().fallback(|| async { axum::response::Html("<p>fine</p>") })).await;
    let mut cfg = fetch_cfg();
    cfg.block_window = 4;
    cfg.block_ratio = 0.5;
    let mut f = gleaner_fetch::FetchStage::new(&cfg, true).unwrap();
    for i in 0..4 {
        let err = fetch_error(&mut f, &format!("{blocking}/{i}")).await;
        assert!(err.to_string().contains("HTTP 403"), "{err}");
    }
    let requests = hits.load(Ordering::SeqCst);
    let err = fetch_error(&mut f, &format!("{blocking}/later")).await;
    assert!(
        err.to_string().contains("paused") && err.to_string().contains("blocked"),
        "{err}"
    );
    assert_eq!(
        hits.load(Ordering::SeqCst),
        requests,
        "a paused host is not asked"
    );
    let err = fetch_error(&mut f, &format!("{challenge}/c")).await;
    assert!(err.to_string().contains("challenge page"), "{err}");
    assert!(
        page_of(&f.handle(&seed(&format!("{fine}/ok"), 0)).await.unwrap())
            .html
            .contains("fine")
    );
    assert!(gleaner_core::metrics::value("gleaner_fetch_paused_hosts", &[]) >= 1.0);
}

/// A batch does not wait past fetch.defer_after_ms for a busy host: the
/// URLs not fetched by then wait in their host's queue in the stage (not
/// back on the frontier topic) and come out of later ticks, while the other
/// hosts' pages come with the batch.
#[tokio::test]
async fn fetch_keeps_a_busy_hosts_urls_queued_instead_of_stalling_the_batch() {
    let slow = slow_site(300, "<p>slow</p>").await;
    let fast =
        serve(Router::new().fallback(|| async { axum::response::Html("<p>fast</p>") })).await;
    let mut cfg = fetch_cfg();
    cfg.defer_after_ms = 700;
    let mut f = gleaner_fetch::FetchStage::new(&cfg, true).unwrap();
    let mut batch: Vec<Input> = (0..8).map(|i| seed(&format!("{slow}/{i}"), 0)).collect();
    batch.push(seed(&format!("{fast}/x"), 0));
    let t0 = Instant::now();
    let results = f.handle_batch(&batch).await;
    let took = t0.elapsed();
    assert!(
        took < Duration::from_millis(1500),
        "the batch waited {took:?}"
    );
    let pages = |outs: &[Output]| outs.iter().filter(|o| o.topic == Topic::PAGES).count();
    let in_batch: usize = results.iter().map(|r| pages(r.as_ref().unwrap())).sum();
    assert!(
        results
            .iter()
            .flatten()
            .flatten()
            .all(|o| o.topic != Topic::FRONTIER),
        "nothing goes round the frontier topic again"
    );
    assert!(
        in_batch < 9 && f.held() >= 4,
        "{in_batch} pages, {} held",
        f.held()
    );
    assert_eq!(in_batch + f.held(), 9, "every URL is a page or held");
    assert_eq!(
        pages(results[8].as_ref().unwrap()),
        1,
        "the fast host was fetched"
    );
    let later = tick_until(&mut f, 5, |o| pages(o) + in_batch == 9).await;
    assert_eq!(
        pages(&later) + in_batch,
        9,
        "the slow host's URLs came later"
    );
    assert_eq!(f.held(), 0);
}

/// A host whose Crawl-delay is longer than the batch's deadline still
/// progresses: its URLs wait their turns in its queue and come out of ticks.
#[tokio::test]
async fn fetch_honours_a_crawl_delay_longer_than_the_batch() {
    let base = serve(
        Router::new()
            .route(
                "/robots.txt",
                get(|| async { "User-agent: *\nCrawl-delay: 1\n" }),
            )
            .fallback(|| async { axum::response::Html("<p>p</p>") }),
    )
    .await;
    let mut cfg = fetch_cfg();
    cfg.defer_after_ms = 200;
    let mut f = gleaner_fetch::FetchStage::new(&cfg, true).unwrap();
    let batch = [seed(&format!("{base}/1"), 0), seed(&format!("{base}/2"), 0)];
    let t0 = Instant::now();
    let results = f.handle_batch(&batch).await;
    assert!(t0.elapsed() < Duration::from_millis(900));
    assert!(
        results[1].as_ref().unwrap().is_empty(),
        "the second waits for the Crawl-delay"
    );
    let pages = |outs: &[Output]| outs.iter().filter(|o| o.topic == Topic::PAGES).count();
    let first = pages(results[0].as_ref().unwrap());
    let later = tick_until(&mut f, 4, |o| pages(o) + first == 2).await;
    assert_eq!(pages(&later) + first, 2, "both were fetched");
    assert!(t0.elapsed() >= Duration::from_secs(1), "a second apart");
}

/// A server that takes seconds to answer holds up neither its batch nor the
/// next: its request finishes in the background and its page comes out of a
/// tick; its host's next URL waits in the host's queue meanwhile (not
/// fetched side by side, not lost) and is fetched once the host is free.
/// With a state directory, URLs still parked when the process dies come back
/// after a restart.
#[tokio::test]
async fn fetch_finishes_a_stalled_request_in_the_background() {
    let stalled = slow_site(2500, "<p>late but here</p>").await;
    let fast =
        serve(Router::new().fallback(|| async { axum::response::Html("<p>fast</p>") })).await;
    let state = tempfile::tempdir().unwrap();
    let mut cfg = fetch_cfg();
    cfg.defer_after_ms = 300;
    let mut f = gleaner_fetch::FetchStage::new(&cfg, true)
        .unwrap()
        .with_state(state.path())
        .unwrap();
    let t0 = Instant::now();
    let first = f
        .handle_batch(&[
            seed(&format!("{stalled}/a"), 0),
            seed(&format!("{fast}/1"), 0),
        ])
        .await;
    assert!(
        t0.elapsed() < Duration::from_millis(1000),
        "batch took {:?}",
        t0.elapsed()
    );
    assert!(
        first[0].as_ref().unwrap().is_empty(),
        "stalled URL is parked"
    );
    page_of(first[1].as_ref().unwrap());
    assert_eq!(f.held(), 1);
    let t1 = Instant::now();
    let second = f
        .handle_batch(&[
            seed(&format!("{stalled}/b"), 0),
            seed(&format!("{fast}/2"), 0),
        ])
        .await;
    assert!(
        t1.elapsed() < Duration::from_millis(500),
        "the next batch is not held up"
    );
    assert!(
        second[0].as_ref().unwrap().is_empty(),
        "busy host: waits in the stage"
    );
    page_of(second[1].as_ref().unwrap());
    assert_eq!(f.held(), 2);
    // A crash now (no close): both URLs are in the state directory. (A
    // copy of it, so the stage that goes on keeps its own.)
    let crashed = tempfile::tempdir().unwrap();
    for e in std::fs::read_dir(state.path()).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), crashed.path().join(e.file_name())).unwrap();
    }
    let restarted = gleaner_fetch::FetchStage::new(&cfg, true)
        .unwrap()
        .with_state(crashed.path())
        .unwrap();
    assert_eq!(
        restarted.held(),
        2,
        "parked URLs survive the crash, queued for their host again"
    );
    drop(restarted);
    // The original stage: the late page comes out of a tick, then /b's,
    // fetched after it (one request at a time to the host).
    let pages = |o: &[Output]| o.iter().filter(|o| o.topic == Topic::PAGES).count();
    let outs = tick_until(&mut f, 8, |o| pages(o) == 2).await;
    assert_eq!(pages(&outs), 2);
    assert!(page_of(&outs).html.contains("late but here"));
    assert!(
        t0.elapsed() >= Duration::from_millis(5000),
        "one after the other"
    );
    assert_eq!(f.held(), 0);
    // Released once the runner says they are produced: a restart finds
    // nothing parked, and does not fetch them again.
    f.produced().await;
    assert!(f.tick().await.is_empty());
    drop(f);
    let again = gleaner_fetch::FetchStage::new(&cfg, true)
        .unwrap()
        .with_state(state.path())
        .unwrap();
    assert_eq!(again.held(), 0);
}

/// In a service, URLs of a host paused for blocking us wait for the pause
/// to end instead of going to the dead-letter topic.
#[tokio::test]
async fn fetch_holds_a_paused_hosts_urls_until_the_pause_ends() {
    let blocking = Arc::new(std::sync::atomic::AtomicBool::new(true));
    let b = blocking.clone();
    let site = serve(Router::new().fallback(move || {
        let b = b.clone();
        async move {
            if b.load(Ordering::SeqCst) {
                (StatusCode::FORBIDDEN, "forbidden").into_response()
            } else {
                axum::response::Html("<p>welcome back</p>").into_response()
            }
        }
    }))
    .await;
    let mut cfg = fetch_cfg();
    cfg.block_window = 2;
    cfg.block_ratio = 0.5;
    cfg.pause_secs = 1;
    let mut f = gleaner_fetch::FetchStage::new(&cfg, true)
        .unwrap()
        .wait_for_paused_hosts(true);
    for i in 0..2 {
        assert!(f.handle(&seed(&format!("{site}/{i}"), 0)).await.is_err());
    }
    let held = f.handle(&seed(&format!("{site}/later"), 0)).await.unwrap();
    assert!(held.is_empty(), "paused: parked, not a dead letter");
    assert_eq!(f.held(), 1);
    assert!(f.tick().await.is_empty(), "still paused");
    blocking.store(false, Ordering::SeqCst);
    // Fetched once the pause has ended.
    let outs = tick_until(&mut f, 4, |o| o.iter().any(|o| o.topic == Topic::PAGES)).await;
    assert!(page_of(&outs).html.contains("welcome back"));
    assert_eq!(f.held(), 0);
}

/// A fetch service that stops while a request hangs hands the URL (and its
/// host's waiting URLs) back to the frontier rather than lose them, even
/// without a state directory: their inputs' offsets are already committed.
#[tokio::test]
async fn fetch_hands_back_what_it_holds_when_stopping() {
    let hung = slow_site(60000, "<p>never</p>").await;
    let mut cfg = fetch_cfg();
    cfg.defer_after_ms = 200;
    let mut f = gleaner_fetch::FetchStage::new(&cfg, true).unwrap();
    f.handle_batch(&[seed(&format!("{hung}/a"), 0)]).await;
    f.handle_batch(&[seed(&format!("{hung}/b"), 0)]).await;
    assert_eq!(f.held(), 2);
    let t0 = Instant::now();
    let outs = f.drain().await;
    assert!(
        t0.elapsed() < Duration::from_secs(7),
        "drain took {:?}",
        t0.elapsed()
    );
    let mut urls: Vec<String> = outs
        .iter()
        .filter(|o| o.topic == Topic::FRONTIER)
        .map(|o| o.decode::<FrontierLink>().unwrap().url)
        .collect();
    urls.sort();
    assert_eq!(urls, [format!("{hung}/a"), format!("{hung}/b")]);
    assert_eq!(f.held(), 0);
    f.close().await.unwrap();
}

/// A URL counts as fetched only once the broker has its page: killed
/// between the fetch and the acknowledgement, a restarted fetch takes the
/// URL again (from the replayed seed, or a deferred link) instead of losing
/// it; after the acknowledgement, a replay or a deferred link is skipped.
#[tokio::test]
async fn a_url_is_seen_only_once_its_page_is_acknowledged() {
    let base =
        serve(Router::new().fallback(|| async { axum::response::Html("<p>the page</p>") })).await;
    let state = tempfile::tempdir().unwrap();
    let copy = |to: &std::path::Path| {
        for e in std::fs::read_dir(state.path()).unwrap() {
            let e = e.unwrap();
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    };
    let url = format!("{base}/a");
    let mut f = stateful_fetch(state.path());
    page_of(f.handle(&seed(&url, 0)).await.as_ref().unwrap());
    // Killed before the broker acknowledged the page: no produced().
    let crashed = tempfile::tempdir().unwrap();
    copy(crashed.path());
    let mut restarted = stateful_fetch(crashed.path());
    let again = restarted.handle(&seed(&url, 0)).await.unwrap();
    assert_eq!(pages_in(&again), 1, "the replayed seed is fetched again");
    let mut handed_back = stateful_fetch(crashed.path());
    let mut link = frontier_link(&url, 0);
    let mut l: FrontierLink = link.decode().unwrap();
    l.deferred = true;
    link.payload = Some(gleaner_core::Payload::typed(l));
    assert_eq!(
        pages_in(&handed_back.handle(&link).await.unwrap()),
        1,
        "and so is a deferred link"
    );
    // Acknowledged: now it is fetched for good.
    f.produced().await;
    let acked = tempfile::tempdir().unwrap();
    copy(acked.path());
    let mut restarted = stateful_fetch(acked.path());
    assert!(
        restarted.handle(&seed(&url, 0)).await.unwrap().is_empty(),
        "a replayed seed is skipped"
    );
    assert!(
        restarted.handle(&link).await.unwrap().is_empty(),
        "so is a deferred link"
    );
}
