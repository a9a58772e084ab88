//! Host health and block detection: a host is paused when, of its last
//! responses, a high share were blocks (403, 429, challenge pages), or after
//! a run of errors; the pause doubles on each pause within a quiet period.

use crate::error::FetchError;
use crate::settings::FetchSettings;
use crate::Fetched;
use gleaner_core::metrics;
use gleaner_core::sync::Locked;
use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How a fetch went, for the host's health.
pub(crate) enum Outcome {
    Fine,
    Blocked,
    Error,
}

impl Outcome {
    pub(crate) fn of(result: &Result<Fetched, FetchError>) -> Outcome {
        match result {
            Ok(_) => Outcome::Fine,
            Err(FetchError::Status {
                status: 403 | 429, ..
            })
            | Err(FetchError::Challenge(_)) => Outcome::Blocked,
            Err(FetchError::Status { status, .. }) if *status >= 500 => Outcome::Error,
            // A refused address is our rule, not the host failing.
            Err(FetchError::Request {
                reason: crate::error::reasons::PRIVATE_ADDRESS,
                ..
            }) => Outcome::Fine,
            Err(FetchError::Request { .. }) | Err(FetchError::RobotsUnavailable { .. }) => {
                Outcome::Error
            }
            Err(_) => Outcome::Fine,
        }
    }
}

#[derive(Default)]
struct HostHealth {
    /// Whether each of the last responses looked like a block.
    recent: VecDeque<bool>,
    consecutive_errors: u32,
    paused_until: Option<Instant>,
    pause_reason: String,
    /// The last pause's length, doubled on the next one unless forgiven.
    last_pause: Option<Duration>,
}

pub(crate) struct Health {
    block_window: usize,
    block_ratio: f64,
    error_pause_after: u32,
    pause: Duration,
    max_pause: Duration,
    hosts: Mutex<HashMap<String, HostHealth>>,
}

impl Health {
    pub(crate) fn new(cfg: &FetchSettings) -> Self {
        Health {
            block_window: cfg.block_window.max(1),
            block_ratio: cfg.block_ratio,
            error_pause_after: cfg.error_pause_after.max(1),
            pause: Duration::from_secs(cfg.pause_secs),
            max_pause: Duration::from_secs(cfg.max_pause_secs),
            hosts: Mutex::new(HashMap::new()),
        }
    }

    /// Whether the host is paused now.
    pub(crate) fn paused(&self, host: &str) -> bool {
        self.pause_error(host).is_some()
    }

    /// The error for a URL of a paused host, or `None` when it is not.
    pub(crate) fn pause_error(&self, host: &str) -> Option<FetchError> {
        let hosts = self.hosts.locked();
        let h = hosts.get(host)?;
        let now = Instant::now();
        let until = h.paused_until.filter(|u| *u > now)?;
        Some(FetchError::HostPaused {
            host: host.to_string(),
            secs: (until - now).as_secs().max(1),
            why: h.pause_reason.clone(),
        })
    }

    /// Books a fetch's outcome; pauses the host when it is being blocked or
    /// keeps failing.
    pub(crate) fn record(&self, host: &str, outcome: Outcome) {
        let mut hosts = self.hosts.locked();
        let h = hosts.entry(host.to_string()).or_default();
        h.recent.push_back(matches!(outcome, Outcome::Blocked));
        while h.recent.len() > self.block_window {
            h.recent.pop_front();
        }
        h.consecutive_errors = if matches!(outcome, Outcome::Error) {
            h.consecutive_errors + 1
        } else {
            0
        };
        let blocked = h.recent.iter().filter(|b| **b).count();
        let why = if h.recent.len() >= self.block_window
            && blocked as f64 >= self.block_ratio * h.recent.len() as f64
        {
            Some(format!(
                "blocked: {blocked} of the last {} responses were 403, 429 or challenge pages",
                h.recent.len()
            ))
        } else if h.consecutive_errors >= self.error_pause_after {
            Some(format!("{} errors in a row", h.consecutive_errors))
        } else {
            None
        };
        let Some(why) = why else { return };
        let now = Instant::now();
        // Forgiven after a quiet period as long as the last pause.
        let pause = match (h.last_pause, h.paused_until) {
            (Some(last), Some(until)) if now < until + last.max(self.pause) => {
                (last * 2).min(self.max_pause)
            }
            _ => self.pause,
        };
        h.paused_until = Some(now + pause);
        h.last_pause = Some(pause);
        h.pause_reason = why.clone();
        h.recent.clear();
        h.consecutive_errors = 0;
        tracing::warn!(host, reason = %why, pause_secs = pause.as_secs(), "host paused");
        metrics::inc("gleaner_fetch_host_pauses_total", &[]);
        let paused = hosts
            .values()
            .filter(|h| h.paused_until.is_some_and(|u| u > now))
            .count();
        metrics::set("gleaner_fetch_paused_hosts", &[], paused as f64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn health(window: usize, errors: u32) -> Health {
        Health::new(&FetchSettings {
            block_window: window,
            block_ratio: 0.5,
            error_pause_after: errors,
            ..Default::default()
        })
    }

    #[test]
    fn blocks_past_the_ratio_pause_the_host() {
        let h = health(4, 100);
        for outcome in [Outcome::Blocked, Outcome::Fine, Outcome::Blocked] {
            h.record("a:80", outcome);
        }
        assert!(!h.paused("a:80"), "window not full yet");
        h.record("a:80", Outcome::Fine);
        assert!(h.paused("a:80"), "2 of 4 blocked");
        assert!(!h.paused("b:80"));
        let e = h.pause_error("a:80").unwrap().to_string();
        assert!(e.contains("2 of the last 4"), "{e}");
    }

    #[test]
    fn a_run_of_errors_pauses_and_a_success_resets_it() {
        let h = health(100, 3);
        h.record("a:80", Outcome::Error);
        h.record("a:80", Outcome::Error);
        h.record("a:80", Outcome::Fine);
        h.record("a:80", Outcome::Error);
        assert!(!h.paused("a:80"));
        h.record("a:80", Outcome::Error);
        h.record("a:80", Outcome::Error);
        assert!(h.paused("a:80"));
    }
}
