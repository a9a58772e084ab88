//! The fetch stage: seeds and frontier links in, pages and newly found
//! links out. It plans each batch (seen set, scope) and queues its URLs in
//! the frontier (frontier.rs), where each host's worker fetches them at the
//! host's polite rate. A batch answers the URLs that finish within
//! fetch.defer_after_ms; the others stay parked (durably, with --state) and
//! are answered by later ticks, so a slow host holds up no other.

use crate::bloom::Bloom;
use crate::crawler::Crawler;
use crate::frontier::Frontier;
use crate::schedule::{self, Validators};
use crate::scope::Job;
use crate::settings::FetchSettings;
use crate::{parked, state};
use async_trait::async_trait;
use gleaner_core::messages::FrontierLink;
use gleaner_core::metrics;
use gleaner_core::stage::{Handled, Input, Output, Stage};
use gleaner_core::util::host_of;
use gleaner_core::Topic;
use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};
use url::Url;

/// The fetch stage.
pub struct FetchStage {
    pub(crate) crawler: Arc<Crawler>,
    /// URLs planned (queued, fetched or on their way out) by this process,
    /// so that a link is queued once; after a restart, the fetched ones.
    pub(crate) seen: Bloom,
    /// The durable set of URLs whose pages the broker acknowledged.
    pub(crate) store: Option<state::SeenStore>,
    /// URLs answered whose outputs are not yet produced: recorded in the
    /// store by `produced()`, once they are.
    answered: Vec<String>,
    pub(crate) schedule: schedule::Schedule,
    /// URLs taken off the topics but not answered (see parked.rs).
    parked: parked::Parked,
    frontier: Frontier,
    /// Parked URLs whose outputs the last tick returned: released at the
    /// next tick or on close, when the runner has produced them.
    emitted: Vec<String>,
    /// Fetches of earlier batches that finished while a batch waited: the
    /// next tick answers them.
    late: Vec<(String, crate::frontier::Outcome)>,
    /// Links this process sent to the frontier lately (their hashes): a
    /// link is planned, and so seen, only when it comes back, and until
    /// then every page that has it would send it again. Not kept across a
    /// restart: a link sent twice then is planned once.
    pub(crate) linked: gleaner_core::recent::Recent<()>,
}

/// Recently sent links remembered (a hash in a map and in a queue each).
const LINKED: usize = 200_000;

impl FetchStage {
    pub fn new(cfg: &FetchSettings, allow_private: bool) -> anyhow::Result<Self> {
        let allow_private = allow_private || cfg.allow_private;
        let seen = Bloom::new(cfg.bloom_capacity, cfg.bloom_fp_rate);
        tracing::info!(
            capacity = cfg.bloom_capacity,
            fp_rate = cfg.bloom_fp_rate,
            bytes = seen.bytes(),
            hashes = seen.hashes(),
            "seen-URL Bloom filter"
        );
        Ok(FetchStage {
            crawler: Arc::new(Crawler::new(cfg, allow_private)?),
            seen,
            store: None,
            answered: Vec::new(),
            schedule: schedule::Schedule::default(),
            parked: parked::Parked::default(),
            frontier: Frontier::default(),
            emitted: Vec::new(),
            late: Vec::new(),
            linked: gleaner_core::recent::Recent::new(LINKED),
        })
    }

    /// Keeps the seen-URL set in `dir`, so that a restart (even after
    /// kill -9) does not fetch a completed URL again.
    pub fn with_state(mut self, dir: &std::path::Path) -> anyhow::Result<Self> {
        let store = state::SeenStore::open(dir, &self.seen)?;
        self.seen = store.fetched().clone();
        self.schedule = schedule::Schedule::open(dir.join("schedule.json"))?;
        self.parked = parked::Parked::open(dir)?;
        // URLs a crash left parked are queued again, but for those whose
        // pages reached the broker before it.
        let (done, left): (Vec<_>, Vec<_>) = self
            .parked
            .all()
            .into_iter()
            .partition(|l| store.contains(&l.url));
        self.parked
            .release(&done.into_iter().map(|l| l.url).collect::<Vec<_>>())?;
        self.store = Some(store);
        if !left.is_empty() {
            tracing::info!(
                urls = left.len(),
                "parked URLs from the last run queued again"
            );
        }
        for link in left {
            if let Ok(url) = Url::parse(&link.url) {
                self.seen.insert(url.as_str());
                self.queue(&Job::from_link(link, url));
            }
        }
        Ok(self)
    }

