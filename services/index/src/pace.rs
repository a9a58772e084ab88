//! How often the index stage commits: often while it keeps up with a
//! crawl, so that an article is searchable about a second after its fetch;
//! seldom while it takes in a bulk load (a replay of the topic, a rebuild),
//! as Meilisearch gathers a backlog into one batch and as Elasticsearch's
//! guide sets `refresh_interval` for bulk indexing. Each commit writes a
//! segment per indexing thread, and Tantivy merges small segments again and
//! again: at half a second per commit a bulk load of 100,000 articles went
//! at 1,443-1,525 articles/s, at five seconds at 1,840-2,228
//! (bench_index, alternating, four runs each).

use std::time::{Duration, Instant};

/// Documents not yet searchable (waiting, added or in the running commit)
/// beyond which the stage waits for the commit. Tantivy indexes on one
/// thread, which fell behind the rest of the pipeline on two busy cores:
/// without a bound, commits grew to 450 documents and a second each, and
/// fetch to searchable to 2.7 s at p99 on bench-e2e's crawl (1.2-1.7 s
/// with it). It also keeps a stalled disk holding the pipeline back.
/// When documents come faster, the bound is what arrives in half a second
/// (`UNSEARCHABLE_SECONDS`; in a bulk load, in one bulk interval): at 256,
/// commits of a quarter of a second's documents held a fast intake to
/// 1,040 articles/s where 1,400 were possible (scripts/bench-search.sh's
/// indexing, 20,000 articles), the time going to commits and to merging
/// their small segments.
pub(crate) const MAX_UNSEARCHABLE: usize = 256;
const UNSEARCHABLE_SECONDS: f64 = 0.5;

/// Documents taken in per second, over the last whole second.
struct Intake {
    since: Instant,
    count: usize,
    per_second: f64,
}

impl Intake {
    fn new() -> Self {
        Intake {
            since: Instant::now(),
            count: 0,
            per_second: 0.0,
        }
    }

    fn record(&mut self, n: usize) {
        self.count += n;
        let secs = self.since.elapsed().as_secs_f64();
        if secs >= 1.0 {
            self.per_second = self.count as f64 / secs;
            (self.since, self.count) = (Instant::now(), 0);
        }
    }
}

/// The commit interval of each mode and when the stage is in bulk mode.
pub(crate) struct Pace {
    live: Duration,
    bulk: Duration,
    /// Articles a second from which a load is bulk; it stays bulk until
    /// the intake falls below half of it (a commit that holds the stage
    /// back lowers the intake for a moment).
    bulk_above: f64,
    is_bulk: bool,
    intake: Intake,
}

impl Pace {
    pub(crate) fn new(live: Duration, bulk: Duration, bulk_above: f64) -> Self {
        Pace {
            live,
            bulk: bulk.max(live),
            bulk_above,
            is_bulk: false,
            intake: Intake::new(),
        }
    }

    /// The pace `settings` set.
    pub(crate) fn of(settings: &crate::IndexSettings) -> Self {
        Pace::new(
            Duration::from_millis(settings.commit_interval_ms),
            Duration::from_millis(settings.bulk_commit_interval_ms),
            settings.bulk_articles_per_second,
        )
    }

    /// Commits while live at most every `live`.
    pub(crate) fn set_live(&mut self, live: Duration) {
        self.live = live;
        self.bulk = self.bulk.max(live);
    }

    /// `n` documents were taken in.
    pub(crate) fn record(&mut self, n: usize) {
        self.intake.record(n);
        let rate = self.intake.per_second;
        self.is_bulk = if self.is_bulk {
            rate >= self.bulk_above / 2.0
        } else {
            rate >= self.bulk_above
        };
    }

    /// The least time from the end of a commit to the next.
    pub(crate) fn interval(&self) -> Duration {
        if self.is_bulk {
            self.bulk
        } else {
            self.live
        }
    }

    /// Documents not yet searchable past which the stage waits for a
    /// commit: what comes in during half a second (a bulk interval in a
    /// bulk load), and at least [`MAX_UNSEARCHABLE`].
    pub(crate) fn bound(&self) -> usize {
        let secs = if self.is_bulk {
            self.bulk.as_secs_f64()
        } else {
            UNSEARCHABLE_SECONDS
        };
        MAX_UNSEARCHABLE.max((self.intake.per_second * secs) as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pace_at(rate_per_second: usize, mut pace: Pace) -> Pace {
        pace.intake.since = Instant::now() - Duration::from_secs(1);
        pace.record(rate_per_second);
        pace
    }

    fn pace() -> Pace {
        Pace::new(Duration::from_millis(500), Duration::from_secs(5), 1000.0)
    }

    #[test]
    fn a_crawl_commits_often_and_a_bulk_load_seldom() {
        let live = pace_at(300, pace());
        assert_eq!(live.interval(), Duration::from_millis(500));
        assert_eq!(
            live.bound(),
            MAX_UNSEARCHABLE,
            "150 a commit: the least bound"
        );
        let bulk = pace_at(2000, pace());
        assert_eq!(bulk.interval(), Duration::from_secs(5));
        assert!((9_900..=10_000).contains(&bulk.bound()), "{}", bulk.bound());
    }

    #[test]
    fn bulk_lasts_until_the_intake_falls_to_half() {
        let bulk = pace_at(2000, pace());
        let still = pace_at(700, bulk);
        assert_eq!(still.interval(), Duration::from_secs(5));
        let live = pace_at(400, still);
        assert_eq!(live.interval(), Duration::from_millis(500));
        assert_eq!(pace_at(700, live).interval(), Duration::from_millis(500));
    }

    #[test]
    fn a_bulk_interval_shorter_than_the_live_one_is_the_live_one() {
        let p = pace_at(
            5000,
            Pace::new(Duration::from_secs(1), Duration::from_millis(100), 1000.0),
        );
        assert_eq!(p.interval(), Duration::from_secs(1));
    }
}
