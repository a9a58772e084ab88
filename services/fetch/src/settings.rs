//! The `[fetch]` section of pipelines.toml, where each option is explained.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FetchSettings {
    pub user_agent: String,
    pub connect_timeout_ms: u64,
    pub total_timeout_ms: u64,
    pub max_redirects: usize,
    pub max_body_bytes: usize,
    pub per_host_delay_ms: u64,
    pub per_host_concurrency: usize,
    pub defer_after_ms: u64,
    pub concurrency: usize,
    pub default_depth: u32,
    pub max_links_per_page: usize,
    pub max_url_length: usize,
    pub respect_robots: bool,
    pub follow_sitemaps: bool,
    pub robots_cache_secs: u64,
    pub allow_private: bool,
    pub bloom_capacity: usize,
    pub bloom_fp_rate: f64,
    pub strip_params: Vec<String>,
    pub max_retries: u32,
    pub retry_base_ms: u64,
    pub max_retry_after_secs: u64,
    pub block_window: usize,
    pub block_ratio: f64,
    pub error_pause_after: u32,
    pub pause_secs: u64,
    pub max_pause_secs: u64,
    pub proxies: Vec<String>,
    pub proxy_bench_secs: u64,
    pub cookies: bool,
}

/// The values pipelines.toml documents (a test in the binary checks that
/// the file and these agree).
impl Default for FetchSettings {
    fn default() -> Self {
        FetchSettings {
            user_agent: "gleaner/0.1 (+https://github.com/gleaner/gleaner)".into(),
            connect_timeout_ms: 5000,
            total_timeout_ms: 20_000,
            max_redirects: 5,
            max_body_bytes: 4 << 20,
            per_host_delay_ms: 1000,
            per_host_concurrency: 1,
            defer_after_ms: 2000,
            concurrency: 16,
            default_depth: 2,
            max_links_per_page: 500,
            max_url_length: 2083,
            respect_robots: true,
            follow_sitemaps: true,
            robots_cache_secs: 86_400,
            allow_private: false,
            bloom_capacity: 10_000_000,
            bloom_fp_rate: 0.001,
            strip_params: [
                "utm_*", "fbclid", "gclid", "dclid", "msclkid", "mc_cid", "mc_eid", "yclid",
                "igshid", "_hsenc", "_hsmi",
            ]
            .map(String::from)
            .to_vec(),
            max_retries: 2,
            retry_base_ms: 500,
            max_retry_after_secs: 120,
            block_window: 10,
            block_ratio: 0.5,
            error_pause_after: 5,
            pause_secs: 60,
            max_pause_secs: 86_400,
            proxies: Vec::new(),
            proxy_bench_secs: 300,
            cookies: false,
        }
    }
}

impl gleaner_core::config::Section for FetchSettings {
    const NAME: &'static str = "fetch";

    fn validate(&self) -> anyhow::Result<()> {
        anyhow::ensure!(
            self.bloom_fp_rate > 0.0 && self.bloom_fp_rate < 1.0,
            "fetch.bloom_fp_rate must be within (0, 1)"
        );
        anyhow::ensure!(
            self.block_ratio > 0.0 && self.block_ratio <= 1.0,
            "fetch.block_ratio must be within (0, 1]"
        );
        gleaner_core::config::ensure_at_least(&[
            (
                "fetch.connect_timeout_ms",
                self.connect_timeout_ms as i64,
                1,
            ),
            ("fetch.total_timeout_ms", self.total_timeout_ms as i64, 1),
            // A page cut shorter holds no article.
            ("fetch.max_body_bytes", self.max_body_bytes as i64, 1024),
            (
                "fetch.per_host_concurrency",
                self.per_host_concurrency as i64,
                1,
            ),
            ("fetch.concurrency", self.concurrency as i64, 1),
            // No http URL is shorter than `http://a.b`.
            ("fetch.max_url_length", self.max_url_length as i64, 10),
            ("fetch.bloom_capacity", self.bloom_capacity as i64, 1),
            ("fetch.block_window", self.block_window as i64, 1),
        ])
    }
}