    /// URLs of a paused host wait in the stage (and in the state directory)
    /// until the pause ends, instead of going to the dead-letter topic. For
    /// long-running services; a one-shot run would wait out every pause.
    pub fn wait_for_paused_hosts(self, yes: bool) -> Self {
        self.crawler.wait_for_paused.store(yes, Ordering::Relaxed);
        self
    }

    fn waits_for_paused_hosts(&self) -> bool {
        self.crawler.wait_for_paused.load(Ordering::Relaxed)
    }

    /// Queues a job's URL for its host (a scheduled URL is asked for only
    /// if it changed).
    fn queue(&self, job: &Job) {
        let validators = self
            .schedule
            .get(job.url.as_str())
            .map(|e| e.validators.clone())
            .filter(Validators::conditional);
        self.frontier.push(job, validators);
    }

    /// Starts workers for hosts with queued URLs (not for paused hosts
    /// whose URLs wait for the pause to end).
    fn start_workers(&self) {
        let wait = self.waits_for_paused_hosts();
        let health = &self.crawler.health;
        self.frontier
            .start(&self.crawler, |host| wait && health.paused(host));
    }

    /// Records the answered URLs as fetched; false if that failed (they
    /// are kept for the next try, and stay parked).
    fn record_answered(&mut self) -> bool {
        let Some(store) = self.store.as_mut() else {
            self.answered.clear();
            return true;
        };
        match store.record(&self.answered) {
            Ok(()) => {
                self.answered.clear();
                true
            }
            Err(e) => {
                tracing::warn!(error = %e, "recording fetched URLs failed");
                false
            }
        }
    }

    fn report_gauges(&self) {
        metrics::set("gleaner_fetch_seen_urls", &[], self.seen.len() as f64);
        metrics::set(
            "gleaner_fetch_seen_capacity",
            &[],
            self.crawler.cfg.bloom_capacity as f64,
        );
        metrics::set(
            "gleaner_fetch_hosts",
            &[],
            self.crawler.politeness.hosts() as f64,
        );
        metrics::set("gleaner_fetch_running", &[], self.frontier.running() as f64);
        metrics::set("gleaner_fetch_held_urls", &[], self.frontier.held() as f64);
        metrics::set("gleaner_fetch_parked_urls", &[], self.parked.len() as f64);
    }
}

#[async_trait]
impl Stage for FetchStage {
    /// Replays are recognised by the stage itself.
    fn replay_guard(&self) -> bool {
        false
    }

    async fn close(&mut self) -> anyhow::Result<()> {
        // The runner produced the last outputs before closing; URLs still
        // queued or running stay parked for the next start.
        anyhow::ensure!(self.record_answered(), "recording fetched URLs failed");
        let emitted = std::mem::take(&mut self.emitted);
        // No snapshot of the seen set here: its log is durable and the next
        // start replays it (100,000 lines at most). Writing the whole filter
        // (18 MB at the default size) was the last 50 ms of every run.
        self.parked.release(&emitted)?;
        Ok(())
    }

    async fn handle(&mut self, input: &Input) -> Handled {
        gleaner_core::stage::handle_as_batch(self, input).await
    }

