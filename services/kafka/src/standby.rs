//! One active instance of a stage that must see all of its input (dedup
//! and stories compare articles across every host: two instances sharing
//! the partitions would each miss what the other saw). Any number may run;
//! before it builds its stage (and so its window) an instance reads the
//! status topic and, while another live instance of its stage reports
//! being active, waits as a standby, reporting that it waits. When none
//! is active it claims the role (a report with the time of its claim),
//! reads the reports again a moment later and keeps the role unless an
//! earlier claim is there (two standbys that claimed at once: the earlier
//! claim, then the smaller name, wins). The new active one then builds its
//! state from the topics' tails, as a restarted instance does, and joins
//! the group under the static member name every active instance of the
//! stage uses (`<group>-active`), so it takes the partitions back at once
//! as a restarted instance does (it notices a dead one on its host at
//! once, elsewhere within 15 s, both inside the 45 s session). The status
//! topic decides rather than the group because the group would share the
//! partitions between the instances instead.

use crate::namesake::{is_live, reports, Me};
use crate::report::publish;
use gleaner_core::messages::StageStatus;
use gleaner_core::{Config, Topic};
use std::time::Duration;
use tokio::sync::watch;

/// How often a standby looks again (and reports that it waits).
const RECHECK: Duration = Duration::from_secs(2);

/// How long a claim stands before the reports are read again: long enough
/// for a claim made at the same moment elsewhere to be acknowledged.
const SETTLE: Duration = Duration::from_secs(1);

/// The latest report of every other live instance of `me.stage`.
fn others<'r>(reports: &'r [StageStatus], me: &Me, now_ms: u64) -> Vec<&'r StageStatus> {
    let mut latest: std::collections::BTreeMap<&str, &StageStatus> = Default::default();
    for r in reports
        .iter()
        .filter(|r| r.stage == me.stage && r.instance != me.instance)
    {
        let newer = latest
            .get(r.instance.as_str())
            .is_none_or(|old| old.at_ms <= r.at_ms);
        if newer {
            latest.insert(&r.instance, r);
        }
    }
    latest
        .into_values()
        .filter(|r| is_live(r, me, now_ms))
        .collect()
}

/// Another live instance that is active, if any.
pub(crate) fn active_other<'r>(
    reports: &'r [StageStatus],
    me: &Me,
    now_ms: u64,
) -> Option<&'r StageStatus> {
    others(reports, me, now_ms)
        .into_iter()
        .find(|r| r.active_since_ms.is_some())
}

/// Another live instance whose claim comes before this one's, made at
/// `since` (earlier, or at the same millisecond under a smaller name).
pub(crate) fn earlier_claim<'r>(
    reports: &'r [StageStatus],
    me: &Me,
    since: u64,
    now_ms: u64,
) -> Option<&'r StageStatus> {
    others(reports, me, now_ms).into_iter().find(|r| {
        r.active_since_ms
            .is_some_and(|s| (s, r.instance.as_str()) < (since, me.instance))
    })
}

/// Reports this instance on the status topic: active since `since`, or a
/// standby. Waits for the acknowledgement (a claim must be on the topic
/// before the reports are read again).
async fn report(producer: &crate::Producer, cfg: &Config, me: &Me<'_>, since: Option<u64>) {
    let status = StageStatus {
        stage: me.stage.to_string(),
        instance: me.instance.to_string(),
        host: me.host.to_string(),
        pid: me.pid,
        owned: vec![],
        last_commit_ms: None,
        handled: 0,
        at_ms: gleaner_core::util::unix_millis(),
        active_since_ms: since,
        chained: Vec::new(),
    };
    let topic = cfg.topic_name(Topic::STATUS);
    if let Err(e) = publish(producer, &topic, &status, Duration::from_secs(5)).await {
        tracing::warn!(stage = me.stage, error = %e, "status report not sent");
    }
}

async fn read_reports(cfg: &Config, brokers: &str) -> Vec<StageStatus> {
    let (c, b) = (cfg.clone(), brokers.to_string());
    tokio::task::spawn_blocking(move || reports(&c, &b))
        .await
        .unwrap_or_default()
}

