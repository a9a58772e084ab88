//! Every metric gleaner records, with its type and help text: the one
//! place a name is described, so `/metrics` carries HELP and TYPE lines
//! for all of them (a test checks the sources use no other name).

use metrics::{describe_counter, describe_gauge, describe_histogram, Unit};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Counter,
    Gauge,
    Histogram,
}

use Kind::*;

/// (name, type, help).
pub const ALL: &[(&str, Kind, &str)] = &[
    // Every stage, embedded or on Kafka.
    ("gleaner_stage_inputs_total", Counter, "Records a stage has handled, by stage."),
    ("gleaner_stage_outputs_total", Counter, "Records a stage has produced, by stage and output topic."),
    ("gleaner_stage_batch_seconds", Histogram, "Time a stage took to handle one batch of input records, by stage."),
    ("gleaner_queue_depth", Gauge, "Records waiting between stages in an embedded run, by topic."),
    // Kafka.
    ("gleaner_kafka_partitions_owned", Gauge, "Input partitions this instance owns, by stage."),
    ("gleaner_kafka_lag_records", Gauge, "Records on the owned input partitions not yet consumed, by stage."),
    ("gleaner_replayed_records_dropped_total", Counter, "Outputs dropped because the same record is already on its topic (a replay after a crash), by stage."),
    ("gleaner_dedup_replays_total", Counter, "Articles dedup has already decided (same id, same text), seen again and passed over."),
    // Fetch.
    ("gleaner_fetch_pages_total", Counter, "Fetch answers, by HTTP status (or 304, unchanged, feed)."),
    ("gleaner_fetch_bytes_total", Counter, "Bytes of HTML fetched."),
    ("gleaner_fetch_errors_total", Counter, "URLs that failed, by kind of failure."),
    ("gleaner_fetch_retries_total", Counter, "Requests retried after a 429, a 5xx, a timeout or a refused connection."),
    ("gleaner_fetch_response_seconds", Histogram, "Time from sending a request to its response headers."),
    ("gleaner_fetch_politeness_wait_seconds", Histogram, "Time a request waited for its host's politeness slot."),
    ("gleaner_fetch_host_pauses_total", Counter, "Hosts paused after errors or block pages."),
    ("gleaner_fetch_paused_hosts", Gauge, "Hosts paused now."),
    ("gleaner_fetch_proxy_benched_total", Counter, "Proxies taken out of rotation after failures."),
    ("gleaner_fetch_hosts", Gauge, "Hosts the politeness clock knows."),
    ("gleaner_fetch_running", Gauge, "Fetches in flight."),
    ("gleaner_fetch_held_urls", Gauge, "URLs waiting in the frontier for their host's turn."),
    ("gleaner_fetch_parked_urls", Gauge, "URLs parked on disk beyond the frontier's memory bound."),
    ("gleaner_fetch_parked_total", Counter, "URLs ever parked on disk."),
    ("gleaner_fetch_seen_urls", Gauge, "URLs in the seen-URL Bloom filter."),
    ("gleaner_fetch_seen_capacity", Gauge, "URLs the seen-URL Bloom filter is sized for (fetch.bloom_capacity)."),
    ("gleaner_fetch_scheduled_urls", Gauge, "URLs with a scheduled recrawl."),
    ("gleaner_fetch_links_cut_total", Counter, "Links not followed because their page had more than fetch.max_links_per_page."),
    ("gleaner_fetch_pages_links_cut_total", Counter, "Pages whose links were cut at fetch.max_links_per_page."),
    // Index.
    ("gleaner_index_fetch_to_searchable_seconds", Histogram, "Time from a page's fetch to its article being searchable."),
];

/// Describes every metric to the installed recorder.
pub(super) fn describe_all() {
    for &(name, kind, help) in ALL {
        let seconds = name.ends_with("_seconds");
        match (kind, seconds) {
            (Counter, _) => describe_counter!(name, help),
            (Gauge, _) => describe_gauge!(name, help),
            (Histogram, true) => describe_histogram!(name, Unit::Seconds, help),
            (Histogram, false) => describe_histogram!(name, help),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    /// Every `metrics::inc/add/set/observe("gleaner_...")` in the sources
    /// names a described metric, and every described one is used.
    #[test]
    fn every_metric_used_is_described_and_every_described_one_used() {
        let services = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut used = std::collections::BTreeSet::new();
        let mut stack = vec![services];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).unwrap().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    stack.push(path);
                } else if path.extension().is_some_and(|e| e == "rs")
                    && !path.ends_with("metrics/names.rs")
                {
                    let text = std::fs::read_to_string(&path).unwrap();
                    for call in ["inc(", "add(", "set(", "observe("] {
                        for (at, _) in text.match_indices(&format!("metrics::{call}")) {
                            let rest = text[at..].split_once('"').map(|(_, r)| r);
                            if let Some(name) = rest.and_then(|r| r.split('"').next()) {
                                used.insert(name.to_string());
                            }
                        }
                    }
                }
            }
        }
        let described: std::collections::BTreeSet<String> =
            ALL.iter().map(|(n, _, _)| n.to_string()).collect();
        let undescribed: Vec<_> = used.difference(&described).collect();
        assert!(undescribed.is_empty(), "not in names::ALL: {undescribed:?}");
        let unused: Vec<_> = described.difference(&used).collect();
        assert!(
            unused.is_empty(),
            "described but never recorded: {unused:?}"
        );
    }
}
