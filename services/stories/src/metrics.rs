//! The metrics the stories stage records, with their help text.

use gleaner_core::messages::StoryEvent;
use gleaner_core::metrics::Metric;

pub const METRICS: &[Metric] = &[
    Metric::counter(
        "gleaner_stories_created_total",
        "Stories started: articles close to no open story.",
    ),
    Metric::counter(
        "gleaner_stories_merged_total",
        "Stories merged into an older one by a report close to both.",
    ),
];

pub fn record(e: &StoryEvent) {
    if e.kind == "merged" {
        gleaner_core::metrics::inc("gleaner_stories_merged_total", &[]);
    } else {
        gleaner_core::metrics::inc("gleaner_stories_created_total", &[]);
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn stories_records_only_the_metrics_it_describes() {
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        gleaner_core::metrics::check_sources(&src, super::METRICS).unwrap();
    }
}
