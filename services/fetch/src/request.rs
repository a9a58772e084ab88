//! One fetch on the wire: a request under the crawler's rules (the address
//! check, robots.txt and Crawl-delay, the host's politeness clock, retries
//! with backoff), and the redirects after it, which fetch follows itself
//! (the HTTP client follows none) so that every hop passes the same rules.

use crate::address::check_address;
use crate::client::{retry_after, retry_delays};
use crate::crawler::{Answer, Crawler};
use crate::error::FetchError;
use crate::politeness::host_key;
use crate::schedule::Validators;
use gleaner_core::metrics;
use gleaner_core::util::registered_domain;
use std::time::Duration;
use tokio::sync::SemaphorePermit;
use url::Url;

/// RFC 9309 asks crawlers to follow at least five redirects for robots.txt.
const ROBOTS_HOPS: usize = 5;

impl Crawler {
    /// Requests `url` and follows its redirects: each hop waits for its
    /// host's turn and passes the address check and robots.txt; at most
    /// `fetch.max_redirects` hops, no loops, and (except for a seed, which
    /// the user named) no hop to another site. Gives the last response, the
    /// concurrency slot it holds (kept until its body is read) and the URLs
    /// redirected through.
    pub(crate) async fn follow(
        &self,
        url: &Url,
        depth: u32,
        validators: Option<&Validators>,
    ) -> Result<Answer<'_>, FetchError> {
        let mut current = url.clone();
        let mut chain: Vec<String> = Vec::new();
        loop {
            // Validators belong to the URL they were kept for.
            let asked = if chain.is_empty() { validators } else { None };
            let (resp, slot, sent) = self.request(&current, asked).await?;
            let Some(next) = redirect_target(&resp, &current) else {
                return Ok(Answer {
                    resp,
                    slot,
                    sent,
                    redirects: chain,
                });
            };
            chain.push(current.to_string());
            let refuse = |why: String| FetchError::Redirect {
                url: url.to_string(),
                why,
            };
            if chain.len() > self.cfg.max_redirects {
                return Err(refuse(format!(
                    "more than {} redirects (fetch.max_redirects): {} -> {next}",
                    self.cfg.max_redirects,
                    chain.join(" -> ")
                )));
            }
            if chain.iter().any(|c| c == next.as_str()) {
                return Err(refuse(format!(
                    "redirect loop: {} -> {next}",
                    chain.join(" -> ")
                )));
            }
            if !matches!(next.scheme(), "http" | "https") {
                return Err(refuse(format!("redirect to a non-HTTP URL {next}")));
            }
            if depth > 0 && !same_site(url, &next) {
                return Err(refuse(format!(
                    "redirect to another site ({current} -> {next}) not followed; seed the target to crawl it"
                )));
            }
            tracing::debug!(from = %current, to = %next, "redirect");
            current = next;
        }
    }

    /// One URL, no redirects followed: checks, politeness, retries.
    async fn request(
        &self,
        url: &Url,
        validators: Option<&Validators>,
    ) -> Result<(reqwest::Response, SemaphorePermit<'_>, std::time::Instant), FetchError> {
        check_address(url, self.allow_private)?;
        let host = host_key(url);
        let mut delay = self.base_delay();
        if self.cfg.respect_robots {
            let rules = self.robots_rules(url).await?;
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
        let closed = |e: tokio::sync::AcquireError| FetchError::Request {
            url: url.to_string(),
            why: e.to_string(),
            reason: crate::error::reasons::REQUEST,
        };
        let req_err = |e: reqwest::Error| FetchError::request(url, &e);
        let mut attempt = 0;
        let mut delays = retry_delays(self.cfg.retry_base_ms);
        // One of the fetch.concurrency slots, taken once the host's turn has
        // come (a host waiting on its delay holds none) and kept until the
        // body is read; given up while waiting to retry.
        let mut slot = None;
        let mut sent_at;
        let resp = loop {
            self.politeness.wait_turn(&host, delay).await;
            if slot.is_none() {
                slot = Some(self.slots.acquire().await.map_err(closed)?);
            }
            let sent = std::time::Instant::now();
            sent_at = sent;
            let result = self.routes.send(&host, url, validators).await;
            metrics::observe(
                "gleaner_fetch_response_seconds",
                &[],
                sent.elapsed().as_secs_f64(),
            );
            self.politeness.mark_answered(&host);
            let wait = match &result {
                Ok(r) if matches!(r.status().as_u16(), 429 | 500 | 502 | 503 | 504) => {
                    match retry_after(r.headers()) {
                        Some(secs) if secs > self.cfg.max_retry_after_secs => None,
                        Some(secs) => Some(Duration::from_secs(secs)),
                        None => delays.next(),
                    }
                }
                Err(e) if e.is_connect() || e.is_timeout() => delays.next(),
                _ => None,
            };
            match wait {
                Some(w) if attempt < self.cfg.max_retries => {
                    metrics::inc("gleaner_fetch_retries_total", &[]);
                    tracing::info!(url = %url, attempt, wait_ms = w.as_millis() as u64, "retrying");
                    attempt += 1;
                    slot = None;
                    tokio::time::sleep(w).await;
                }
                _ => break result.map_err(req_err)?,
            }
        };
        let slot = slot.ok_or_else(|| FetchError::Request {
            url: url.to_string(),
            why: "no concurrency slot".into(),
            reason: crate::error::reasons::REQUEST,
        })?;
        Ok((resp, slot, sent_at))
    }

    /// robots.txt of `host`, following up to five redirects, each hop
    /// address-checked and on its host's politeness clock.
    pub(crate) async fn robots_get(
        &self,
        host: &str,
        url: &Url,
    ) -> Result<reqwest::Response, FetchError> {
        let mut current = url.clone();
        let mut hop_host = host.to_string();
        for hop in 0..=ROBOTS_HOPS {
            if hop > 0 {
                check_address(&current, self.allow_private)?;
                hop_host = host_key(&current);
                self.politeness
                    .wait_turn(&hop_host, self.base_delay())
                    .await;
            }
            let sent = self.routes.send(&hop_host, &current, None).await;
            self.politeness.mark_answered(&hop_host);
            let resp = sent.map_err(|e| FetchError::request(&current, &e))?;
            match redirect_target(&resp, &current) {
                Some(next) => current = next,
                None => return Ok(resp),
            }
        }
        Err(FetchError::Redirect {
            url: url.to_string(),
            why: format!("more than {ROBOTS_HOPS} redirects for robots.txt"),
        })
    }
}

/// Where a redirect answer points, resolved against the URL asked.
fn redirect_target(resp: &reqwest::Response, current: &Url) -> Option<Url> {
    if !matches!(resp.status().as_u16(), 301 | 302 | 303 | 307 | 308) {
        return None;
    }
    let location = resp
        .headers()
        .get(reqwest::header::LOCATION)?
        .to_str()
        .ok()?;
    let mut next = current.join(location.trim()).ok()?;
    next.set_fragment(None);
    Some(next)
}

/// Two URLs on one registered domain (`http://a.example` and
/// `https://www.example`, say).
fn same_site(a: &Url, b: &Url) -> bool {
    match (a.host_str(), b.host_str()) {
        (Some(x), Some(y)) => registered_domain(x) == registered_domain(y),
        _ => false,
    }
}
