//! Single stages against real HTTP servers on loopback: the fetch stage's
//! safety, size cap, redirects, robots.txt and politeness, and the
//! summarize stage's HTTP engine with retries and fallback.

use axum::http::{header, StatusCode};
use axum::response::IntoResponse;
use axum::routing::{get, post};
use axum::{Json, Router};
use gleaner_core::config::{Config, SummaryLength};
use gleaner_core::messages::{Article, FrontierLink, Page, Scope, Seed, Summarized};
use gleaner_core::stage::{Input, Output, Stage};
use gleaner_core::Topic;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

async fn serve(app: Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    format!("http://{addr}")
}

/// A site with an empty robots.txt whose pages take `ms` to answer `body`.
async fn slow_site(ms: u64, body: &'static str) -> String {
    serve(
        Router::new()
            .route("/robots.txt", get(|| async { "" }))
            .fallback(move || async move {
                tokio::time::sleep(Duration::from_millis(ms)).await;
                axum::response::Html(body)
            }),
    )
    .await
}

fn seed(url: &str, depth: u32) -> Input {
    seed_input(&Seed {
        url: url.into(),
        depth: Some(depth),
        ..Seed::default()
    })
}

/// The error (with its causes) of fetching a URL that must fail.
async fn fetch_error(f: &mut gleaner_fetch::FetchStage, url: &str) -> String {
    format!("{:#}", f.handle(&seed(url, 0)).await.unwrap_err())
}

fn seed_input(s: &Seed) -> Input {
    Input {
        topic: Topic::Seeds,
        key: Some("h".into()),
        payload: Some(Output::json(Topic::Seeds, "h", s).payload),
        origin: None,
    }
}

/// A frontier link on 127.0.0.1 with depth limit 1, as fetch would emit it.
fn frontier_link(url: &str, depth: u32) -> Input {
    let l = FrontierLink {
        url: url.into(),
        depth,
        max_depth: 1,
        scope: Scope::SameHost,
        seed_host: "127.0.0.1".into(),
        parent: String::new(),
        priority: 0,
        allow: vec![],
        deny: vec![],
        deferred: false,
    };
    Input {
        topic: Topic::Frontier,
        key: None,
        payload: Some(Output::json(Topic::Frontier, "h", &l).payload),
        origin: None,
    }
}

fn fetch_cfg() -> gleaner_core::config::Fetch {
    let mut c = Config::default_config().fetch;
    c.per_host_delay_ms = 0;
    c.bloom_capacity = 1000;
    // No batch deadline unless a test is about it: a slow retry on a loaded
    // machine would otherwise finish in the background, after handle().
    c.defer_after_ms = 0;
    c
}

fn page_of(outs: &[Output]) -> Page {
    let o = outs
        .iter()
        .find(|o| o.topic == Topic::Pages)
        .expect("a page");
    serde_json::from_slice(&o.payload).unwrap()
}

#[tokio::test]
async fn fetch_refuses_loopback_unless_allowed() {
    let base =
        serve(Router::new().route("/", get(|| async { axum::response::Html("<p>hello</p>") })))
            .await;
    let mut strict = gleaner_fetch::FetchStage::new(&fetch_cfg(), false).unwrap();
    let err = fetch_error(&mut strict, &format!("{base}/")).await;
    assert!(err.to_string().contains("private or reserved"), "{err}");
    // A name that resolves to loopback is refused after resolution.
    let port = base.rsplit(':').next().unwrap();
    let err = fetch_error(&mut strict, &format!("http://localhost:{port}/")).await;
    assert!(format!("{err:#}").contains("private"), "{err:#}");
    let mut open = gleaner_fetch::FetchStage::new(&fetch_cfg(), true).unwrap();
    let outs = open.handle(&seed(&format!("{base}/"), 0)).await.unwrap();
    assert!(page_of(&outs).html.contains("hello"));
}

#[tokio::test]
async fn fetch_caps_bodies_decodes_charsets_and_follows_redirects() {
    let app = Router::new()
        .route(
            "/big",
            get(|| async { ([(header::CONTENT_TYPE, "text/html")], "x".repeat(3 << 20)) }),
        )
        .route(
            "/latin1",
            get(|| async {
                (
                    [(header::CONTENT_TYPE, "text/html; charset=windows-1252")],
                    b"<p>caf\xe9 cr\xe8me</p>".to_vec(),
                )
            }),
        )
        .route(
            "/moved",
            get(|| async {
                (
                    StatusCode::MOVED_PERMANENTLY,
                    [(header::LOCATION, "/latin1")],
                )
            }),
        )
        .route(
            "/loop",
            get(|| async { (StatusCode::FOUND, [(header::LOCATION, "/loop")]) }),
        )
        .route(
            "/pdf",
            get(|| async { ([(header::CONTENT_TYPE, "application/pdf")], "%PDF") }),
        );
    let base = serve(app).await;
    let mut cfg = fetch_cfg();
    cfg.max_body_bytes = 1 << 20;
    let mut f = gleaner_fetch::FetchStage::new(&cfg, true).unwrap();
    let big = page_of(&f.handle(&seed(&format!("{base}/big"), 0)).await.unwrap());
    assert_eq!(big.html.len(), 1 << 20);
    assert_eq!(
        big.headers.get("x-gleaner-truncated").map(String::as_str),
        Some("1048576")
    );
    let moved = page_of(&f.handle(&seed(&format!("{base}/moved"), 0)).await.unwrap());
    assert!(moved.html.contains("café crème"), "{}", moved.html);
    assert!(moved.final_url.ends_with("/latin1"));
    assert_eq!(moved.charset, "windows-1252");
    let err = fetch_error(&mut f, &format!("{base}/loop")).await;
    assert!(format!("{err:#}").contains("redirect"), "{err:#}");
    let err = fetch_error(&mut f, &format!("{base}/pdf")).await;
    assert!(err.to_string().contains("not HTML"), "{err}");
}

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
            .filter(|o| o.topic == Topic::Frontier)
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