/// Waits until this instance is its stage's active one; returns since when
/// (for its reports), or `None` when told to stop meanwhile.
pub async fn wait_to_be_active(
    cfg: &Config,
    brokers: &str,
    stage: &str,
    stop: &mut watch::Receiver<bool>,
) -> anyhow::Result<Option<u64>> {
    let host = crate::namesake::host_name();
    let me = Me {
        stage,
        instance: &cfg.kafka.instance,
        host: &host,
        pid: std::process::id(),
    };
    let producer = crate::producer(cfg, brokers)?;
    let mut waiting_for = None;
    loop {
        let found = read_reports(cfg, brokers).await;
        let now = gleaner_core::util::unix_millis();
        if let Some(active) = active_other(&found, &me, now) {
            // One line per active instance waited for.
            let who = (active.instance.clone(), active.host.clone(), active.pid);
            if waiting_for.as_ref() != Some(&who) {
                tracing::info!(
                    "{stage}: standby: instance {:?} (host {}, pid {}) is active; taking over when it stops",
                    who.0,
                    who.1,
                    who.2
                );
                waiting_for = Some(who);
            }
            report(&producer, cfg, &me, None).await;
            tokio::select! {
                () = tokio::time::sleep(RECHECK) => continue,
                _ = stop.wait_for(|s| *s) => return Ok(None),
            }
        }
        let since = gleaner_core::util::unix_millis();
        report(&producer, cfg, &me, Some(since)).await;
        tokio::time::sleep(SETTLE).await;
        let found = read_reports(cfg, brokers).await;
        let now = gleaner_core::util::unix_millis();
        if let Some(first) = earlier_claim(&found, &me, since, now) {
            tracing::info!(
                "{stage}: instance {:?} claimed the active role first; standing by",
                first.instance
            );
            continue;
        }
        tracing::info!("{stage}: active (the only instance of this stage that consumes)");
        return Ok(Some(since));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(instance: &str, at_ms: u64, since: Option<u64>) -> StageStatus {
        StageStatus {
            stage: "dedup".into(),
            instance: instance.into(),
            host: "elsewhere".into(),
            pid: 7,
            owned: vec![],
            last_commit_ms: None,
            handled: 0,
            at_ms,
            active_since_ms: since,
            chained: Vec::new(),
        }
    }

    const ME: Me = Me {
        stage: "dedup",
        instance: "b",
        host: "here",
        pid: 1,
    };

    #[test]
    fn a_live_active_instance_keeps_the_others_waiting() {
        let now = 1_000_000;
        let active = report("a", now - 2_000, Some(5));
        assert!(active_other(std::slice::from_ref(&active), &ME, now).is_some());
        // A standby is not active; a report gone quiet is from a dead one.
        assert!(active_other(&[report("a", now - 2_000, None)], &ME, now).is_none());
        assert!(active_other(&[report("a", now - 60_000, Some(5))], &ME, now).is_none());
        // Its latest report counts: it went back to standby.
        let back = report("a", now - 1_000, None);
        assert!(active_other(&[active, back], &ME, now).is_none());
        // Another stage's active instance is not this stage's.
        let mut stories = report("a", now, Some(5));
        stories.stage = "stories".into();
        assert!(active_other(&[stories], &ME, now).is_none());
    }

    #[test]
    fn of_two_claims_the_earlier_then_the_smaller_name_wins() {
        let now = 1_000_000;
        let mine = now - 500;
        assert!(earlier_claim(&[report("a", now, Some(mine - 1))], &ME, mine, now).is_some());
        assert!(earlier_claim(&[report("c", now, Some(mine + 1))], &ME, mine, now).is_none());
        assert!(earlier_claim(&[report("a", now, Some(mine))], &ME, mine, now).is_some());
        assert!(earlier_claim(&[report("c", now, Some(mine))], &ME, mine, now).is_none());
        assert!(earlier_claim(&[report("a", now, None)], &ME, mine, now).is_none());
    }
}
