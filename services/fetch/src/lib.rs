//! The fetch stage: a polite crawler. Seeds and frontier links in; pages and
//! newly found links out.
//!
//! Politeness: robots.txt is honoured (cached per host), requests to one host
//! are spaced by max(configured delay, Crawl-delay), and a Bloom filter keeps
//! a URL from being fetched twice. Safety: names are resolved and private,
//! loopback, link-local and multicast addresses refused unless allowed.

pub mod bloom;
mod feeds;
mod links;
mod parked;
pub mod robots;
mod schedule;
mod state;

use async_trait::async_trait;
use bloom::Bloom;
use futures::StreamExt;
use gleaner_core::messages::{FrontierLink, Page, Scope, Seed};
use gleaner_core::stage::{Handled, Input, Output, Stage};
use gleaner_core::util::{doc_id, host_of, normalise_url_stripping, now_rfc3339};
use gleaner_core::Topic;
use gleaner_core::{config, metrics};
use robots::{AgentRules, Robots};
use schedule::Validators;
use std::collections::{BTreeMap, HashMap};
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use url::Url;

/// Whether an address may be fetched without `allow_private`.
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => {
            let o = v4.octets();
            !(v4.is_private()
                || v4.is_loopback()
                || v4.is_link_local()
                || v4.is_multicast()
                || v4.is_broadcast()
                || v4.is_unspecified()
                || o[0] == 0
                || (o[0] == 100 && (64..128).contains(&o[1]))) // carrier-grade NAT
        }
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return is_public(IpAddr::V4(v4));
            }
            let seg = v6.segments();
            !(v6.is_loopback()
                || v6.is_unspecified()
                || v6.is_multicast()
                || (seg[0] & 0xfe00) == 0xfc00 // unique local
                || (seg[0] & 0xffc0) == 0xfe80) // link-local
        }
    }
}

/// Resolves names for reqwest and drops addresses that may not be fetched,
/// so a public name pointing at 127.0.0.1 cannot slip through.
struct GuardedResolver {
    allow_private: bool,
}

impl reqwest::dns::Resolve for GuardedResolver {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let allow = self.allow_private;
        Box::pin(async move {
            let host = name.as_str().to_string();
            let addrs: Vec<SocketAddr> =
                tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            let ok: Vec<SocketAddr> = addrs
                .into_iter()
                .filter(|a| allow || is_public(a.ip()))
                .collect();
            if ok.is_empty() {
                return Err(format!("{host} resolves only to private or reserved addresses (see fetch.allow_private)").into());
            }
            Ok(Box::new(ok.into_iter()) as reqwest::dns::Addrs)
        })
    }
}

#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    #[error("not an http(s) URL: {0}")]
    BadUrl(String),
    #[error("refused: {0} is a private or reserved address (see fetch.allow_private)")]
    Private(String),
    #[error("disallowed by robots.txt: {0}")]
    Robots(String),
    #[error("robots.txt of {host} unavailable ({why}); not crawling the host")]
    RobotsUnavailable { host: String, why: String },
    #[error("host {host} is paused for {secs} s more ({why}); not fetched")]
    HostPaused {
        host: String,
        secs: u64,
        why: String,
    },
    #[error("challenge page instead of content at {0}")]
    Challenge(String),
    #[error("deferred: {0} would wait too long for its host in this batch")]
    Deferred(String),
    #[error("HTTP {status} for {url}")]
    Status { status: u16, url: String },
    #[error("not HTML ({content_type}) at {url}")]
    NotHtml { content_type: String, url: String },
    #[error("request to {url} failed: {why}")]
    Request { url: String, why: String },
}

impl FetchError {
    /// A short name for metrics.
    pub fn kind(&self) -> &'static str {
        match self {
            FetchError::BadUrl(_) => "bad_url",
            FetchError::Private(_) => "private_address",
            FetchError::Robots(_) => "robots_disallowed",
            FetchError::RobotsUnavailable { .. } => "robots_unavailable",
            FetchError::HostPaused { .. } => "host_paused",
            FetchError::Challenge(_) => "challenge",
            FetchError::Deferred(_) => "deferred",
            FetchError::Status { status: 429, .. } => "http_429",
            FetchError::Status { status: 403, .. } => "http_403",
            FetchError::Status { status, .. } if *status >= 500 => "http_5xx",
            FetchError::Status { .. } => "http_4xx",
            FetchError::NotHtml { .. } => "not_html",
            FetchError::Request { .. } => "request",
        }
    }
}

/// Per-host state: the politeness clock and the robots.txt rules.
#[derive(Default)]
struct HostState {
    last_send: Option<Instant>,
    robots: Option<(AgentRules, Instant)>,
    /// Whether each of the last responses looked like a block (403, 429,
    /// challenge page).
    recent: std::collections::VecDeque<bool>,
    consecutive_errors: u32,
    paused_until: Option<Instant>,
    pause_reason: String,
    /// The last pause's length, doubled on the next one unless forgiven.
    last_pause: Option<Duration>,
}

/// How a fetch went, for the host's health.
enum Outcome {
    Fine,
    Blocked,
    Error,
}

/// Markers of bot-challenge and block pages.
const CHALLENGE_MARKERS: &[&str] = &[
    "cf-browser-verification",
    "challenge-platform",
    "cf_chl_",
    "attention required! | cloudflare",
    "g-recaptcha",
    "h-captcha",
    "are you a robot",
    "verify you are human",
    "access denied",
];

fn looks_like_challenge(html: &str) -> bool {
    if html.len() > 64 * 1024 {
        return false;
    }
    let lower = html.to_ascii_lowercase();
    CHALLENGE_MARKERS.iter().any(|m| lower.contains(m))
}

struct Shared {
    /// One client per proxy (or one direct client when there are none).
    clients: Vec<Route>,
    cfg: config::Fetch,
    agent_token: String,
    allow_private: bool,
    hosts: Mutex<HashMap<String, HostState>>,
    // Serialises robots.txt fetches per host so a batch fetches it once.
    robots_locks: Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>,
    // Sitemaps found in robots.txt, per host, until a page of the host
    // carries them into the frontier.
    robots_sitemaps: Mutex<HashMap<String, Vec<String>>>,
    // At most fetch.per_host_concurrency requests in flight per host.
    host_slots: Mutex<HashMap<String, Arc<tokio::sync::Semaphore>>>,
    // At most fetch.concurrency requests in flight, batches and background together.
    slots: Arc<tokio::sync::Semaphore>,
}

/// A way out: direct, or through one proxy, which is benched for a while
/// when it fails.
struct Route {
    client: reqwest::Client,
    proxy: Option<String>,
    benched_until: Mutex<Option<Instant>>,
}

/// What one fetch produced.
pub struct Fetched {
    /// The page, or `None` for a sitemap or feed (which only lists URLs).
    pub page: Option<Page>,
    /// URLs found: links of a page, or the pages a sitemap or feed lists.
    pub links: Vec<String>,
    /// Sitemaps to read next: from a sitemap index, or from robots.txt.
    /// They do not count as a step of depth.
    pub sitemaps: Vec<String>,
    /// A conditional recrawl answered 304, or a recrawl returned the same
    /// body as last time: the page has not changed since it was last
    /// fetched, and nothing goes downstream.
    pub not_modified: bool,
}

