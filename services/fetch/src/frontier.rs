//! The frontier inside the fetch stage: a queue of URLs per host, each
//! drained by its own worker task (as many as fetch.per_host_concurrency),
//! so every host is asked at its own polite rate at the same time and a URL
//! waits in its host's queue rather than going round the frontier topic
//! again. Within a host, higher priority goes first, then lower depth, then
//! the order of arrival.

use crate::crawler::Crawler;
use crate::error::FetchError;
use crate::politeness::host_key;
use crate::schedule::Validators;
use crate::scope::Job;
use crate::Fetched;
use gleaner_core::sync::Locked;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, HashSet};
use std::sync::{Arc, Mutex};
use tokio::sync::Notify;
use url::Url;

pub(crate) type Outcome = Result<Fetched, FetchError>;

/// A URL waiting for its host.
struct Waiting {
    url: Url,
    depth: u32,
    validators: Option<Validators>,
    /// Whether the page's links are read (see `Job::follows_links`).
    links: bool,
}

/// Heap order: priority, then shallower, then earlier.
type Rank = (i32, Reverse<u32>, Reverse<u64>);

#[derive(Default)]
struct State {
    queues: HashMap<String, BinaryHeap<(Rank, Key)>>,
    entries: HashMap<Key, Waiting>,
    /// Workers running per host.
    workers: HashMap<String, usize>,
    /// URLs being fetched now.
    running: HashSet<String>,
    finished: Vec<(String, Outcome)>,
    seq: u64,
    /// Set when the stage stops: workers end after their current fetch.
    stopping: bool,
    /// Set once the stage has handed back what it held: fetches that still
    /// finish are dropped.
    abandoned: bool,
    /// Most fetches finished and not yet taken: workers wait beyond it, so
    /// fetch runs no faster than the stages after it take its pages (a
    /// page's fetch-to-searchable time does not grow in a queue).
    max_finished: usize,
}

type Key = u64;

#[derive(Clone, Default)]
pub(crate) struct Frontier {
    state: Arc<Mutex<State>>,
    /// Woken whenever a fetch finishes.
    done: Arc<Notify>,
    /// Woken whenever finished fetches are taken.
    taken: Arc<Notify>,
}

impl Frontier {
    /// Queues a URL for its host.
    pub(crate) fn push(&self, job: &Job, validators: Option<Validators>) {
        let mut st = self.state.locked();
        st.seq += 1;
        let key = st.seq;
        let rank = (job.priority, Reverse(job.depth), Reverse(key));
        let host = host_key(&job.url);
        st.queues.entry(host).or_default().push((rank, key));
        st.entries.insert(
            key,
            Waiting {
                url: job.url.clone(),
                depth: job.depth,
                validators,
                links: job.follows_links(),
            },
        );
    }

    /// Whether the host has URLs queued or being fetched.
    pub(crate) fn host_busy(&self, host: &str) -> bool {
        self.state.locked().workers.contains_key(host)
    }

    /// Starts workers for hosts with queued URLs and free slots, skipping
    /// hosts for which `skip` holds (paused ones, when their URLs wait).
    pub(crate) fn start(&self, crawler: &Arc<Crawler>, skip: impl Fn(&str) -> bool) {
        let per_host = crawler.cfg.per_host_concurrency.max(1);
        let mut st = self.state.locked();
        st.max_finished = crawler.cfg.concurrency.max(1);
        if st.stopping {
            return;
        }
        let hosts: Vec<(String, usize)> = st
            .queues
            .iter()
            .filter(|(h, q)| !q.is_empty() && !skip(h))
            .map(|(h, q)| (h.clone(), q.len()))
            .collect();
        for (host, queued) in hosts {
            let running = st.workers.get(&host).copied().unwrap_or(0);
            for _ in running..per_host.min(running + queued) {
                *st.workers.entry(host.clone()).or_default() += 1;
                tokio::spawn(worker(host.clone(), self.clone(), crawler.clone()));
            }
        }
    }

    /// Takes the finished fetches `want` says to take.
    pub(crate) fn take_finished(&self, want: impl Fn(&str) -> bool) -> Vec<(String, Outcome)> {
        let mut st = self.state.locked();
        let (taken, kept) = std::mem::take(&mut st.finished)
            .into_iter()
            .partition(|(url, _)| want(url));
        st.finished = kept;
        drop(st);
        self.taken.notify_waiters();
        taken
    }

