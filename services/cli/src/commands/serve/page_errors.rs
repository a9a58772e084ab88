//! Errors of the HTML pages as pages: a reader who follows a stale link or
//! mistypes an id gets the site's own page with the reason and the way back,
//! not a line of plain text (the API answers JSON instead, see api.rs).

use super::page::STYLE;
use axum::extract::{FromRequestParts, Path};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use htmlize::escape_text;

/// An HTML page saying what went wrong, with links back to search and stories.
pub(super) struct PageError(pub StatusCode, pub String);

impl PageError {
    pub fn not_found(what: &str) -> Self {
        PageError(
            StatusCode::NOT_FOUND,
            format!(
                "No such {what}. It may have been removed from the index, or the link is mistyped."
            ),
        )
    }

    pub fn unreadable() -> Self {
        PageError(
            StatusCode::SERVICE_UNAVAILABLE,
            "The index could not be read just now; try again in a moment.".into(),
        )
    }
}

impl IntoResponse for PageError {
    fn into_response(self) -> Response {
        let PageError(status, detail) = self;
        let title = status.canonical_reason().unwrap_or("Error");
        let body = format!(
            "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">\
             <meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\
             <title>{title} · gleaner</title><style>{STYLE}</style></head><body>\
             <p><a href=\"/\">← Search</a> · <a href=\"/stories\">Stories</a></p>\
             <h1>{title}</h1><p role=\"alert\">{}</p></body></html>",
            escape_text(&detail)
        );
        (status, Html(body)).into_response()
    }
}

/// The id in a page's path; one that is not UTF-8 is a page saying so.
pub(super) struct PageId(pub String);

impl<S: Send + Sync> FromRequestParts<S> for PageId {
    type Rejection = PageError;

    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        state: &S,
    ) -> Result<Self, PageError> {
        Path::<String>::from_request_parts(parts, state)
            .await
            .map(|Path(id)| PageId(id))
            .map_err(|e| {
                PageError(
                    StatusCode::BAD_REQUEST,
                    format!("The id in the address: {}", e.body_text()),
                )
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn an_error_is_an_escaped_page_with_its_status() {
        let r = PageError(StatusCode::BAD_REQUEST, "bad <id>".into()).into_response();
        assert_eq!(r.status(), StatusCode::BAD_REQUEST);
        let ct = r.headers()["content-type"].to_str().unwrap().to_string();
        assert!(ct.starts_with("text/html"), "{ct}");
        let body = axum::body::to_bytes(r.into_body(), 1 << 20).await.unwrap();
        let body = String::from_utf8(body.to_vec()).unwrap();
        assert!(body.contains("bad &lt;id&gt;"), "{body}");
        assert!(body.contains("<h1>Bad Request</h1>"), "{body}");
        assert!(body.contains("href=\"/\""), "{body}");
    }
}