    /// Plans every input (seen set, scope), queues the URLs for their
    /// hosts, and answers those fetched within fetch.defer_after_ms; the
    /// rest are parked and answered by later ticks.
    async fn handle_batch(&mut self, inputs: &[Input]) -> Vec<Handled> {
        let planned: Vec<anyhow::Result<Option<Job>>> =
            inputs.iter().map(|i| self.plan(i)).collect();
        let mut index: HashMap<String, usize> = HashMap::new();
        // Hosts with work queued before this batch: their new URLs wait
        // behind it, so the batch does not wait for them.
        let busy: std::collections::HashSet<String> = planned
            .iter()
            .filter_map(|p| p.as_ref().ok().and_then(|j| j.as_ref()))
            .map(|j| crate::politeness::host_key(&j.url))
            .filter(|h| self.frontier.host_busy(h))
            .collect();
        for (i, plan) in planned.iter().enumerate() {
            if let Ok(Some(job)) = plan {
                // The same URL twice in one batch is fetched once.
                if !index.contains_key(job.url.as_str()) {
                    self.queue(job);
                    index.insert(job.url.to_string(), i);
                }
            }
        }
        self.start_workers();
        let deadline = match self.crawler.cfg.defer_after_ms {
            0 => None,
            ms => Some(Instant::now() + Duration::from_millis(ms)),
        };
        let mut fetched: Vec<Option<crate::frontier::Outcome>> =
            (0..planned.len()).map(|_| None).collect();
        let mut left = index.len();
        // With a deadline, the batch waits only until each of its idle hosts
        // has answered one URL: the others wait in their hosts' queues, and
        // the next batch (other hosts' URLs, often) is queued at once.
        let mut unanswered_hosts: std::collections::HashSet<String> = index
            .keys()
            .filter_map(|u| Url::parse(u).ok())
            .map(|u| crate::politeness::host_key(&u))
            .filter(|h| !busy.contains(h))
            .collect();
        while left > 0 {
            // Created before looking, so a fetch finishing in between wakes it.
            let finished = self.frontier.finished_one();
            // Everything finished is taken, so workers always have room.
            for (url, outcome) in self.frontier.take_finished(|_| true) {
                if !index.contains_key(&url) {
                    self.late.push((url, outcome));
                    continue;
                }
                if let Some(i) = index.remove(&url) {
                    fetched[i] = Some(outcome);
                    left -= 1;
                    if let Ok(u) = Url::parse(&url) {
                        unanswered_hosts.remove(&crate::politeness::host_key(&u));
                    }
                }
            }
            if deadline.is_some() && unanswered_hosts.is_empty() {
                break;
            }
            // URLs of a paused host wait for the pause, not for this batch.
            let wait = self.waits_for_paused_hosts();
            let health = &self.crawler.health;
            let active = index.keys().any(|u| {
                !wait
                    || Url::parse(u)
                        .map_or(true, |u| !health.paused(&crate::politeness::host_key(&u)))
            });
            if left == 0 || !active {
                break;
            }
            match deadline {
                Some(d) => {
                    if tokio::time::timeout_at(d.into(), finished).await.is_err() {
                        break;
                    }
                }
                None => finished.await,
            }
        }
        let job_of = |i: usize| planned[i].as_ref().ok().and_then(|j| j.as_ref());
        // Still queued or running: parked, so durable before the batch's
        // offsets can be committed, and answered by a later tick.
        let waiting: Vec<FrontierLink> = index
            .values()
            .filter_map(|&i| job_of(i).map(Job::to_link))
            .collect();
        self.answered.extend(
            (0..fetched.len())
                .filter(|&i| fetched[i].is_some())
                .filter_map(|i| job_of(i).map(|j| j.url.to_string())),
        );
        if let Err(e) = self.parked.park(waiting) {
            let msg = format!("recording fetch state failed: {e:#}");
            return inputs
                .iter()
                .map(|_| Err(anyhow::anyhow!(msg.clone())))
                .collect();
        }
        if !index.is_empty() {
            metrics::add("gleaner_fetch_parked_total", &[], index.len() as u64);
        }
        self.report_gauges();
        let mut observed = Vec::new();
        let results: Vec<Handled> = planned
            .into_iter()
            .zip(fetched)
            .map(|(plan, f)| match (plan, f) {
                (Err(e), _) => Err(e),
                (Ok(None), _) => Ok(vec![]),
                (Ok(Some(job)), Some(Ok(fetched))) => {
                    Ok(self.completed(&job, fetched, &mut observed))
                }
                (Ok(Some(_)), Some(Err(e))) => {
                    metrics::inc("gleaner_fetch_errors_total", &[("kind", e.reason().code)]);
                    Err(e.reason().wrap(e))
                }
                // Parked: answered by a later tick.
                (Ok(Some(_)), None) => Ok(vec![]),
            })
            .collect();
        self.observe(observed);
        results
    }

