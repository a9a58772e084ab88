//! Politeness: the per-host clock and slots, robots.txt (Crawl-delay, 5xx,
//! cache expiry, redirects), priorities.

mod common;

use axum::http::{header, StatusCode};
use axum::response::IntoResponse;
use axum::routing::get;
use axum::Router;
use common::*;
use gleaner_core::messages::Seed;
use gleaner_core::stage::{Input, Stage};
use gleaner_core::Topic;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

#[tokio::test]
async fn fetch_spaces_requests_to_a_host_and_skips_seen_urls() {
    let times: Arc<Mutex<Vec<Instant>>> = Arc::default();
    let t = times.clone();
    let app = Router::new()
        .route(
            "/robots.txt",
            get(|| async { "User-agent: *\nDisallow: /no\n" }),
        )
        .fallback(move || {
            let t = t.clone();
            async move {
                t.lock().unwrap().push(Instant::now());
                (
                    [(header::CONTENT_TYPE, "text/html")],
                    "<a href='/a'>a</a><a href='/b'>b</a><a href='/no'>n</a>",
                )
            }
        });
    let base = serve(app).await;
    let mut cfg = fetch_cfg();
    cfg.per_host_delay_ms = 150;
    let mut f = gleaner_fetch::FetchStage::new(&cfg, true).unwrap();
    let link = |p: &str| frontier_link(&format!("{base}{p}"), 1);
    let batch = [
        seed(&format!("{base}/"), 1),
        link("/a"),
        link("/b"),
        link("/a"),
        link("/no"),
    ];
    let results = f.handle_batch(&batch).await;
    // The seed's page links to /a and /b, which are already being fetched.
    let seed_outs = results[0].as_ref().unwrap();
    assert_eq!(
        seed_outs
            .iter()
            .filter(|o| o.topic == Topic::FRONTIER)
            .count(),
        0
    );
    assert!(
        results[3].as_ref().unwrap().is_empty(),
        "a seen URL is not fetched again"
    );
    assert!(results[4]
        .as_ref()
        .unwrap_err()
        .to_string()
        .contains("robots.txt"));
    let times = times.lock().unwrap().clone();
    assert_eq!(times.len(), 3);
    let mut sorted = times.clone();
    sorted.sort();
    for w in sorted.windows(2) {
        assert!(
            w[1] - w[0] >= Duration::from_millis(145),
            "gap {:?}",
            w[1] - w[0]
        );
    }
}

/// One request at a time per host, while different hosts proceed together.
#[tokio::test]
async fn fetch_keeps_one_request_per_host_in_flight() {
    let overall = Arc::new((AtomicUsize::new(0), AtomicUsize::new(0)));
    let mut bases = Vec::new();
    let mut per_host = Vec::new();
    for _ in 0..2 {
        let host = Arc::new((AtomicUsize::new(0), AtomicUsize::new(0)));
        let (h, o) = (host.clone(), overall.clone());
        let app = Router::new().fallback(move || {
            let (h, o) = (h.clone(), o.clone());
            async move {
                for c in [&h, &o] {
                    let now = c.0.fetch_add(1, Ordering::SeqCst) + 1;
                    c.1.fetch_max(now, Ordering::SeqCst);
                }
                tokio::time::sleep(Duration::from_millis(40)).await;
                h.0.fetch_sub(1, Ordering::SeqCst);
                o.0.fetch_sub(1, Ordering::SeqCst);
                axum::response::Html("<p>x</p>")
            }
        });
        bases.push(serve(app).await);
        per_host.push(host);
    }
    let mut f = gleaner_fetch::FetchStage::new(&fetch_cfg(), true).unwrap();
    let batch: Vec<Input> = (0..6)
        .flat_map(|i| bases.iter().map(move |b| seed(&format!("{b}/{i}"), 0)))
        .collect();
    let results = f.handle_batch(&batch).await;
    assert!(results.iter().all(|r| r.is_ok()));
    for h in &per_host {
        assert_eq!(
            h.1.load(Ordering::SeqCst),
            1,
            "more than one request in flight to a host"
        );
    }
    assert_eq!(
        overall.1.load(Ordering::SeqCst),
        2,
        "the two hosts were fetched side by side"
    );
}

