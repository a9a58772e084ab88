//! Politeness: each host's clock, the least time between two requests. (How
//! many requests a host has in flight is its number of frontier workers.)

use gleaner_core::metrics;
use gleaner_core::sync::Locked;
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};
use url::Url;

#[derive(Default)]
pub(crate) struct Politeness {
    /// When the last request to each host was sent (or answered, if later).
    last_send: Mutex<HashMap<String, Instant>>,
}

impl Politeness {
    /// Hosts seen so far.
    pub(crate) fn hosts(&self) -> usize {
        self.last_send.locked().len()
    }

    /// Waits until `delay` has passed since the last request to this host
    /// was sent, and marks now as the last send. The check and the mark are
    /// one step under the lock, so sends are spaced whatever the
    /// concurrency; a small margin covers the scheduling jitter between our
    /// send and the server's receipt.
    pub(crate) async fn wait_turn(&self, host: &str, delay: Duration) {
        self.wait_turn_until(host, delay, None).await;
    }

    /// [`Politeness::wait_turn`], giving up (false) rather than waiting past
    /// `deadline`.
    pub(crate) async fn wait_turn_until(
        &self,
        host: &str,
        delay: Duration,
        deadline: Option<Instant>,
    ) -> bool {
        let started = Instant::now();
        let delay = if delay.is_zero() {
            delay
        } else {
            delay + (delay / 50).min(Duration::from_millis(10))
        };
        loop {
            let wake = {
                let mut last_send = self.last_send.locked();
                let now = Instant::now();
                match last_send.get(host) {
                    Some(&last) if now < last + delay => last + delay,
                    _ => {
                        last_send.insert(host.to_string(), now);
                        break;
                    }
                }
            };
            if deadline.is_some_and(|d| wake > d) {
                return false;
            }
            tokio::time::sleep_until(wake.into()).await;
        }
        metrics::observe(
            "gleaner_fetch_politeness_wait_seconds",
            &[],
            started.elapsed().as_secs_f64(),
        );
        true
    }

    /// Counts the host's delay from when its answer arrived, not only from
    /// when the request left: the server saw the request somewhere in
    /// between, so gaps measured at the server never come out shorter.
    pub(crate) fn mark_answered(&self, host: &str) {
        let now = Instant::now();
        let mut last_send = self.last_send.locked();
        let t = last_send.entry(host.to_string()).or_insert(now);
        *t = (*t).max(now);
    }
}

/// The host and port: politeness and robots.txt are per origin.
pub fn host_key(url: &Url) -> String {
    match url.port_or_known_default() {
        Some(p) => format!("{}:{p}", url.host_str().unwrap_or_default()),
        None => url.host_str().unwrap_or_default().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn turns_to_one_host_are_spaced_and_other_hosts_do_not_wait() {
        let p = Politeness::default();
        let delay = Duration::from_millis(40);
        let start = Instant::now();
        p.wait_turn("a:80", delay).await;
        p.wait_turn("b:80", delay).await;
        assert!(start.elapsed() < delay, "two hosts: no wait");
        p.wait_turn("a:80", delay).await;
        assert!(start.elapsed() >= delay, "same host: spaced");
        let gave_up = !p
            .wait_turn_until("a:80", delay, Some(Instant::now() + delay / 4))
            .await;
        assert!(gave_up, "a turn past the deadline is refused");
        assert_eq!(p.hosts(), 2);
    }

    #[test]
    fn host_keys_carry_the_port() {
        let u = Url::parse("https://Example.com/a").unwrap();
        assert_eq!(host_key(&u), "example.com:443");
        assert_eq!(
            host_key(&Url::parse("http://x.org:8080/").unwrap()),
            "x.org:8080"
        );
    }
}
