//! The fetch stage: seeds and frontier links in, pages and newly found
//! links out. It plans each batch (seen set, scope), fetches it
//! concurrently with hosts interleaved, and parks what cannot finish within
//! the batch's deadline: URLs of a busy or paused host wait in the stage,
//! and stalled requests finish in the background.

use crate::bloom::Bloom;
use crate::crawler::Crawler;
use crate::error::FetchError;
use crate::inflight::InFlight;
use crate::politeness::{host_key, host_key_of};
use crate::schedule::{self, Validators};
use crate::scope::Job;
use crate::{parked, state, Fetched};
use async_trait::async_trait;
use gleaner_core::messages::FrontierLink;
use gleaner_core::stage::{Handled, Input, Output, Stage};
use gleaner_core::util::host_of;
use gleaner_core::Topic;
use gleaner_core::{config, metrics};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::{Duration, Instant};
use url::Url;

/// The fetch stage.
pub struct FetchStage {
    pub(crate) crawler: Arc<Crawler>,
    pub(crate) seen: Bloom,
    store: Option<state::SeenStore>,
    pub(crate) schedule: schedule::Schedule,
    /// URLs taken off the topics but not finished (see parked.rs).
    parked: parked::Parked,
    inflight: InFlight,
    /// Parked URLs waiting for their host (busy in the background, paused).
    waiting: HashSet<String>,
    /// Parked URLs whose outputs the last tick returned: released at the
    /// next tick or on close, when the runner has produced them.
    emitted: Vec<String>,
    batch_no: u64,
    wait_for_paused_hosts: bool,
}

impl FetchStage {
    pub fn new(cfg: &config::Fetch, allow_private: bool) -> anyhow::Result<Self> {
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
            schedule: schedule::Schedule::default(),
            parked: parked::Parked::default(),
            inflight: InFlight::default(),
            waiting: HashSet::new(),
            emitted: Vec::new(),
            batch_no: 0,
            wait_for_paused_hosts: false,
        })
    }

    /// Keeps the seen-URL set in `dir`, so that a restart (even after
    /// kill -9) does not fetch a completed URL again.
    pub fn with_state(mut self, dir: &std::path::Path) -> anyhow::Result<Self> {
        self.store = Some(state::SeenStore::open(dir, &mut self.seen)?);
        self.schedule = schedule::Schedule::open(dir.join("schedule.json"))?;
        self.parked = parked::Parked::open(dir)?;
        // URLs a crash left parked go back to the frontier on the first tick.
        self.waiting = self.parked.all().into_iter().map(|l| l.url).collect();
        if !self.waiting.is_empty() {
            tracing::info!(
                urls = self.waiting.len(),
                "parked URLs from the last run go back to the frontier"
            );
        }
        Ok(self)
    }

    /// URLs of a paused host wait in the stage (and in the state directory)
    /// until the pause ends, instead of going to the dead-letter topic. For
    /// long-running services; a one-shot run would wait out every pause.
    pub fn wait_for_paused_hosts(mut self, yes: bool) -> Self {
        self.wait_for_paused_hosts = yes;
        self
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
        metrics::set(
            "gleaner_fetch_background",
            &[],
            self.inflight.running() as f64,
        );
        metrics::set("gleaner_fetch_parked_urls", &[], self.parked.len() as f64);
    }
}

