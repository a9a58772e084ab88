//! `/api/v1`: search with filters, order, paging and facets; one article
//! whole; the index's figures; the OpenAPI document that describes them.
//! Errors are `{"error": code, "detail": text}` with 400, 401, 404 or 503;
//! every parameter is checked and bounded before the index is asked, and
//! every query is bounded in time.

use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use gleaner_index::{parse_date, SearchIndex, SearchRequest, MAX_LIMIT};
use std::sync::Arc;
use std::time::Duration;

/// The document that describes this API, checked against real answers by
/// a test.
pub const OPENAPI: &str = include_str!("openapi.json");

/// Most `site` filters in one request.
const MAX_SITES: usize = 100;

/// What the API answers from.
pub struct Api {
    pub idx: Arc<SearchIndex>,
    /// Every request needs `Authorization: Bearer KEY` when set.
    pub key: Option<String>,
    /// A query still running after this is answered 503.
    pub timeout: Duration,
    /// Streams open now (each polls the index): at most `MAX_STREAMS`.
    pub streams: std::sync::atomic::AtomicUsize,
}

/// An error as the API answers it.
pub struct ApiError(pub StatusCode, pub &'static str, pub String);

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = serde_json::json!({"error": self.1, "detail": self.2});
        (self.0, Json(body)).into_response()
    }
}

pub(super) fn bad(detail: impl Into<String>) -> ApiError {
    ApiError(StatusCode::BAD_REQUEST, "bad_request", detail.into())
}

/// The id in a path (`/articles/{id}`), or the API's 400 when it cannot
/// be read (`%ff`, not UTF-8), instead of axum's plain-text answer.
pub(super) struct Id(pub String);

impl<S: Send + Sync> axum::extract::FromRequestParts<S> for Id {
    type Rejection = ApiError;

    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        state: &S,
    ) -> Result<Self, ApiError> {
        Path::<String>::from_request_parts(parts, state)
            .await
            .map(|Path(id)| Id(id))
            .map_err(|e| bad(format!("the id in the path: {}", e.body_text())))
    }
}

/// A path under `/api` that names no endpoint.
pub(super) async fn no_such_endpoint(uri: axum::http::Uri) -> ApiError {
    ApiError(
        StatusCode::NOT_FOUND,
        "not_found",
        format!(
            "no endpoint {} (the endpoints are in /api/v1/openapi.json)",
            uri.path()
        ),
    )
}

/// An endpoint asked with a method other than GET.
pub(super) async fn method_not_allowed(
    method: axum::http::Method,
    uri: axum::http::Uri,
) -> Response {
    let mut r = ApiError(
        StatusCode::METHOD_NOT_ALLOWED,
        "method_not_allowed",
        format!("{} takes GET, not {method}", uri.path()),
    )
    .into_response();
    r.headers_mut().insert(
        axum::http::header::ALLOW,
        axum::http::HeaderValue::from_static("GET, HEAD"),
    );
    r
}

/// 401 unless the request carries the key (when one is set).
pub(super) fn allowed(api: &Api, headers: &HeaderMap) -> Result<(), ApiError> {
    let Some(key) = &api.key else {
        return Ok(());
    };
    let given = headers
        .get(axum::http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "));
    match given {
        Some(g) if g.as_bytes() == key.as_bytes() => Ok(()),
        _ => Err(ApiError(
            StatusCode::UNAUTHORIZED,
            "unauthorized",
            "send Authorization: Bearer <the key gleaner serve was given in GLEANER_API_KEY>"
                .into(),
        )),
    }
}

/// Runs `f` on the blocking threads, answering 503 past the time limit.
pub(super) async fn bounded<T: Send + 'static>(
    api: &Api,
    f: impl FnOnce() -> anyhow::Result<T> + Send + 'static,
) -> Result<T, ApiError> {
    let ms = api.timeout.as_millis();
    match tokio::time::timeout(api.timeout, tokio::task::spawn_blocking(f)).await {
        Err(_) => Err(ApiError(
            StatusCode::SERVICE_UNAVAILABLE,
            "timeout",
            format!("the query took longer than {ms} ms (serve.query_timeout_ms); narrow it"),
        )),
        Ok(Err(e)) => Err(ApiError(
            StatusCode::SERVICE_UNAVAILABLE,
            "unavailable",
            e.to_string(),
        )),
        Ok(Ok(Err(e))) => Err(ApiError(
            StatusCode::SERVICE_UNAVAILABLE,
            "unavailable",
            format!("{e:#}"),
        )),
        Ok(Ok(Ok(v))) => Ok(v),
    }
}

fn flag(key: &str, v: &str) -> Result<bool, ApiError> {
    match v {
        "true" | "1" | "yes" => Ok(true),
        "false" | "0" | "no" => Ok(false),
        _ => Err(bad(format!("{key} must be true or false (got {v:?})"))),
    }
}

/// A whole number ([`crate::commands::whole_number`]).
pub(super) fn number(key: &str, v: &str) -> Result<usize, ApiError> {
    crate::commands::whole_number(v)
        .ok_or_else(|| bad(format!("{key} must be a whole number (got {v:?})")))
}

