//! The metrics dedup records, with their help text.

use gleaner_core::metrics::Metric;

pub const METRICS: &[Metric] = &[Metric::counter(
    "gleaner_dedup_replays_total",
    "Articles dedup has already decided (same id, same text), seen again and passed over.",
)];

#[cfg(test)]
mod tests {
    #[test]
    fn dedup_records_only_the_metrics_it_describes() {
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        gleaner_core::metrics::check_sources(&src, super::METRICS).unwrap();
    }
}
