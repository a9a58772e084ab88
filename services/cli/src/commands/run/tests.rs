//! `gleaner run` built from the registry: a stage added through the
//! registry and the config alone takes its place in the flow.

use super::{run_embedded, RunOptions};
use crate::args::SeedOptions;
use async_trait::async_trait;
use axum::extract::Path as UrlPath;
use gleaner_core::config::{Section, SectionCheck, SectionOf};
use gleaner_core::metrics::Metric;
use gleaner_core::registry::{StageContext, StageSpec};
use gleaner_core::stage::{Handled, Input, Output, Stage};
use gleaner_core::{Config, MapStage, Mapped, Topic};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

const COUNTED: Topic = Topic::new("counted");

/// Counts the messages it passes on unchanged, `weight` at a time: a map
/// stage, so it runs on a worker per core.
struct Count {
    seen: Arc<AtomicUsize>,
    weight: usize,
}

/// The counting stage's own section, `[count]`.
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
struct CountSettings {
    weight: usize,
}

impl Default for CountSettings {
    fn default() -> Self {
        CountSettings { weight: 1 }
    }
}

impl Section for CountSettings {
    const NAME: &'static str = "count";
}

#[async_trait]
impl MapStage for Count {
    async fn map(&self, input: &Input) -> Handled {
        self.seen.fetch_add(self.weight, Ordering::SeqCst);
        gleaner_core::metrics::add("gleaner_count_seen_total", &[], self.weight as u64);
        // The message itself, whatever it is: no need to know its type.
        let payload = input.payload.clone();
        Ok(payload
            .into_iter()
            .map(|payload| Output {
                topic: COUNTED,
                key: input.key.clone().unwrap_or_default(),
                payload,
                made_by: None,
            })
            .collect())
    }
}

/// The counting stage's metric.
const COUNT_METRICS: &[Metric] = &[Metric::counter(
    "gleaner_count_seen_total",
    "Messages the counting stage passed on, times its weight.",
)];

struct CountSpec(Arc<AtomicUsize>, Arc<std::sync::Mutex<Option<Topic>>>);

#[async_trait]
impl StageSpec for CountSpec {
    fn name(&self) -> &'static str {
        "count"
    }
    fn about(&self) -> &'static str {
        "Counts what passes"
    }
    fn settings(&self) -> Option<&'static dyn SectionCheck> {
        Some(&SectionOf::<CountSettings>::NEW)
    }
    fn metrics(&self) -> &'static [Metric] {
        COUNT_METRICS
    }
    fn output(&self) -> Option<Topic> {
        Some(COUNTED)
    }
    fn reads(&self) -> &'static [Topic] {
        &[]
    }
    fn passes_through(&self) -> bool {
        true
    }
    async fn build(&self, ctx: &StageContext) -> anyhow::Result<Box<dyn Stage>> {
        *self.1.lock().unwrap() = Some(ctx.input);
        Ok(Box::new(Mapped::new(Count {
            seen: self.0.clone(),
            weight: ctx.cfg.section::<CountSettings>()?.weight,
        })))
    }
}

/// The binary records only what it describes (the counting stage's metric
/// is this test module's).
#[test]
fn the_binary_records_only_the_metrics_it_describes() {
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let described = [super::RUN_METRICS, COUNT_METRICS].concat();
    gleaner_core::metrics::check_sources(&src, &described).unwrap();
}

