//! `gleaner serve`: the search page at `/`, the HTTP API at `/api/v1`
//! (`api.rs`; the first API, `/search`, still answers), and the crawl
//! report of its data directory at `/report` (written by `gleaner
//! report`).

use crate::args::Common;
use crate::commands::{config, data_dir, init_logs};
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;
pub mod api;
mod browse;
mod page;
mod page_errors;
mod standing;
mod stories_api;
mod story_pages;

use anyhow::Context;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::routing::{any, get};
use axum::{Json, Router};
use gleaner_core::Config;
use gleaner_index::{Hit, SearchIndex};
use serde::Deserialize;
use std::path::Path;
use std::sync::Arc;

#[derive(Deserialize)]
struct SearchParams {
    q: Option<String>,
    limit: Option<usize>,
}

type Shared = Arc<SearchIndex>;

/// The `[serve]` section of pipelines.toml.
#[derive(Debug, Clone, serde::Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ServeSettings {
    /// Address of `gleaner serve`.
    pub listen: String,
    /// A query still running after this long is answered 503.
    pub query_timeout_ms: u64,
}

impl Default for ServeSettings {
    fn default() -> Self {
        ServeSettings {
            listen: "127.0.0.1:8080".into(),
            query_timeout_ms: 2000,
        }
    }
}

impl gleaner_core::config::Section for ServeSettings {
    const NAME: &'static str = "serve";
}

/// The hits for `q` (at most `limit`, 10 by default, 1 to 100), or the
/// error to show. Searching reads the index from disk: off the async runtime.
async fn hits(idx: &Shared, q: &str, limit: Option<usize>) -> Result<Vec<Hit>, String> {
    let limit = limit.unwrap_or(10).clamp(1, 100);
    let (idx, q) = (idx.clone(), q.to_string());
    match tokio::task::spawn_blocking(move || idx.search(&q, limit)).await {
        Ok(Ok(hits)) => Ok(hits),
        Ok(Err(e)) => Err(format!("{e:#}")),
        Err(e) => Err(e.to_string()),
    }
}

async fn search(
    State(idx): State<Shared>,
    Query(p): Query<SearchParams>,
) -> (StatusCode, Json<serde_json::Value>) {
    let Some(q) = p.q.filter(|q| !q.trim().is_empty()) else {
        return (
            StatusCode::BAD_REQUEST,
            Json(serde_json::json!({"error": "missing query parameter q"})),
        );
    };
    match hits(&idx, &q, p.limit).await {
        Ok(hits) => (
            StatusCode::OK,
            Json(serde_json::json!({"query": q, "hits": hits})),
        ),
        Err(e) => (
            StatusCode::INTERNAL_SERVER_ERROR,
            Json(serde_json::json!({"error": e})),
        ),
    }
}

/// The search page: the form, and for a query (or filters) a page of
/// results with their count, order, facets and paging. It takes the API's
/// parameters, so every link is also an API query, and answers as the API
/// does: 400 for a bad parameter, 503 past `timeout` or when the index
/// cannot be read, each with the reason on the page. Asked with the header
/// `X-Gleaner-Partial` (by search.js, as the user types), only the results
/// part.
async fn page(
    idx: Shared,
    timeout: std::time::Duration,
    headers: axum::http::HeaderMap,
    raw: Option<String>,
) -> (StatusCode, axum::response::Html<String>) {
    use page::{render, results, Outcome};
    // The form sends its empty fields (no date chosen): they say nothing.
    let params = browse::Params::parse(&raw.unwrap_or_default()).without_empty();
    let raw = params.query_string();
    let q = params.get("q").unwrap_or("").to_string();
    let page_params = params.clone();
    let (status, outcome) = if params.0.iter().all(|(_, v)| v.trim().is_empty()) {
        (StatusCode::OK, Outcome::Empty)
    } else {
        match api::parse_search(&raw) {
            Err(e) => (e.0, Outcome::Failed(e.2)),
            Ok(mut req) => {
                // The page shows one hit per story unless asked otherwise.
                req.group_by_story = params.get("group") != Some("article");
                let (offset, limit) = (req.offset, req.limit);
                let idx = idx.clone();
                let ms = timeout.as_millis();
                let asked = tokio::task::spawn_blocking(move || idx.find(&req));
                match tokio::time::timeout(timeout, asked).await {
                    Ok(Ok(Ok(found))) => (
                        StatusCode::OK,
                        Outcome::Results {
                            found,
                            params,
                            offset,
                            limit,
                        },
                    ),
                    Ok(Ok(Err(e))) => (
                        StatusCode::SERVICE_UNAVAILABLE,
                        Outcome::Failed(format!("{e:#}")),
                    ),
                    Ok(Err(e)) => (StatusCode::SERVICE_UNAVAILABLE, Outcome::Failed(e.to_string())),
                    Err(_) => (
                        StatusCode::SERVICE_UNAVAILABLE,
                        Outcome::Failed(format!(
                            "the query took longer than {ms} ms; narrow it (fewer words, a site or dates)"
                        )),
                    ),
                }
            }
        }
    };
    let html = if headers.contains_key("x-gleaner-partial") {
        results(&q, &outcome, idx.num_docs())
    } else {
        render(&page_params, &outcome, idx.num_docs())
    };
    (status, axum::response::Html(html))
}