/// Crawl-delay in robots.txt wins over a shorter configured delay; a robots.txt
/// that answers 503 is asked again after a wait before the host's URLs fail.
#[tokio::test]
async fn fetch_honours_crawl_delay_and_retries_robots_5xx() {
    let times: Arc<Mutex<Vec<Instant>>> = Arc::default();
    let t = times.clone();
    let polite = serve(
        Router::new()
            .route(
                "/robots.txt",
                get(|| async { "User-agent: *\nCrawl-delay: 1\n" }),
            )
            .fallback(move || {
                let t = t.clone();
                async move {
                    t.lock().unwrap().push(Instant::now());
                    axum::response::Html("<p>x</p>")
                }
            }),
    )
    .await;
    let robots_calls = Arc::new(AtomicUsize::new(0));
    let r = robots_calls.clone();
    let flaky = serve(
        Router::new()
            .route(
                "/robots.txt",
                get(move || {
                    let r = r.clone();
                    async move {
                        if r.fetch_add(1, Ordering::SeqCst) == 0 {
                            (StatusCode::SERVICE_UNAVAILABLE, "").into_response()
                        } else {
                            "User-agent: *\nDisallow: /private\n".into_response()
                        }
                    }
                }),
            )
            .fallback(|| async { axum::response::Html("<p>y</p>") }),
    )
    .await;
    let mut cfg = fetch_cfg();
    cfg.retry_base_ms = 20;
    let mut f = gleaner_fetch::FetchStage::new(&cfg, true).unwrap();
    let batch = [
        seed(&format!("{polite}/a"), 0),
        seed(&format!("{polite}/b"), 0),
    ];
    assert!(f.handle_batch(&batch).await.iter().all(|r| r.is_ok()));
    let times = times.lock().unwrap().clone();
    assert_eq!(times.len(), 2);
    assert!(
        times[1].max(times[0]) - times[1].min(times[0]) >= Duration::from_millis(990),
        "Crawl-delay: 1"
    );
    assert!(
        page_of(&f.handle(&seed(&format!("{flaky}/ok"), 0)).await.unwrap())
            .html
            .contains('y')
    );
    assert_eq!(
        robots_calls.load(Ordering::SeqCst),
        2,
        "asked again after the 503"
    );
    let err = fetch_error(&mut f, &format!("{flaky}/private")).await;
    assert!(err.to_string().contains("disallowed"), "{err}");
}

/// robots.txt is cached per host until robots_cache_secs pass; a slow
/// server hits the total timeout; five errors in a row pause the host.
#[tokio::test]
async fn fetch_robots_cache_expires_timeouts_and_error_pauses() {
    let robots_hits = Arc::new(AtomicUsize::new(0));
    let r = robots_hits.clone();
    let app = Router::new()
        .route(
            "/robots.txt",
            get(move || {
                let r = r.clone();
                async move {
                    r.fetch_add(1, Ordering::SeqCst);
                    ""
                }
            }),
        )
        .route(
            "/slow",
            get(|| async {
                tokio::time::sleep(Duration::from_secs(5)).await;
                axum::response::Html("late")
            }),
        )
        .route(
            "/broken",
            get(|| async { (StatusCode::INTERNAL_SERVER_ERROR, "boom") }),
        )
        .fallback(|| async { axum::response::Html("<p>ok</p>") });
    let base = serve(app).await;
    let mut cfg = fetch_cfg();
    cfg.robots_cache_secs = 1;
    cfg.total_timeout_ms = 300;
    cfg.max_retries = 0;
    cfg.error_pause_after = 3;
    let mut f = gleaner_fetch::FetchStage::new(&cfg, true).unwrap();
    f.handle(&seed(&format!("{base}/1"), 0)).await.unwrap();
    f.handle(&seed(&format!("{base}/2"), 0)).await.unwrap();
    assert_eq!(robots_hits.load(Ordering::SeqCst), 1, "cached");
    tokio::time::sleep(Duration::from_millis(1100)).await;
    f.handle(&seed(&format!("{base}/3"), 0)).await.unwrap();
    assert_eq!(
        robots_hits.load(Ordering::SeqCst),
        2,
        "asked again after the cache expired"
    );
    let t0 = Instant::now();
    let err = fetch_error(&mut f, &format!("{base}/slow")).await;
    assert!(
        t0.elapsed() < Duration::from_secs(3) && format!("{err:#}").contains("timed out"),
        "{err:#}"
    );
    for i in 0..2 {
        let err = fetch_error(&mut f, &format!("{base}/broken?{i}")).await;
        assert!(err.to_string().contains("HTTP 500"), "{err}");
    }
    let err = fetch_error(&mut f, &format!("{base}/4")).await;
    assert!(
        err.to_string().contains("paused") && err.to_string().contains("errors in a row"),
        "{err}"
    );
}

/// A robots.txt that redirects is followed to its rules.
#[tokio::test]
async fn fetch_follows_robots_redirects() {
    let app = Router::new()
        .route(
            "/robots.txt",
            get(|| async {
                (
                    StatusCode::MOVED_PERMANENTLY,
                    [(header::LOCATION, "/real-robots.txt")],
                )
            }),
        )
        .route(
            "/real-robots.txt",
            get(|| async { "User-agent: *\nDisallow: /secret\n" }),
        )
        .fallback(|| async { axum::response::Html("<p>open</p>") });
    let base = serve(app).await;
    let mut f = gleaner_fetch::FetchStage::new(&fetch_cfg(), true).unwrap();
    assert!(
        page_of(&f.handle(&seed(&format!("{base}/open"), 0)).await.unwrap())
            .html
            .contains("open")
    );
    let err = fetch_error(&mut f, &format!("{base}/secret")).await;
    assert!(
        err.to_string().contains("disallowed by robots.txt"),
        "{err}"
    );
}

