//! Proxies, cookies and metrics.

mod common;

use axum::http::header;
use axum::Router;
use common::*;
use gleaner_core::stage::Stage;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

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

#[tokio::test]
async fn fetch_metrics_are_recorded() {
    let base =
        serve(Router::new().fallback(|| async { axum::response::Html("<p>metrics page</p>") }))
            .await;
    let mut f = gleaner_fetch::FetchStage::new(&fetch_cfg(), true).unwrap();
    let input = seed(&format!("{base}/m"), 0);
    let results = f.handle_batch(std::slice::from_ref(&input)).await;
    let outs = gleaner_core::stage::settle(
        "fetch",
        &input,
        results.into_iter().next().unwrap(),
        Some(1 << 20),
    );
    assert_eq!(outs.len(), 1);
    let text = gleaner_core::metrics::render();
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