impl Shared {
    /// Waits for this host's next politeness slot and books the one after.
    /// Waits until `delay` has passed since the last request to this host
    /// was sent, and marks now as the last send. The check and the mark are
    /// one step under the lock, so sends are spaced whatever the
    /// concurrency; a small margin covers the scheduling jitter between our
    /// send and the server's receipt.
    async fn wait_turn(&self, host: &str, delay: Duration) {
        self.wait_turn_until(host, delay, None).await;
    }

    /// Counts the host's delay from when its answer arrived, not only from
    /// when the request left: the server saw the request somewhere in
    /// between, so gaps measured at the server never come out shorter.
    fn mark_answered(&self, host: &str) {
        let mut hosts = self.hosts.lock().unwrap_or_else(|p| p.into_inner());
        let h = hosts.entry(host.to_string()).or_default();
        let now = Instant::now();
        h.last_send = Some(h.last_send.map_or(now, |t| t.max(now)));
    }

    /// [`Shared::wait_turn`], giving up (false) rather than waiting past
    /// `deadline`.
    async fn wait_turn_until(
        &self,
        host: &str,
        delay: Duration,
        deadline: Option<Instant>,
    ) -> bool {
        let started = Instant::now();
        let delay = if delay.is_zero() {
            delay
        } else {
            delay + (delay / 50).min(Duration::from_millis(10))
        };
        loop {
            let wake = {
                let mut hosts = self.hosts.lock().unwrap_or_else(|p| p.into_inner());
                let h = hosts.entry(host.to_string()).or_default();
                let now = Instant::now();
                match h.last_send {
                    Some(last) if now < last + delay => last + delay,
                    _ => {
                        h.last_send = Some(now);
                        break;
                    }
                }
            };
            if deadline.is_some_and(|d| wake > d) {
                return false;
            }
            tokio::time::sleep_until(wake.into()).await;
        }
        metrics::add(
            "gleaner_fetch_politeness_wait_seconds_total",
            &[],
            started.elapsed().as_secs_f64(),
        );
        true
    }

    /// The route for a host: proxies are assigned per host (by hash) and
    /// rotated past the benched ones; with every proxy benched, the one
    /// whose bench ends first.
    fn route(&self, host: &str) -> usize {
        let n = self.clients.len();
        if n == 1 {
            return 0;
        }
        let start = (gleaner_core::util::fnv1a64(host.as_bytes()) % n as u64) as usize;
        let now = Instant::now();
        let benched = |i: usize| {
            *self.clients[i]
                .benched_until
                .lock()
                .unwrap_or_else(|p| p.into_inner())
        };
        (0..n)
            .map(|k| (start + k) % n)
            .find(|&i| benched(i).is_none_or(|u| u <= now))
            .unwrap_or_else(|| (0..n).min_by_key(|&i| benched(i)).unwrap_or(0))
    }

    /// GET through the host's route; a proxy that cannot be reached is
    /// benched and the next route tried, so a dead proxy costs no URL.
    async fn send(
        &self,
        host: &str,
        url: &Url,
        validators: Option<&Validators>,
    ) -> Result<reqwest::Response, reqwest::Error> {
        let mut tried = 0;
        loop {
            let route = self.route(host);
            let mut request = self.clients[route].client.get(url.as_str());
            if let Some(v) = validators {
                if let Some(etag) = &v.etag {
                    request = request.header(reqwest::header::IF_NONE_MATCH, etag);
                }
                if let Some(date) = &v.last_modified {
                    request = request.header(reqwest::header::IF_MODIFIED_SINCE, date);
                }
            }
            let result = request.send().await;
            match (&result, &self.clients[route].proxy) {
                (Err(e), Some(proxy))
                    if (e.is_connect() || e.is_timeout()) && tried + 1 < self.clients.len() =>
                {
                    tracing::warn!(proxy = %proxy, error = %error_chain(e), "proxy failed; benched");
                    self.bench(route);
                    tried += 1;
                }
                (Err(e), Some(_)) if e.is_connect() || e.is_timeout() => {
                    self.bench(route);
                    return result;
                }
                _ => return result,
            }
        }
    }

    fn bench(&self, route: usize) {
        let until = Instant::now() + Duration::from_secs(self.cfg.proxy_bench_secs);
        *self.clients[route]
            .benched_until
            .lock()
            .unwrap_or_else(|p| p.into_inner()) = Some(until);
        metrics::inc("gleaner_fetch_proxy_benched_total", &[]);
    }

    /// Exponential backoff with jitter: base · 2^attempt · [0.5, 1.5).
    fn backoff(&self, attempt: u32) -> Duration {
        let base = self.cfg.retry_base_ms.saturating_mul(1 << attempt.min(16));
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        let jitter = (gleaner_core::util::fnv1a64(&nanos.to_le_bytes()) % 1000) as f64 / 1000.0;
        Duration::from_millis((base as f64 * (0.5 + jitter)) as u64)
    }

    /// Whether the host is paused now.
    fn paused(&self, host: &str) -> bool {
        let hosts = self.hosts.lock().unwrap_or_else(|p| p.into_inner());
        hosts
            .get(host)
            .and_then(|h| h.paused_until)
            .is_some_and(|u| u > Instant::now())
    }

    fn base_delay(&self) -> Duration {
        Duration::from_millis(self.cfg.per_host_delay_ms)
    }

    fn cached_rules(&self, host: &str) -> Option<AgentRules> {
        let hosts = self.hosts.lock().unwrap_or_else(|p| p.into_inner());
        let (rules, at) = hosts.get(host)?.robots.as_ref()?;
        (at.elapsed() < Duration::from_secs(self.cfg.robots_cache_secs)).then(|| rules.clone())
    }

    /// The robots.txt rules for the URL's host, fetched once per expiry.
    async fn rules(&self, url: &Url) -> Result<AgentRules, FetchError> {
        let host = host_key(url);
        if let Some(r) = self.cached_rules(&host) {
            return Ok(r);
        }
        let lock = {
            let mut locks = self.robots_locks.lock().unwrap_or_else(|p| p.into_inner());
            locks.entry(host.clone()).or_default().clone()
        };
        let _guard = lock.lock().await;
        if let Some(r) = self.cached_rules(&host) {
            return Ok(r);
        }
        let mut robots_url = url.clone();
        robots_url.set_path("/robots.txt");
        robots_url.set_query(None);
        self.wait_turn(&host, self.base_delay()).await;
        // RFC 9309: 5xx or unreachable means "disallow everything for now";
        // the host waits (backoff) and robots.txt is asked again, up to
        // fetch.max_retries times, before its URLs fail.
        let mut attempt = 0;
        let robots = loop {
            let sent = self.send(&host, &robots_url, None).await;
            self.mark_answered(&host);
            let failure = match sent {
                Ok(resp) if resp.status().is_success() => {
                    let body = read_capped(resp, 512 * 1024)
                        .await
                        .map(|(b, _)| b)
                        .unwrap_or_default();
                    break Robots::parse(&String::from_utf8_lossy(&body));
                }
                // RFC 9309: a 4xx means there are no rules.
                Ok(resp) if resp.status().is_client_error() => break Robots::allow_all(),
                Ok(resp) => format!("HTTP {}", resp.status().as_u16()),
                Err(e) => error_chain(&e),
            };
            if attempt >= self.cfg.max_retries {
                return Err(FetchError::RobotsUnavailable { host, why: failure });
            }
            let wait = self.backoff(attempt);
            tracing::info!(host, attempt, why = %failure, wait_ms = wait.as_millis() as u64, "robots.txt unavailable; waiting");
            attempt += 1;
            tokio::time::sleep(wait).await;
            self.wait_turn(&host, self.base_delay()).await;
        };
        let rules = robots.for_agent(&self.agent_token);
        if self.cfg.follow_sitemaps && !robots.sitemaps.is_empty() {
            let mut found = self
                .robots_sitemaps
                .lock()
                .unwrap_or_else(|p| p.into_inner());
            let base = url.join("/").ok();
            let absolute = robots
                .sitemaps
                .iter()
                .filter_map(|s| base.as_ref()?.join(s).ok())
                .map(|u| u.to_string());
            found.entry(host.clone()).or_default().extend(absolute);
        }
        let mut hosts = self.hosts.lock().unwrap_or_else(|p| p.into_inner());
        hosts.entry(host).or_default().robots = Some((rules.clone(), Instant::now()));
        Ok(rules)
    }

