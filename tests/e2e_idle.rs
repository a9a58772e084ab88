//! Idle means idle: `gleaner run` ends only when every URL it was given has
//! gone through, whatever holds a URL back on the way (a retry after 429 or
//! 503, a slow host, a redirect, a host's politeness delay). Run several
//! times, since what it guards against is a race.

mod common;

use axum::http::{StatusCode, Uri};
use axum::response::{Html, IntoResponse, Response};
use common::*;
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

const PAGES: usize = 6;

/// What a host does to some of its pages.
#[derive(Clone, Copy)]
enum Quirk {
    /// /p/1 answers 429 (Retry-After: 1), then 200.
    TooManyOnce,
    /// /p/2 answers 503 once, then 200.
    UnavailableOnce,
    /// Every page waits 600 ms before answering.
    Slow,
    /// /p/3 moves permanently to /moved/3.
    Redirect,
}

/// Page paths answered 200, by host, and the quirks that were answered.
type Served = Arc<Mutex<BTreeSet<(usize, String)>>>;
type Quirks = Arc<AtomicUsize>;

async fn start_host(h: usize, quirk: Quirk, served: Served, quirks: Quirks) -> String {
    let asked = Arc::new(AtomicUsize::new(0));
    let app = axum::Router::new().fallback(move |uri: Uri| {
        let (served, asked, quirks) = (served.clone(), asked.clone(), quirks.clone());
        async move {
            let path = uri.path().to_string();
            if path == "/" {
                let links: String = (0..PAGES)
                    .map(|i| format!("<a href='/p/{i}'>page {i}</a> "))
                    .collect();
                return Html(format!("<html><body>{links}</body></html>")).into_response();
            }
            let page = path
                .rsplit('/')
                .next()
                .and_then(|n| n.parse::<usize>().ok())
                .filter(|i| *i < PAGES);
            let Some(page) = page else {
                return StatusCode::NOT_FOUND.into_response();
            };
            match quirk {
                Quirk::TooManyOnce if page == 1 && asked.fetch_add(1, Ordering::SeqCst) == 0 => {
                    quirks.fetch_add(1, Ordering::SeqCst);
                    return Response::builder()
                        .status(429)
                        .header("retry-after", "1")
                        .body(axum::body::Body::from("slow down"))
                        .unwrap();
                }
                Quirk::UnavailableOnce
                    if page == 2 && asked.fetch_add(1, Ordering::SeqCst) == 0 =>
                {
                    quirks.fetch_add(1, Ordering::SeqCst);
                    return StatusCode::SERVICE_UNAVAILABLE.into_response();
                }
                Quirk::Slow => tokio::time::sleep(Duration::from_millis(600)).await,
                Quirk::Redirect if path == "/p/3" => {
                    quirks.fetch_add(1, Ordering::SeqCst);
                    return Response::builder()
                        .status(301)
                        .header("location", "/moved/3")
                        .body(axum::body::Body::empty())
                        .unwrap();
                }
                _ => {}
            }
            served.lock().unwrap().insert((h, path));
            Html(prose_page(h, page, "")).into_response()
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    base
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_ends_only_when_every_url_went_through() {
    let quirks = [
        Quirk::TooManyOnce,
        Quirk::UnavailableOnce,
        Quirk::Slow,
        Quirk::Redirect,
    ];
    for round in 0..4 {
        let served: Served = Arc::default();
        let answered: Quirks = Arc::default();
        let mut seeds = Vec::new();
        for (h, quirk) in quirks.iter().enumerate() {
            seeds.push(format!(
                "{}/",
                start_host(h, *quirk, served.clone(), answered.clone()).await
            ));
        }
        let tmp = tempfile::tempdir().unwrap();
        let cfg = test_config(tmp.path(), None);
        let data = tmp.path().join("data");
        let (c, d) = (cfg.clone(), data.clone());
        let out = tokio::task::spawn_blocking(move || {
            let mut args = vec!["--depth", "1", "--delay", "50", "--seeds"];
            args.extend(seeds.iter().map(String::as_str));
            gleaner_run(&c, &d, &args).output().unwrap()
        })
        .await
        .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "round {round}:\n{stderr}");
        let summary = run_summary(&out, &data);
        let produced = &summary["produced"];
        // Every page of every host was answered with 200 and became a page,
        // an article and an indexed document.
        // The 429, the 503 and the redirect were each answered once.
        assert_eq!(answered.load(Ordering::SeqCst), 3, "round {round}");
        let served = served.lock().unwrap().clone();
        assert_eq!(
            served.len(),
            quirks.len() * PAGES,
            "round {round}: {served:?}"
        );
        let pages = (quirks.len() * (PAGES + 1)) as u64;
        assert_eq!(produced["pages"], pages, "round {round}: {summary}");
        assert_eq!(
            produced["unique"], summary["index_docs"],
            "round {round}: {summary}"
        );
        assert_eq!(
            summary["index_docs"],
            (quirks.len() * PAGES) as u64,
            "round {round}: {summary}"
        );
    }
}
