//! What a metric is (name, type, help) and how a list of them is described
//! to the recorder. Each crate lists the metrics it records beside its code
//! (`metrics.rs`; core's own are [`CORE`]) and a stage's spec hands its list
//! to the binary, which describes them all, so `/metrics` carries HELP and
//! TYPE lines for every one. [`check_sources`] lets each crate's test check
//! that its sources record no metric its list does not describe.

use metrics::{describe_counter, describe_gauge, describe_histogram, Unit};
use std::path::Path;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Counter,
    Gauge,
    Histogram,
}

/// One metric: its name, type and help text.
#[derive(Clone, Copy, Debug)]
pub struct Metric {
    pub name: &'static str,
    pub kind: Kind,
    pub help: &'static str,
}

impl Metric {
    pub const fn counter(name: &'static str, help: &'static str) -> Self {
        Metric {
            name,
            kind: Kind::Counter,
            help,
        }
    }
    pub const fn gauge(name: &'static str, help: &'static str) -> Self {
        Metric {
            name,
            kind: Kind::Gauge,
            help,
        }
    }
    pub const fn histogram(name: &'static str, help: &'static str) -> Self {
        Metric {
            name,
            kind: Kind::Histogram,
            help,
        }
    }
}

/// The metrics core records itself, for every stage on either bus.
pub const CORE: &[Metric] = &[
    Metric::counter("gleaner_stage_inputs_total", "Records a stage has handled, by stage."),
    Metric::counter("gleaner_stage_outputs_total", "Records a stage has produced, by stage and output topic."),
    Metric::histogram("gleaner_stage_batch_seconds", "Time a stage took to handle one batch of input records, by stage."),
    Metric::counter("gleaner_stage_failed_total", "Inputs a stage sent to the dead-letter topic, by stage and reason (other: none given)."),
    Metric::counter("gleaner_stage_skipped_total", "Inputs a stage passed over by design (not an article, disallowed by robots.txt), by stage and reason."),
];

/// Describes `list` to the process's recorder (installed first if need be).
pub fn describe(list: &[Metric]) {
    super::handle();
    describe_to_recorder(list);
}

pub(super) fn describe_to_recorder(list: &[Metric]) {
    for m in list {
        let seconds = m.name.ends_with("_seconds");
        match (m.kind, seconds) {
            (Kind::Counter, _) => describe_counter!(m.name, m.help),
            (Kind::Gauge, _) => describe_gauge!(m.name, m.help),
            (Kind::Histogram, true) => describe_histogram!(m.name, Unit::Seconds, m.help),
            (Kind::Histogram, false) => describe_histogram!(m.name, m.help),
        }
    }
}

/// Checks that every `metrics::inc/add/set/observe("gleaner_...")` in the
/// `.rs` files under `src` names a metric of `list`, and that every metric
/// of `list` is recorded there: for each crate's test of its own list.
pub fn check_sources(src: &Path, list: &[Metric]) -> anyhow::Result<()> {
    let mut used = std::collections::BTreeSet::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir)?.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path)?;
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
        list.iter().map(|m| m.name.to_string()).collect();
    let undescribed: Vec<_> = used.difference(&described).collect();
    anyhow::ensure!(
        undescribed.is_empty(),
        "recorded under {} but not described: {undescribed:?}",
        src.display()
    );
    let unused: Vec<_> = described.difference(&used).collect();
    anyhow::ensure!(
        unused.is_empty(),
        "described but never recorded under {}: {unused:?}",
        src.display()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn core_records_only_the_metrics_it_describes() {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        check_sources(&src, CORE).unwrap();
    }

    #[test]
    fn an_undescribed_metric_is_found() {
        let dir = tempfile::tempdir().unwrap();
        // Written so that this file itself records nothing.
        let call = format!(
            "fn f() {{ metrics::{}(\n \"gleaner_x_total\", &[]); }}",
            "inc"
        );
        std::fs::write(dir.path().join("a.rs"), call).unwrap();
        let e = check_sources(dir.path(), CORE).unwrap_err().to_string();
        assert!(e.contains("gleaner_x_total"), "{e}");
        let x = [Metric::counter("gleaner_x_total", "x")];
        check_sources(dir.path(), &x).unwrap();
    }
}
