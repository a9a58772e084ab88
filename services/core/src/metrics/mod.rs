//! Metrics through the `metrics` facade, kept by the Prometheus exporter
//! (`metrics-exporter-prometheus`); the binary serves them with `/health`.
//! Every metric is named and described once, in the list of the crate
//! that records it ([`describe`]); the helpers here install the recorder on
//! first use, so a metric recorded before a server starts (or in a test) is
//! never lost.

mod describe;

pub use describe::{check_sources, describe, Kind, Metric, CORE};

use metrics::Label;
use metrics_exporter_prometheus::{PrometheusBuilder, PrometheusHandle};
use std::sync::OnceLock;
use std::time::Duration;

/// Histogram buckets, in seconds: a millisecond to two minutes covers a
/// stage's batch, a fetch and a page's way to the index.
const BUCKETS: [f64; 16] = [
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0,
];

/// How often histograms are drained into their buckets when nobody
/// scrapes: without it their pending samples would grow without bound.
const UPKEEP: Duration = Duration::from_secs(5);

/// The process's exporter, installed as the global recorder on first use.
pub fn handle() -> &'static PrometheusHandle {
    static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();
    HANDLE.get_or_init(|| {
        let recorder = PrometheusBuilder::new()
            .set_buckets(&BUCKETS)
            .expect("bucket list is not empty")
            .build_recorder();
        let handle = recorder.handle();
        if metrics::set_global_recorder(recorder).is_err() {
            tracing::warn!("a metrics recorder was already installed; /metrics will be empty");
        }
        describe::describe_to_recorder(CORE);
        let upkeep = handle.clone();
        let _ = std::thread::Builder::new()
            .name("metrics-upkeep".into())
            .spawn(move || loop {
                std::thread::sleep(UPKEEP);
                upkeep.run_upkeep();
            });
        handle
    })
}

fn labels(pairs: &[(&'static str, &str)]) -> Vec<Label> {
    pairs
        .iter()
        .map(|(k, v)| Label::new(*k, v.to_string()))
        .collect()
}

/// Adds to a counter.
pub fn add(name: &'static str, pairs: &[(&'static str, &str)], n: u64) {
    handle();
    metrics::counter!(name, labels(pairs)).increment(n);
}

/// Adds one to a counter.
pub fn inc(name: &'static str, pairs: &[(&'static str, &str)]) {
    add(name, pairs, 1);
}

/// Sets a gauge.
pub fn set(name: &'static str, pairs: &[(&'static str, &str)], v: f64) {
    handle();
    metrics::gauge!(name, labels(pairs)).set(v);
}

/// Records one observation (seconds, mostly) in a histogram.
pub fn observe(name: &'static str, pairs: &[(&'static str, &str)], v: f64) {
    handle();
    metrics::histogram!(name, labels(pairs)).record(v);
}

/// Every metric in the Prometheus text format, with HELP and TYPE lines.
pub fn render() -> String {
    handle().render()
}

/// The current value of a counter or gauge whose labels include `pairs`
/// (0 when it was never recorded), read back from the rendered text: for
/// tests and end-of-run summaries, not for hot paths.
pub fn value(name: &str, pairs: &[(&str, &str)]) -> f64 {
    let text = render();
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.rsplit_once(' '))
        .filter(|(series, _)| {
            let (n, rest) = series.split_once('{').unwrap_or((series, ""));
            n == name
                && pairs
                    .iter()
                    .all(|(k, v)| rest.contains(&format!("{k}=\"{v}\"")))
        })
        .filter_map(|(_, v)| v.parse::<f64>().ok())
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_gauges_and_histograms_render_with_help_and_type() {
        inc("gleaner_stage_failed_total", &[]);
        add("gleaner_stage_inputs_total", &[("stage", "t\"q")], 2);
        set("gleaner_stage_skipped_total", &[("topic", "t-pages")], 5.0);
        observe("gleaner_stage_batch_seconds", &[], 0.2);
        let text = render();
        assert!(
            text.contains("# TYPE gleaner_stage_inputs_total counter"),
            "{text}"
        );
        assert!(
            text.contains("# HELP gleaner_stage_inputs_total "),
            "{text}"
        );
        assert!(
            text.contains("gleaner_stage_inputs_total{stage=\"t\\\"q\"} 2"),
            "{text}"
        );
        assert!(text.contains("# TYPE gleaner_stage_batch_seconds histogram"));
        assert!(
            text.contains("gleaner_stage_batch_seconds_bucket{le=\"0.25\"} "),
            "{text}"
        );
        assert_eq!(
            value("gleaner_stage_skipped_total", &[("topic", "t-pages")]),
            5.0
        );
        assert_eq!(
            value("gleaner_stage_skipped_total", &[("topic", "absent")]),
            0.0
        );
    }
}