fn article() -> Input {
    let a = Article {
        id: "a1".into(),
        url: "http://x.test/a".into(),
        title: "Bridge".into(),
        author: None,
        date: None,
        language: None,
        text: "The bridge reopened on Monday. Engineers replaced the cables. Tolls rise next month. Commuters cheered.".into(),
        extractor: "auto".into(),
        fetched_at: String::new(),
        cluster: None,
    };
    Input {
        topic: Topic::Unique,
        key: None,
        payload: Some(Output::json(Topic::Unique, "a1", &a).payload),
        origin: None,
    }
}

fn lengths() -> Vec<SummaryLength> {
    vec![SummaryLength {
        name: "one_sentence".into(),
        sentences: Some(1),
        words: None,
    }]
}

#[tokio::test]
async fn summarize_http_engine_retries_then_answers() {
    let calls = Arc::new(AtomicUsize::new(0));
    let c = calls.clone();
    let app = Router::new().route(
        "/summarize",
        post(move |Json(req): Json<serde_json::Value>| {
            let c = c.clone();
            async move {
                // Fails twice, then answers with the lengths it was asked for.
                if c.fetch_add(1, Ordering::SeqCst) < 2 {
                    return (StatusCode::SERVICE_UNAVAILABLE, "busy").into_response();
                }
                let name = req["lengths"][0]["name"].as_str().unwrap().to_string();
                Json(serde_json::json!({"summaries": [{"name": name, "text": format!("summary of {}", req["title"].as_str().unwrap())}]}))
                    .into_response()
            }
        }),
    );
    let base = serve(app).await;
    let engine =
        gleaner_summarize::Engine::http(&format!("{base}/summarize"), Duration::from_secs(5), 3)
            .unwrap();
    let mut s = gleaner_summarize::SummarizeStage {
        engine,
        lengths: lengths(),
        before_dedup: false,
    };
    let outs = s.handle(&article()).await.unwrap();
    let out: Summarized = serde_json::from_slice(&outs[0].payload).unwrap();
    assert_eq!(calls.load(Ordering::SeqCst), 3);
    assert_eq!(out.summaries[0].text, "summary of Bridge");
    assert!(out.engine.starts_with("http:"));
}

#[tokio::test]
async fn summarize_http_engine_times_out_and_falls_back() {
    let app = Router::new().route(
        "/summarize",
        post(|| async {
            tokio::time::sleep(Duration::from_secs(10)).await;
            "late"
        }),
    );
    let base = serve(app).await;
    let engine = gleaner_summarize::Engine::http(
        &format!("{base}/summarize"),
        Duration::from_millis(200),
        1,
    )
    .unwrap();
    let mut s = gleaner_summarize::SummarizeStage {
        engine,
        lengths: lengths(),
        before_dedup: false,
    };
    let t0 = Instant::now();
    let outs = s.handle(&article()).await.unwrap();
    assert!(t0.elapsed() < Duration::from_secs(3));
    let out: Summarized = serde_json::from_slice(&outs[0].payload).unwrap();
    assert!(
        out.engine.starts_with("extractive (fallback"),
        "{}",
        out.engine
    );
    assert_eq!(out.summaries[0].text, "The bridge reopened on Monday.");
}

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

#[tokio::test]
async fn fetch_strips_tracking_parameters_and_keeps_scope() {
    let app = Router::new().fallback(|| async {
        axum::response::Html(
            "<a href='/a?utm_source=x&id=1'>a</a><a href='/a?id=1&fbclid=y'>again</a>\
             <a href='http://other.test/b'>other host</a><a href='/c#frag'>c</a>",
        )
    });
    let base = serve(app).await;
    let mut f = gleaner_fetch::FetchStage::new(&fetch_cfg(), true).unwrap();
    let outs = f
        .handle(&seed(&format!("{base}/?utm_campaign=z"), 1))
        .await
        .unwrap();
    assert_eq!(page_of(&outs).url, format!("{base}/"));
    let links: Vec<String> = outs
        .iter()
        .filter(|o| o.topic == Topic::Frontier)
        .map(|o| {
            serde_json::from_slice::<FrontierLink>(&o.payload)
                .unwrap()
                .url
        })
        .collect();
    assert_eq!(links, vec![format!("{base}/a?id=1"), format!("{base}/c")]);
    assert_eq!(
        gleaner_fetch::registered_domain("news.bbc.co.uk"),
        "bbc.co.uk"
    );
    assert_eq!(
        gleaner_fetch::registered_domain("www.example.com"),
        "example.com"
    );
}

