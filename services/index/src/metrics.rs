//! The metrics the index records, with their help text.

use gleaner_core::metrics::Metric;

pub const METRICS: &[Metric] = &[Metric::histogram(
    "gleaner_index_fetch_to_searchable_seconds",
    "Time from a page's fetch to its article being searchable.",
)];

#[cfg(test)]
mod tests {
    #[test]
    fn the_index_records_only_the_metrics_it_describes() {
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        gleaner_core::metrics::check_sources(&src, super::METRICS).unwrap();
    }
}