#[async_trait]
impl Stage for FetchStage {
    fn name(&self) -> &'static str {
        "fetch"
    }
    fn inputs(&self) -> Vec<Topic> {
        vec![Topic::SEEDS, Topic::FRONTIER]
    }
    fn outputs(&self) -> Vec<Topic> {
        vec![Topic::PAGES, Topic::FRONTIER]
    }

    async fn close(&mut self) -> anyhow::Result<()> {
        // The runner produced the last tick's outputs before closing; fetches
        // still running are dropped and stay parked for the next start.
        let emitted = std::mem::take(&mut self.emitted);
        self.parked.release(&emitted)?;
        if let Some(store) = self.store.as_mut() {
            store.snapshot(&self.seen)?;
        }
        Ok(())
    }

    async fn handle(&mut self, input: &Input) -> Handled {
        self.handle_batch(std::slice::from_ref(input))
            .await
            .pop()
            .unwrap_or(Ok(vec![]))
    }

    /// Plans every input (seen-set, scope), then fetches the batch
    /// concurrently; each host's politeness clock spaces its requests.
    async fn handle_batch(&mut self, inputs: &[Input]) -> Vec<Handled> {
        let planned: Vec<anyhow::Result<Option<Job>>> =
            inputs.iter().map(|i| self.plan(i)).collect();
        // Owned (url, depth) pairs: the futures must not borrow the batch.
        let targets: Vec<Option<(Url, u32)>> = planned
            .iter()
            .map(|p| {
                p.as_ref()
                    .ok()
                    .and_then(|j| j.as_ref())
                    .map(|j| (j.url.clone(), j.depth))
            })
            .collect();
        // Interleave hosts (first URL of every host, then the second, ...)
        // so that URLs waiting on one host's politeness clock do not take
        // every concurrency slot while other hosts have work.
        // Within a host, higher priority goes first.
        let priority: Vec<i32> = planned
            .iter()
            .map(|p| {
                p.as_ref()
                    .ok()
                    .and_then(|j| j.as_ref())
                    .map_or(0, |j| j.priority)
            })
            .collect();
        let mut by_priority: Vec<usize> = (0..targets.len()).collect();
        by_priority.sort_by_key(|&i| (std::cmp::Reverse(priority[i]), i));
        let mut rank: HashMap<String, usize> = HashMap::new();
        let mut order: Vec<(usize, std::cmp::Reverse<i32>, usize)> = by_priority
            .into_iter()
            .map(|i| {
                let r = targets[i].as_ref().map_or(0, |(u, _)| {
                    let n = rank.entry(host_key(u)).or_insert(0);
                    *n += 1;
                    *n
                });
                (r, std::cmp::Reverse(priority[i]), i)
            })
            .collect();
        order.sort_unstable();
        // Per-host queue depth while the batch runs.
        for (h, n) in &rank {
            metrics::set("gleaner_fetch_host_queue", &[("host", h)], *n as f64);
        }
        let defer_at = match self.crawler.cfg.defer_after_ms {
            0 => None,
            ms => Some(Instant::now() + Duration::from_millis(ms)),
        };
        self.batch_no += 1;
        let batch_no = self.batch_no;
        let mut targets: Vec<Option<(Url, u32)>> = targets;
        let mut fetched: Vec<Option<Result<Fetched, FetchError>>> =
            (0..targets.len()).map(|_| None).collect();
        // Inputs that wait in the stage: their host is busy in the
        // background (a stalled request) or paused.
        let mut park: Vec<usize> = Vec::new();
        // The first URL of each host always waits its turn (so a host whose
        // Crawl-delay exceeds the deadline still progresses); later ones
        // may be deferred.
        let mut queue: std::collections::VecDeque<(usize, Url, u32, Option<Instant>)> =
            std::collections::VecDeque::new();
        for &(rank, _, i) in &order {
            let Some((url, depth)) = targets[i].take() else {
                continue;
            };
            let host = host_key(&url);
            if self.inflight.host_busy(&host)
                || (self.wait_for_paused_hosts && self.crawler.health.paused(&host))
            {
                park.push(i);
            } else {
                queue.push_back((i, url, depth, if rank > 1 { defer_at } else { None }));
            }
        }
        // Start fetches in order as concurrency slots free up, until all are
        // done or the deadline passes: then the ones still running finish in
        // the background and the ones not started wait in the stage, so a
        // stalled server holds up neither this batch nor the next.
        // A little after `defer_at`, so the URLs deferred at it are answered
        // in this batch rather than parked.
        let deadline = async {
            match defer_at {
                Some(d) => tokio::time::sleep_until((d + Duration::from_millis(50)).into()).await,
                None => std::future::pending().await,
            }
        };
        tokio::pin!(deadline);
        let mut in_batch = 0usize;
        loop {
            if queue.is_empty() && in_batch == 0 {
                break;
            }
            tokio::select! {
                biased;
                Some(r) = self.inflight.join_next() => {
                    if let Some((i, res)) = self.inflight.ended(r, batch_no) {
                        fetched[i] = Some(res);
                        in_batch -= 1;
                    }
                }
                permit = self.crawler.slots.clone().acquire_owned(), if !queue.is_empty() => {
                    let Some((i, url, depth, d)) = queue.pop_front() else { continue };
                    let crawler = self.crawler.clone();
                    let key = url.to_string();
                    // A scheduled URL is asked for only if it changed.
                    let validators = self
                        .schedule
                        .get(&key)
                        .map(|e| e.validators.clone())
                        .filter(Validators::conditional);
                    self.inflight.spawn(batch_no, i, key, async move {
                        let _permit = permit;
                        crawler.fetch(&url, depth, d, validators).await
                    });
                    in_batch += 1;
                }
                _ = &mut deadline => break,
            }
        }
        for (i, ..) in queue {
            park.push(i);
        }
        let background = self.inflight.send_to_background(batch_no);
        for h in rank.keys() {
            metrics::remove("gleaner_fetch_host_queue", &[("host", h)]);
        }
        // A paused host's URLs wait for the pause to end (in services).
        if self.wait_for_paused_hosts {
            for (i, f) in fetched.iter_mut().enumerate() {
                if matches!(f, Some(Err(FetchError::HostPaused { .. }))) {
                    *f = None;
                    park.push(i);
                }
            }
        }
        let job_of = |i: usize| planned[i].as_ref().ok().and_then(|j| j.as_ref());
        let links = |idx: &[usize]| -> Vec<FrontierLink> {
            idx.iter()
                .filter_map(|&i| job_of(i).map(Job::to_link))
                .collect()
        };
        let (to_wait, to_run) = (links(&park), links(&background));
        // Completed (fetched or failed for good) and parked URLs: durable
        // before the batch's offsets can be committed.
        let done: Vec<String> = (0..fetched.len())
            .filter(|&i| {
                fetched[i].is_some() && !matches!(fetched[i], Some(Err(FetchError::Deferred(_))))
            })
            .filter_map(|i| job_of(i).map(|j| j.url.to_string()))
            .collect();
        let durable = self
            .store
            .as_mut()
            .map_or(Ok(()), |store| store.record(&done, &self.seen))
            .and_then(|()| {
                self.parked
                    .park(to_wait.iter().cloned().chain(to_run).collect())
            });
        if let Err(e) = durable {
            let msg = format!("recording fetch state failed: {e:#}");
            return inputs
                .iter()
                .map(|_| Err(anyhow::anyhow!(msg.clone())))
                .collect();
        }
        // The ones not running in the background wait for their host.
        self.waiting.extend(to_wait.into_iter().map(|l| l.url));
        if !park.is_empty() || !background.is_empty() {
            metrics::add(
                "gleaner_fetch_parked_total",
                &[],
                (park.len() + background.len()) as f64,
            );
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
                (Ok(Some(job)), Some(Err(FetchError::Deferred(_)))) => {
                    // Back to the frontier, marked so the seen-set lets it in.
                    metrics::inc("gleaner_fetch_deferred_total", &[]);
                    Ok(vec![Output::of(
                        Topic::FRONTIER,
                        host_of(job.url.as_str()),
                        &job.to_link(),
                    )])
                }
                (Ok(Some(_)), Some(Err(e))) => {
                    metrics::inc("gleaner_fetch_errors_total", &[("kind", e.kind())]);
                    Err(e.into())
                }
                // Parked: answered by a later tick.
                (Ok(Some(_)), None) => Ok(vec![]),
            })
            .collect();
        self.observe(observed);
        results
    }

    /// Background fetches that ended, parked URLs whose host is free again,
    /// and scheduled recrawls that are due (as seeds with recrawl set).
    async fn tick(&mut self) -> Vec<Output> {
        let mut outs = Vec::new();
        // The runner has produced what the last tick returned.
        let emitted = std::mem::take(&mut self.emitted);
        if let Err(e) = self.parked.release(&emitted) {
            tracing::warn!(error = %e, "releasing parked URLs failed");
        }
        self.inflight.reap();
        let mut done = Vec::new();
        let mut observed = Vec::new();
        for (url, result) in self.inflight.take_finished() {
            let Some(link) = self.parked.get(&url).cloned() else {
                continue;
            };
            let Ok(parsed) = Url::parse(&url) else {
                continue;
            };
            let job = Job::from_link(link.clone(), parsed);
            match result {
                Ok(fetched) => outs.extend(self.completed(&job, fetched, &mut observed)),
                Err(FetchError::Deferred(_)) => {
                    self.waiting.insert(url);
                    continue;
                }
                Err(FetchError::HostPaused { .. }) if self.wait_for_paused_hosts => {
                    self.waiting.insert(url);
                    continue;
                }
                Err(e) => {
                    metrics::inc("gleaner_fetch_errors_total", &[("kind", e.kind())]);
                    let input = Input {
                        topic: Topic::FRONTIER,
                        key: Some(host_of(&url)),
                        payload: Some(gleaner_core::Payload::typed(link.clone())),
                        origin: None,
                    };
                    outs.push(Output::dead_letter(
                        self.name(),
                        input.dead_letter(self.name(), &e.to_string()),
                    ));
                }
            }
            done.push(url.clone());
            self.emitted.push(url);
        }
        if let Some(store) = self.store.as_mut() {
            if let Err(e) = store.record(&done, &self.seen) {
                // The URLs stay parked: fetched again after a restart.
                tracing::warn!(error = %e, "recording fetch state failed");
            }
        }
        self.observe(observed);
        // Parked URLs whose host is neither busy nor paused go back to the
        // frontier.
        let free: Vec<String> = self
            .waiting
            .iter()
            .filter(|u| {
                let host = host_key_of(u);
                !self.inflight.host_busy(&host) && !self.crawler.health.paused(&host)
            })
            .cloned()
            .collect();
        for url in free {
            self.waiting.remove(&url);
            if let Some(link) = self.parked.get(&url) {
                outs.push(Output::of(Topic::FRONTIER, host_of(&url), link));
                self.emitted.push(url);
            }
        }
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
        self.inflight.running() + self.inflight.finished() + self.waiting.len()
    }

    /// On stopping: requests in flight get a few seconds to finish; what is
    /// still held then goes back to the frontier, so nothing is lost even
    /// without a state directory.
    async fn drain(&mut self) -> Vec<Output> {
        let end =
            Instant::now() + Duration::from_millis(self.crawler.cfg.total_timeout_ms.min(5000));
        while self.inflight.running() > 0 {
            match tokio::time::timeout_at(end.into(), self.inflight.join_next()).await {
                Ok(Some(r)) => {
                    self.inflight.ended(r, 0);
                }
                _ => break,
            }
        }
        let mut outs = self.tick().await;
        let mut rest = self.inflight.abort_all();
        rest.extend(self.waiting.drain());
        for url in rest {
            if let Some(link) = self.parked.get(&url) {
                outs.push(Output::of(Topic::FRONTIER, host_of(&url), link));
                self.emitted.push(url);
            }
        }
        outs
    }
}
