//! Fetching one URL: the address check, robots.txt, the host's politeness
//! clock, retries, and the body read, capped and decoded. Shared by every
//! fetch worker of the stage (how many requests a host has in flight is its
//! number of workers, frontier.rs).

use crate::body::{decode_html_owned, gunzip_capped, is_gzip, read_capped};
use crate::challenge::looks_like_challenge;
use crate::client::{header, retry_delays, Routes};
use crate::error::FetchError;
use crate::health::{Health, Outcome};
use crate::politeness::{host_key, Politeness};
use crate::robots::AgentRules;
use crate::robots_cache::RobotsCache;
use crate::schedule::Validators;
use crate::settings::FetchSettings;
use crate::{feeds, links};
use gleaner_core::messages::Page;
use gleaner_core::metrics;
use gleaner_core::util::{doc_id, now_rfc3339_millis};
use std::collections::BTreeMap;
use std::time::Duration;
use tokio::sync::SemaphorePermit;
use url::Url;

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

impl Fetched {
    fn listing(links: Vec<String>, sitemaps: Vec<String>) -> Self {
        Fetched {
            page: None,
            links,
            sitemaps,
            not_modified: false,
        }
    }
}

/// The last response of a fetch, with what came before it.
pub(crate) struct Answer<'a> {
    pub(crate) resp: reqwest::Response,
    /// The concurrency slot, kept until the body is read.
    pub(crate) slot: SemaphorePermit<'a>,
    /// When the last request was sent.
    pub(crate) sent: std::time::Instant,
    /// The URLs redirected through.
    pub(crate) redirects: Vec<String>,
}

pub(crate) struct Crawler {
    pub(crate) cfg: FetchSettings,
    pub(crate) routes: Routes,
    pub(crate) politeness: Politeness,
    pub(crate) health: Health,
    pub(crate) robots: RobotsCache,
    pub(crate) agent_token: String,
    pub(crate) allow_private: bool,
    /// At most fetch.concurrency requests in flight across hosts.
    pub(crate) slots: tokio::sync::Semaphore,
    /// URLs of a paused host wait for the pause to end (long-running
    /// processes) rather than failing.
    pub(crate) wait_for_paused: std::sync::atomic::AtomicBool,
}

impl Crawler {
    pub(crate) fn new(cfg: &FetchSettings, allow_private: bool) -> anyhow::Result<Self> {
        let agent_token = cfg
            .user_agent
            .split(['/', ' '])
            .next()
            .unwrap_or("gleaner")
            .to_ascii_lowercase();
        Ok(Crawler {
            routes: Routes::new(cfg, allow_private)?,
            politeness: Politeness::default(),
            health: Health::new(cfg),
            robots: RobotsCache::new(Duration::from_secs(cfg.robots_cache_secs)),
            agent_token,
            allow_private,
            slots: tokio::sync::Semaphore::new(cfg.concurrency.max(1)),
            wait_for_paused: std::sync::atomic::AtomicBool::new(false),
            cfg: cfg.clone(),
        })
    }

    pub(crate) fn base_delay(&self) -> Duration {
        Duration::from_millis(self.cfg.per_host_delay_ms)
    }

    /// Fetches one URL, unless its host is paused, and books the outcome in
    /// the host's health; reads the page's links when `links`.
    pub(crate) async fn fetch(
        &self,
        url: &Url,
        depth: u32,
        validators: Option<Validators>,
        links: bool,
    ) -> Result<Fetched, FetchError> {
        let host = host_key(url);
        if let Some(paused) = self.health.pause_error(&host) {
            return Err(paused);
        }
        let result = match self
            .fetch_inner(url, depth, validators.as_ref(), links)
            .await
        {
            Ok(f)
                if f.page
                    .as_ref()
                    .is_some_and(|p| looks_like_challenge(&p.html)) =>
            {
                Err(FetchError::Challenge(url.to_string()))
            }
            r => r,
        };
        self.health.record(&host, Outcome::of(&result));
        result
    }