/// A search request from the query string, every parameter checked.
pub fn parse_search(raw: &str) -> Result<SearchRequest, ApiError> {
    let mut req = SearchRequest {
        limit: 10,
        facets: true,
        ..SearchRequest::default()
    };
    let (mut offset, mut cursor) = (None, None);
    let mut given: Vec<String> = Vec::new();
    for (k, v) in url::form_urlencoded::parse(raw.as_bytes()) {
        // Only site repeats; a second q or limit would quietly win.
        if k != "site" && !v.trim().is_empty() {
            if given.iter().any(|g| *g == k) {
                return Err(bad(format!("{k} given twice (only site repeats)")));
            }
            given.push(k.to_string());
        }
        match k.as_ref() {
            // Its length and nesting are checked with its operators below
            // (`check_query`, shared with the CLI).
            "q" => req.q = v.into_owned(),
            // An empty filter is no filter, as a form sends a field left
            // blank (`site=&from=`).
            "site" | "lang" | "from" | "to" if v.trim().is_empty() => {}
            "site" => {
                if req.sites.len() >= MAX_SITES {
                    return Err(bad(format!("at most {MAX_SITES} site filters")));
                }
                req.sites.push(v.into_owned());
            }
            "lang" => {
                gleaner_index::check_language(&v).map_err(|e| bad(e.to_string()))?;
                req.lang = Some(v.into_owned())
            }
            "from" => req.from = Some(parse_date(&v, false).map_err(|e| bad(format!("from: {e}")))?),
            "to" => req.to = Some(parse_date(&v, true).map_err(|e| bad(format!("to: {e}")))?),
            "has_summary" => req.has_summary = Some(flag("has_summary", &v)?),
            "facets" => req.facets = flag("facets", &v)?,
            "sort" => req.sort = v.parse().map_err(|e: anyhow::Error| bad(e.to_string()))?,
            "limit" => {
                let n = number("limit", &v)?;
                if !(1..=MAX_LIMIT).contains(&n) {
                    return Err(bad(format!("limit must be within 1..={MAX_LIMIT} (got {v:?})")));
                }
                req.limit = n;
            }
            "offset" => offset = Some(number("offset", &v)?),
            "snippet_chars" => {
                let n = number("snippet_chars", &v)?;
                let range = gleaner_index::SNIPPET_CHARS;
                if !range.contains(&n) {
                    return Err(bad(format!(
                        "snippet_chars must be within {}..={} (got {v:?})",
                        range.start(),
                        range.end()
                    )));
                }
                req.snippet_chars = Some(n);
            }
            "cursor" => cursor = Some(v.into_owned()),
            "group" => {
                req.group_by_story = match v.as_ref() {
                    "story" => true,
                    "article" => false,
                    other => {
                        return Err(bad(format!(
                            "group must be story or article (got {other:?})"
                        )))
                    }
                }
            }
            other => {
                return Err(bad(format!(
                    "unknown parameter {other:?} (known: q, site, lang, from, to, has_summary, sort, offset, limit, cursor, facets, snippet_chars, group)"
                )))
            }
        }
    }
    req.offset = match (offset, cursor) {
        (Some(_), Some(_)) => return Err(bad("give offset or cursor, not both")),
        (Some(o), None) => o,
        (None, Some(c)) => c
            .strip_prefix('o')
            .and_then(|n| n.parse().ok())
            .ok_or_else(|| bad(format!("not a cursor of this API: {c:?}")))?,
        (None, None) => 0,
    };
    req.lift_operators().map_err(|e| bad(format!("q: {e:#}")))?;
    if let (Some(from), Some(to)) = (req.from, req.to) {
        if from >= to {
            return Err(bad("from must be before to"));
        }
    }
    Ok(req)
}

pub(super) async fn search(
    State(api): State<Arc<Api>>,
    headers: HeaderMap,
    RawQuery(raw): RawQuery,
) -> Result<Json<serde_json::Value>, ApiError> {
    allowed(&api, &headers)?;
    let req = parse_search(raw.as_deref().unwrap_or(""))?;
    let idx = api.idx.clone();
    let (q, offset, limit) = (req.q.clone(), req.offset, req.limit);
    let found = bounded(&api, move || idx.find(&req)).await?;
    // The hits are clusters of copies: there may be more pages while
    // offset + limit is under the total.
    let next = (found.hits.len() == limit
        && (offset as u64).saturating_add(limit as u64) < found.total)
        .then(|| format!("o{}", offset + limit));
    let mut body = serde_json::to_value(&found).map_err(|e| bad(e.to_string()))?;
    body["query"] = q.into();
    body["offset"] = offset.into();
    body["limit"] = limit.into();
    if let Some(n) = next {
        body["next_cursor"] = n.into();
    }
    Ok(Json(body))
}

pub(super) async fn article(
    State(api): State<Arc<Api>>,
    headers: HeaderMap,
    Id(id): Id,
) -> Result<Json<gleaner_index::ArticleView>, ApiError> {
    allowed(&api, &headers)?;
    let idx = api.idx.clone();
    let wanted = id.clone();
    match bounded(&api, move || idx.article(&wanted)).await? {
        Some(a) => Ok(Json(a)),
        None => Err(ApiError(
            StatusCode::NOT_FOUND,
            "not_found",
            format!("no article {id:?} in the index"),
        )),
    }
}

pub(super) async fn stats(
    State(api): State<Arc<Api>>,
    headers: HeaderMap,
) -> Result<Json<gleaner_index::Stats>, ApiError> {
    allowed(&api, &headers)?;
    let idx = api.idx.clone();
    Ok(Json(bounded(&api, move || Ok(idx.stats())).await?))
}

pub(super) async fn openapi() -> impl IntoResponse {
    (
        [(axum::http::header::CONTENT_TYPE, "application/json")],
        OPENAPI,
    )
}

#[cfg(test)]
#[path = "api_tests.rs"]
pub(super) mod tests;