/// The page's script, from the binary (nothing is fetched from elsewhere).
async fn script() -> impl axum::response::IntoResponse {
    (
        [
            (
                axum::http::header::CONTENT_TYPE,
                "text/javascript; charset=utf-8",
            ),
            (axum::http::header::CACHE_CONTROL, "max-age=3600"),
        ],
        include_str!("search.js"),
    )
}

/// One article whole, or a page saying why not.
async fn article_page(
    State(idx): State<Shared>,
    page_errors::PageId(id): page_errors::PageId,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    use page_errors::PageError;
    match tokio::task::spawn_blocking(move || idx.article(&id)).await {
        Ok(Ok(Some(a))) => axum::response::Html(browse::article(&a, page::STYLE)).into_response(),
        Ok(Ok(None)) => PageError::not_found("article").into_response(),
        _ => PageError::unreadable().into_response(),
    }
}

async fn health(State(idx): State<Shared>) -> Json<serde_json::Value> {
    Json(serde_json::json!({"status": "ok", "docs": idx.num_docs(), "report": "/report"}))
}

/// The crawl report, or how to make it.
async fn report(path: std::path::PathBuf) -> axum::response::Response {
    use axum::response::IntoResponse;
    match tokio::fs::read_to_string(&path).await {
        Ok(html) => axum::response::Html(html).into_response(),
        Err(_) => (
            StatusCode::NOT_FOUND,
            format!(
                "no crawl report yet: run `gleaner report --data {}`\n",
                path.parent().unwrap_or(&path).display()
            ),
        )
            .into_response(),
    }
}

/// `/api/v1`: the routes of the API modules, on one state.
fn v1_routes(api: Arc<api::Api>) -> Router {
    Router::new()
        .route("/api/v1/search", get(api::search))
        .route("/api/v1/articles/{id}", get(api::article))
        .route("/api/v1/stats", get(api::stats))
        .route("/api/v1/stories", get(stories_api::list))
        .route("/api/v1/stories/{id}", get(stories_api::one))
        .route("/api/v1/openapi.json", get(api::openapi))
        .route("/api/v1/feed", get(standing::feed))
        .route("/api/v1/stream", get(standing::stream))
        // Any other path or method under /api answers in the API's error
        // shape, as its clients parse it, not with an empty body.
        .route("/api", any(api::no_such_endpoint))
        .route("/api/{*rest}", any(api::no_such_endpoint))
        .method_not_allowed_fallback(api::method_not_allowed)
        .with_state(api)
}

/// The page and the APIs over `idx`, and the report of the data directory
/// `data`; `key`, when set, guards `/api`.
pub fn router(
    idx: SearchIndex,
    data: &Path,
    key: Option<String>,
    timeout: std::time::Duration,
) -> Router {
    let report_file = data.join(crate::commands::report::FILE);
    let idx = Arc::new(idx);
    let v1 = v1_routes(Arc::new(api::Api {
        idx: idx.clone(),
        key,
        timeout,
        streams: Default::default(),
    }));
    Router::new()
        .route(
            "/",
            get(
                move |State(idx): State<Shared>,
                      headers: axum::http::HeaderMap,
                      axum::extract::RawQuery(raw): axum::extract::RawQuery| {
                    page(idx, timeout, headers, raw)
                },
            ),
        )
        .route("/search.js", get(script))
        .route("/article/{id}", get(article_page))
        .route("/stories", get(story_pages::list))
        .route("/story/{id}", get(story_pages::one))
        .route("/search", get(search))
        .route("/health", get(health))
        .route("/report", get(move || report(report_file.clone())))
        .with_state(idx)
        .merge(v1)
        .fallback(|uri: axum::http::Uri| async move {
            page_errors::PageError(
                StatusCode::NOT_FOUND,
                format!("There is no page at {}.", uri.path()),
            )
        })
}

/// The API key (from GLEANER_API_KEY; empty: none); a non-loopback
/// address without one is refused unless `public`, and what is no
/// HOST:PORT at all is refused as that.
fn api_key(listen: &str, public: bool, key: Option<String>) -> anyhow::Result<Option<String>> {
    let port = listen.rsplit_once(':').map(|(_, p)| p.parse::<u16>());
    if !matches!(port, Some(Ok(_))) {
        return Err(crate::commands::bad_input(format!(
            "--listen {listen:?} is not HOST:PORT (say 127.0.0.1:8080)"
        )));
    }
    let key = key.filter(|k| !k.trim().is_empty());
    let loopback = listen
        .parse::<std::net::SocketAddr>()
        .map(|a| a.ip().is_loopback())
        .unwrap_or_else(|_| listen.starts_with("localhost:"));
    if key.is_none() && !loopback && !public {
        return Err(crate::commands::bad_input(format!(
            "{listen} is reachable from other machines: set GLEANER_API_KEY (then every /api request needs Authorization: Bearer KEY), or pass --public to serve it open"
        )));
    }
    Ok(key)
}