/// Within a batch, a host's higher-priority URLs are fetched first.
#[tokio::test]
async fn fetch_takes_higher_priority_first() {
    let order: Arc<Mutex<Vec<String>>> = Arc::default();
    let o = order.clone();
    let base = serve(
        Router::new()
            .route("/robots.txt", get(|| async { "" }))
            .fallback(move |uri: axum::http::Uri| {
                let o = o.clone();
                async move {
                    o.lock().unwrap().push(uri.path().to_string());
                    axum::response::Html("<p>x</p>")
                }
            }),
    )
    .await;
    let mut f = gleaner_fetch::FetchStage::new(&fetch_cfg(), true).unwrap();
    let with = |path: &str, priority: i32| {
        let s = Seed {
            url: format!("{base}{path}"),
            depth: Some(0),
            priority: Some(priority),
            ..Seed::default()
        };
        seed_input(&s)
    };
    let batch = [with("/low", 0), with("/mid", 1), with("/high", 9)];
    assert!(f.handle_batch(&batch).await.iter().all(|r| r.is_ok()));
    assert_eq!(*order.lock().unwrap(), vec!["/high", "/mid", "/low"]);
}

/// Redirects are followed by fetch itself: every hop waits for the host's
/// politeness slot, passes robots.txt, and a loop ends as one, with the
/// chain in the error; a chain that ends is recorded on the page.
#[tokio::test]
async fn redirect_hops_keep_the_crawlers_rules() {
    let times: Arc<Mutex<Vec<Instant>>> = Arc::default();
    let t = times.clone();
    let hop = |to: &'static str| {
        let t = t.clone();
        get(move || {
            t.lock().unwrap().push(Instant::now());
            async move { (StatusCode::FOUND, [(header::LOCATION, to)]) }
        })
    };
    let app = Router::new()
        .route(
            "/robots.txt",
            get(|| async { "User-agent: *\nDisallow: /secret\n" }),
        )
        .route("/r1", hop("/r2"))
        .route("/r2", hop("/r3"))
        .route("/r3", hop("/r1"))
        .route("/to-secret", hop("/secret"))
        .route("/moved", hop("/here#frag"))
        .route(
            "/here",
            get(|| async { axum::response::Html("<p>here</p>") }),
        );
    let base = serve(app).await;
    let mut cfg = fetch_cfg();
    cfg.per_host_delay_ms = 120;
    let mut f = gleaner_fetch::FetchStage::new(&cfg, true).unwrap();

    let err = fetch_error(&mut f, &format!("{base}/r1")).await;
    assert!(err.contains("redirect loop"), "{err}");
    assert!(err.contains("/r3 -> ") && err.ends_with("/r1"), "{err}");
    let asked = times.lock().unwrap().clone();
    assert_eq!(asked.len(), 3, "each URL of the loop once");
    for pair in asked.windows(2) {
        let gap = pair[1] - pair[0];
        assert!(gap >= Duration::from_millis(110), "hops {gap:?} apart");
    }

    let err = fetch_error(&mut f, &format!("{base}/to-secret")).await;
    assert!(err.contains("disallowed by robots.txt"), "{err}");

    let page = page_of(&f.handle(&seed(&format!("{base}/moved"), 0)).await.unwrap());
    assert!(page.final_url.ends_with("/here"), "{}", page.final_url);
    assert_eq!(page.redirects, vec![format!("{base}/moved")]);
    assert!(page.html.contains("here"));
}

/// A link's redirect to another site is not followed (a seed's is: the
/// user named it).
#[tokio::test]
async fn a_redirect_to_another_site_is_followed_only_for_a_seed() {
    // The same server under another name is another site.
    let target: Arc<Mutex<String>> = Arc::default();
    let to = target.clone();
    let app = Router::new()
        .route(
            "/away",
            get(move || {
                let location = to.lock().unwrap().clone();
                async move {
                    (
                        StatusCode::MOVED_PERMANENTLY,
                        [(header::LOCATION, location)],
                    )
                }
            }),
        )
        .route(
            "/there",
            get(|| async { axum::response::Html("<p>there</p>") }),
        );
    let base = serve(app).await;
    let port = base.rsplit(':').next().unwrap();
    *target.lock().unwrap() = format!("http://localhost:{port}/there");
    let mut f = gleaner_fetch::FetchStage::new(&fetch_cfg(), true).unwrap();
    let link = frontier_link(&format!("{base}/away"), 1);
    let err = format!("{:#}", f.handle(&link).await.unwrap_err());
    assert!(err.contains("another site"), "{err}");
    // A fresh stage: the first has seen /away.
    let mut f = gleaner_fetch::FetchStage::new(&fetch_cfg(), true).unwrap();
    let page = page_of(&f.handle(&seed(&format!("{base}/away"), 0)).await.unwrap());
    assert!(page.html.contains("there"));
    assert!(
        page.final_url.starts_with("http://localhost:"),
        "{}",
        page.final_url
    );
}
