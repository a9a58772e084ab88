//! robots.txt rules per host, kept for fetch.robots_cache_secs, and the
//! sitemaps they name until a page of the host carries them into the
//! frontier. Fetching robots.txt is the crawler's job (crawler.rs).

use crate::robots::AgentRules;
use gleaner_core::sync::Locked;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub(crate) struct RobotsCache {
    keep_for: Duration,
    rules: Mutex<HashMap<String, (AgentRules, Instant)>>,
    /// Serialises robots.txt fetches per host so a batch fetches it once.
    locks: Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>,
    sitemaps: Mutex<HashMap<String, Vec<String>>>,
}

impl RobotsCache {
    pub(crate) fn new(keep_for: Duration) -> Self {
        RobotsCache {
            keep_for,
            rules: Mutex::new(HashMap::new()),
            locks: Mutex::new(HashMap::new()),
            sitemaps: Mutex::new(HashMap::new()),
        }
    }

    /// The host's rules, unless they are missing or expired.
    pub(crate) fn get(&self, host: &str) -> Option<AgentRules> {
        let rules = self.rules.locked();
        let (r, at) = rules.get(host)?;
        (at.elapsed() < self.keep_for).then(|| r.clone())
    }

    pub(crate) fn put(&self, host: &str, rules: AgentRules) {
        self.rules
            .locked()
            .insert(host.to_string(), (rules, Instant::now()));
    }

    /// The lock held while the host's robots.txt is fetched.
    pub(crate) fn fetch_lock(&self, host: &str) -> Arc<tokio::sync::Mutex<()>> {
        self.locks
            .locked()
            .entry(host.to_string())
            .or_default()
            .clone()
    }

    pub(crate) fn add_sitemaps(&self, host: &str, urls: impl IntoIterator<Item = String>) {
        self.sitemaps
            .locked()
            .entry(host.to_string())
            .or_default()
            .extend(urls);
    }

    /// The sitemaps robots.txt named, once: they go with the host's first page.
    pub(crate) fn take_sitemaps(&self, host: &str) -> Vec<String> {
        self.sitemaps.locked().remove(host).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::robots::AgentRules;

    #[test]
    fn rules_expire_and_sitemaps_are_handed_out_once() {
        let cache = RobotsCache::new(Duration::from_millis(30));
        let (rules, _) = AgentRules::parse(b"User-agent: *\nDisallow: /private", "gleaner");
        cache.put("a:80", rules);
        assert!(!cache.get("a:80").unwrap().allowed("/private/x"));
        assert!(cache.get("b:80").is_none());
        std::thread::sleep(Duration::from_millis(40));
        assert!(cache.get("a:80").is_none(), "expired");
        cache.add_sitemaps("a:80", ["http://a/sitemap.xml".to_string()]);
        assert_eq!(cache.take_sitemaps("a:80").len(), 1);
        assert!(cache.take_sitemaps("a:80").is_empty());
    }
}