    /// Waits while as many fetches as allowed are finished and not taken.
    async fn room(&self) {
        loop {
            let taken = self.taken.notified();
            {
                let st = self.state.locked();
                if st.finished.len() < st.max_finished.max(1) || st.stopping {
                    return;
                }
            }
            taken.await;
        }
    }

    /// Resolves once a fetch finishes after this call. Not an `async fn`:
    /// its body would run, and start listening, only when first polled, so
    /// a fetch finishing between the call and the poll was missed. When the
    /// last running fetches finished in that window, a batch waited for
    /// its whole deadline (2 s) with every core idle.
    pub(crate) fn finished_one(&self) -> tokio::sync::futures::Notified<'_> {
        self.done.notified()
    }

    /// Resolves once a fetch has finished and not been taken.
    pub(crate) async fn has_finished(&self) {
        loop {
            let finished = self.done.notified();
            if !self.state.locked().finished.is_empty() {
                return;
            }
            finished.await;
        }
    }

    /// URLs queued, being fetched, and finished but not taken.
    pub(crate) fn held(&self) -> usize {
        let st = self.state.locked();
        st.entries.len() + st.running.len() + st.finished.len()
    }

    pub(crate) fn running(&self) -> usize {
        self.state.locked().running.len()
    }

    /// Stops taking URLs off the queues; returns the URLs still queued or
    /// being fetched (the caller hands them back), emptying the queues.
    pub(crate) fn stop(&self) -> Vec<String> {
        let mut st = self.state.locked();
        st.stopping = true;
        st.queues.clear();
        let mut urls: Vec<String> = st.entries.drain().map(|(_, w)| w.url.to_string()).collect();
        urls.extend(st.running.iter().cloned());
        urls
    }

    fn next(&self, host: &str) -> Option<Waiting> {
        let mut st = self.state.locked();
        let popped = if st.stopping {
            None
        } else {
            st.queues.get_mut(host).and_then(BinaryHeap::pop)
        };
        match popped.and_then(|(_, key)| st.entries.remove(&key)) {
            Some(w) => {
                st.running.insert(w.url.to_string());
                Some(w)
            }
            None => {
                if let Some(n) = st.workers.get_mut(host) {
                    *n -= 1;
                    if *n == 0 {
                        st.workers.remove(host);
                    }
                }
                if st.queues.get(host).is_some_and(BinaryHeap::is_empty) {
                    st.queues.remove(host);
                }
                None
            }
        }
    }

    /// Forgets the fetches still running (their URLs were handed back).
    pub(crate) fn abandon(&self) {
        let mut st = self.state.locked();
        st.abandoned = true;
        st.running.clear();
    }

    fn finish(&self, url: String, outcome: Outcome) {
        {
            let mut st = self.state.locked();
            st.running.remove(&url);
            if !st.abandoned {
                st.finished.push((url, outcome));
            }
        }
        self.done.notify_waiters();
    }

    /// Puts a URL back at the head of its host's queue and retires the
    /// worker (its host is paused; a later start resumes it).
    fn put_back(&self, host: &str, w: Waiting) {
        let mut st = self.state.locked();
        st.running.remove(w.url.as_str());
        st.seq += 1;
        let key = st.seq;
        st.queues
            .entry(host.to_string())
            .or_default()
            .push(((i32::MAX, Reverse(0), Reverse(0)), key));
        st.entries.insert(key, w);
        if let Some(n) = st.workers.get_mut(host) {
            *n -= 1;
            if *n == 0 {
                st.workers.remove(host);
            }
        }
    }
}