    /// Fetches one URL politely and decodes it to UTF-8.
    /// Fetches one URL, unless its host is paused, and updates the host's
    /// health: a run of errors or a high share of blocks pauses the host,
    /// for a time that doubles on each pause (up to fetch.max_pause_secs)
    /// and is forgiven after a quiet period.
    async fn fetch(
        &self,
        url: &Url,
        depth: u32,
        defer_at: Option<Instant>,
        validators: Option<Validators>,
    ) -> Result<Fetched, FetchError> {
        let host = host_key(url);
        {
            let hosts = self.hosts.lock().unwrap_or_else(|p| p.into_inner());
            if let Some(h) = hosts.get(&host) {
                if let Some(until) = h.paused_until.filter(|u| *u > Instant::now()) {
                    let secs = (until - Instant::now()).as_secs().max(1);
                    return Err(FetchError::HostPaused {
                        host,
                        secs,
                        why: h.pause_reason.clone(),
                    });
                }
            }
        }
        let result = match self
            .fetch_inner(url, depth, defer_at, validators.as_ref())
            .await
        {
            Err(FetchError::Deferred(u)) => return Err(FetchError::Deferred(u)),
            Ok(f)
                if f.page
                    .as_ref()
                    .is_some_and(|p| looks_like_challenge(&p.html)) =>
            {
                Err(FetchError::Challenge(url.to_string()))
            }
            r => r,
        };
        let outcome = match &result {
            Ok(_) => Outcome::Fine,
            Err(FetchError::Status {
                status: 403 | 429, ..
            })
            | Err(FetchError::Challenge(_)) => Outcome::Blocked,
            Err(FetchError::Status { status, .. }) if *status >= 500 => Outcome::Error,
            Err(FetchError::Request { .. }) | Err(FetchError::RobotsUnavailable { .. }) => {
                Outcome::Error
            }
            Err(_) => Outcome::Fine,
        };
        self.record(&host, outcome);
        result
    }

    fn record(&self, host: &str, outcome: Outcome) {
        let cfg = &self.cfg;
        let mut hosts = self.hosts.lock().unwrap_or_else(|p| p.into_inner());
        let h = hosts.entry(host.to_string()).or_default();
        h.recent.push_back(matches!(outcome, Outcome::Blocked));
        while h.recent.len() > cfg.block_window.max(1) {
            h.recent.pop_front();
        }
        h.consecutive_errors = if matches!(outcome, Outcome::Error) {
            h.consecutive_errors + 1
        } else {
            0
        };
        let blocked = h.recent.iter().filter(|b| **b).count();
        let why = if h.recent.len() >= cfg.block_window.max(1)
            && blocked as f64 >= cfg.block_ratio * h.recent.len() as f64
        {
            Some(format!(
                "blocked: {blocked} of the last {} responses were 403, 429 or challenge pages",
                h.recent.len()
            ))
        } else if h.consecutive_errors >= cfg.error_pause_after.max(1) {
            Some(format!("{} errors in a row", h.consecutive_errors))
        } else {
            None
        };
        let Some(why) = why else { return };
        let now = Instant::now();
        let base = Duration::from_secs(cfg.pause_secs);
        // Forgiven after a quiet period as long as the last pause.
        let pause = match (h.last_pause, h.paused_until) {
            (Some(last), Some(until)) if now < until + last.max(base) => {
                (last * 2).min(Duration::from_secs(cfg.max_pause_secs))
            }
            _ => base,
        };
        h.paused_until = Some(now + pause);
        h.last_pause = Some(pause);
        h.pause_reason = why.clone();
        h.recent.clear();
        h.consecutive_errors = 0;
        tracing::warn!(host, reason = %why, pause_secs = pause.as_secs(), "host paused");
        metrics::inc("gleaner_fetch_host_pauses_total", &[]);
        let paused = hosts
            .values()
            .filter(|h| h.paused_until.is_some_and(|u| u > now))
            .count();
        metrics::set("gleaner_fetch_paused_hosts", &[], paused as f64);
    }

