//! The end-of-run report of `gleaner run`: per seed host, pages fetched,
//! URLs failed by reason and articles; then the most frequent failure
//! reasons, each with the flag or setting that changes it. Built from the
//! records as they pass (the bus's tap), so it covers this run only.

use gleaner_core::messages::{DeadLetter, Duplicate};
use gleaner_core::stage::Output;
use gleaner_core::Topic;
use serde::Serialize;
use std::collections::BTreeMap;

#[derive(Default, Serialize)]
pub struct HostLine {
    pub pages: u64,
    pub articles: u64,
    /// Reposts of an earlier article, dropped by dedup.
    pub duplicates: u64,
    /// URLs that failed to fetch, by reason.
    pub failed: BTreeMap<String, u64>,
}

#[derive(Default, Serialize)]
pub struct RunReport {
    pub hosts: BTreeMap<String, HostLine>,
    /// Fetch failures by reason, over every host.
    pub failures: BTreeMap<String, u64>,
}

/// The topics the report reads.
pub const TOPICS: [Topic; 4] = [
    Topic::PAGES,
    Topic::ARTICLES,
    Topic::DUPLICATES,
    Topic::DEAD_LETTER,
];

impl RunReport {
    /// Counts one record (keys are hosts on pages and articles).
    pub fn observe(&mut self, out: &Output) {
        match out.topic {
            Topic::PAGES => self.hosts.entry(out.key.clone()).or_default().pages += 1,
            Topic::ARTICLES => self.hosts.entry(out.key.clone()).or_default().articles += 1,
            Topic::DUPLICATES => {
                let url = match out.payload.typed_ref::<Duplicate>() {
                    Some(d) => d.url.clone(),
                    None => out.decode::<Duplicate>().map(|d| d.url).unwrap_or_default(),
                };
                let host = gleaner_core::util::host_of(&url);
                self.hosts.entry(host).or_default().duplicates += 1;
            }
            Topic::DEAD_LETTER => {
                let Ok(dl) = out.decode::<DeadLetter>() else {
                    return;
                };
                if dl.stage != "fetch" {
                    return;
                }
                let reason = dl.reason.unwrap_or_else(|| "other".into());
                let host = dl.key.unwrap_or_else(|| "(unknown host)".into());
                *self
                    .hosts
                    .entry(host)
                    .or_default()
                    .failed
                    .entry(reason.clone())
                    .or_default() += 1;
                *self.failures.entry(reason).or_default() += 1;
            }
            _ => {}
        }
    }

    /// URLs that failed to fetch in this run; a robots.txt refusal is the
    /// site's policy, reported but not a failure.
    pub fn failed(&self) -> u64 {
        self.failures
            .iter()
            .filter(|(r, _)| r.as_str() != "robots_disallowed")
            .map(|(_, n)| n)
            .sum()
    }

    /// The report as text (for stderr).
    pub fn render(&self) -> String {
        let mut out = String::new();
        if self.hosts.is_empty() {
            return out;
        }
        out.push_str(&format!(
            "{:<32} {:>7} {:>9} {:>11}  failed\n",
            "host", "pages", "articles", "duplicates"
        ));
        for (host, h) in &self.hosts {
            let failed = if h.failed.is_empty() {
                "-".to_string()
            } else {
                h.failed
                    .iter()
                    .map(|(r, n)| format!("{} {n}", label(r)))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            out.push_str(&format!(
                "{host:<32} {:>7} {:>9} {:>11}  {failed}\n",
                h.pages, h.articles, h.duplicates
            ));
        }
        let mut reasons: Vec<(&String, &u64)> = self.failures.iter().collect();
        reasons.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        if !reasons.is_empty() {
            out.push_str("most frequent failures:\n");
            for (reason, n) in reasons.iter().take(5) {
                out.push_str(&format!("  {} ({n}): {}\n", label(reason), hint(reason)));
            }
        }
        out
    }
}

/// A reason as people say it.
fn label(reason: &str) -> &str {
    match reason {
        "dns" => "DNS lookup failed",
        "connect" => "connection failed",
        "timeout" => "timed out",
        "private_address" => "private address refused",
        "robots_disallowed" => "disallowed by robots.txt",
        "robots_unavailable" => "robots.txt unavailable",
        "http_403" => "HTTP 403",
        "http_429" => "HTTP 429",
        "http_4xx" => "HTTP 4xx",
        "http_5xx" => "HTTP 5xx",
        "not_html" => "not HTML",
        "host_paused" => "host paused",
        "challenge" => "block page",
        "redirect" => "redirect not followed",
        "bad_url" => "bad URL",
        "bad_body" => "bad body",
        other => other,
    }
}

/// What changes it.
fn hint(reason: &str) -> &'static str {
    match reason {
        "dns" => "check the host name; DNS has no answer for it",
        "connect" => "is the server up and reachable? (fetch.connect_timeout_ms)",
        "timeout" => "the server is slow: raise fetch.total_timeout_ms",
        "private_address" => "add --allow-private (or fetch.allow_private) to fetch private, loopback and reserved addresses",
        "robots_disallowed" => "the site's robots.txt forbids it; fetch.respect_robots = false ignores robots.txt (only for sites you own)",
        "robots_unavailable" => "robots.txt answered 5xx or not at all, so the host is not crawled (RFC 9309); try later, or raise fetch.max_retries",
        "http_403" | "challenge" => "the site refuses crawlers; slow down with --delay or leave it",
        "http_429" => "the host asks to slow down: raise --delay (fetch.per_host_delay_ms)",
        "http_4xx" => "missing pages (404, 410, ...); see dead-letter.jsonl for the URLs",
        "http_5xx" => "server errors, retried fetch.max_retries times; try later",
        "not_html" => "only HTML pages, sitemaps and feeds are fetched",
        "host_paused" => "paused after errors or block pages (fetch.block_*, fetch.pause_secs); --follow waits the pause out",
        "redirect" => "see fetch.max_redirects, or seed the redirect's target",
        _ => "see dead-letter.jsonl",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gleaner_core::stage::Input;

    fn dead(host: &str, reason: &str) -> Output {
        let input = Input {
            topic: Topic::SEEDS,
            key: Some(host.into()),
            payload: None,
            origin: None,
        };
        let mut dl = input.dead_letter("fetch", "failed");
        dl.reason = Some(reason.into());
        Output::dead_letter("fetch", dl)
    }

    #[test]
    fn counts_by_host_and_reason_with_hints() {
        let mut r = RunReport::default();
        r.observe(&Output::of(Topic::PAGES, "a.test", &1));
        r.observe(&dead("a.test", "http_4xx"));
        r.observe(&dead("b.test", "private_address"));
        r.observe(&dead("c.test", "private_address"));
        assert_eq!(r.failed(), 3);
        assert_eq!(r.hosts["a.test"].pages, 1);
        let text = r.render();
        assert!(text.contains("HTTP 4xx 1"), "{text}");
        let top = text
            .lines()
            .skip_while(|l| !l.starts_with("most"))
            .nth(1)
            .unwrap();
        assert!(
            top.contains("private address refused (2): add --allow-private"),
            "{text}"
        );
    }
}
