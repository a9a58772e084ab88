//! The metrics the Kafka bus records, with their help text (each stage's
//! batches are timed as in-process, under core's `gleaner_stage_batch_seconds`).

use gleaner_core::metrics::Metric;

pub const METRICS: &[Metric] = &[
    Metric::gauge("gleaner_kafka_partitions_owned", "Input partitions this instance owns, by stage."),
    Metric::gauge("gleaner_kafka_lag_records", "Records on the owned input partitions not yet consumed, by stage."),
    Metric::counter("gleaner_replayed_records_dropped_total", "Outputs dropped because the same record is already on its topic (a replay after a crash), by stage."),
];

#[cfg(test)]
mod tests {
    use gleaner_core::metrics::CORE;

    #[test]
    fn the_kafka_bus_records_only_the_metrics_it_describes() {
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut described = super::METRICS.to_vec();
        described.extend(
            CORE.iter()
                .filter(|m| m.name == "gleaner_stage_batch_seconds"),
        );
        gleaner_core::metrics::check_sources(&src, &described).unwrap();
    }
}