#[tokio::test]
async fn fetch_metrics_are_served() {
    let base =
        serve(Router::new().fallback(|| async { axum::response::Html("<p>metrics page</p>") }))
            .await;
    let addr = gleaner_core::metrics::serve("127.0.0.1:0").await.unwrap();
    let mut f = gleaner_fetch::FetchStage::new(&fetch_cfg(), true).unwrap();
    let input = seed(&format!("{base}/m"), 0);
    let results = f.handle_batch(std::slice::from_ref(&input)).await;
    let outs = gleaner_core::stage::settle(
        "fetch",
        &input,
        results.into_iter().next().unwrap(),
        1 << 20,
    );
    assert_eq!(outs.len(), 1);
    let text = reqwest::get(format!("http://{addr}/metrics"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        text.contains("gleaner_fetch_pages_total{status=\"200\"}"),
        "{text}"
    );
    assert!(
        text.contains("gleaner_stage_outputs_total{stage=\"fetch\",topic=\"pages\"}"),
        "{text}"
    );
    assert!(text.contains("gleaner_fetch_seen_urls"), "{text}");
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
    assert!(gleaner_core::metrics::get("gleaner_fetch_paused_hosts", &[]) >= 1.0);
}

/// Sitemaps (found in robots.txt, and sitemap indexes) and RSS feeds give
/// their URLs to the frontier; a sitemap step does not use up depth.
#[tokio::test]
async fn fetch_reads_sitemaps_from_robots_and_feeds() {
    let app = Router::new()
        .route("/robots.txt", get(|| async { "User-agent: *\nAllow: /\nSitemap: /sitemap_index.xml\n" }))
        .route(
            "/sitemap_index.xml",
            get(|| async {
                ([(header::CONTENT_TYPE, "application/xml")], "<?xml version=\"1.0\"?><sitemapindex><sitemap><loc>SELF/sitemap1.xml</loc></sitemap></sitemapindex>")
            }),
        )
        .route(
            "/sitemap1.xml",
            get(|| async { ([(header::CONTENT_TYPE, "text/xml")], "<urlset><url><loc>SELF/a</loc></url><url><loc>SELF/b</loc></url></urlset>") }),
        )
        .route(
            "/feed.rss",
            get(|| async {
                ([(header::CONTENT_TYPE, "application/rss+xml")], "<rss><channel><item><link>SELF/news/1</link></item></channel></rss>")
            }),
        )
        .fallback(|| async { axum::response::Html("<p>page</p>") });
    // The documents name absolute URLs: serve them with this server's address.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let b = base.clone();
    let app = app.layer(axum::middleware::map_response(
        move |resp: axum::response::Response| {
            let b = b.clone();
            async move {
                let (parts, body) = resp.into_parts();
                let bytes = axum::body::to_bytes(body, 1 << 20).await.unwrap();
                let text = String::from_utf8_lossy(&bytes).replace("SELF", &b);
                axum::response::Response::from_parts(parts, axum::body::Body::from(text))
            }
        },
    ));
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });

    let mut f = gleaner_fetch::FetchStage::new(&fetch_cfg(), true).unwrap();
    let frontier = |outs: &[Output]| -> Vec<(String, u32)> {
        outs.iter()
            .filter(|o| o.topic == Topic::Frontier)
            .map(|o| serde_json::from_slice::<FrontierLink>(&o.payload).unwrap())
            .map(|l| (l.url, l.depth))
            .collect()
    };
    let outs = f.handle(&seed(&format!("{base}/"), 1)).await.unwrap();
    assert_eq!(
        frontier(&outs),
        vec![(format!("{base}/sitemap_index.xml"), 0)]
    );
    let follow = |url: &str, depth: u32| frontier_link(url, depth);
    let outs = f
        .handle(&follow(&format!("{base}/sitemap_index.xml"), 0))
        .await
        .unwrap();
    assert!(
        outs.iter().all(|o| o.topic != Topic::Pages),
        "a sitemap is not a page"
    );
    assert_eq!(frontier(&outs), vec![(format!("{base}/sitemap1.xml"), 0)]);
    let outs = f
        .handle(&follow(&format!("{base}/sitemap1.xml"), 0))
        .await
        .unwrap();
    assert_eq!(
        frontier(&outs),
        vec![(format!("{base}/a"), 1), (format!("{base}/b"), 1)]
    );
    let outs = f
        .handle(&seed(&format!("{base}/feed.rss"), 1))
        .await
        .unwrap();
    assert_eq!(frontier(&outs), vec![(format!("{base}/news/1"), 1)]);
}