    async fn fetch_inner(
        &self,
        url: &Url,
        depth: u32,
        defer_at: Option<Instant>,
        validators: Option<&Validators>,
    ) -> Result<Fetched, FetchError> {
        check_address(url, self.allow_private)?;
        let host = host_key(url);
        let mut delay = self.base_delay();
        if self.cfg.respect_robots {
            let rules = self.rules(url).await?;
            let path = match url.query() {
                Some(q) => format!("{}?{q}", url.path()),
                None => url.path().to_string(),
            };
            if !rules.allowed(&path) {
                return Err(FetchError::Robots(url.to_string()));
            }
            if let Some(cd) = rules.crawl_delay {
                delay = delay.max(Duration::from_secs_f64(cd.min(86_400.0)));
            }
        }
        // Held until the body is read: one request at a time per host by default.
        let slot = {
            let mut slots = self.host_slots.lock().unwrap_or_else(|p| p.into_inner());
            slots
                .entry(host.clone())
                .or_insert_with(|| {
                    Arc::new(tokio::sync::Semaphore::new(
                        self.cfg.per_host_concurrency.max(1),
                    ))
                })
                .clone()
        };
        // A URL whose host is busy past the batch's deadline goes back to the
        // frontier instead of holding the batch (and every other host) up.
        let acquire = slot.acquire_owned();
        let permit = match defer_at {
            Some(d) => tokio::time::timeout_at(d.into(), acquire)
                .await
                .map_err(|_| FetchError::Deferred(url.to_string()))?,
            None => acquire.await,
        };
        let _permit = permit.map_err(|e| FetchError::Request {
            url: url.to_string(),
            why: e.to_string(),
        })?;
        let req_err = |e: reqwest::Error| FetchError::Request {
            url: url.to_string(),
            why: error_chain(&e),
        };
        let mut attempt = 0;
        let resp = loop {
            let deadline = if attempt == 0 { defer_at } else { None };
            if !self.wait_turn_until(&host, delay, deadline).await {
                return Err(FetchError::Deferred(url.to_string()));
            }
            let result = self.send(&host, url, validators).await;
            self.mark_answered(&host);
            let wait = match &result {
                Ok(r) if matches!(r.status().as_u16(), 429 | 500 | 502 | 503 | 504) => {
                    match retry_after(r.headers()) {
                        Some(secs) if secs > self.cfg.max_retry_after_secs => None,
                        Some(secs) => Some(Duration::from_secs(secs)),
                        None => Some(self.backoff(attempt)),
                    }
                }
                Err(e) if e.is_connect() || e.is_timeout() => Some(self.backoff(attempt)),
                _ => None,
            };
            match wait {
                Some(w) if attempt < self.cfg.max_retries => {
                    metrics::inc("gleaner_fetch_retries_total", &[]);
                    tracing::info!(url = %url, attempt, wait_ms = w.as_millis() as u64, "retrying");
                    attempt += 1;
                    tokio::time::sleep(w).await;
                }
                _ => break result.map_err(req_err)?,
            }
        };
        let status = resp.status().as_u16();
        let final_url = resp.url().clone();
        if status == 304 && validators.is_some() {
            return Ok(Fetched {
                page: None,
                links: vec![],
                sitemaps: vec![],
                not_modified: true,
            });
        }
        if !resp.status().is_success() {
            return Err(FetchError::Status {
                status,
                url: url.to_string(),
            });
        }
        let headers = resp.headers().clone();
        let content_type = header(&headers, "content-type").unwrap_or_default();
        let ct = content_type.to_ascii_lowercase();
        let htmlish =
            ct.is_empty() || ct.starts_with("text/html") || ct.starts_with("application/xhtml");
        let xmlish = ct.contains("xml") || ct.contains("rss") || ct.contains("atom");
        if !htmlish && !xmlish {
            return Err(FetchError::NotHtml {
                content_type,
                url: url.to_string(),
            });
        }
        let (body, truncated) = read_capped(resp, self.cfg.max_body_bytes)
            .await
            .map_err(req_err)?;
        let (html, charset) = decode_html(&body, &ct);
        if xmlish || html.trim_start().starts_with("<?xml") {
            match feeds::parse(&html) {
                Some(feeds::Feed::SitemapIndex(sitemaps)) => {
                    return Ok(Fetched {
                        page: None,
                        links: vec![],
                        sitemaps,
                        not_modified: false,
                    })
                }
                Some(feeds::Feed::Pages(links)) => {
                    return Ok(Fetched {
                        page: None,
                        links,
                        sitemaps: vec![],
                        not_modified: false,
                    })
                }
                None if !htmlish => {
                    return Err(FetchError::NotHtml {
                        content_type,
                        url: url.to_string(),
                    })
                }
                None => {}
            }
        }
        let mut kept = BTreeMap::new();
        for name in ["last-modified", "etag", "content-language"] {
            if let Some(v) = header(&headers, name) {
                kept.insert(name.to_string(), v);
            }
        }
        if truncated {
            kept.insert(
                "x-gleaner-truncated".into(),
                self.cfg.max_body_bytes.to_string(),
            );
        }
        let links = links::extract(&html, &final_url, self.cfg.max_links_per_page);
        let page = Page {
            id: doc_id(url.as_str()),
            url: url.to_string(),
            final_url: final_url.to_string(),
            status,
            fetched_at: now_rfc3339(),
            charset,
            content_type,
            headers: kept,
            depth,
            html,
        };
        Ok(Fetched {
            page: Some(page),
            links,
            sitemaps: vec![],
            not_modified: false,
        })
    }
}

/// Seconds to wait from a Retry-After header (delta-seconds form).
fn retry_after(h: &reqwest::header::HeaderMap) -> Option<u64> {
    h.get("retry-after")?.to_str().ok()?.trim().parse().ok()
}

fn header(h: &reqwest::header::HeaderMap, name: &str) -> Option<String> {
    h.get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
}

/// The host and port: politeness and robots.txt are per origin.
fn host_key(url: &Url) -> String {
    match url.port_or_known_default() {
        Some(p) => format!("{}:{p}", url.host_str().unwrap_or_default()),
        None => url.host_str().unwrap_or_default().to_string(),
    }
}

fn host_key_of(url: &str) -> String {
    Url::parse(url).map(|u| host_key(&u)).unwrap_or_default()
}

fn error_chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut src = e.source();
    while let Some(c) = src {
        s.push_str(": ");
        s.push_str(&c.to_string());
        src = c.source();
    }
    s
}

/// Refuses IP-literal hosts in reserved ranges (names are checked by the
/// resolver, after resolution).
fn check_address(url: &Url, allow_private: bool) -> Result<(), FetchError> {
    if allow_private {
        return Ok(());
    }
    let ip = match url.host() {
        Some(url::Host::Ipv4(v4)) => IpAddr::V4(v4),
        Some(url::Host::Ipv6(v6)) => IpAddr::V6(v6),
        _ => return Ok(()),
    };
    if is_public(ip) {
        Ok(())
    } else {
        Err(FetchError::Private(ip.to_string()))
    }
}

/// Reads a body up to `cap` bytes while streaming (after decompression, so a
/// decompression bomb stops at the cap too). Returns whether it was cut.
async fn read_capped(
    resp: reqwest::Response,
    cap: usize,
) -> Result<(Vec<u8>, bool), reqwest::Error> {
    let mut body = Vec::new();
    let mut stream = resp.bytes_stream();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk?;
        let room = cap - body.len();
        if chunk.len() > room {
            body.extend_from_slice(&chunk[..room]);
            return Ok((body, true));
        }
        body.extend_from_slice(&chunk);
    }
    Ok((body, false))
}

/// Decodes HTML bytes to UTF-8: the charset from the Content-Type header, a
/// BOM, a `<meta charset>` in the first KiB, then detection (chardetng).
pub fn decode_html(body: &[u8], content_type: &str) -> (String, String) {
    let from_label = |label: &str| {
        encoding_rs::Encoding::for_label(label.trim().trim_matches(['"', '\'']).as_bytes())
    };
    let declared = content_type
        .split(';')
        .filter_map(|p| p.trim().strip_prefix("charset="))
        .find_map(from_label);
    let enc = encoding_rs::Encoding::for_bom(body)
        .map(|(e, _)| e)
        .or(declared)
        .or_else(|| meta_charset(&body[..body.len().min(1024)]).and_then(|l| from_label(&l)))
        .unwrap_or_else(|| {
            let mut d = chardetng::EncodingDetector::new();
            d.feed(&body[..body.len().min(64 * 1024)], body.len() <= 64 * 1024);
            d.guess(None, true)
        });
    let (text, used, _had_errors) = enc.decode(body);
    (text.into_owned(), used.name().to_string())
}

fn meta_charset(head: &[u8]) -> Option<String> {
    let s = String::from_utf8_lossy(head).to_ascii_lowercase();
    let at = s.find("charset=")? + "charset=".len();
    let rest = s[at..].trim_start_matches(['"', '\'', ' ']);
    let end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
        .unwrap_or(rest.len());
    (end > 0).then(|| rest[..end].to_string())
}

/// The fetch stage.
pub struct FetchStage {
    shared: Arc<Shared>,
    seen: Bloom,
    store: Option<state::SeenStore>,
    schedule: schedule::Schedule,
    /// URLs taken off the topics but not finished (see parked.rs).
    parked: parked::Parked,
    /// Fetches in flight: those of the batch being handled, and those that
    /// outlived their batch's deadline and finish in the background.
    running: tokio::task::JoinSet<Result<Fetched, FetchError>>,
    /// Task id -> (batch number, index in the batch, URL); batch 0 is the
    /// background.
    running_ids: HashMap<tokio::task::Id, (u64, usize, String)>,
    /// Hosts with a request in the background, and how many.
    busy_hosts: HashMap<String, usize>,
    /// Background fetches that ended, for the next tick.
    finished: Vec<(String, Result<Fetched, FetchError>)>,
    /// Parked URLs waiting for their host (busy in the background, paused).
    waiting: std::collections::HashSet<String>,
    /// Parked URLs whose outputs the last tick returned: released at the
    /// next tick or on close, when the runner has produced them.
    emitted: Vec<String>,
    batch_no: u64,
    wait_for_paused_hosts: bool,
}

