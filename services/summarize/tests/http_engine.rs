//! The HTTP summary engine against a real server: retries, time-out, fallback.

use axum::http::StatusCode;
use axum::response::IntoResponse;
use axum::routing::post;
use axum::{Json, Router};
use gleaner_core::messages::{Article, Summarized};
use gleaner_core::stage::{Input, Output};
use gleaner_core::MapStage;
use gleaner_core::Topic;
use gleaner_summarize::SummaryLength;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

async fn serve(app: Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    format!("http://{addr}")
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
        story: None,
        ..Default::default()
    };
    Input {
        topic: Topic::UNIQUE,
        key: None,
        payload: Some(Output::of(Topic::UNIQUE, "a1", &a).payload),
        origin: None,
    }
}

/// The stage with engine = "http" at `url`.
fn stage(url: &str, timeout_ms: u64, retries: u32) -> gleaner_summarize::SummarizeStage {
    gleaner_summarize::SummarizeStage::from_settings(&gleaner_summarize::SummarizeSettings {
        engine: "http".into(),
        http_url: url.into(),
        http_timeout_ms: timeout_ms,
        http_retries: retries,
        lengths: lengths(),
        ..Default::default()
    })
    .unwrap()
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
    let s = stage(&format!("{base}/summarize"), 5000, 3);
    let outs = s.map(&article()).await.unwrap();
    let out: Summarized = outs[0].decode().unwrap();
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
    let s = stage(&format!("{base}/summarize"), 200, 1);
    let t0 = Instant::now();
    let outs = s.map(&article()).await.unwrap();
    assert!(t0.elapsed() < Duration::from_secs(3));
    let out: Summarized = outs[0].decode().unwrap();
    assert!(
        out.engine.starts_with("extractive (fallback"),
        "{}",
        out.engine
    );
    assert_eq!(out.summaries[0].text, "The bridge reopened on Monday.");
}

/// An engine that streams without end (a broken proxy, a server gone
/// wrong) is read only up to the answer cap, and the article goes on with
/// the built-in summary.
#[tokio::test]
async fn an_endless_answer_is_cut_at_the_cap_and_falls_back() {
    let sent = Arc::new(AtomicUsize::new(0));
    let asked = Arc::new(AtomicUsize::new(0));
    let (counter, asks) = (sent.clone(), asked.clone());
    let app = Router::new().route(
        "/summarize",
        post(move || {
            let counter = counter.clone();
            asks.fetch_add(1, Ordering::SeqCst);
            async move {
                let chunk = axum::body::Bytes::from(vec![b' '; 64 << 10]);
                let endless = futures::stream::repeat_with(move || {
                    counter.fetch_add(chunk.len(), Ordering::SeqCst);
                    Ok::<_, std::io::Error>(chunk.clone())
                });
                axum::body::Body::from_stream(endless)
            }
        }),
    );
    let base = serve(app).await;
    let s = stage(&format!("{base}/summarize"), 5000, 1);
    let outs = s.map(&article()).await.unwrap();
    let out: Summarized = outs[0].decode().unwrap();
    assert!(
        out.engine.starts_with("extractive (fallback") && out.engine.contains("answer over 1 MiB"),
        "{}",
        out.engine
    );
    assert_eq!(out.summaries[0].text, "The bridge reopened on Monday.");
    // One attempt (the same question would get the same answer), read to
    // about the cap (what the server wrote ahead into the socket's buffers
    // aside), not for the whole time-out.
    assert_eq!(asked.load(Ordering::SeqCst), 1);
    let n = sent.load(Ordering::SeqCst);
    assert!(n < 64 << 20, "{n} bytes sent");
}
