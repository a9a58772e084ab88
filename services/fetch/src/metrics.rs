//! The metrics fetch records, with their help text.

use gleaner_core::metrics::Metric;

pub const METRICS: &[Metric] = &[
    Metric::counter(
        "gleaner_fetch_pages_total",
        "Fetch answers, by HTTP status (or 304, unchanged, feed).",
    ),
    Metric::counter("gleaner_fetch_bytes_total", "Bytes of HTML fetched."),
    Metric::counter(
        "gleaner_fetch_errors_total",
        "URLs that failed, by kind of failure.",
    ),
    Metric::counter(
        "gleaner_fetch_retries_total",
        "Requests retried after a 429, a 5xx, a timeout or a refused connection.",
    ),
    Metric::histogram(
        "gleaner_fetch_response_seconds",
        "Time from sending a request to its response headers.",
    ),
    Metric::histogram(
        "gleaner_fetch_politeness_wait_seconds",
        "Time a request waited for its host's politeness slot.",
    ),
    Metric::counter(
        "gleaner_fetch_host_pauses_total",
        "Hosts paused after errors or block pages.",
    ),
    Metric::gauge("gleaner_fetch_paused_hosts", "Hosts paused now."),
    Metric::counter(
        "gleaner_fetch_proxy_benched_total",
        "Proxies taken out of rotation after failures.",
    ),
    Metric::gauge("gleaner_fetch_hosts", "Hosts the politeness clock knows."),
    Metric::gauge("gleaner_fetch_running", "Fetches in flight."),
    Metric::gauge(
        "gleaner_fetch_held_urls",
        "URLs waiting in the frontier for their host's turn.",
    ),
    Metric::gauge(
        "gleaner_fetch_parked_urls",
        "URLs parked on disk beyond the frontier's memory bound.",
    ),
    Metric::counter("gleaner_fetch_parked_total", "URLs ever parked on disk."),
    Metric::gauge(
        "gleaner_fetch_seen_urls",
        "URLs in the seen-URL Bloom filter.",
    ),
    Metric::gauge(
        "gleaner_fetch_seen_capacity",
        "URLs the seen-URL Bloom filter is sized for (fetch.bloom_capacity).",
    ),
    Metric::gauge(
        "gleaner_fetch_scheduled_urls",
        "URLs with a scheduled recrawl.",
    ),
    Metric::counter(
        "gleaner_fetch_links_cut_total",
        "Links not followed because their page had more than fetch.max_links_per_page.",
    ),
    Metric::counter(
        "gleaner_fetch_links_too_long_total",
        "Links not followed because they were longer than fetch.max_url_length.",
    ),
    Metric::counter(
        "gleaner_fetch_pages_links_cut_total",
        "Pages whose links were cut at fetch.max_links_per_page.",
    ),
];

#[cfg(test)]
mod tests {
    #[test]
    fn fetch_records_only_the_metrics_it_describes() {
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        gleaner_core::metrics::check_sources(&src, super::METRICS).unwrap();
    }
}