impl FetchStage {
    pub fn new(cfg: &config::Fetch, allow_private: bool) -> anyhow::Result<Self> {
        let allow_private = allow_private || cfg.allow_private;
        let build = |proxy: Option<&str>| -> anyhow::Result<Route> {
            let mut b = reqwest::Client::builder()
                .user_agent(&cfg.user_agent)
                .connect_timeout(Duration::from_millis(cfg.connect_timeout_ms))
                .timeout(Duration::from_millis(cfg.total_timeout_ms))
                .redirect(reqwest::redirect::Policy::limited(cfg.max_redirects))
                .dns_resolver(Arc::new(GuardedResolver { allow_private }))
                .cookie_store(cfg.cookies)
                .gzip(true)
                .brotli(true);
            b = match proxy {
                Some(p) => {
                    b.proxy(reqwest::Proxy::all(p).map_err(|e| anyhow::anyhow!("proxy {p}: {e}"))?)
                }
                None => b.no_proxy(),
            };
            Ok(Route {
                client: b.build()?,
                proxy: proxy.map(str::to_string),
                benched_until: Mutex::new(None),
            })
        };
        let clients = if cfg.proxies.is_empty() {
            vec![build(None)?]
        } else {
            cfg.proxies
                .iter()
                .map(|p| build(Some(p)))
                .collect::<anyhow::Result<Vec<_>>>()?
        };
        let agent_token = cfg
            .user_agent
            .split(['/', ' '])
            .next()
            .unwrap_or("gleaner")
            .to_ascii_lowercase();
        let seen = Bloom::new(cfg.bloom_capacity, cfg.bloom_fp_rate);
        tracing::info!(
            capacity = cfg.bloom_capacity,
            fp_rate = cfg.bloom_fp_rate,
            bytes = seen.bytes(),
            hashes = seen.hashes(),
            "seen-URL Bloom filter"
        );
        Ok(FetchStage {
            shared: Arc::new(Shared {
                clients,
                cfg: cfg.clone(),
                agent_token,
                allow_private,
                hosts: Mutex::new(HashMap::new()),
                robots_locks: Mutex::new(HashMap::new()),
                host_slots: Mutex::new(HashMap::new()),
                robots_sitemaps: Mutex::new(HashMap::new()),
                slots: Arc::new(tokio::sync::Semaphore::new(cfg.concurrency.max(1))),
            }),
            seen,
            store: None,
            schedule: schedule::Schedule::default(),
            parked: parked::Parked::default(),
            running: tokio::task::JoinSet::new(),
            running_ids: HashMap::new(),
            busy_hosts: HashMap::new(),
            finished: Vec::new(),
            waiting: std::collections::HashSet::new(),
            emitted: Vec::new(),
            batch_no: 0,
            wait_for_paused_hosts: false,
        })
    }

    /// Keeps the seen-URL set in `dir`, so that a restart (even after
    /// kill -9) does not fetch a completed URL again.
    pub fn with_state(mut self, dir: &std::path::Path) -> anyhow::Result<Self> {
        self.store = Some(state::SeenStore::open(dir, &mut self.seen)?);
        self.schedule = schedule::Schedule::open(dir.join("schedule.json"))?;
        self.parked = parked::Parked::open(dir)?;
        // URLs a crash left parked go back to the frontier on the first tick.
        self.waiting = self.parked.all().into_iter().map(|l| l.url).collect();
        if !self.waiting.is_empty() {
            tracing::info!(
                urls = self.waiting.len(),
                "parked URLs from the last run go back to the frontier"
            );
        }
        Ok(self)
    }

    /// URLs of a paused host wait in the stage (and in the state directory)
    /// until the pause ends, instead of going to the dead-letter topic. For
    /// long-running services; a one-shot run would wait out every pause.
    pub fn wait_for_paused_hosts(mut self, yes: bool) -> Self {
        self.wait_for_paused_hosts = yes;
        self
    }

    /// Turns an input into a fetch job, or `None` when there is nothing to
    /// fetch (already seen, out of scope).
    fn plan(&mut self, input: &Input) -> anyhow::Result<Option<Job>> {
        let cfg = &self.shared.cfg;
        let job = match input.topic {
            Topic::Seeds => {
                let seed: Seed = input.decode()?;
                let url = parse_http(&seed.url, &cfg.strip_params)?;
                self.schedule
                    .add(url.as_str(), &seed, gleaner_core::util::unix_now())?;
                if self.seen.insert(url.as_str()) && !seed.recrawl {
                    return Ok(None);
                }
                Job {
                    seed_host: url.host_str().unwrap_or_default().to_ascii_lowercase(),
                    depth: 0,
                    max_depth: seed.depth.unwrap_or(cfg.default_depth),
                    scope: seed.scope.unwrap_or_default(),
                    url,
                    allow: seed.allow,
                    deny: seed.deny,
                    priority: seed.priority.unwrap_or(0),
                }
            }
            Topic::Frontier => {
                let link: FrontierLink = input.decode()?;
                let url = parse_http(&link.url, &cfg.strip_params)?;
                if self.seen.insert(url.as_str()) && !link.deferred {
                    return Ok(None);
                }
                Job::from_link(link, url)
            }
            other => anyhow::bail!("fetch does not read {}", other.short()),
        };
        Ok(Some(job))
    }

    /// The outputs of a successful fetch: the page and its in-scope links
    /// that are not known to be seen.
    fn outputs(&self, job: &Job, mut fetched: Fetched) -> Vec<Output> {
        let key = host_of(job.url.as_str());
        let mut outs = Vec::new();
        if let Some(page) = &fetched.page {
            outs.push(Output::json(Topic::Pages, key, page));
        }
        // Sitemaps named by the host's robots.txt go with its first page.
        let robots_sitemaps: Vec<String> = {
            let mut found = self
                .shared
                .robots_sitemaps
                .lock()
                .unwrap_or_else(|p| p.into_inner());
            found.remove(&host_key(&job.url)).unwrap_or_default()
        };
        fetched.sitemaps.extend(robots_sitemaps);
        if job.scope == Scope::SeedOnly {
            return outs;
        }
        let mut emitted = std::collections::HashSet::new();
        let next = |url: &str,
                    depth: u32,
                    emitted: &mut std::collections::HashSet<String>|
         -> Option<Output> {
            let u = normalise_url_stripping(url, &self.shared.cfg.strip_params).ok()?;
            // Links that differ only in tracking parameters are one link.
            if !in_scope(&u, job)
                || self.seen.contains(u.as_str())
                || !emitted.insert(u.to_string())
            {
                return None;
            }
            let fl = FrontierLink {
                url: u.to_string(),
                depth,
                max_depth: job.max_depth,
                scope: job.scope,
                seed_host: job.seed_host.clone(),
                parent: job.url.to_string(),
                priority: job.priority,
                allow: job.allow.clone(),
                deny: job.deny.clone(),
                deferred: false,
            };
            Some(Output::json(Topic::Frontier, host_of(u.as_str()), &fl))
        };
        for sitemap in &fetched.sitemaps {
            outs.extend(next(sitemap, job.depth, &mut emitted));
        }
        if job.depth < job.max_depth {
            for link in &fetched.links {
                outs.extend(next(link, job.depth + 1, &mut emitted));
            }
        }
        outs
    }
}