/// A seed with `every_secs` comes back as a recrawl seed when due, is
/// fetched again past the seen-set, and the schedule survives a restart.
#[tokio::test]
async fn fetch_schedules_recrawls() {
    let hits = Arc::new(AtomicUsize::new(0));
    let h = hits.clone();
    let base = serve(
        Router::new()
            .route("/robots.txt", get(|| async { "" }))
            .fallback(move || {
                let h = h.clone();
                async move {
                    let n = h.fetch_add(1, Ordering::SeqCst);
                    axum::response::Html(format!("<a href='/story/{n}'>story {n}</a>"))
                }
            }),
    )
    .await;
    let state = tempfile::tempdir().unwrap();
    let mut f = stateful_fetch(state.path());
    let s = Seed {
        url: format!("{base}/"),
        depth: Some(1),
        every_secs: Some(1),
        ..Seed::default()
    };
    let input = seed_input(&s);
    assert!(f
        .handle(&input)
        .await
        .unwrap()
        .iter()
        .any(|o| o.topic == Topic::Pages));
    assert!(f.tick().await.is_empty(), "not due yet");
    tokio::time::sleep(Duration::from_millis(2100)).await;
    let due = f.tick().await;
    assert_eq!(due.len(), 1);
    let again: Seed = serde_json::from_slice(&due[0].payload).unwrap();
    assert!(again.recrawl && again.url == format!("{base}/"));
    let input = Input {
        topic: Topic::Seeds,
        key: None,
        payload: Some(due[0].payload.clone()),
        origin: None,
    };
    let outs = f.handle(&input).await.unwrap();
    assert!(
        outs.iter().any(|o| o.topic == Topic::Pages),
        "a due recrawl passes the seen-set"
    );
    let requests = hits.load(Ordering::SeqCst);
    assert_eq!(requests, 2);
    f.close().await.unwrap();
    drop(f);
    let mut restarted = stateful_fetch(state.path());
    tokio::time::sleep(Duration::from_millis(2100)).await;
    assert_eq!(
        restarted.tick().await.len(),
        1,
        "the schedule survived the restart"
    );
}

/// A fetch stage keeping its state (seen set, schedule) in `dir`.
fn stateful_fetch(dir: &std::path::Path) -> gleaner_fetch::FetchStage {
    gleaner_fetch::FetchStage::new(&fetch_cfg(), true)
        .unwrap()
        .with_state(dir)
        .unwrap()
}

fn pages_in(outs: &[Output]) -> usize {
    outs.iter().filter(|o| o.topic == Topic::Pages).count()
}

/// A stateful fetch stage that has fetched `base`/ once, scheduled to be
/// recrawled every second.
async fn scheduled_fetch(dir: &std::path::Path, base: &str) -> gleaner_fetch::FetchStage {
    let mut f = stateful_fetch(dir);
    let s = Seed {
        url: format!("{base}/"),
        depth: Some(0),
        every_secs: Some(1),
        ..Seed::default()
    };
    assert_eq!(pages_in(&f.handle(&seed_input(&s)).await.unwrap()), 1);
    f
}

/// Waits for a recrawl every second to fall due, and fetches it.
async fn due_again(f: &mut gleaner_fetch::FetchStage) -> gleaner_core::stage::Handled {
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let due = f.tick().await;
    assert_eq!(due.len(), 1, "the recrawl is due");
    let input = Input {
        topic: Topic::Seeds,
        key: None,
        payload: Some(due[0].payload.clone()),
        origin: None,
    };
    f.handle(&input).await
}

/// A scheduled recrawl asks with the page's ETag and Last-Modified: a 304
/// sends nothing downstream and is no error; a changed page goes on, and
/// its new validators are used next time (also after a restart).
#[tokio::test]
async fn fetch_recrawls_conditionally() {
    let version = Arc::new(AtomicUsize::new(1));
    let (conditional, full) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let (v, c, fl) = (version.clone(), conditional.clone(), full.clone());
    let base = serve(
        Router::new()
            .route("/robots.txt", get(|| async { "" }))
            .fallback(move |headers: axum::http::HeaderMap| {
                let (v, c, fl) = (v.clone(), c.clone(), fl.clone());
                async move {
                    let etag = format!("\"v{}\"", v.load(Ordering::SeqCst));
                    let asked = headers
                        .get("if-none-match")
                        .and_then(|h| h.to_str().ok())
                        .map(str::to_string);
                    let since = headers.get("if-modified-since").is_some();
                    if asked.is_some() && since {
                        c.fetch_add(1, Ordering::SeqCst);
                    }
                    if asked.as_deref() == Some(etag.as_str()) {
                        return StatusCode::NOT_MODIFIED.into_response();
                    }
                    fl.fetch_add(1, Ordering::SeqCst);
                    (
                        [
                            ("etag", etag.clone()),
                            ("last-modified", "Sun, 22 Nov 2026 06:00:00 GMT".to_string()),
                        ],
                        axum::response::Html(format!("<p>version {etag}</p>")),
                    )
                        .into_response()
                }
            }),
    )
    .await;
    let state = tempfile::tempdir().unwrap();
    let mut f = scheduled_fetch(state.path(), &base).await;
    // Unchanged: a 304, nothing downstream, no dead letter.
    let outs = due_again(&mut f).await.expect("a 304 is no error");
    assert_eq!(outs.len(), 0, "an unchanged page goes no further");
    assert_eq!(conditional.load(Ordering::SeqCst), 1);
    assert_eq!(full.load(Ordering::SeqCst), 1);
    // Changed: the page goes on.
    version.store(2, Ordering::SeqCst);
    let outs = due_again(&mut f).await.unwrap();
    assert_eq!(pages_in(&outs), 1);
    assert!(page_of(&outs).html.contains("v2"));
    f.close().await.unwrap();
    drop(f);
    // The new validators survived a restart: unchanged again, a 304.
    let mut f = stateful_fetch(state.path());
    let outs = due_again(&mut f).await.unwrap();
    assert_eq!(outs.len(), 0);
    assert_eq!(conditional.load(Ordering::SeqCst), 3);
    assert_eq!(full.load(Ordering::SeqCst), 2);
}

