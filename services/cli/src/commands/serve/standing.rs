//! Standing queries: `/api/v1/feed` serves an Atom feed of a search's
//! newest matches, for any feed reader; `/api/v1/stream` pushes each newly
//! indexed article that matches as a server-sent event, within a second of
//! its commit. Both take the search's query and filters.

use super::api::{allowed, bounded, parse_search, Api, ApiError};
use axum::extract::{RawQuery, State};
use axum::http::HeaderMap;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::IntoResponse;
use futures::Stream;
use gleaner_index::{Hit, SearchRequest, Sort};
use std::collections::{HashSet, VecDeque};
use std::convert::Infallible;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

/// How often a stream looks for new matches.
const POLL: Duration = Duration::from_millis(250);
/// Ids a stream remembers having sent (new matches are few per poll).
const REMEMBERED: usize = 10_000;
/// Streams open at once: each searches four times a second.
pub const MAX_STREAMS: usize = 64;

/// One open stream, counted while it lives.
struct Open(Arc<Api>);

impl Drop for Open {
    fn drop(&mut self) {
        self.0.streams.fetch_sub(1, Ordering::SeqCst);
    }
}

/// The request of a standing query: newest first, no facets.
fn standing(raw: Option<&str>, limit: usize) -> Result<SearchRequest, ApiError> {
    let mut req = parse_search(raw.unwrap_or(""))?;
    req.sort = Sort::Newest;
    req.facets = false;
    req.offset = 0;
    req.limit = req.limit.clamp(1, limit);
    req.whole_words = true;
    Ok(req)
}

pub async fn feed(
    State(api): State<Arc<Api>>,
    headers: HeaderMap,
    RawQuery(raw): RawQuery,
) -> Result<impl IntoResponse, ApiError> {
    allowed(&api, &headers)?;
    let req = standing(raw.as_deref(), 100)?;
    let q = req.q.clone();
    let idx = api.idx.clone();
    let found = bounded(&api, move || idx.find(&req)).await?;
    let updated = found
        .hits
        .iter()
        .filter_map(|h| h.published.as_deref())
        .max()
        .unwrap_or("1970-01-01T00:00:00Z")
        .to_string();
    let entries = found.hits.iter().map(entry).collect::<Vec<_>>();
    let mut feed = atom_syndication::Feed::default();
    feed.set_title(format!(
        "gleaner: {}",
        if q.is_empty() { "newest articles" } else { &q }
    ));
    feed.set_id(format!("urn:gleaner:feed:{}", raw.unwrap_or_default()));
    feed.set_updated(parse_time(&updated));
    feed.set_entries(entries);
    Ok((
        [(
            axum::http::header::CONTENT_TYPE,
            "application/atom+xml; charset=utf-8",
        )],
        feed.to_string(),
    ))
}

fn parse_time(s: &str) -> atom_syndication::FixedDateTime {
    atom_syndication::FixedDateTime::parse_from_rfc3339(s).unwrap_or_default()
}

/// One hit as an Atom entry: its title, link, time, summary and snippet.
fn entry(h: &Hit) -> atom_syndication::Entry {
    let summary = h
        .summaries
        .as_array()
        .and_then(|s| s.first())
        .and_then(|s| s["text"].as_str())
        .unwrap_or(&h.snippet)
        .to_string();
    let mut link = atom_syndication::Link::default();
    link.set_href(h.url.clone());
    let mut e = atom_syndication::Entry::default();
    e.set_title(h.title.clone());
    e.set_id(format!("urn:gleaner:article:{}", h.id));
    e.set_links(vec![link]);
    e.set_updated(parse_time(
        h.published.as_deref().unwrap_or("1970-01-01T00:00:00Z"),
    ));
    e.set_summary(Some(atom_syndication::Text::plain(summary)));
    e
}

/// What a stream keeps between polls.
struct Watch {
    api: Arc<Api>,
    _open: Open,
    req: SearchRequest,
    sent: HashSet<String>,
    order: VecDeque<String>,
    pending: VecDeque<Hit>,
}

impl Watch {
    /// Matches taken in since a second before the last look, not yet sent
    /// (queued to send when `emit`, else only remembered).
    async fn poll(&mut self, emit: bool) {
        let since = gleaner_core::util::unix_now() as i64 - 1;
        let idx = self.api.idx.clone();
        let req = self.req.clone();
        let found = bounded(&self.api, move || {
            idx.reload()?;
            idx.find(&req)
        })
        .await;
        self.req.indexed_from = Some(since);
        let Ok(found) = found else {
            return;
        };
        for h in found.hits.into_iter().rev() {
            if self.sent.insert(h.id.clone()) {
                self.order.push_back(h.id.clone());
                if self.order.len() > REMEMBERED {
                    if let Some(old) = self.order.pop_front() {
                        self.sent.remove(&old);
                    }
                }
                if emit {
                    self.pending.push_back(h);
                }
            }
        }
    }
}

pub async fn stream(
    State(api): State<Arc<Api>>,
    headers: HeaderMap,
    RawQuery(raw): RawQuery,
) -> Result<Sse<impl Stream<Item = Result<Event, Infallible>>>, ApiError> {
    allowed(&api, &headers)?;
    let mut req = standing(raw.as_deref(), 100)?;
    if api.streams.fetch_add(1, Ordering::SeqCst) >= MAX_STREAMS {
        api.streams.fetch_sub(1, Ordering::SeqCst);
        return Err(ApiError(
            axum::http::StatusCode::SERVICE_UNAVAILABLE,
            "too_many_streams",
            format!("{MAX_STREAMS} streams are open; close one, or read /api/v1/feed instead"),
        ));
    }
    let open = Open(api.clone());
    // Only what is taken in from now on: what the index took in this last
    // second is remembered as sent (the index keeps whole seconds).
    req.indexed_from = Some(gleaner_core::util::unix_now() as i64 - 1);
    let mut watch = Watch {
        api,
        _open: open,
        req,
        sent: HashSet::new(),
        order: VecDeque::new(),
        pending: VecDeque::new(),
    };
    watch.poll(false).await;
    let events = futures::stream::unfold(watch, |mut w| async move {
        loop {
            if let Some(hit) = w.pending.pop_front() {
                let data = serde_json::to_string(&hit).unwrap_or_default();
                return Some((Ok(Event::default().event("article").data(data)), w));
            }
            tokio::time::sleep(POLL).await;
            w.poll(true).await;
        }
    });
    Ok(Sse::new(events).keep_alive(KeepAlive::default()))
}