struct Job {
    url: Url,
    depth: u32,
    max_depth: u32,
    scope: Scope,
    seed_host: String,
    allow: Vec<String>,
    deny: Vec<String>,
    priority: i32,
}

impl Job {
    fn from_link(link: FrontierLink, url: Url) -> Self {
        Job {
            seed_host: link.seed_host,
            depth: link.depth,
            max_depth: link.max_depth,
            scope: link.scope,
            url,
            allow: link.allow,
            deny: link.deny,
            priority: link.priority,
        }
    }

    /// The job as a frontier link marked deferred, which the seen-set lets
    /// in again.
    fn to_link(&self) -> FrontierLink {
        FrontierLink {
            url: self.url.to_string(),
            depth: self.depth,
            max_depth: self.max_depth,
            scope: self.scope,
            seed_host: self.seed_host.clone(),
            parent: String::new(),
            priority: self.priority,
            allow: self.allow.clone(),
            deny: self.deny.clone(),
            deferred: true,
        }
    }
}

fn parse_http(raw: &str, strip: &[String]) -> Result<Url, FetchError> {
    let u = normalise_url_stripping(raw, strip)
        .map_err(|e| FetchError::BadUrl(format!("{raw}: {e}")))?;
    if !matches!(u.scheme(), "http" | "https") || u.host_str().is_none() {
        return Err(FetchError::BadUrl(raw.to_string()));
    }
    Ok(u)
}

fn in_scope(u: &Url, job: &Job) -> bool {
    matches!(u.scheme(), "http" | "https")
        && match job.scope {
            Scope::SameHost => u
                .host_str()
                .is_some_and(|h| h.eq_ignore_ascii_case(&job.seed_host)),
            Scope::SameDomain => u
                .host_str()
                .is_some_and(|h| registered_domain(h) == registered_domain(&job.seed_host)),
            Scope::SeedOnly => false,
        }
        && (job.allow.is_empty() || job.allow.iter().any(|p| url_matches(p, u.as_str())))
        && !job.deny.iter().any(|p| url_matches(p, u.as_str()))
}

/// A URL pattern: `*` matches any run of characters and the pattern must
/// then match the whole URL; without `*` the pattern is a prefix. Same
/// matcher as robots.txt rules (a `*` pattern is one anchored with `$`).
pub fn url_matches(pattern: &str, url: &str) -> bool {
    if pattern.contains('*') {
        robots::matches(&format!("{pattern}$"), url)
    } else {
        url.starts_with(pattern)
    }
}

/// The registered domain of a host, without a public-suffix list: the last
/// two labels, or three when the second-level label is a short generic one
/// under a country code (`bbc.co.uk`, `abc.net.au`).
pub fn registered_domain(host: &str) -> String {
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    if host.parse::<IpAddr>().is_ok() {
        return host;
    }
    let labels: Vec<&str> = host.split('.').collect();
    let n = labels.len();
    let keep = if n >= 3
        && labels[n - 1].len() == 2
        && matches!(
            labels[n - 2],
            "co" | "com" | "net" | "org" | "gov" | "ac" | "edu" | "ne" | "or" | "go"
        ) {
        3
    } else {
        2
    };
    labels[n.saturating_sub(keep)..].join(".")
}

