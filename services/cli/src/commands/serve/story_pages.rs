//! The stories view of the search page: `/stories` lists the stories with
//! reports in a range (largest or fastest growing first, as the API's
//! `/api/v1/stories`, whose parameters it takes), `/story/{id}` one
//! story's reports, first report first. Plain HTML, every value escaped.

use super::browse::Params;
use super::page::STYLE;
use super::page_errors::{PageError, PageId};
use super::Shared;
use axum::extract::{RawQuery, State};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use gleaner_core::util::day_of as day;
use gleaner_index::{StoryList, StoryView};
use htmlize::{escape_attribute, escape_text};
use std::fmt::Write;

fn head(page: &mut String, title: &str) {
    let _ = write!(
        page,
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\
         <title>{} · gleaner</title><style>{STYLE}</style></head><body>\
         <p><a href=\"/\">← Search</a> · <a href=\"/stories\">Stories</a></p><h1>{}</h1>",
        escape_text(title),
        escape_text(title)
    );
}

fn story_link(id: &str) -> String {
    format!(
        "/story/{}",
        url::form_urlencoded::byte_serialize(id.as_bytes()).collect::<String>()
    )
}

/// The list's page.
pub fn render_list(list: &StoryList, p: &Params) -> String {
    let mut page = String::with_capacity(8 * 1024);
    head(&mut page, "Stories");
    let sort = p.get("sort").unwrap_or("size");
    let _ = write!(
        page,
        "<p class=\"note\" role=\"status\">{} stor{} · {:.0} ms · order:",
        list.total,
        if list.total == 1 { "y" } else { "ies" },
        list.took_ms
    );
    for (s, label) in [
        ("size", "most reports"),
        ("growth", "most reports in range"),
    ] {
        if s == sort {
            let _ = write!(page, " <b aria-current=\"true\">{label}</b>");
        } else {
            let link = p.link_to("/stories", &[("sort", s)], false);
            let _ = write!(page, " <a href=\"{}\">{label}</a>", escape_attribute(link));
        }
    }
    page.push_str("</p>");
    if list.stories.is_empty() {
        // The list's own request says what "none" means.
        let min: u64 = p
            .get("min_reports")
            .and_then(|v| v.parse().ok())
            .unwrap_or(2);
        let ranged = p.get("from").is_some() || p.get("to").is_some();
        let _ = write!(
            page,
            "<p class=\"note\">No story{}{} yet.</p>",
            if min > 1 {
                format!(" has {min} reports")
            } else {
                String::new()
            },
            if ranged { " in this range" } else { "" }
        );
    }
    for s in &list.stories {
        let _ = write!(
            page,
            "<article class=\"hit\"><h2><a href=\"{}\">{}</a></h2>\
             <div class=\"meta\">{} · {} · {}</div></article>",
            escape_attribute(story_link(&s.id)),
            escape_text(&s.title),
            reports(s.reports),
            escape_text(s.sites.join(", ")),
            escape_text(days(&s.first_report, &s.last_report)),
        );
    }
    page.push_str("</body></html>");
    page
}

/// "1 report", "3 reports".
fn reports(n: u64) -> String {
    format!("{n} report{}", if n == 1 { "" } else { "s" })
}

/// The days a story spans: one day once, else first to last.
fn days(first: &str, last: &str) -> String {
    match (day(first), day(last)) {
        (a, b) if a == b => a.to_string(),
        (a, b) => format!("{a} to {b}"),
    }
}

/// One story's page: its reports, first first.
pub fn render_story(s: &StoryView) -> String {
    let mut page = String::with_capacity(4096);
    head(&mut page, &s.title);
    let _ = write!(
        page,
        "<p class=\"note\">{} on {}</p><ol>",
        reports(s.reports.len() as u64),
        escape_text(s.sites.join(", "))
    );
    for r in &s.reports {
        let article = format!(
            "/article/{}",
            url::form_urlencoded::byte_serialize(r.id.as_bytes()).collect::<String>()
        );
        let _ = write!(
            page,
            "<li><a href=\"{}\">{}</a> <span class=\"meta\">{} · {}</span></li>",
            escape_attribute(article),
            escape_text(&r.title),
            escape_text(&r.site),
            escape_text(day(r.published.as_deref().unwrap_or("")))
        );
    }
    page.push_str("</ol></body></html>");
    page
}

pub(super) async fn list(State(idx): State<Shared>, RawQuery(raw): RawQuery) -> Response {
    let raw = raw.unwrap_or_default();
    let req = match super::stories_api::parse_stories(&raw) {
        Ok(r) => r,
        Err(e) => return PageError(StatusCode::BAD_REQUEST, e.2).into_response(),
    };
    match tokio::task::spawn_blocking(move || idx.stories(&req)).await {
        Ok(Ok(list)) => Html(render_list(&list, &Params::parse(&raw))).into_response(),
        _ => PageError::unreadable().into_response(),
    }
}

pub(super) async fn one(State(idx): State<Shared>, PageId(id): PageId) -> Response {
    match tokio::task::spawn_blocking(move || idx.story(&id)).await {
        Ok(Ok(Some(s))) => Html(render_story(&s)).into_response(),
        Ok(Ok(None)) => PageError::not_found("story").into_response(),
        _ => PageError::unreadable().into_response(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gleaner_index::{Report, StorySummary};

    #[test]
    fn the_stories_view_links_each_story_and_escapes_everything() {
        let list = StoryList {
            total: 1,
            took_ms: 1.0,
            stories: vec![StorySummary {
                id: "a b".into(),
                title: "Ferry <strike>".into(),
                reports: 3,
                reports_in_range: 3,
                sites: vec!["a.com".into(), "b.org".into()],
                first_report: "2026-03-01T00:00:00Z".into(),
                last_report: "2026-03-04T00:00:00Z".into(),
            }],
        };
        let page = render_list(&list, &Params::parse("from=2026-03-01"));
        assert!(
            page.contains("href=\"/story/a+b\">Ferry &lt;strike&gt;</a>"),
            "{page}"
        );
        assert!(
            page.contains("3 reports · a.com, b.org · 2026-03-01 to 2026-03-04"),
            "{page}"
        );
        assert!(
            page.contains("href=\"/stories?from=2026-03-01&amp;sort=growth\""),
            "{page}"
        );
        let story = StoryView {
            id: "a".into(),
            title: "Ferry strike".into(),
            sites: vec!["a.com".into()],
            reports: vec![Report {
                id: "r1".into(),
                url: "https://a.com/r1".into(),
                title: "Strike <b>begins</b>".into(),
                site: "a.com".into(),
                published: Some("2026-03-01T00:00:00Z".into()),
            }],
        };
        let page = render_story(&story);
        assert!(
            page.contains("<a href=\"/article/r1\">Strike &lt;b&gt;begins&lt;/b&gt;</a>"),
            "{page}"
        );
        assert!(page.contains("1 report on a.com"), "{page}");
        // A story of one report on one day says so once.
        let mut one = list.clone();
        one.stories[0].reports = 1;
        one.stories[0].last_report = "2026-03-01T09:00:00Z".into();
        let page = render_list(&one, &Params::parse(""));
        assert!(
            page.contains("1 report · a.com, b.org · 2026-03-01</div>"),
            "{page}"
        );
    }
}