/// A server with no ETag or Last-Modified: a recrawl that returns the same
/// body as last time goes no further either (also after a restart).
#[tokio::test]
async fn fetch_recrawls_skip_an_unchanged_body() {
    let version = Arc::new(AtomicUsize::new(1));
    let v = version.clone();
    let base = serve(
        Router::new()
            .route("/robots.txt", get(|| async { "" }))
            .fallback(move || {
                let v = v.load(Ordering::SeqCst);
                async move { axum::response::Html(format!("<p>version {v}</p>")) }
            }),
    )
    .await;
    let state = tempfile::tempdir().unwrap();
    let mut f = scheduled_fetch(state.path(), &base).await;
    let outs = due_again(&mut f)
        .await
        .expect("an unchanged body is no error");
    assert_eq!(outs.len(), 0, "the same body goes no further");
    version.store(2, Ordering::SeqCst);
    let outs = due_again(&mut f).await.unwrap();
    assert_eq!(pages_in(&outs), 1, "a changed body goes on");
    assert!(page_of(&outs).html.contains("version 2"));
    f.close().await.unwrap();
    drop(f);
    let mut f = stateful_fetch(state.path());
    assert_eq!(due_again(&mut f).await.unwrap().len(), 0);
}

/// A minimal forward proxy on loopback: reads an absolute-form request,
/// fetches it, and answers; counts what it carried.
async fn forward_proxy(count: Arc<AtomicUsize>) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let client = reqwest::Client::builder().no_proxy().build().unwrap();
        loop {
            let (mut sock, _) = listener.accept().await.unwrap();
            let (client, count) = (client.clone(), count.clone());
            tokio::spawn(async move {
                let mut buf = Vec::new();
                let mut chunk = [0u8; 4096];
                while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
                    match sock.read(&mut chunk).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => buf.extend_from_slice(&chunk[..n]),
                    }
                }
                let head = String::from_utf8_lossy(&buf).into_owned();
                let target = head.split_whitespace().nth(1).unwrap_or("").to_string();
                count.fetch_add(1, Ordering::SeqCst);
                let resp = client.get(&target).send().await.unwrap();
                let status = resp.status().as_u16();
                let ct = resp
                    .headers()
                    .get("content-type")
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or("text/html")
                    .to_string();
                let body = resp.bytes().await.unwrap();
                let head = format!("HTTP/1.1 {status} X\r\ncontent-type: {ct}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n", body.len());
                let _ = sock.write_all(head.as_bytes()).await;
                let _ = sock.write_all(&body).await;
            });
        }
    });
    format!("http://{addr}")
}

/// With one proxy dead and one alive, every host is still fetched, through
/// the live one (the dead one is benched after its first failure).
#[tokio::test]
async fn fetch_rotates_past_a_failing_proxy() {
    let carried = Arc::new(AtomicUsize::new(0));
    let good = forward_proxy(carried.clone()).await;
    let dead = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}", l.local_addr().unwrap())
    };
    let mut sites = Vec::new();
    for _ in 0..6 {
        sites.push(
            serve(Router::new().fallback(|| async { axum::response::Html("<p>via proxy</p>") }))
                .await,
        );
    }
    let mut cfg = fetch_cfg();
    cfg.proxies = vec![dead, good];
    cfg.retry_base_ms = 10;
    cfg.max_retries = 2;
    let mut f = gleaner_fetch::FetchStage::new(&cfg, true).unwrap();
    for site in &sites {
        let page = page_of(&f.handle(&seed(&format!("{site}/p"), 0)).await.unwrap());
        assert!(page.html.contains("via proxy"));
    }
    // robots.txt and the page of every site went through the live proxy.
    assert_eq!(carried.load(Ordering::SeqCst), 2 * sites.len());
}