async fn serve_site() -> String {
    let site = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/site");
    let file = move |rel: String| {
        let rel = if rel.is_empty() {
            "index.html".into()
        } else {
            rel
        };
        let ct = if rel.ends_with(".txt") {
            "text/plain"
        } else {
            "text/html"
        };
        match std::fs::read(site.join(&rel)) {
            Ok(b) if !rel.contains("..") => ([("content-type", ct)], b).into_response(),
            _ => axum::http::StatusCode::NOT_FOUND.into_response(),
        }
    };
    use axum::response::IntoResponse;
    let (f1, f2) = (file.clone(), file);
    let app = axum::Router::new()
        .route(
            "/",
            axum::routing::get(move || async move { f1(String::new()) }),
        )
        .route(
            "/{*rest}",
            axum::routing::get(move |UrlPath(rest): UrlPath<String>| async move { f2(rest) }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    format!("http://{addr}/")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_counting_stage_joins_the_flow_through_the_registry_and_config() {
    let base = serve_site().await;
    let tmp = tempfile::tempdir().unwrap();
    // The stage's place and its setting come from the config alone.
    let mut cfg = Config::from_toml(
        r#"
        [pipeline]
        stages = ["fetch", "clean", "extract", "count", "dedup", "summarize", "index"]
        [fetch]
        per_host_delay_ms = 0
        bloom_capacity = 10000
        [count]
        weight = 3
        "#,
    )
    .unwrap();
    let seen = Arc::new(AtomicUsize::new(0));
    let placed_after = Arc::new(std::sync::Mutex::new(None));
    let count = CountSpec(seen.clone(), placed_after.clone());
    let mut registry = crate::stages::registry();
    registry.push(&count);
    cfg.check_sections(&crate::commands::sections(&registry))
        .unwrap();
    let misspelt = Config::from_toml("[count]\nwieght = 3\n").unwrap();
    assert!(misspelt
        .check_sections(&crate::commands::sections(&registry))
        .is_err());
    let data = tmp.path().join("data");
    let opts = RunOptions {
        data: data.clone(),
        allow_private: true,
        depth: None,
        follow: false,
        metrics: None,
        json: false,
        refetch: false,
    };
    run_embedded(&cfg, &registry, &[base], &SeedOptions::default(), opts)
        .await
        .unwrap();
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(data.join("summary.json")).unwrap()).unwrap();
    let n = |t: &str| summary["produced"][t].as_u64().unwrap_or(0);
    assert_eq!(*placed_after.lock().unwrap(), Some(Topic::ARTICLES));
    assert!(n("articles") >= 5, "{summary}");
    assert_eq!(
        seen.load(Ordering::SeqCst) as u64,
        3 * n("articles"),
        "{summary}"
    );
    assert_eq!(n("counted"), n("articles"), "{summary}");
    // Its metric is recorded and described, with no line of core changed.
    let text = gleaner_core::metrics::render();
    assert!(
        text.contains("# HELP gleaner_count_seen_total Messages the counting stage"),
        "{text}"
    );
    assert_eq!(
        gleaner_core::metrics::value("gleaner_count_seen_total", &[]) as u64,
        3 * n("articles")
    );
    // Dedup read what count passed on: every article was judged.
    assert_eq!(n("unique") + n("duplicates"), n("counted"), "{summary}");
    assert_eq!(summary["index_docs"].as_u64(), Some(n("unique")));

    // An order that cannot work is refused before anything runs.
    cfg.pipeline.stages = Some(
        ["fetch", "clean", "count", "dedup"]
            .map(String::from)
            .to_vec(),
    );
    let opts = RunOptions {
        data: tmp.path().join("data2"),
        allow_private: true,
        depth: None,
        follow: false,
        metrics: None,
        json: false,
        refetch: false,
    };
    let err = run_embedded(
        &cfg,
        &registry,
        &["http://x.test/".into()],
        &SeedOptions::default(),
        opts,
    )
    .await
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("\"dedup\" reads articles or summarized"),
        "{err}"
    );
}

/// A site with a page that answers 429 before 200, a slow page and a
/// redirect, besides plain pages.
async fn awkward_site() -> String {
    use axum::response::IntoResponse;
    let tries = Arc::new(AtomicUsize::new(0));
    let page = |body: &'static str| {
        axum::response::Html(format!("<html><body><p>{body}</p></body></html>"))
    };
    let app = axum::Router::new()
        .route(
            "/",
            axum::routing::get(|| async {
                let links: String = ["/busy", "/slow", "/moved", "/p1", "/p2", "/p3"]
                    .iter()
                    .map(|l| format!("<a href=\"{l}\">{l}</a> "))
                    .collect();
                axum::response::Html(format!("<html><body>{links}</body></html>"))
            }),
        )
        .route(
            "/busy",
            axum::routing::get(move || {
                let tries = tries.clone();
                async move {
                    if tries.fetch_add(1, Ordering::SeqCst).is_multiple_of(2) {
                        (
                            axum::http::StatusCode::TOO_MANY_REQUESTS,
                            [("retry-after", "1")],
                            "slow down",
                        )
                            .into_response()
                    } else {
                        page("busy but here").into_response()
                    }
                }
            }),
        )
        .route(
            "/slow",
            axum::routing::get(move || async move {
                tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
                page("slow but here")
            }),
        )
        .route(
            "/moved",
            axum::routing::get(|| async { axum::response::Redirect::to("/target") }),
        )
        .route(
            "/target",
            axum::routing::get(move || async move { page("moved here") }),
        )
        .fallback(move || async move { page("plain") });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    format!("http://{addr}/")
}

/// Idle means idle: a run ends only when every URL has been answered,
/// whatever waits on a retry, a slow answer or a redirect; run many times.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_ends_only_when_every_url_is_answered() {
    let base = awkward_site().await;
    let mut cfg = Config::default_config();
    cfg.set_section(&gleaner_fetch::FetchSettings {
        per_host_delay_ms: 50,
        bloom_capacity: 10_000,
        defer_after_ms: 200,
        ..Default::default()
    })
    .unwrap();
    let registry = crate::stages::registry();
    for round in 0..6 {
        let tmp = tempfile::tempdir().unwrap();
        let data = tmp.path().join("data");
        let opts = RunOptions {
            data: data.clone(),
            allow_private: true,
            depth: Some(1),
            follow: false,
            metrics: None,
            json: false,
            refetch: false,
        };
        run_embedded(
            &cfg,
            &registry,
            std::slice::from_ref(&base),
            &SeedOptions::default(),
            opts,
        )
        .await
        .unwrap();
        let summary: serde_json::Value =
            serde_json::from_slice(&std::fs::read(data.join("summary.json")).unwrap()).unwrap();
        // The index page and the six it links, each answered once: a page,
        // or a dead letter (none here).
        let n = |t: &str| summary["produced"][t].as_u64().unwrap_or(0);
        assert_eq!(n("pages"), 7, "round {round}: {summary}");
        let dead = std::fs::read_to_string(data.join("dead-letter.jsonl")).unwrap_or_default();
        assert!(
            !dead.contains("\"stage\":\"fetch\""),
            "round {round}: fetch failed a URL: {dead}"
        );
    }
}