/// Fetches the host's URLs one after another, each when the host's
/// politeness allows (the crawler waits for the host's turn before taking
/// one of the stage's concurrency slots, so a host waiting on its delay
/// holds no slot another host could use).
async fn worker(host: String, frontier: Frontier, crawler: Arc<Crawler>) {
    loop {
        frontier.room().await;
        let Some(w) = frontier.next(&host) else { break };
        let outcome = crawler
            .fetch(&w.url, w.depth, w.validators.clone(), w.links)
            .await;
        let waits = crawler
            .wait_for_paused
            .load(std::sync::atomic::Ordering::Relaxed);
        if waits && matches!(outcome, Err(FetchError::HostPaused { .. })) {
            frontier.put_back(&host, w);
            frontier.done.notify_waiters();
            return;
        }
        frontier.finish(w.url.to_string(), outcome);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    /// A job for `u` at `depth` with `priority`, in a crawl two deep.
    fn job(u: &str, depth: u32, priority: i32) -> Job {
        let seed = gleaner_core::messages::Seed {
            url: u.into(),
            priority: Some(priority),
            ..Default::default()
        };
        Job {
            depth,
            ..Job::from_seed(seed, url(u), 2)
        }
    }

    #[test]
    fn a_host_takes_priority_then_depth_then_arrival_and_hosts_are_apart() {
        let f = Frontier::default();
        f.push(&job("http://a.test/deep", 2, 0), None);
        f.push(&job("http://a.test/first", 1, 0), None);
        f.push(&job("http://b.test/other", 1, 0), None);
        f.push(&job("http://a.test/urgent", 3, 5), None);
        f.push(&job("http://a.test/second", 1, 0), None);
        // Links are read on pages above the crawl's depth (2) only.
        let links: Vec<bool> = f.state.locked().entries.values().map(|w| w.links).collect();
        assert_eq!(links.iter().filter(|l| **l).count(), 3, "{links:?}");
        assert_eq!(f.held(), 5);
        let order: Vec<String> = std::iter::from_fn(|| f.next("a.test:80"))
            .map(|w| w.url.path().to_string())
            .collect();
        assert_eq!(order, ["/urgent", "/first", "/second", "/deep"]);

        assert_eq!(f.running(), 4, "taken, not yet finished");
        f.finish(
            "http://a.test/first".into(),
            Err(FetchError::BadUrl("x".into())),
        );
        assert_eq!(f.take_finished(|u| u.ends_with("/first")).len(), 1);
        let back = f.stop();
        assert!(
            back.contains(&"http://b.test/other".to_string()),
            "queued URLs handed back"
        );
        assert!(
            back.contains(&"http://a.test/deep".to_string()),
            "running ones too"
        );
        f.abandon();
        assert_eq!(f.held(), 0);
    }

    /// Bytes allocated on this thread (the test allocator counts them).
    #[allow(unsafe_code)] // a counting allocator is unsafe by its trait
    mod counting {
        use std::alloc::{GlobalAlloc, Layout, System};
        use std::cell::Cell;

        thread_local! {
            static LIVE: Cell<isize> = const { Cell::new(0) };
        }

        pub struct Counting;

        unsafe impl GlobalAlloc for Counting {
            unsafe fn alloc(&self, l: Layout) -> *mut u8 {
                let _ = LIVE.try_with(|c| c.set(c.get() + l.size() as isize));
                unsafe { System.alloc(l) }
            }
            unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
                let _ = LIVE.try_with(|c| c.set(c.get() - l.size() as isize));
                unsafe { System.dealloc(p, l) }
            }
        }

        pub fn live() -> isize {
            LIVE.with(Cell::get)
        }
    }

    #[global_allocator]
    static ALLOC: counting::Counting = counting::Counting;

    /// What a queued URL costs: its URL (about 55 bytes here) plus a fixed
    /// overhead for the entry, its rank and the per-host queue, hash-table
    /// slack included (measured: 309 bytes per URL, 257 beyond its text,
    /// at 100,000 URLs on 50 hosts). Reported by
    /// `cargo test -p gleaner-fetch --lib frontier -- --nocapture`.
    #[test]
    fn memory_per_queued_url_is_the_url_plus_a_bounded_overhead() {
        let f = Frontier::default();
        let text = |i: usize| {
            format!(
                "https://host{}.example.com/section/article-{i}.html",
                i % 50
            )
        };
        let url_bytes: usize = (0..100_000).map(|i| text(i).len()).sum();
        let before = counting::live();
        for i in 0..100_000 {
            f.push(&job(&text(i), 1, 0), None);
        }
        let per_url = (counting::live() - before) as f64 / 100_000.0;
        let overhead = per_url - url_bytes as f64 / 100_000.0;
        eprintln!(
            "frontier: {per_url:.0} bytes per queued URL ({overhead:.0} beyond the URL text)"
        );
        assert!(overhead < 400.0, "{overhead:.0} bytes of overhead per URL");
    }

    /// The batch loop asks for the wait, takes what finished, then awaits:
    /// a fetch finishing in between must still wake it.
    #[tokio::test]
    async fn a_fetch_finishing_before_the_wait_is_polled_wakes_it() {
        let frontier = Frontier::default();
        let finished = frontier.finished_one();
        let url = "http://a.test/".to_string();
        frontier.finish(url.clone(), Err(FetchError::BadUrl(url)));
        let woke = tokio::time::timeout(std::time::Duration::from_millis(500), finished).await;
        assert!(woke.is_ok(), "the finish before the first poll was missed");
    }
}
