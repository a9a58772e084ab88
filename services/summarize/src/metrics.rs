//! The metrics summarize records, with their help text.

use gleaner_core::metrics::Metric;

pub const METRICS: &[Metric] = &[
    Metric::counter(
        "gleaner_summarize_engine_calls_total",
        "Requests made to a remote summary engine (retries included).",
    ),
    Metric::histogram(
        "gleaner_summarize_engine_seconds",
        "Time a remote summary engine took to answer one request.",
    ),
    Metric::counter(
        "gleaner_summarize_cache_hits_total",
        "Articles whose summaries came from the summary cache, no engine asked.",
    ),
    Metric::counter(
        "gleaner_summarize_fallbacks_total",
        "Articles summarised by the built-in engine because the remote one failed, by reason.",
    ),
];

pub fn engine_call() {
    gleaner_core::metrics::inc("gleaner_summarize_engine_calls_total", &[]);
}

pub fn engine_latency(d: std::time::Duration) {
    gleaner_core::metrics::observe("gleaner_summarize_engine_seconds", &[], d.as_secs_f64());
}

pub fn cache_hit() {
    gleaner_core::metrics::inc("gleaner_summarize_cache_hits_total", &[]);
}

pub fn fallback(reason: &str) {
    gleaner_core::metrics::inc("gleaner_summarize_fallbacks_total", &[("reason", reason)]);
}

#[cfg(test)]
mod tests {
    #[test]
    fn summarize_records_only_the_metrics_it_describes() {
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        gleaner_core::metrics::check_sources(&src, super::METRICS).unwrap();
    }
}
