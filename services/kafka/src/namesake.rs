//! An instance never consumes beside a live namesake. Static membership
//! (`group.instance.id`) relies on the broker to fence a second member
//! under the same name: Apache Kafka does, the dev broker (tansu 0.6.0)
//! does not, and two namesakes there each consume every partition (every
//! page fetched twice, hosts hit faster than their delay). So before it
//! joins its group an instance reads the status topic, where every
//! instance reports its host, process and time every few seconds, and
//! waits while another live one has its stage and name; the binary asks
//! before it builds the stage, so that one that waited rebuilds its state
//! (dedup's window, fetch's fetched set) from what the other left.

use gleaner_core::messages::StageStatus;
use gleaner_core::{Config, Topic};
use std::time::Duration;
use tokio::sync::watch;

/// A report younger than this is from a live instance: three report
/// intervals (report.rs reports every 5 s).
const LIVE_MS: u64 = 15_000;

/// How often a waiting instance looks again.
const RECHECK: Duration = Duration::from_secs(5);

/// Who this process is.
pub(crate) struct Me<'a> {
    pub stage: &'a str,
    pub instance: &'a str,
    pub host: &'a str,
    pub pid: u32,
}

/// The latest report of another live instance with this stage and name,
/// if any. The same host and process id is this process's earlier life
/// (a container restarted keeps both); on this host a report whose
/// process is gone is a crashed namesake, whatever its age.
pub(crate) fn live_namesake(reports: &[StageStatus], me: &Me, now_ms: u64) -> Option<StageStatus> {
    let latest = reports
        .iter()
        .filter(|r| r.stage == me.stage && r.instance == me.instance)
        .max_by_key(|r| r.at_ms)?;
    is_live(latest, me, now_ms).then(|| latest.clone())
}

/// Whether `report` is from another live process: recent, and on this
/// host from a process still running that is not this one.
pub(crate) fn is_live(report: &StageStatus, me: &Me, now_ms: u64) -> bool {
    let fresh = now_ms.saturating_sub(report.at_ms) < LIVE_MS;
    let alive = if report.host == me.host {
        report.pid != me.pid && std::path::Path::new(&format!("/proc/{}", report.pid)).exists()
    } else {
        true
    };
    fresh && alive
}

/// The reports on the status topic's recent tail.
pub(crate) fn reports(cfg: &Config, brokers: &str) -> Vec<StageStatus> {
    let topic = cfg.topic_name(Topic::STATUS);
    crate::read_records(brokers, &topic, 500)
        .unwrap_or_default()
        .into_iter()
        .filter_map(|(_, value)| serde_json::from_slice(&value?).ok())
        .collect()
}

/// This machine's name, as reports carry it.
pub fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_string())
        .unwrap_or_default()
}

/// Waits while a live namesake runs, saying so in one line each time it
/// looks; `false` when told to stop meanwhile.
pub async fn wait_for_no_namesake(
    cfg: &Config,
    brokers: &str,
    stage: &str,
    stop: &mut watch::Receiver<bool>,
) -> bool {
    let host = host_name();
    let me = Me {
        stage,
        instance: &cfg.kafka.instance,
        host: &host,
        pid: std::process::id(),
    };
    loop {
        let (c, b) = (cfg.clone(), brokers.to_string());
        let found = tokio::task::spawn_blocking(move || reports(&c, &b))
            .await
            .unwrap_or_default();
        let Some(other) = live_namesake(&found, &me, gleaner_core::util::unix_millis()) else {
            return true;
        };
        tracing::warn!(
            "{stage}: another instance named {:?} is running (host {}, pid {}); waiting for it to stop. \
             Give each instance of a stage its own --instance (the default is the host name)",
            me.instance,
            other.host,
            other.pid
        );
        tokio::select! {
            () = tokio::time::sleep(RECHECK) => {}
            _ = stop.wait_for(|s| *s) => return false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(instance: &str, host: &str, pid: u32, at_ms: u64) -> StageStatus {
        StageStatus {
            stage: "clean".into(),
            instance: instance.into(),
            host: host.into(),
            pid,
            owned: vec![],
            last_commit_ms: None,
            handled: 0,
            at_ms,
            active_since_ms: None,
            chained: Vec::new(),
        }
    }

    #[test]
    fn only_a_live_other_namesake_counts() {
        let now = 1_000_000;
        let me = Me {
            stage: "clean",
            instance: "a",
            host: "box1",
            pid: 4242,
        };
        // This test's own process is alive for sure.
        let living = std::process::id();
        let other_host = report("a", "box2", 7, now - 3_000);
        assert!(live_namesake(std::slice::from_ref(&other_host), &me, now).is_some());
        // Old news: gone.
        assert!(live_namesake(&[report("a", "box2", 7, now - 60_000)], &me, now).is_none());
        // Another name, or another stage, is no namesake.
        assert!(live_namesake(&[report("b", "box2", 7, now)], &me, now).is_none());
        let mut dedup = other_host.clone();
        dedup.stage = "dedup".into();
        assert!(live_namesake(&[dedup], &me, now).is_none());
        // On this host: a live other process counts, a dead one (a crash)
        // or this very process (a restarted container) does not.
        assert!(live_namesake(&[report("a", "box1", living, now)], &me, now).is_some());
        assert!(live_namesake(&[report("a", "box1", u32::MAX - 1, now)], &me, now).is_none());
        assert!(live_namesake(&[report("a", "box1", 4242, now)], &me, now).is_none());
        // The latest report decides.
        let older = report("a", "box2", 7, now - 3_000);
        let gone = report("a", "box1", u32::MAX - 1, now - 1_000);
        assert!(live_namesake(&[older, gone], &me, now).is_none());
    }
}