/// With fetch.cookies, a site's session cookie is sent back to it.
#[tokio::test]
async fn fetch_keeps_cookies_per_site_when_asked() {
    let app = Router::new().fallback(|headers: axum::http::HeaderMap| async move {
        let has = headers
            .get("cookie")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|c| c.contains("session=abc"));
        (
            [(header::SET_COOKIE, "session=abc; Path=/")],
            axum::response::Html(if has {
                "<p>welcome back</p>"
            } else {
                "<p>first visit</p>"
            }),
        )
    });
    let base = serve(app).await;
    for (cookies, second) in [(true, "welcome back"), (false, "first visit")] {
        let mut cfg = fetch_cfg();
        cfg.cookies = cookies;
        let mut f = gleaner_fetch::FetchStage::new(&cfg, true).unwrap();
        page_of(&f.handle(&seed(&format!("{base}/one"), 0)).await.unwrap());
        let page = page_of(&f.handle(&seed(&format!("{base}/two"), 0)).await.unwrap());
        assert!(
            page.html.contains(second),
            "cookies={cookies}: {}",
            page.html
        );
    }
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

/// Real encoded bytes in GB18030, Big5, EUC-KR and windows-1252, declared by
/// header, by meta tag, or not at all, come out as the right text.
#[tokio::test]
async fn fetch_decodes_legacy_charsets() {
    fn enc(label: &str, text: &str) -> Vec<u8> {
        let e = encoding_rs::Encoding::for_label(label.as_bytes()).unwrap();
        e.encode(text).0.into_owned()
    }
    let cases: Vec<(&str, &str, Vec<u8>, &str)> = vec![
        ("/gb18030", "text/html; charset=gb18030", enc("gb18030", "<p>港口大桥维修后重新通车，耗资超过四千万元。</p>"), "港口大桥维修后重新通车"),
        ("/big5", "text/html", [b"<meta charset=\"big5\">".to_vec(), enc("big5", "<p>港口大橋維修後重新通車。</p>")].concat(), "港口大橋維修後重新通車"),
        ("/euckr", "text/html", enc("euc-kr", "<p>항구 다리가 여덟 달 만에 다시 개통되었습니다. 시장은 다리가 앞으로 오십 년 동안 안전하게 사용될 것이라고 말했습니다.</p>"), "항구 다리가"),
        ("/cp1252", "text/html; charset=windows-1252", enc("windows-1252", "<p>Café “crème” – naïve</p>"), "Café “crème” – naïve"),
    ];
    let mut app = Router::new();
    for (path, ct, body, _) in &cases {
        let (ct, body) = (ct.to_string(), body.clone());
        app = app.route(
            path,
            get(move || async move { ([(header::CONTENT_TYPE, ct)], body) }),
        );
    }
    let base = serve(app).await;
    let mut f = gleaner_fetch::FetchStage::new(&fetch_cfg(), true).unwrap();
    for (path, _, _, want) in &cases {
        let page = page_of(&f.handle(&seed(&format!("{base}{path}"), 0)).await.unwrap());
        assert!(
            page.html.contains(want),
            "{path} ({}): {}",
            page.charset,
            page.html
        );
    }
}

/// A gzip bomb (a few KiB that inflate to 200 MiB) stops at the body cap.
#[tokio::test]
async fn fetch_stops_decompression_bombs_at_the_cap() {
    use std::io::Write;
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    let zeros = vec![b' '; 1 << 20];
    gz.write_all(b"<html><body><p>").unwrap();
    for _ in 0..200 {
        gz.write_all(&zeros).unwrap();
    }
    let bomb = gz.finish().unwrap();
    assert!(bomb.len() < 1 << 20);
    let app = Router::new().fallback(move || {
        let bomb = bomb.clone();
        async move {
            (
                [
                    (header::CONTENT_TYPE, "text/html"),
                    (header::CONTENT_ENCODING, "gzip"),
                ],
                bomb,
            )
        }
    });
    let base = serve(app).await;
    let mut cfg = fetch_cfg();
    cfg.max_body_bytes = 4 << 20;
    let mut f = gleaner_fetch::FetchStage::new(&cfg, true).unwrap();
    let page = page_of(&f.handle(&seed(&format!("{base}/bomb"), 0)).await.unwrap());
    assert_eq!(page.html.len(), 4 << 20);
    assert!(page.headers.contains_key("x-gleaner-truncated"));
}