#[async_trait]
impl Stage for FetchStage {
    fn name(&self) -> &'static str {
        "fetch"
    }
    fn inputs(&self) -> Vec<Topic> {
        vec![Topic::Seeds, Topic::Frontier]
    }
    fn outputs(&self) -> Vec<Topic> {
        vec![Topic::Pages, Topic::Frontier]
    }

    async fn close(&mut self) -> anyhow::Result<()> {
        // The runner produced the last tick's outputs before closing; fetches
        // still running are dropped and stay parked for the next start.
        let emitted = std::mem::take(&mut self.emitted);
        self.parked.release(&emitted)?;
        if let Some(store) = self.store.as_mut() {
            store.snapshot(&self.seen)?;
        }
        Ok(())
    }

    async fn handle(&mut self, input: &Input) -> Handled {
        self.handle_batch(std::slice::from_ref(input))
            .await
            .pop()
            .unwrap_or(Ok(vec![]))
    }

    /// Plans every input (seen-set, scope), then fetches the batch
    /// concurrently; each host's politeness clock spaces its requests.
    async fn handle_batch(&mut self, inputs: &[Input]) -> Vec<Handled> {
        let planned: Vec<anyhow::Result<Option<Job>>> =
            inputs.iter().map(|i| self.plan(i)).collect();
        // Owned (url, depth) pairs: the futures must not borrow the batch.
        let targets: Vec<Option<(Url, u32)>> = planned
            .iter()
            .map(|p| {
                p.as_ref()
                    .ok()
                    .and_then(|j| j.as_ref())
                    .map(|j| (j.url.clone(), j.depth))
            })
            .collect();
        // Interleave hosts (first URL of every host, then the second, ...)
        // so that URLs waiting on one host's politeness clock do not take
        // every concurrency slot while other hosts have work.
        // Within a host, higher priority goes first.
        let priority: Vec<i32> = planned
            .iter()
            .map(|p| {
                p.as_ref()
                    .ok()
                    .and_then(|j| j.as_ref())
                    .map_or(0, |j| j.priority)
            })
            .collect();
        let mut by_priority: Vec<usize> = (0..targets.len()).collect();
        by_priority.sort_by_key(|&i| (std::cmp::Reverse(priority[i]), i));
        let mut rank: HashMap<String, usize> = HashMap::new();
        let mut order: Vec<(usize, std::cmp::Reverse<i32>, usize)> = by_priority
            .into_iter()
            .map(|i| {
                let r = targets[i].as_ref().map_or(0, |(u, _)| {
                    let n = rank.entry(host_key(u)).or_insert(0);
                    *n += 1;
                    *n
                });
                (r, std::cmp::Reverse(priority[i]), i)
            })
            .collect();
        order.sort_unstable();
        // Per-host queue depth while the batch runs.
        for (h, n) in &rank {
            metrics::set("gleaner_fetch_host_queue", &[("host", h)], *n as f64);
        }
        let defer_at = match self.shared.cfg.defer_after_ms {
            0 => None,
            ms => Some(Instant::now() + Duration::from_millis(ms)),
        };
        self.batch_no += 1;
        let batch_no = self.batch_no;
        let mut targets: Vec<Option<(Url, u32)>> = targets;
        let mut fetched: Vec<Option<Result<Fetched, FetchError>>> =
            (0..targets.len()).map(|_| None).collect();
        // Inputs that wait in the stage: their host is busy in the
        // background (a stalled request) or paused.
        let mut park: Vec<usize> = Vec::new();
        // The first URL of each host always waits its turn (so a host whose
        // Crawl-delay exceeds the deadline still progresses); later ones
        // may be deferred.
        let mut queue: std::collections::VecDeque<(usize, Url, u32, Option<Instant>)> =
            std::collections::VecDeque::new();
        for &(rank, _, i) in &order {
            let Some((url, depth)) = targets[i].take() else {
                continue;
            };
            let host = host_key(&url);
            if self.busy_hosts.contains_key(&host)
                || (self.wait_for_paused_hosts && self.shared.paused(&host))
            {
                park.push(i);
            } else {
                queue.push_back((i, url, depth, if rank > 1 { defer_at } else { None }));
            }
        }
        // Start fetches in order as concurrency slots free up, until all are
        // done or the deadline passes: then the ones still running finish in
        // the background and the ones not started wait in the stage, so a
        // stalled server holds up neither this batch nor the next.
        // A little after `defer_at`, so the URLs deferred at it are answered
        // in this batch rather than parked.
        let deadline = async {
            match defer_at {
                Some(d) => tokio::time::sleep_until((d + Duration::from_millis(50)).into()).await,
                None => std::future::pending().await,
            }
        };
        tokio::pin!(deadline);
        let mut in_batch = 0usize;
        loop {
            if queue.is_empty() && in_batch == 0 {
                break;
            }
            tokio::select! {
                biased;
                Some(r) = self.running.join_next_with_id(), if !self.running.is_empty() => {
                    if let Some((i, res)) = self.task_ended(r, batch_no) {
                        fetched[i] = Some(res);
                        in_batch -= 1;
                    }
                }
                permit = self.shared.slots.clone().acquire_owned(), if !queue.is_empty() => {
                    let Some((i, url, depth, d)) = queue.pop_front() else { continue };
                    let shared = self.shared.clone();
                    let key = url.to_string();
                    // A scheduled URL is asked for only if it changed.
                    let validators = self
                        .schedule
                        .get(&key)
                        .map(|e| e.validators.clone())
                        .filter(Validators::conditional);
                    let handle = self.running.spawn(async move {
                        let _permit = permit;
                        shared.fetch(&url, depth, d, validators).await
                    });
                    self.running_ids.insert(handle.id(), (batch_no, i, key));
                    in_batch += 1;
                }
                _ = &mut deadline => break,
            }
        }
        for (i, ..) in queue {
            park.push(i);
        }
        let mut background: Vec<usize> = Vec::new();
        for (b, i, url) in self.running_ids.values_mut() {
            if *b == batch_no {
                *b = 0;
                background.push(*i);
                *self.busy_hosts.entry(host_key_of(url)).or_default() += 1;
            }
        }
        for h in rank.keys() {
            metrics::remove("gleaner_fetch_host_queue", &[("host", h)]);
        }
        // A paused host's URLs wait for the pause to end (in services).
        if self.wait_for_paused_hosts {
            for (i, f) in fetched.iter_mut().enumerate() {
                if matches!(f, Some(Err(FetchError::HostPaused { .. }))) {
                    *f = None;
                    park.push(i);
                }
            }
        }
        let job_of = |i: usize| planned[i].as_ref().ok().and_then(|j| j.as_ref());
        let links = |idx: &[usize]| -> Vec<FrontierLink> {
            idx.iter()
                .filter_map(|&i| job_of(i).map(Job::to_link))
                .collect()
        };
        let (to_wait, to_run) = (links(&park), links(&background));
        // Completed (fetched or failed for good) and parked URLs: durable
        // before the batch's offsets can be committed.
        let done: Vec<String> = (0..fetched.len())
            .filter(|&i| {
                fetched[i].is_some() && !matches!(fetched[i], Some(Err(FetchError::Deferred(_))))
            })
            .filter_map(|i| job_of(i).map(|j| j.url.to_string()))
            .collect();
        let durable = self
            .store
            .as_mut()
            .map_or(Ok(()), |store| store.record(&done, &self.seen))
            .and_then(|()| {
                self.parked
                    .park(to_wait.iter().cloned().chain(to_run).collect())
            });
        if let Err(e) = durable {
            let msg = format!("recording fetch state failed: {e:#}");
            return inputs
                .iter()
                .map(|_| Err(anyhow::anyhow!(msg.clone())))
                .collect();
        }
        // The ones not running in the background wait for their host.
        self.waiting.extend(to_wait.into_iter().map(|l| l.url));
        if !park.is_empty() || !background.is_empty() {
            metrics::add(
                "gleaner_fetch_parked_total",
                &[],
                (park.len() + background.len()) as f64,
            );
        }
        self.report_gauges();
        let mut observed = Vec::new();
        let results: Vec<Handled> = planned
            .into_iter()
            .zip(fetched)
            .map(|(plan, f)| match (plan, f) {
                (Err(e), _) => Err(e),
                (Ok(None), _) => Ok(vec![]),
                (Ok(Some(job)), Some(Ok(fetched))) => {
                    Ok(self.completed(&job, fetched, &mut observed))
                }
                (Ok(Some(job)), Some(Err(FetchError::Deferred(_)))) => {
                    // Back to the frontier, marked so the seen-set lets it in.
                    metrics::inc("gleaner_fetch_deferred_total", &[]);
                    Ok(vec![Output::json(
                        Topic::Frontier,
                        host_of(job.url.as_str()),
                        &job.to_link(),
                    )])
                }
                (Ok(Some(_)), Some(Err(e))) => {
                    metrics::inc("gleaner_fetch_errors_total", &[("kind", e.kind())]);
                    Err(e.into())
                }
                // Parked: answered by a later tick.
                (Ok(Some(_)), None) => Ok(vec![]),
            })
            .collect();
        self.observe(observed);
        results
    }

    /// Background fetches that ended, parked URLs whose host is free again,
    /// and scheduled recrawls that are due (as seeds with recrawl set).
    async fn tick(&mut self) -> Vec<Output> {
        let mut outs = Vec::new();
        // The runner has produced what the last tick returned.
        let emitted = std::mem::take(&mut self.emitted);
        if let Err(e) = self.parked.release(&emitted) {
            tracing::warn!(error = %e, "releasing parked URLs failed");
        }
        while let Some(r) = self.running.try_join_next_with_id() {
            self.task_ended(r, 0);
        }
        let mut done = Vec::new();
        let mut observed = Vec::new();
        for (url, result) in std::mem::take(&mut self.finished) {
            let Some(link) = self.parked.get(&url).cloned() else {
                continue;
            };
            let Ok(parsed) = Url::parse(&url) else {
                continue;
            };
            let job = Job::from_link(link.clone(), parsed);
            match result {
                Ok(fetched) => outs.extend(self.completed(&job, fetched, &mut observed)),
                Err(FetchError::Deferred(_)) => {
                    self.waiting.insert(url);
                    continue;
                }
                Err(FetchError::HostPaused { .. }) if self.wait_for_paused_hosts => {
                    self.waiting.insert(url);
                    continue;
                }
                Err(e) => {
                    metrics::inc("gleaner_fetch_errors_total", &[("kind", e.kind())]);
                    let input = Input {
                        topic: Topic::Frontier,
                        key: Some(host_of(&url)),
                        payload: serde_json::to_vec(&link).ok(),
                        origin: None,
                    };
                    outs.push(Output::dead_letter(
                        self.name(),
                        &input.dead_letter(self.name(), &e.to_string()),
                    ));
                }
            }
            done.push(url.clone());
            self.emitted.push(url);
        }
        if let Some(store) = self.store.as_mut() {
            if let Err(e) = store.record(&done, &self.seen) {
                // The URLs stay parked: fetched again after a restart.
                tracing::warn!(error = %e, "recording fetch state failed");
            }
        }
        self.observe(observed);
        // Parked URLs whose host is neither busy nor paused go back to the
        // frontier.
        let free: Vec<String> = self
            .waiting
            .iter()
            .filter(|u| {
                let host = host_key_of(u);
                !self.busy_hosts.contains_key(&host) && !self.shared.paused(&host)
            })
            .cloned()
            .collect();
        for url in free {
            self.waiting.remove(&url);
            if let Some(link) = self.parked.get(&url) {
                outs.push(Output::json(Topic::Frontier, host_of(&url), link));
                self.emitted.push(url);
            }
        }
        self.report_gauges();
        metrics::set(
            "gleaner_fetch_scheduled_urls",
            &[],
            self.schedule.len() as f64,
        );
        match self.schedule.due(gleaner_core::util::unix_now()) {
            Ok(seeds) => outs.extend(
                seeds
                    .iter()
                    .map(|s| Output::json(Topic::Seeds, host_of(&s.url), s)),
            ),
            Err(e) => tracing::warn!(error = %e, "reading the recrawl schedule failed"),
        }
        outs
    }

    fn held(&self) -> usize {
        self.running_ids.len() + self.finished.len() + self.waiting.len()
    }

    /// On stopping: requests in flight get a few seconds to finish; what is
    /// still held then goes back to the frontier, so nothing is lost even
    /// without a state directory.
    async fn drain(&mut self) -> Vec<Output> {
        let end =
            Instant::now() + Duration::from_millis(self.shared.cfg.total_timeout_ms.min(5000));
        while !self.running.is_empty() {
            match tokio::time::timeout_at(end.into(), self.running.join_next_with_id()).await {
                Ok(Some(r)) => {
                    self.task_ended(r, 0);
                }
                _ => break,
            }
        }
        let mut outs = self.tick().await;
        self.running.abort_all();
        let rest: Vec<String> = self
            .running_ids
            .drain()
            .map(|(_, (_, _, url))| url)
            .chain(self.waiting.drain())
            .collect();
        for url in rest {
            if let Some(link) = self.parked.get(&url) {
                outs.push(Output::json(Topic::Frontier, host_of(&url), link));
                self.emitted.push(url);
            }
        }
        outs
    }
}

