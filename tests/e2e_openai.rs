//! `gleaner run` with `engine = "openai"` against a chat completions
//! server on loopback: every article summarised by it, the answers kept in
//! the data directory's summary cache, and a second run over the same
//! pages asks the server nothing.

mod common;

use axum::routing::post;
use axum::{Json, Router};
use common::*;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gleaner_run_with_an_openai_engine_asks_nothing_twice() {
    let calls = Arc::new(AtomicUsize::new(0));
    let c = calls.clone();
    let app = Router::new().route(
        "/v1/chat/completions",
        post(move |Json(_): Json<serde_json::Value>| {
            c.fetch_add(1, Ordering::SeqCst);
            async move {
                Json(
                    serde_json::json!({"choices": [{"message": {"role": "assistant",
                    "content": "<think>short</think>The town's news, told by the model."}}]}),
                )
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let engine = format!("http://{}/v1", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });

    let (base, _log) = start_site().await;
    let tmp = tempfile::tempdir().unwrap();
    let cfg = test_config(tmp.path(), None);
    let text = std::fs::read_to_string(&cfg)
        .unwrap()
        .replacen("engine = \"extractive\"", "engine = \"openai\"", 1)
        .replace(
            "openai_url = \"http://127.0.0.1:11434/v1\"",
            &format!("openai_url = \"{engine}\""),
        );
    assert!(text.contains(&format!("openai_url = \"{engine}\"")));
    std::fs::write(&cfg, text).unwrap();
    let data = tmp.path().join("data");
    let summary = run_summary(&run_on_site(&cfg, &data, &base).await, &data);
    let articles = summary["produced"]["summarized"].as_u64().unwrap();
    assert!(articles >= 6, "{summary}");
    let first = calls.load(Ordering::SeqCst);
    // One request per configured length per article.
    assert_eq!(first as u64, articles * 3, "{summary}");
    let hits = search(&cfg, &data, "bridge");
    assert!(!hits.is_empty());
    assert_eq!(
        hits[0]["summaries"][0]["text"],
        "The town's news, told by the model."
    );
    let cached = std::fs::read_to_string(data.join("summary-cache.jsonl")).unwrap();
    assert_eq!(cached.lines().count() as u64, articles);

    // The same pages again: every summary from the cache.
    let again = run_on_site_with(&cfg, &data, &base, &["--refetch"]).await;
    let summary = run_summary(&again, &data);
    assert!(
        summary["produced"]["summarized"].as_u64().unwrap() >= articles,
        "{summary}"
    );
    assert_eq!(
        calls.load(Ordering::SeqCst),
        first,
        "the second run asked the engine"
    );
}