/// A seed's allow and deny patterns bound the links it follows.
#[tokio::test]
async fn fetch_follows_allow_and_deny_patterns() {
    let base = serve(Router::new().fallback(|| async {
        axum::response::Html(
            "<a href='/news/a'>a</a><a href='/news/old-1'>old</a><a href='/about'>about</a>",
        )
    }))
    .await;
    let mut f = gleaner_fetch::FetchStage::new(&fetch_cfg(), true).unwrap();
    let s = Seed {
        url: format!("{base}/"),
        depth: Some(1),
        allow: vec![format!("{base}/news/")],
        deny: vec!["*/news/old*".into()],
        ..Seed::default()
    };
    let input = seed_input(&s);
    let outs = f.handle(&input).await.unwrap();
    let links: Vec<FrontierLink> = outs
        .iter()
        .filter(|o| o.topic == Topic::Frontier)
        .map(|o| serde_json::from_slice(&o.payload).unwrap())
        .collect();
    assert_eq!(
        links.iter().map(|l| l.url.clone()).collect::<Vec<_>>(),
        vec![format!("{base}/news/a")]
    );
    assert_eq!(
        links[0].deny,
        vec!["*/news/old*".to_string()],
        "patterns travel with the link"
    );
    assert!(gleaner_fetch::url_matches(
        "https://x.test/a/*/b",
        "https://x.test/a/1/2/b"
    ));
    assert!(!gleaner_fetch::url_matches(
        "https://x.test/a/*/b",
        "https://x.test/a/1/c"
    ));
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

/// A minimal SOCKS5 server on loopback (no auth, CONNECT only).
async fn socks5_proxy(count: Arc<AtomicUsize>) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        loop {
            let (mut sock, _) = listener.accept().await.unwrap();
            let count = count.clone();
            tokio::spawn(async move {
                let mut hello = [0u8; 2];
                sock.read_exact(&mut hello).await.ok()?;
                let mut methods = vec![0u8; hello[1] as usize];
                sock.read_exact(&mut methods).await.ok()?;
                sock.write_all(&[5, 0]).await.ok()?;
                let mut req = [0u8; 4];
                sock.read_exact(&mut req).await.ok()?;
                let target = match req[3] {
                    1 => {
                        let mut ip = [0u8; 4];
                        sock.read_exact(&mut ip).await.ok()?;
                        std::net::Ipv4Addr::from(ip).to_string()
                    }
                    3 => {
                        let mut len = [0u8; 1];
                        sock.read_exact(&mut len).await.ok()?;
                        let mut name = vec![0u8; len[0] as usize];
                        sock.read_exact(&mut name).await.ok()?;
                        String::from_utf8_lossy(&name).into_owned()
                    }
                    _ => return None,
                };
                let mut port = [0u8; 2];
                sock.read_exact(&mut port).await.ok()?;
                let mut upstream =
                    tokio::net::TcpStream::connect((target.as_str(), u16::from_be_bytes(port)))
                        .await
                        .ok()?;
                count.fetch_add(1, Ordering::SeqCst);
                sock.write_all(&[5, 0, 0, 1, 0, 0, 0, 0, 0, 0]).await.ok()?;
                tokio::io::copy_bidirectional(&mut sock, &mut upstream)
                    .await
                    .ok()?;
                Some(())
            });
        }
    });
    format!("socks5://{addr}")
}

#[tokio::test]
async fn fetch_goes_through_a_socks5_proxy() {
    let tunnels = Arc::new(AtomicUsize::new(0));
    let proxy = socks5_proxy(tunnels.clone()).await;
    let base =
        serve(Router::new().fallback(|| async { axum::response::Html("<p>through socks</p>") }))
            .await;
    let mut cfg = fetch_cfg();
    cfg.proxies = vec![proxy];
    let mut f = gleaner_fetch::FetchStage::new(&cfg, true).unwrap();
    let page = page_of(&f.handle(&seed(&format!("{base}/s"), 0)).await.unwrap());
    assert!(page.html.contains("through socks"));
    assert!(
        tunnels.load(Ordering::SeqCst) >= 1,
        "the request went through the SOCKS5 proxy"
    );
}

