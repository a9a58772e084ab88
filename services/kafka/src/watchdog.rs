//! The runner's watch for a stage left without partitions while its
//! input waits (see [`Watchdog`]).

use super::admin::group_lag;
use super::client::{BusContext, GroupState};
use rdkafka::consumer::StreamConsumer;
use std::time::{Duration, Instant};

/// Notices a stage left without partitions while its input waits (lag and
/// no progress by any member of the group). The runner then joins the
/// group again as a dynamic member (after one session), and if that does
/// not help either, exits with an error after `kafka.unassigned_exit_ms`
/// rather than idle for ever, for a supervisor to restart it. (Seen on
/// tansu 0.6.0: a static member back just after its old session expired is
/// assigned its partitions, has them revoked a second later and is never
/// given them again, nor after restarts under the same instance name; a
/// dynamic member is.) A hot standby (more instances than partitions) sees
/// the others commit, and stays.
#[derive(Default)]
pub(crate) struct Watchdog {
    last_check: Option<Instant>,
    /// Since when the group's committed offsets have not moved, and their sum.
    still_since: Option<(Instant, i64)>,
}

impl Watchdog {
    pub fn check(
        &mut self,
        consumer: &StreamConsumer<BusContext>,
        state: &GroupState,
        limit: Duration,
        topics: &[&str],
    ) -> anyhow::Result<()> {
        let Some(unassigned) = state.unassigned_for().filter(|_| !limit.is_zero()) else {
            self.still_since = None;
            return Ok(());
        };
        let every = (limit / 4).clamp(Duration::from_millis(500), Duration::from_secs(5));
        // Without a broker there is no lag to read (and each try would
        // block for seconds); being unassigned then is the broker's doing.
        if state.broker_down() {
            self.still_since = None;
            return Ok(());
        }
        if unassigned < every || self.last_check.is_some_and(|t| t.elapsed() < every) {
            return Ok(());
        }
        self.last_check = Some(Instant::now());
        let (lag, committed) = match tokio::task::block_in_place(|| group_lag(consumer, topics)) {
            Ok(l) => l,
            Err(e) => {
                tracing::debug!(error = %e, "reading the group's lag failed");
                return Ok(());
            }
        };
        match self.still_since {
            Some((_, sum)) if sum == committed && lag > 0 => {}
            _ => self.still_since = (lag > 0).then_some((Instant::now(), committed)),
        }
        if let Some((since, _)) = self.still_since {
            let waited = since.elapsed().min(unassigned);
            tracing::warn!(
                lag,
                waited_s = waited.as_secs(),
                "no partitions while the input has lag"
            );
            if waited >= limit {
                anyhow::bail!(
                    "no partitions for {} s while the input has {lag} records of lag that no member of the group consumes; exiting so that a supervisor restarts this stage (kafka.unassigned_exit_ms)",
                    waited.as_secs()
                );
            }
        }
        Ok(())
    }
}
