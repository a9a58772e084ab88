//! The openai engine against a real HTTP server on loopback that speaks
//! the chat completions API and can be told to fail the ways model servers
//! do: 429 with Retry-After, 500, slowly, malformed JSON, a `<think>`
//! block, an empty answer. The server counts what it received.

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use gleaner_core::messages::{Article, Summarized};
use gleaner_core::stage::{Input, Output, Stage};
use gleaner_core::{MapStage, Mapped, Topic};
use gleaner_summarize::cache::CacheEntry;
use gleaner_summarize::{SummarizeSettings, SummarizeStage, SummaryLength};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How the server answers the n-th request (from 0).
type Script = Arc<dyn Fn(usize) -> Reply + Send + Sync>;

#[derive(Clone)]
enum Reply {
    Content(String),
    Status(u16, Option<u64>),
    Slow(Duration, String),
    Raw(String),
}

#[derive(Clone)]
struct Server {
    script: Script,
    calls: Arc<AtomicUsize>,
    in_flight: Arc<AtomicUsize>,
    most_in_flight: Arc<AtomicUsize>,
    bodies: Arc<Mutex<Vec<serde_json::Value>>>,
    auth: Arc<Mutex<Vec<String>>>,
}

async fn completions(
    State(s): State<Server>,
    headers: HeaderMap,
    Json(body): Json<serde_json::Value>,
) -> Response {
    let n = s.calls.fetch_add(1, Ordering::SeqCst);
    let now = s.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
    s.most_in_flight.fetch_max(now, Ordering::SeqCst);
    s.bodies.lock().unwrap().push(body);
    if let Some(a) = headers.get("authorization").and_then(|v| v.to_str().ok()) {
        s.auth.lock().unwrap().push(a.to_string());
    }
    let answer = |content: &str| {
        Json(serde_json::json!({
            "id": "x", "object": "chat.completion", "model": "m",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}]
        }))
        .into_response()
    };
    let out = match (s.script)(n) {
        Reply::Content(c) => answer(&c),
        Reply::Status(code, after) => {
            let mut r = (StatusCode::from_u16(code).unwrap(), "busy").into_response();
            if let Some(a) = after {
                r.headers_mut()
                    .insert("retry-after", a.to_string().parse().unwrap());
            }
            r
        }
        Reply::Slow(d, c) => {
            tokio::time::sleep(d).await;
            answer(&c)
        }
        Reply::Raw(text) => (StatusCode::OK, text).into_response(),
    };
    s.in_flight.fetch_sub(1, Ordering::SeqCst);
    out
}

