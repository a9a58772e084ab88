//! Scheduled and conditional recrawls.

mod common;

use axum::http::StatusCode;
use axum::response::IntoResponse;
use axum::routing::get;
use axum::Router;
use common::*;
use gleaner_core::messages::Seed;
use gleaner_core::stage::{Input, Stage};
use gleaner_core::Topic;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

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
        .any(|o| o.topic == Topic::PAGES));
    assert!(f.tick().await.is_empty(), "not due yet");
    tokio::time::sleep(Duration::from_millis(2100)).await;
    let due = f.tick().await;
    assert_eq!(due.len(), 1);
    let again: Seed = due[0].decode().unwrap();
    assert!(again.recrawl && again.url == format!("{base}/"));
    let input = Input {
        topic: Topic::SEEDS,
        key: None,
        payload: Some(due[0].payload.clone()),
        origin: None,
    };
    let outs = f.handle(&input).await.unwrap();
    assert!(
        outs.iter().any(|o| o.topic == Topic::PAGES),
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