impl FetchStage {
    /// Books a fetch task that ended; returns its batch index when it
    /// belongs to batch `batch_no` (0: none), else keeps it for the tick.
    fn task_ended(
        &mut self,
        r: Result<(tokio::task::Id, Result<Fetched, FetchError>), tokio::task::JoinError>,
        batch_no: u64,
    ) -> Option<(usize, Result<Fetched, FetchError>)> {
        let (id, result) = match r {
            Ok((id, result)) => (id, result),
            Err(e) => (
                e.id(),
                Err(FetchError::Request {
                    url: String::new(),
                    why: format!("fetch task failed: {e}"),
                }),
            ),
        };
        let (b, i, url) = self.running_ids.remove(&id)?;
        if b != 0 && b == batch_no {
            return Some((i, result));
        }
        let host = host_key_of(&url);
        if let Some(n) = self.busy_hosts.get_mut(&host) {
            *n -= 1;
            if *n == 0 {
                self.busy_hosts.remove(&host);
            }
        }
        self.finished.push((url, result));
        None
    }

    /// The outputs of a fetch that succeeded, counted in the metrics; notes
    /// scheduled URLs' new links for adaptive revisits.
    fn completed(
        &self,
        job: &Job,
        mut fetched: Fetched,
        observed: &mut Vec<(String, usize, Option<Validators>)>,
    ) -> Vec<Output> {
        let scheduled = self.schedule.get(job.url.as_str());
        let body = fetched
            .page
            .as_ref()
            .filter(|_| scheduled.is_some())
            .map(|p| format!("{:016x}", gleaner_core::util::fnv1a64(p.html.as_bytes())));
        // A recrawl from a server without validators that returns the same
        // body is as unchanged as a 304.
        let unchanged = body.is_some() && scheduled.is_some_and(|e| e.validators.body == body);
        let status = match &fetched.page {
            _ if unchanged => "unchanged".to_string(),
            Some(p) => p.status.to_string(),
            None if fetched.not_modified => "304".to_string(),
            None => "feed".to_string(),
        };
        if unchanged {
            fetched.page = None;
            fetched.not_modified = true;
        }
        metrics::inc("gleaner_fetch_pages_total", &[("status", &status)]);
        metrics::add(
            "gleaner_fetch_bytes_total",
            &[],
            fetched.page.as_ref().map_or(0, |p| p.html.len()) as f64,
        );
        let validators = fetched.page.as_ref().map(|p| Validators {
            etag: p.headers.get("etag").cloned(),
            last_modified: p.headers.get("last-modified").cloned(),
            body,
        });
        let outs = self.outputs(job, fetched);
        if scheduled.is_some() {
            let new_links = outs.iter().filter(|o| o.topic == Topic::Frontier).count();
            observed.push((job.url.to_string(), new_links, validators));
        }
        outs
    }

    fn observe(&mut self, observed: Vec<(String, usize, Option<Validators>)>) {
        let now = gleaner_core::util::unix_now();
        for (url, new_links, validators) in observed {
            if let Err(e) = self.schedule.observe(&url, new_links, validators, now) {
                tracing::warn!(error = %e, "saving the recrawl schedule failed");
            }
        }
    }

    fn report_gauges(&self) {
        metrics::set("gleaner_fetch_seen_urls", &[], self.seen.len() as f64);
        metrics::set(
            "gleaner_fetch_seen_capacity",
            &[],
            self.shared.cfg.bloom_capacity as f64,
        );
        metrics::set(
            "gleaner_fetch_hosts",
            &[],
            self.shared
                .hosts
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .len() as f64,
        );
        metrics::set(
            "gleaner_fetch_background",
            &[],
            self.running_ids.len() as f64,
        );
        metrics::set("gleaner_fetch_parked_urls", &[], self.parked.len() as f64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reserved_addresses_are_not_public() {
        for a in [
            "127.0.0.1",
            "10.1.2.3",
            "192.168.0.1",
            "172.16.5.4",
            "169.254.1.1",
            "224.0.0.1",
            "0.0.0.0",
            "::1",
            "fe80::1",
            "fd00::1",
            "::ffff:127.0.0.1",
        ] {
            assert!(!is_public(a.parse().unwrap()), "{a}");
        }
        for a in ["93.184.216.34", "2606:4700::1111"] {
            assert!(is_public(a.parse().unwrap()), "{a}");
        }
    }

    #[test]
    fn charset_from_header_meta_and_detection() {
        let (t, cs) = decode_html(b"caf\xe9", "text/html; charset=ISO-8859-1");
        assert_eq!((t.as_str(), cs.as_str()), ("café", "windows-1252"));
        let gbk = b"<meta charset=\"gbk\"><p>\xc4\xe3\xba\xc3</p>";
        assert!(decode_html(gbk, "text/html").0.contains("你好"));
        let sjis: &[u8] = b"<p>\x82\xb1\x82\xf1\x82\xc9\x82\xbf\x82\xcd\x81\x41\x90\xa2\x8a\x45\x81\x42\x82\xb1\x82\xea\x82\xcd\x93\xfa\x96\x7b\x8c\xea\x82\xcc\x83\x65\x83\x4c\x83\x58\x83\x67\x82\xc5\x82\xb7\x81\x42</p>";
        let (t, cs) = decode_html(sjis, "text/html");
        assert_eq!(cs, "Shift_JIS");
        assert!(t.contains("こんにちは、世界。"), "{t}");
    }
}