async fn start(script: impl Fn(usize) -> Reply + Send + Sync + 'static) -> (String, Server) {
    let s = Server {
        script: Arc::new(script),
        calls: Default::default(),
        in_flight: Default::default(),
        most_in_flight: Default::default(),
        bodies: Default::default(),
        auth: Default::default(),
    };
    let app = Router::new()
        .route("/v1/chat/completions", post(completions))
        .with_state(s.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (format!("http://{addr}/v1"), s)
}

const TEXT: &str = "The harbour bridge reopened on Monday after eight months of repairs. \
Engineers replaced the corroded suspension cables. Tolls rise next month, the council said. \
Commuters who had used the ferry cheered the first buses across.";

fn article(id: &str, text: &str) -> Input {
    let a = Article {
        id: id.into(),
        url: format!("http://x.test/{id}"),
        title: "Bridge reopens".into(),
        author: None,
        date: None,
        language: Some("en".into()),
        text: text.into(),
        extractor: "auto".into(),
        fetched_at: String::new(),
        cluster: None,
        story: None,
        ..Default::default()
    };
    Input {
        topic: Topic::UNIQUE,
        key: None,
        payload: Some(Output::of(Topic::UNIQUE, id, &a).payload),
        origin: None,
    }
}

fn settings(url: &str) -> SummarizeSettings {
    SummarizeSettings {
        engine: "openai".into(),
        openai_url: url.into(),
        openai_model: "test-model".into(),
        openai_key_env: "GLEANER_TEST_OPENAI_KEY".into(),
        openai_timeout_ms: 2000,
        openai_retries: 2,
        lengths: vec![SummaryLength {
            name: "one_sentence".into(),
            sentences: Some(1),
            words: None,
        }],
        ..SummarizeSettings::default()
    }
}

async fn summarize(stage: &SummarizeStage, id: &str, text: &str) -> (Summarized, Vec<Output>) {
    let outs = stage.map(&article(id, text)).await.unwrap();
    (outs[0].decode().unwrap(), outs)
}

#[tokio::test]
async fn answers_with_reasoning_left_out_and_the_key_sent() {
    let (url, server) =
        start(|_| Reply::Content("<think>The user wants one sentence.</think>\nThe harbour bridge reopened after repairs.".into())).await;
    // Read from the named variable only (this test's own name).
    std::env::set_var("GLEANER_TEST_OPENAI_KEY", "sk-test");
    let stage = SummarizeStage::from_settings(&settings(&url)).unwrap();
    let (s, outs) = summarize(&stage, "a1", TEXT).await;
    assert_eq!(
        s.summaries[0].text,
        "The harbour bridge reopened after repairs."
    );
    assert_eq!(s.engine, "openai:test-model");
    let body = &server.bodies.lock().unwrap()[0];
    assert_eq!(body["model"], "test-model");
    assert_eq!(body["messages"][0]["role"], "system");
    let user = body["messages"][1]["content"].as_str().unwrap();
    assert!(
        user.contains("one sentence") && user.contains("Bridge reopens") && user.contains("(en)"),
        "{user}"
    );
    assert_eq!(server.auth.lock().unwrap()[0], "Bearer sk-test");
    // The answer goes on the cache topic; the key on no message.
    assert_eq!(outs[1].topic, Topic::SUMMARY_CACHE);
    for o in &outs {
        assert!(!String::from_utf8_lossy(&o.payload.bytes()).contains("sk-test"));
    }
}

#[tokio::test]
async fn retry_after_is_honoured_and_server_errors_retried_a_bounded_number_of_times() {
    let (url, server) = start(|n| match n {
        0 => Reply::Status(429, Some(1)),
        _ => Reply::Content("The bridge reopened.".into()),
    })
    .await;
    let stage = SummarizeStage::from_settings(&settings(&url)).unwrap();
    let t0 = Instant::now();
    let (s, _) = summarize(&stage, "a1", TEXT).await;
    assert!(
        t0.elapsed() >= Duration::from_secs(1),
        "waited {:?}",
        t0.elapsed()
    );
    assert_eq!(
        (server.calls.load(Ordering::SeqCst), s.engine.as_str()),
        (2, "openai:test-model")
    );

    let (url, server) = start(|_| Reply::Status(500, None)).await;
    let stage = SummarizeStage::from_settings(&settings(&url)).unwrap();
    let (s, _) = summarize(&stage, "a1", TEXT).await;
    // The first try and two retries, then the built-in engine.
    assert_eq!(server.calls.load(Ordering::SeqCst), 3);
    assert!(
        s.engine.starts_with("extractive (fallback: HTTP 500"),
        "{}",
        s.engine
    );
    assert!(!s.summaries[0].text.is_empty());
}

#[tokio::test]
async fn slow_malformed_empty_and_refused_answers_fall_back() {
    let cases: Vec<(Reply, &str)> = vec![
        (
            Reply::Slow(Duration::from_secs(5), "late".into()),
            "timed out",
        ),
        (Reply::Raw("{\"choices\": [".into()), "malformed"),
        (
            Reply::Content("<think>only thinking</think>".into()),
            "empty answer",
        ),
        (
            Reply::Content("I'm sorry, but I can't summarise this.".into()),
            "refusal",
        ),
        (Reply::Status(400, None), "HTTP 400"),
        (Reply::Raw(" ".repeat(2 << 20)), "answer over 1 MiB"),
    ];
    for (reply, says) in cases {
        let (url, _server) = start(move |_| reply.clone()).await;
        let mut cfg = settings(&url);
        cfg.openai_timeout_ms = 300;
        cfg.openai_retries = 1;
        let stage = SummarizeStage::from_settings(&cfg).unwrap();
        let t0 = Instant::now();
        let (s, outs) = summarize(&stage, "a1", TEXT).await;
        assert!(
            t0.elapsed() < Duration::from_secs(4),
            "{says}: {:?}",
            t0.elapsed()
        );
        assert!(
            s.engine.starts_with("extractive (fallback") && s.engine.contains(says),
            "{says}: {}",
            s.engine
        );
        assert_eq!(
            s.summaries[0].text,
            "The harbour bridge reopened on Monday after eight months of repairs."
        );
        assert_eq!(outs.len(), 1, "{says}: a fallback is not cached");
    }
}

#[tokio::test]
async fn a_batch_keeps_the_configured_requests_in_flight() {
    let (url, server) =
        start(|_| Reply::Slow(Duration::from_millis(300), "The bridge reopened.".into())).await;
    let mut cfg = settings(&url);
    cfg.openai_concurrency = 3;
    let mut stage = Mapped::new(SummarizeStage::from_settings(&cfg).unwrap());
    let batch: Vec<Input> = (0..9)
        .map(|i| article(&format!("a{i}"), &format!("{TEXT} Item {i}.")))
        .collect();
    let t0 = Instant::now();
    let handled = stage.handle_batch(&batch).await;
    assert_eq!(server.most_in_flight.load(Ordering::SeqCst), 3);
    assert!(
        t0.elapsed() < Duration::from_millis(2000),
        "{:?}",
        t0.elapsed()
    );
    // Answers in the batch's order.
    for (i, h) in handled.iter().enumerate() {
        let s: Summarized = h.as_ref().unwrap()[0].decode().unwrap();
        assert_eq!(s.article.id, format!("a{i}"));
    }
}

#[tokio::test]
async fn nothing_is_asked_twice_and_long_texts_go_in_two_passes() {
    let (url, server) = start(|_| Reply::Content("The bridge reopened.".into())).await;
    let stage = SummarizeStage::from_settings(&settings(&url)).unwrap();
    let (_, outs) = summarize(&stage, "a1", TEXT).await;
    // A repost in the same run: no request.
    summarize(&stage, "a2", TEXT).await;
    assert_eq!(server.calls.load(Ordering::SeqCst), 1);
    // A restarted stage that read the cache topic back: no request.
    let entry: CacheEntry = outs[1].decode().unwrap();
    let again = SummarizeStage::from_settings(&settings(&url)).unwrap();
    again.cache.put(entry);
    let (s, outs) = summarize(&again, "a1", TEXT).await;
    assert_eq!((server.calls.load(Ordering::SeqCst), outs.len()), (1, 1));
    assert_eq!(s.summaries[0].text, "The bridge reopened.");

    let (url, server) = start(|_| Reply::Content("The bridge reopened.".into())).await;
    let mut cfg = settings(&url);
    cfg.openai_max_input_chars = 1000;
    let stage = SummarizeStage::from_settings(&cfg).unwrap();
    let long: String = (0..12)
        .map(|i| format!("{TEXT} Paragraph {i}.\n"))
        .collect();
    summarize(&stage, "long", &long).await;
    let parts = long.chars().count().div_ceil(1000);
    let calls = server.calls.load(Ordering::SeqCst);
    assert!(
        calls > parts,
        "{calls} requests for {parts}+ parts and one length"
    );
    let bodies = server.bodies.lock().unwrap();
    assert!(bodies.iter().all(|b| b["messages"][1]["content"]
        .as_str()
        .unwrap()
        .chars()
        .count()
        < 1400));
}
