//! The most recent observations of a few latencies, kept exactly for the
//! end-of-run summary's percentiles (Prometheus histograms only give
//! bucket bounds). Bounded: 100,000 values per name.

use crate::sync::Locked;
use std::collections::{BTreeMap, VecDeque};
use std::sync::{Mutex, OnceLock};

const KEPT: usize = 100_000;

fn kept() -> &'static Mutex<BTreeMap<&'static str, VecDeque<f64>>> {
    static K: OnceLock<Mutex<BTreeMap<&'static str, VecDeque<f64>>>> = OnceLock::new();
    K.get_or_init(Default::default)
}

/// Keeps one value of `name`, forgetting the oldest beyond 100,000.
pub fn keep(name: &'static str, v: f64) {
    let mut k = kept().locked();
    let values = k.entry(name).or_default();
    if values.len() == KEPT {
        values.pop_front();
    }
    values.push_back(v);
}

/// The `q` quantile (0..=1) of the kept values of `name`, with their
/// count; `None` before any.
pub fn quantile(name: &str, q: f64) -> Option<(f64, usize)> {
    let k = kept().locked();
    let values = k.get(name).filter(|v| !v.is_empty())?;
    let mut sorted: Vec<f64> = values.iter().copied().collect();
    sorted.sort_by(f64::total_cmp);
    let at = ((sorted.len() - 1) as f64 * q.clamp(0.0, 1.0)).round() as usize;
    Some((sorted[at], sorted.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_of_the_kept_values() {
        assert!(quantile("t_latency", 0.5).is_none());
        for v in 1..=100 {
            keep("t_latency", v as f64);
        }
        assert_eq!(quantile("t_latency", 0.5), Some((51.0, 100)));
        assert_eq!(quantile("t_latency", 0.99), Some((99.0, 100)));
    }
}
