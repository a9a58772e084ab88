//! `/api/v1/stories`: the stories with reports in a time range, by size or
//! by growth; `/api/v1/stories/{id}`: one story's timeline, first report
//! first. Errors as the rest of the API.

use super::api::{allowed, bad, bounded, number, Api, ApiError, Id};
use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, StatusCode};
use axum::Json;
use gleaner_index::{parse_date, StoriesRequest, StorySort, MAX_LIMIT};
use std::sync::Arc;

/// A stories request from the query string, every parameter checked.
pub fn parse_stories(raw: &str) -> Result<StoriesRequest, ApiError> {
    let mut req = StoriesRequest {
        limit: 20,
        min_reports: 2,
        ..StoriesRequest::default()
    };
    for (k, v) in url::form_urlencoded::parse(raw.as_bytes()) {
        match k.as_ref() {
            "from" => {
                req.from = Some(parse_date(&v, false).map_err(|e| bad(format!("from: {e}")))?)
            }
            "to" => req.to = Some(parse_date(&v, true).map_err(|e| bad(format!("to: {e}")))?),
            "sort" => {
                req.sort = match v.as_ref() {
                    "size" => StorySort::Size,
                    "growth" => StorySort::Growth,
                    other => {
                        return Err(bad(format!("sort must be size or growth (got {other:?})")))
                    }
                }
            }
            "min_reports" => req.min_reports = number("min_reports", &v)? as u64,
            "offset" => req.offset = number("offset", &v)?,
            "limit" => {
                let n = number("limit", &v)?;
                if !(1..=MAX_LIMIT).contains(&n) {
                    return Err(bad(format!(
                        "limit must be within 1..={MAX_LIMIT} (got {v:?})"
                    )));
                }
                req.limit = n;
            }
            other => {
                return Err(bad(format!(
                "unknown parameter {other:?} (known: from, to, sort, min_reports, offset, limit)"
            )))
            }
        }
    }
    if let (Some(from), Some(to)) = (req.from, req.to) {
        if from >= to {
            return Err(bad("from must be before to"));
        }
    }
    Ok(req)
}

pub(super) async fn list(
    State(api): State<Arc<Api>>,
    headers: HeaderMap,
    RawQuery(raw): RawQuery,
) -> Result<Json<gleaner_index::StoryList>, ApiError> {
    allowed(&api, &headers)?;
    let req = parse_stories(raw.as_deref().unwrap_or(""))?;
    let idx = api.idx.clone();
    Ok(Json(bounded(&api, move || idx.stories(&req)).await?))
}

pub(super) async fn one(
    State(api): State<Arc<Api>>,
    headers: HeaderMap,
    Id(id): Id,
) -> Result<Json<gleaner_index::StoryView>, ApiError> {
    allowed(&api, &headers)?;
    let idx = api.idx.clone();
    let wanted = id.clone();
    match bounded(&api, move || idx.story(&wanted)).await? {
        Some(s) => Ok(Json(s)),
        None => Err(ApiError(
            StatusCode::NOT_FOUND,
            "not_found",
            format!("no story {id:?} in the index"),
        )),
    }
}

#[cfg(test)]
#[path = "stories_api_tests.rs"]
mod tests;
