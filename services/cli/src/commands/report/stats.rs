//! The figures of the crawl report, from what a run leaves in its data
//! directory.

use std::collections::{BTreeMap, HashMap};

/// Word rank / frequency pairs, most frequent first.
pub fn rank_frequency(counts: &HashMap<String, u64>) -> Vec<(f64, f64)> {
    let mut freq: Vec<u64> = counts.values().copied().collect();
    freq.sort_unstable_by(|a, b| b.cmp(a));
    freq.iter()
        .enumerate()
        .map(|(i, f)| ((i + 1) as f64, *f as f64))
        .collect()
}

/// Zipf's law, `f ∝ r^-s`: the least-squares fit of log10 f against
/// log10 r over the first `upto` ranks, as (intercept, s). `None` with
/// fewer than three ranks.
pub fn zipf_fit(points: &[(f64, f64)], upto: usize) -> Option<(f64, f64)> {
    let pts: Vec<(f64, f64)> = points
        .iter()
        .take(upto)
        .map(|(r, f)| (r.log10(), f.log10()))
        .collect();
    if pts.len() < 3 {
        return None;
    }
    let n = pts.len() as f64;
    let mx = pts.iter().map(|p| p.0).sum::<f64>() / n;
    let my = pts.iter().map(|p| p.1).sum::<f64>() / n;
    let sxx: f64 = pts.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    if sxx == 0.0 {
        return None;
    }
    let slope = sxy / sxx;
    Some((my - slope * mx, -slope))
}

/// Points for a log-log plot: every rank up to 100, then fewer and fewer,
/// so a million-word vocabulary stays a few hundred circles.
pub fn thinned(points: &[(f64, f64)]) -> Vec<(f64, f64)> {
    let mut out = Vec::new();
    let mut next = 1.0f64;
    for &(r, f) in points {
        if r >= next {
            out.push((r, f));
            next = if r < 100.0 { r + 1.0 } else { r * 1.02 };
        }
    }
    out
}

/// Milliseconds into the latency histogram's buckets, in order.
pub const LATENCY_BUCKETS: [(u64, &str); 7] = [
    (10, "< 10 ms"),
    (30, "10-30 ms"),
    (100, "30-100 ms"),
    (300, "100-300 ms"),
    (1000, "0.3-1 s"),
    (3000, "1-3 s"),
    (u64::MAX, "> 3 s"),
];

pub fn latency_histogram(ms: impl Iterator<Item = u64>) -> Vec<(String, f64)> {
    let mut counts = [0u64; LATENCY_BUCKETS.len()];
    for m in ms {
        let i = LATENCY_BUCKETS
            .iter()
            .position(|(up, _)| m < *up)
            .unwrap_or(0);
        counts[i] += 1;
    }
    LATENCY_BUCKETS
        .iter()
        .zip(counts)
        .map(|((_, label), n)| (label.to_string(), n as f64))
        .collect()
}

/// Cumulative counts over seconds since `start`.
pub fn cumulative(start: i64, mut times: Vec<i64>) -> Vec<(f64, f64)> {
    times.sort_unstable();
    let mut out = vec![(0.0, 0.0)];
    for (i, t) in times.iter().enumerate() {
        out.push(((t - start).max(0) as f64 / 1000.0, (i + 1) as f64));
    }
    out
}

/// The `n` largest entries, largest first (ties by name).
pub fn top<K: Clone + Ord>(counts: &BTreeMap<K, u64>, n: usize) -> Vec<(K, u64)> {
    let mut v: Vec<(K, u64)> = counts.iter().map(|(k, c)| (k.clone(), *c)).collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    v.truncate(n);
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zipf_fit_finds_the_exponent_of_a_power_law() {
        let counts: HashMap<String, u64> = (1..=500)
            .map(|r| (format!("w{r}"), (100_000.0 / (r as f64).powf(1.1)) as u64))
            .collect();
        let (_, s) = zipf_fit(&rank_frequency(&counts), 200).unwrap();
        assert!((s - 1.1).abs() < 0.02, "{s}");
        assert!(zipf_fit(&[(1.0, 5.0)], 10).is_none());
        assert!(thinned(&rank_frequency(&counts)).len() < 200);
    }

    #[test]
    fn latencies_fall_in_their_buckets() {
        let h = latency_histogram([5, 50, 50, 5000].into_iter());
        assert_eq!(h[0].1, 1.0);
        assert_eq!(h[2].1, 2.0);
        assert_eq!(h[6].1, 1.0);
    }
}