/// URLs of a host that is busy past the batch deadline go back to the
/// frontier (marked deferred) instead of holding up the batch; a deferred
/// link is fetched when it comes back, despite the seen-set.
#[tokio::test]
async fn fetch_defers_a_busy_host_instead_of_stalling_the_batch() {
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
    let pages = results
        .iter()
        .filter(|r| {
            r.as_ref()
                .is_ok_and(|o| o.iter().any(|o| o.topic == Topic::Pages))
        })
        .count();
    let deferred: Vec<FrontierLink> = results
        .iter()
        .filter_map(|r| r.as_ref().ok())
        .flatten()
        .filter(|o| o.topic == Topic::Frontier)
        .map(|o| serde_json::from_slice(&o.payload).unwrap())
        .collect();
    assert!(
        deferred.iter().all(|l| l.deferred) && deferred.len() >= 4,
        "{deferred:?}"
    );
    assert_eq!(
        pages + deferred.len() + f.held(),
        9,
        "every URL is a page, deferred, or still running in the background"
    );
    assert!(
        results[8]
            .as_ref()
            .unwrap()
            .iter()
            .any(|o| o.topic == Topic::Pages),
        "the fast host was fetched"
    );
    let back = Input {
        topic: Topic::Frontier,
        key: None,
        payload: Some(Output::json(Topic::Frontier, "h", &deferred[0]).payload),
        origin: None,
    };
    // The host may still be busy with a request in the background.
    let end = Instant::now() + Duration::from_secs(3);
    while f.held() > 0 && Instant::now() < end {
        f.tick().await;
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(
        f.handle(&back)
            .await
            .unwrap()
            .iter()
            .any(|o| o.topic == Topic::Pages),
        "fetched when it came back"
    );
}

/// A host whose Crawl-delay is longer than the deferral deadline still
/// progresses: the first URL of each batch waits its turn (in the
/// background once the batch's deadline passes).
#[tokio::test]
async fn fetch_never_defers_a_hosts_first_url() {
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
    let results = f.handle_batch(&batch).await;
    assert!(
        results[1]
            .as_ref()
            .unwrap()
            .iter()
            .all(|o| o.topic == Topic::Frontier),
        "the second was deferred"
    );
    let outs = match results[0].as_ref().unwrap() {
        outs if outs.is_empty() => {
            assert_eq!(
                f.held(),
                1,
                "the first URL waits its turn in the background"
            );
            tick_until(&mut f, 3, |o| o.iter().any(|o| o.topic == Topic::Pages)).await
        }
        outs => outs.clone(),
    };
    assert!(
        page_of(&outs).html.contains('p'),
        "the first URL was fetched"
    );
}

/// Outputs of ticks until `until` holds for them or `secs` pass.
async fn tick_until(
    f: &mut gleaner_fetch::FetchStage,
    secs: u64,
    until: impl Fn(&[Output]) -> bool,
) -> Vec<Output> {
    let end = Instant::now() + Duration::from_secs(secs);
    let mut outs = Vec::new();
    while Instant::now() < end {
        outs.extend(f.tick().await);
        if until(&outs) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    outs
}

/// A server that takes seconds to answer holds up neither its batch nor the
/// next: its request finishes in the background and its page comes out of a
/// tick; its host's next URL waits in the stage meanwhile (not fetched side
/// by side, not lost) and returns to the frontier once the host is free.
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
    let mut restarted = gleaner_fetch::FetchStage::new(&cfg, true)
        .unwrap()
        .with_state(crashed.path())
        .unwrap();
    assert_eq!(restarted.held(), 2, "parked URLs survive the crash");
    let back: Vec<FrontierLink> = restarted
        .tick()
        .await
        .iter()
        .filter(|o| o.topic == Topic::Frontier)
        .map(|o| serde_json::from_slice(&o.payload).unwrap())
        .collect();
    let mut urls: Vec<&str> = back.iter().map(|l| l.url.as_str()).collect();
    urls.sort();
    assert_eq!(urls, [format!("{stalled}/a"), format!("{stalled}/b")]);
    assert!(back.iter().all(|l| l.deferred));
    drop(restarted);
    // The original stage: the late page comes out of a tick, then /b goes
    // back to the frontier.
    let outs = tick_until(&mut f, 6, |o| o.iter().any(|o| o.topic == Topic::Frontier)).await;
    assert!(page_of(&outs).html.contains("late but here"));
    assert!(t0.elapsed() >= Duration::from_millis(2500));
    let link: FrontierLink = serde_json::from_slice(
        &outs
            .iter()
            .find(|o| o.topic == Topic::Frontier)
            .unwrap()
            .payload,
    )
    .unwrap();
    assert_eq!(link.url, format!("{stalled}/b"));
    assert!(link.deferred);
    assert_eq!(f.held(), 0);
    // Released once produced (the next tick): a restart finds nothing parked.
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
    let outs = tick_until(&mut f, 4, |o| !o.is_empty()).await;
    let link: FrontierLink = serde_json::from_slice(&outs[0].payload).unwrap();
    assert_eq!(link.url, format!("{site}/later"));
    assert!(link.deferred);
    let back = Input {
        topic: Topic::Frontier,
        key: None,
        payload: Some(outs[0].payload.clone()),
        origin: None,
    };
    assert!(page_of(&f.handle(&back).await.unwrap())
        .html
        .contains("welcome back"));
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
        .filter(|o| o.topic == Topic::Frontier)
        .map(|o| {
            serde_json::from_slice::<FrontierLink>(&o.payload)
                .unwrap()
                .url
        })
        .collect();
    urls.sort();
    assert_eq!(urls, [format!("{hung}/a"), format!("{hung}/b")]);
    assert_eq!(f.held(), 0);
    f.close().await.unwrap();
}

/// Extract turns away pages that are not articles, saying why: an index
/// page whose main text is a list of headlines is mostly link text.
#[tokio::test]
async fn extract_sends_link_lists_to_the_dead_letter_topic() {
    let site = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/site");
    let cleaned = |file: &str| {
        let html = std::fs::read_to_string(site.join(file)).unwrap();
        let (title, meta, blocks) = gleaner_clean::clean_html(&html).unwrap();
        let c = gleaner_core::messages::Cleaned {
            id: file.into(),
            url: format!("http://news.test/{file}"),
            final_url: format!("http://news.test/{file}"),
            fetched_at: String::new(),
            title,
            meta,
            blocks,
        };
        Input {
            topic: Topic::Cleaned,
            key: Some("news.test".into()),
            payload: Some(Output::json(Topic::Cleaned, "news.test", &c).payload),
            origin: None,
        }
    };
    let cfg = Config::default_config().extract;
    let mut stage = gleaner_extract::ExtractStage::new(cfg.extractor.parse().unwrap(), &cfg);
    let err = stage.handle(&cleaned("index.html")).await.unwrap_err();
    assert!(err.to_string().contains("link text"), "{err}");
    let outs = stage
        .handle(&cleaned("news/bridge-reopens.html"))
        .await
        .unwrap();
    assert_eq!(outs[0].topic, Topic::Articles);
}