    /// Fetches that finished after their batch, workers for hosts whose
    /// pause ended, and scheduled recrawls that are due (as seeds with
    /// recrawl set).
    async fn tick(&mut self) -> Vec<Output> {
        let mut outs = Vec::new();
        self.start_workers();
        let mut observed = Vec::new();
        let mut finished = std::mem::take(&mut self.late);
        finished.extend(self.frontier.take_finished(|_| true));
        for (url, result) in finished {
            let Some(link) = self.parked.get(&url).cloned() else {
                continue;
            };
            let Ok(parsed) = Url::parse(&url) else {
                continue;
            };
            let job = Job::from_link(link.clone(), parsed);
            match result {
                Ok(fetched) => outs.extend(self.completed(&job, fetched, &mut observed)),
                Err(e) => {
                    metrics::inc("gleaner_fetch_errors_total", &[("kind", e.reason().code)]);
                    let input = Input {
                        topic: Topic::FRONTIER,
                        key: Some(host_of(&url)),
                        payload: Some(gleaner_core::Payload::typed(link.clone())),
                        origin: None,
                    };
                    let e = e.reason().wrap(e);
                    outs.push(gleaner_core::stage::answer_error("fetch", &input, &e));
                }
            }
            self.answered.push(url.clone());
            self.emitted.push(url);
        }
        self.observe(observed);
        self.report_gauges();
        metrics::set(
            "gleaner_fetch_scheduled_urls",
            &[],
            self.schedule.len() as f64,
        );
        match self.schedule.due(gleaner_core::util::unix_now()) {
            Ok(seeds) => outs.extend(
                seeds
                    .iter()
                    .map(|s| Output::of(Topic::SEEDS, host_of(&s.url), s)),
            ),
            Err(e) => tracing::warn!(error = %e, "reading the recrawl schedule failed"),
        }
        outs
    }

    fn held(&self) -> usize {
        self.frontier.held() + self.late.len()
    }

    /// A fetch finished after its batch: its page goes out now.
    async fn ready(&mut self) {
        if self.late.is_empty() {
            self.frontier.has_finished().await
        }
    }

    /// The last batch's or tick's pages are on the broker: their URLs are
    /// recorded as fetched, then leave the parked set (a crash now does not
    /// fetch them again; a crash before, does).
    async fn produced(&mut self) {
        if !self.record_answered() {
            return;
        }
        let emitted = std::mem::take(&mut self.emitted);
        if let Err(e) = self.parked.release(&emitted) {
            tracing::warn!(error = %e, "releasing parked URLs failed");
            self.emitted = emitted;
        }
    }

    /// On stopping: no new fetches start, those in flight get a few seconds
    /// to finish, and every URL not answered then goes back to the frontier
    /// topic, so nothing is lost even without a state directory.
    async fn drain(&mut self) -> Vec<Output> {
        let end =
            Instant::now() + Duration::from_millis(self.crawler.cfg.total_timeout_ms.min(5000));
        let handed = self.frontier.stop();
        while self.frontier.running() > 0 {
            let finished = self.frontier.finished_one();
            if self.frontier.running() == 0
                || tokio::time::timeout_at(end.into(), finished).await.is_err()
            {
                break;
            }
        }
        let mut outs = self.tick().await;
        self.frontier.abandon();
        for url in handed {
            if self.emitted.contains(&url) {
                continue;
            }
            if let Some(link) = self.parked.get(&url) {
                outs.push(Output::of(Topic::FRONTIER, host_of(&url), link));
                self.emitted.push(url);
            }
        }
        outs
    }
}
