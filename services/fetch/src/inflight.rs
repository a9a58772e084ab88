//! Fetches in flight: those of the batch being handled, and those that
//! outlived their batch's deadline and finish in the background (batch 0)
//! while later URLs of their host wait in the stage.

use crate::error::FetchError;
use crate::politeness::host_key_of;
use crate::Fetched;
use std::collections::HashMap;
use std::future::Future;
use tokio::task::{Id, JoinError, JoinSet};

type Result = std::result::Result<Fetched, FetchError>;
type Joined = std::result::Result<(Id, Result), JoinError>;

#[derive(Default)]
pub(crate) struct InFlight {
    running: JoinSet<Result>,
    /// Task id -> (batch number, index in the batch, URL).
    ids: HashMap<Id, (u64, usize, String)>,
    /// Hosts with a request in the background, and how many.
    busy_hosts: HashMap<String, usize>,
    /// Background fetches that ended, for the next tick.
    finished: Vec<(String, Result)>,
}

impl InFlight {
    pub(crate) fn spawn(
        &mut self,
        batch_no: u64,
        index: usize,
        url: String,
        fetch: impl Future<Output = Result> + Send + 'static,
    ) {
        let handle = self.running.spawn(fetch);
        self.ids.insert(handle.id(), (batch_no, index, url));
    }

    /// Fetches running, in a batch or in the background.
    pub(crate) fn running(&self) -> usize {
        self.ids.len()
    }

    /// Background fetches that ended and wait for the next tick.
    pub(crate) fn finished(&self) -> usize {
        self.finished.len()
    }

    pub(crate) fn host_busy(&self, host: &str) -> bool {
        self.busy_hosts.contains_key(host)
    }

    /// The next task to end (pending while none runs).
    pub(crate) async fn join_next(&mut self) -> Option<Joined> {
        if self.running.is_empty() {
            return std::future::pending().await;
        }
        self.running.join_next_with_id().await
    }

    /// Books every background task that has ended, without waiting.
    pub(crate) fn reap(&mut self) {
        while let Some(r) = self.running.try_join_next_with_id() {
            self.ended(r, 0);
        }
    }

    /// Books a task that ended; returns its batch index when it belongs to
    /// batch `batch_no` (0: none), else keeps it for the tick.
    pub(crate) fn ended(&mut self, r: Joined, batch_no: u64) -> Option<(usize, Result)> {
        let (id, result) = match r {
            Ok((id, result)) => (id, result),
            Err(e) => (
                e.id(),
                Err(FetchError::Request {
                    url: String::new(),
                    why: format!("fetch task failed: {e}"),
                }),
            ),
        };
        let (b, i, url) = self.ids.remove(&id)?;
        if b != 0 && b == batch_no {
            return Some((i, result));
        }
        let host = host_key_of(&url);
        if let Some(n) = self.busy_hosts.get_mut(&host) {
            *n -= 1;
            if *n == 0 {
                self.busy_hosts.remove(&host);
            }
        }
        self.finished.push((url, result));
        None
    }

    /// Moves the fetches of batch `batch_no` still running to the
    /// background; returns their batch indexes.
    pub(crate) fn send_to_background(&mut self, batch_no: u64) -> Vec<usize> {
        let mut moved = Vec::new();
        for (b, i, url) in self.ids.values_mut() {
            if *b == batch_no {
                *b = 0;
                moved.push(*i);
                *self.busy_hosts.entry(host_key_of(url)).or_default() += 1;
            }
        }
        moved
    }

    pub(crate) fn take_finished(&mut self) -> Vec<(String, Result)> {
        std::mem::take(&mut self.finished)
    }

    /// Stops every fetch; returns the URLs that were running.
    pub(crate) fn abort_all(&mut self) -> Vec<String> {
        self.running.abort_all();
        self.busy_hosts.clear();
        self.ids.drain().map(|(_, (_, _, url))| url).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page() -> Result {
        Ok(Fetched {
            page: None,
            links: vec![],
            sitemaps: vec![],
            not_modified: false,
        })
    }

    #[tokio::test]
    async fn a_batch_task_comes_back_to_its_batch_and_a_background_one_to_the_tick() {
        let mut f = InFlight::default();
        f.spawn(1, 0, "http://a/1".into(), async { page() });
        f.spawn(1, 1, "http://b/1".into(), async {
            tokio::time::sleep(std::time::Duration::from_millis(30)).await;
            page()
        });
        let r = f.join_next().await.unwrap();
        assert_eq!(f.ended(r, 1).map(|(i, _)| i), Some(0));
        assert_eq!(f.send_to_background(1), vec![1]);
        assert!(f.host_busy("b:80") && !f.host_busy("a:80"));
        let r = f.join_next().await.unwrap();
        assert!(f.ended(r, 2).is_none(), "kept for the tick");
        assert!(!f.host_busy("b:80"));
        assert_eq!((f.running(), f.finished()), (0, 1));
        assert_eq!(f.take_finished()[0].0, "http://b/1");
    }
}
