//! The HTTP clients: one direct, or one per proxy. Each host is assigned a
//! route by hash; a proxy that fails to connect is benched for a while and
//! its hosts move to the next one, so a dead proxy costs no URL.

use crate::address::GuardedResolver;
use crate::schedule::Validators;
use crate::settings::FetchSettings;
use gleaner_core::metrics;
use gleaner_core::sync::Locked;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use url::Url;

pub(crate) struct Routes {
    routes: Vec<Route>,
    bench_for: Duration,
}

/// A way out: direct, or through one proxy.
struct Route {
    client: reqwest::Client,
    proxy: Option<String>,
    benched_until: Mutex<Option<Instant>>,
}

impl Routes {
    pub(crate) fn new(cfg: &FetchSettings, allow_private: bool) -> anyhow::Result<Self> {
        let build = |proxy: Option<&str>| -> anyhow::Result<Route> {
            let mut b = reqwest::Client::builder()
                .user_agent(&cfg.user_agent)
                .connect_timeout(Duration::from_millis(cfg.connect_timeout_ms))
                .timeout(Duration::from_millis(cfg.total_timeout_ms))
                // Redirects are followed by fetch itself (request.rs).
                .redirect(reqwest::redirect::Policy::none())
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
        let routes = if cfg.proxies.is_empty() {
            vec![build(None)?]
        } else {
            cfg.proxies
                .iter()
                .map(|p| build(Some(p)))
                .collect::<anyhow::Result<Vec<_>>>()?
        };
        Ok(Routes {
            routes,
            bench_for: Duration::from_secs(cfg.proxy_bench_secs),
        })
    }

    /// The route for a host: proxies are assigned per host (by hash) and
    /// rotated past the benched ones; with every proxy benched, the one
    /// whose bench ends first.
    fn route(&self, host: &str) -> usize {
        let n = self.routes.len();
        if n == 1 {
            return 0;
        }
        let start = (gleaner_core::util::fnv1a64(host.as_bytes()) % n as u64) as usize;
        let now = Instant::now();
        let benched = |i: usize| *self.routes[i].benched_until.locked();
        (0..n)
            .map(|k| (start + k) % n)
            .find(|&i| benched(i).is_none_or(|u| u <= now))
            .unwrap_or_else(|| (0..n).min_by_key(|&i| benched(i)).unwrap_or(0))
    }

    /// GET through the host's route; a proxy that cannot be reached is
    /// benched and the next route tried.
    pub(crate) async fn send(
        &self,
        host: &str,
        url: &Url,
        validators: Option<&Validators>,
    ) -> Result<reqwest::Response, reqwest::Error> {
        let mut tried = 0;
        loop {
            let route = self.route(host);
            let mut request = self.routes[route].client.get(url.as_str());
            if let Some(v) = validators {
                if let Some(etag) = &v.etag {
                    request = request.header(reqwest::header::IF_NONE_MATCH, etag);
                }
                if let Some(date) = &v.last_modified {
                    request = request.header(reqwest::header::IF_MODIFIED_SINCE, date);
                }
            }
            let result = request.send().await;
            match (&result, &self.routes[route].proxy) {
                (Err(e), Some(proxy))
                    if (e.is_connect() || e.is_timeout()) && tried + 1 < self.routes.len() =>
                {
                    tracing::warn!(proxy = %proxy, error = %crate::error::error_chain(e), "proxy failed; benched");
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
        *self.routes[route].benched_until.locked() = Some(Instant::now() + self.bench_for);
        metrics::inc("gleaner_fetch_proxy_benched_total", &[]);
    }
}

pub(crate) fn header(h: &reqwest::header::HeaderMap, name: &str) -> Option<String> {
    h.get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
}

/// Seconds to wait from a Retry-After header: delta-seconds, or an
/// HTTP-date (RFC 9110; read by jiff's RFC 2822 parser, which takes the
/// IMF-fixdate form) counted from now; a date in the past is 0.
pub(crate) fn retry_after(h: &reqwest::header::HeaderMap) -> Option<u64> {
    let v = h.get("retry-after")?.to_str().ok()?.trim();
    if let Ok(secs) = v.parse::<u64>() {
        return Some(secs);
    }
    let at = jiff::fmt::rfc2822::parse(v).ok()?.timestamp();
    let secs = at.duration_since(jiff::Timestamp::now()).as_secs();
    Some(secs.max(0) as u64)
}

/// The waits between retries of one request (backon): exponential from
/// `base_ms`, doubling, each with a random jitter of up to its own length
/// (so hosts retried together spread out), at most a minute.
pub(crate) fn retry_delays(base_ms: u64) -> backon::ExponentialBackoff {
    use backon::BackoffBuilder;
    backon::ExponentialBuilder::default()
        .with_min_delay(Duration::from_millis(base_ms.max(1)))
        .with_max_delay(Duration::from_secs(60))
        .with_factor(2.0)
        .with_jitter()
        .without_max_times()
        .build()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retries_double_with_jitter() {
        let delays: Vec<u64> = retry_delays(100)
            .take(4)
            .map(|d| d.as_millis() as u64)
            .collect();
        for (attempt, d) in delays.iter().enumerate() {
            let base = 100u64 << attempt;
            assert!(*d >= base && *d < base * 2, "attempt {attempt}: {d} ms");
        }
        // Jitter: two requests do not wait the same (the chance of eight
        // equal draws is nil).
        let a: Vec<_> = retry_delays(100).take(8).collect();
        let b: Vec<_> = retry_delays(100).take(8).collect();
        assert_ne!(a, b);
    }

    #[test]
    fn retry_after_reads_seconds_and_dates() {
        let mut h = reqwest::header::HeaderMap::new();
        h.insert("retry-after", "7".parse().unwrap());
        assert_eq!(retry_after(&h), Some(7));
        let later = jiff::Timestamp::now() + jiff::SignedDuration::from_secs(90);
        let date = later.strftime("%a, %d %b %Y %H:%M:%S GMT").to_string();
        h.insert("retry-after", date.parse().unwrap());
        let secs = retry_after(&h).unwrap();
        assert!((88..=90).contains(&secs), "{date}: {secs}");
        h.insert(
            "retry-after",
            "Sun, 06 Nov 1994 08:49:37 GMT".parse().unwrap(),
        );
        assert_eq!(retry_after(&h), Some(0));
        h.insert("retry-after", "soon".parse().unwrap());
        assert_eq!(retry_after(&h), None);
    }
}