    /// The robots.txt rules for the URL's host, fetched once per expiry.
    pub(crate) async fn robots_rules(&self, url: &Url) -> Result<AgentRules, FetchError> {
        let host = host_key(url);
        if let Some(r) = self.robots.get(&host) {
            return Ok(r);
        }
        let lock = self.robots.fetch_lock(&host);
        let _guard = lock.lock().await;
        if let Some(r) = self.robots.get(&host) {
            return Ok(r);
        }
        let mut robots_url = url.clone();
        robots_url.set_path("/robots.txt");
        robots_url.set_query(None);
        self.politeness.wait_turn(&host, self.base_delay()).await;
        // RFC 9309: 5xx or unreachable means "disallow everything for now";
        // the host waits (backoff) and robots.txt is asked again, up to
        // fetch.max_retries times, before its URLs fail.
        let mut attempt = 0;
        let mut delays = retry_delays(self.cfg.retry_base_ms);
        let (rules, sitemaps) = loop {
            let sent = self.robots_get(&host, &robots_url).await;
            let failure = match sent {
                Ok(resp) if resp.status().is_success() => {
                    let body = read_capped(resp, 512 * 1024)
                        .await
                        .map(|(b, _)| b)
                        .unwrap_or_default();
                    break AgentRules::parse(&body, &self.agent_token);
                }
                // RFC 9309: a 4xx means there are no rules.
                Ok(resp) if resp.status().is_client_error() => {
                    break (AgentRules::allow_all(), Vec::new())
                }
                Ok(resp) => FetchError::RobotsUnavailable {
                    host: host.clone(),
                    why: format!("HTTP {}", resp.status().as_u16()),
                },
                // An address that may not be fetched stays so: no retries,
                // and the URL fails for that reason, not for robots.txt.
                Err(e @ FetchError::Private(_)) => return Err(e),
                Err(
                    e @ FetchError::Request {
                        reason: crate::error::reasons::PRIVATE_ADDRESS,
                        ..
                    },
                ) => return Err(e),
                // Unreachable: the URL fails for that (connection refused,
                // DNS, timeout), which says more than "robots.txt unavailable".
                Err(e @ FetchError::Request { .. }) => e,
                Err(e) => FetchError::RobotsUnavailable {
                    host: host.clone(),
                    why: e.to_string(),
                },
            };
            if attempt >= self.cfg.max_retries {
                return Err(failure);
            }
            let wait = delays.next().unwrap_or(Duration::from_secs(60));
            tracing::info!(host, attempt, why = %failure, wait_ms = wait.as_millis() as u64, "robots.txt unavailable; waiting");
            attempt += 1;
            tokio::time::sleep(wait).await;
            self.politeness.wait_turn(&host, self.base_delay()).await;
        };
        if self.cfg.follow_sitemaps && !sitemaps.is_empty() {
            let base = url.join("/").ok();
            let absolute = sitemaps
                .iter()
                .filter_map(|s| base.as_ref()?.join(s).ok())
                .map(|u| u.to_string());
            self.robots.add_sitemaps(&host, absolute);
        }
        self.robots.put(&host, rules.clone());
        Ok(rules)
    }

    async fn fetch_inner(
        &self,
        url: &Url,
        depth: u32,
        validators: Option<&Validators>,
        read_links: bool,
    ) -> Result<Fetched, FetchError> {
        let Answer {
            resp,
            slot,
            sent,
            redirects,
        } = self.follow(url, depth, validators).await?;
        let req_err = |e: reqwest::Error| FetchError::request(url, &e);
        let _slot = slot;
        let status = resp.status().as_u16();
        let final_url = resp.url().clone();
        if status == 304 && validators.is_some() {
            return Ok(Fetched {
                not_modified: true,
                ..Fetched::listing(vec![], vec![])
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
        // Compressed sitemaps: `sitemap.xml.gz`, served as gzip.
        let gzipped = ct.contains("gzip") || final_url.path().ends_with(".gz");
        if !htmlish && !xmlish && !gzipped {
            return Err(FetchError::NotHtml {
                content_type,
                url: url.to_string(),
            });
        }
        let (mut body, mut truncated) = read_capped(resp, self.cfg.max_body_bytes)
            .await
            .map_err(req_err)?;
        let xmlish = if gzipped && is_gzip(&body) {
            (body, truncated) =
                gunzip_capped(&body, self.cfg.max_body_bytes).map_err(|e| FetchError::Request {
                    url: url.to_string(),
                    why: format!("bad gzip body: {e}"),
                    reason: crate::error::reasons::BAD_BODY,
                })?;
            true
        } else {
            xmlish
        };
        let (html, charset) = decode_html_owned(body, &ct);
        if xmlish || html.trim_start().starts_with("<?xml") {
            match feeds::parse(&html) {
                Some(feeds::Feed::SitemapIndex(sitemaps)) => {
                    return Ok(Fetched::listing(vec![], sitemaps))
                }
                Some(feeds::Feed::Pages(links)) => return Ok(Fetched::listing(links, vec![])),
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
        // A page whose links cannot be followed (the crawl's deepest) is not
        // parsed for them: a second pass over every page.
        let (links, cut) = if read_links {
            links::extract(&html, &final_url, self.cfg.max_links_per_page)
        } else {
            (Vec::new(), 0)
        };
        if cut > 0 {
            metrics::add("gleaner_fetch_links_cut_total", &[], cut as u64);
            metrics::inc("gleaner_fetch_pages_links_cut_total", &[]);
            tracing::info!(
                url = %url,
                cut,
                max = self.cfg.max_links_per_page,
                "links beyond fetch.max_links_per_page not followed"
            );
        }
        let page = Page {
            id: doc_id(url.as_str()),
            url: url.to_string(),
            final_url: final_url.to_string(),
            status,
            fetched_at: now_rfc3339_millis(),
            charset,
            content_type,
            headers: kept,
            depth,
            html,
            redirects,
            fetch_ms: Some(sent.elapsed().as_millis() as u64),
        };
        Ok(Fetched {
            page: Some(page),
            ..Fetched::listing(links, vec![])
        })
    }
}