/// Serves the index in `dirs` (one directory, or shards searched as one);
/// `data` holds the crawl report.
pub async fn serve(
    cfg: &Config,
    data: &Path,
    dirs: &[PathBuf],
    listen: &str,
    public: bool,
) -> anyhow::Result<()> {
    let settings: ServeSettings = cfg.section()?;
    let key = api_key(listen, public, std::env::var("GLEANER_API_KEY").ok())?;
    // In a fresh deployment the index service may not have made the index
    // yet: wait for it rather than exit, but only in a data directory that
    // exists (a mistyped one would be waited on for ever).
    for dir in dirs {
        let parent = dir.parent().unwrap_or(dir);
        if !parent.is_dir() {
            return Err(crate::commands::bad_input(format!(
                "no data directory {} (give --data DIR of a `gleaner run` or of the index service)",
                parent.display()
            )));
        }
    }
    let idx = loop {
        match dirs.iter().find(|d| !d.join("meta.json").exists()) {
            None => {
                break SearchIndex::open_shards(
                    dirs,
                    cfg.section::<gleaner_index::IndexSettings>()?.snippet_chars,
                )?
            }
            Some(dir) => eprintln!("gleaner: waiting for an index in {}", dir.display()),
        }
        tokio::time::sleep(std::time::Duration::from_secs(2)).await;
    };
    // The index into memory while the server starts answering.
    drop(gleaner_index::warm_page_cache(dirs));
    let shown = dirs
        .iter()
        .map(|d| d.display().to_string())
        .collect::<Vec<_>>()
        .join(" + ");
    let listener = tokio::net::TcpListener::bind(listen)
        .await
        .with_context(|| format!("listening on {listen}"))?;
    eprintln!(
        "gleaner: serving {shown} on http://{}",
        listener.local_addr()?
    );
    let mut stop = gleaner_core::shutdown::shutdown_signal();
    let timeout = std::time::Duration::from_millis(settings.query_timeout_ms.max(1));
    axum::serve(listener, router(idx, data, key, timeout))
        .with_graceful_shutdown(async move {
            let _ = stop.wait_for(|s| *s).await;
        })
        .await?;
    Ok(())
}

/// The options of `gleaner serve`.
#[derive(Args)]
pub struct ServeCmd {
    /// Data directory (default: run.data_dir, "gleaner-data").
    #[arg(long)]
    pub data: Option<PathBuf>,
    /// Address to listen on (default: serve.listen).
    #[arg(long)]
    pub listen: Option<String>,
    /// Search these index shards as one index instead of DATA/index: the
    /// data directory (or index directory) of each index instance;
    /// repeatable.
    #[arg(long, value_name = "DIR")]
    pub shard: Vec<PathBuf>,
    /// Serve on a non-loopback address without GLEANER_API_KEY.
    #[arg(long)]
    pub public: bool,
    #[command(flatten)]
    pub common: Common,
}

impl ServeCmd {
    pub async fn run(self) -> anyhow::Result<ExitCode> {
        init_logs("info");
        let cfg = config(&self.common)?;
        let data = data_dir(&cfg, self.data);
        let dirs = crate::commands::index_dirs(&data, &self.shard);
        let listen = match self.listen {
            Some(l) => l,
            None => cfg.section::<ServeSettings>()?.listen,
        };
        serve(&cfg, &data, &dirs, &listen, self.public).await?;
        Ok(ExitCode::SUCCESS)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn only_loopback_is_served_without_a_key_unless_public() {
        use super::api_key;
        assert_eq!(api_key("127.0.0.1:8080", false, None).unwrap(), None);
        assert_eq!(
            api_key("[::1]:8080", false, Some(" ".into())).unwrap(),
            None
        );
        let e = api_key("0.0.0.0:8080", false, None)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("GLEANER_API_KEY") && e.contains("--public"),
            "{e}"
        );
        assert_eq!(api_key("0.0.0.0:8080", true, None).unwrap(), None);
        for bad in ["nonsense", "127.0.0.1", "localhost:http", "[::1]:99999"] {
            let e = api_key(bad, true, None).unwrap_err().to_string();
            assert!(e.contains("is not HOST:PORT"), "{bad}: {e}");
        }
        assert_eq!(
            api_key("0.0.0.0:8080", false, Some("k".into())).unwrap(),
            Some("k".to_string())
        );
    }
}
