//! Process-wide counters and gauges in the Prometheus text format, served
//! on `GET /metrics` by [`serve`].

use crate::sync::Locked;
use std::collections::BTreeMap;
use std::sync::{Mutex, OnceLock};

type Key = (String, Vec<(String, String)>);

fn registry() -> &'static Mutex<BTreeMap<Key, f64>> {
    static R: OnceLock<Mutex<BTreeMap<Key, f64>>> = OnceLock::new();
    R.get_or_init(Default::default)
}

fn key(name: &str, labels: &[(&str, &str)]) -> Key {
    (
        name.to_string(),
        labels
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
    )
}

/// Adds to a counter.
pub fn add(name: &str, labels: &[(&str, &str)], v: f64) {
    let mut r = registry().locked();
    *r.entry(key(name, labels)).or_insert(0.0) += v;
}

/// Adds one to a counter.
pub fn inc(name: &str, labels: &[(&str, &str)]) {
    add(name, labels, 1.0);
}

/// Sets a gauge.
pub fn set(name: &str, labels: &[(&str, &str)], v: f64) {
    let mut r = registry().locked();
    r.insert(key(name, labels), v);
}

/// Drops a series (per-host gauges must not pile up for every host seen).
pub fn remove(name: &str, labels: &[(&str, &str)]) {
    let mut r = registry().locked();
    r.remove(&key(name, labels));
}

/// Observations kept per summary: the most recent ones.
const OBSERVATIONS: usize = 100_000;

fn observations() -> &'static Mutex<BTreeMap<String, std::collections::VecDeque<f64>>> {
    static O: OnceLock<Mutex<BTreeMap<String, std::collections::VecDeque<f64>>>> = OnceLock::new();
    O.get_or_init(Default::default)
}

/// Records one observation of a summary (a latency, say); the most recent
/// 100,000 are kept for its quantiles.
pub fn observe(name: &str, v: f64) {
    let mut o = observations().locked();
    let values = o.entry(name.to_string()).or_default();
    if values.len() == OBSERVATIONS {
        values.pop_front();
    }
    values.push_back(v);
}

/// The `q` quantile (0..=1) of a summary's kept observations, with their
/// count; `None` before any.
pub fn quantile(name: &str, q: f64) -> Option<(f64, usize)> {
    let o = observations().locked();
    let values = o.get(name).filter(|v| !v.is_empty())?;
    let mut sorted: Vec<f64> = values.iter().copied().collect();
    sorted.sort_by(f64::total_cmp);
    let at = ((sorted.len() - 1) as f64 * q.clamp(0.0, 1.0)).round() as usize;
    Some((sorted[at], sorted.len()))
}

/// The current value of a series (for tests and summaries).
pub fn get(name: &str, labels: &[(&str, &str)]) -> f64 {
    let r = registry().locked();
    r.get(&key(name, labels)).copied().unwrap_or(0.0)
}

fn escape(v: &str) -> String {
    v.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

/// Every series in the Prometheus text exposition format.
pub fn render() -> String {
    let r = registry().locked();
    let mut out = String::new();
    for ((name, labels), v) in r.iter() {
        out.push_str(name);
        if !labels.is_empty() {
            let l: Vec<String> = labels
                .iter()
                .map(|(k, v)| format!("{k}=\"{}\"", escape(v)))
                .collect();
            out.push('{');
            out.push_str(&l.join(","));
            out.push('}');
        }
        out.push_str(&format!(" {v}\n"));
    }
    drop(r);
    let names: Vec<String> = observations().locked().keys().cloned().collect();
    for name in names {
        for q in [0.5, 0.9, 0.99] {
            if let Some((v, _)) = quantile(&name, q) {
                out.push_str(&format!("{name}{{quantile=\"{q}\"}} {v}\n"));
            }
        }
    }
    out
}

/// Serves `GET /metrics` (any path, in fact) on `addr` until the process
/// ends. Deliberately tiny: one response per connection, no keep-alive.
pub async fn serve(addr: &str) -> anyhow::Result<std::net::SocketAddr> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind(addr).await?;
    let local = listener.local_addr()?;
    tokio::spawn(async move {
        loop {
            let Ok((mut sock, _)) = listener.accept().await else {
                continue;
            };
            tokio::spawn(async move {
                let mut buf = [0u8; 1024];
                let _ =
                    tokio::time::timeout(std::time::Duration::from_secs(2), sock.read(&mut buf))
                        .await;
                let body = render();
                let head = format!(
                    "HTTP/1.0 200 OK\r\ncontent-type: text/plain; version=0.0.4\r\ncontent-length: {}\r\n\r\n",
                    body.len()
                );
                let _ = sock.write_all(head.as_bytes()).await;
                let _ = sock.write_all(body.as_bytes()).await;
            });
        }
    });
    tracing::info!(%local, "metrics on http://{local}/metrics");
    Ok(local)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_prometheus_text() {
        inc("t_requests_total", &[("host", "a\"b")]);
        add("t_requests_total", &[("host", "a\"b")], 2.0);
        set("t_queue", &[], 5.0);
        let text = render();
        assert!(
            text.contains("t_requests_total{host=\"a\\\"b\"} 3\n"),
            "{text}"
        );
        assert!(text.contains("t_queue 5\n"));
    }

    #[test]
    fn summaries_give_quantiles() {
        assert!(quantile("t_latency", 0.5).is_none());
        for v in 1..=100 {
            observe("t_latency", v as f64);
        }
        assert_eq!(quantile("t_latency", 0.5), Some((51.0, 100)));
        assert_eq!(quantile("t_latency", 0.99), Some((99.0, 100)));
        assert!(render().contains("t_latency{quantile=\"0.5\"} 51\n"));
    }
}
