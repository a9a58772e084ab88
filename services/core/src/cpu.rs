//! Where a stage runs its CPU work: tokio's blocking threads, or, for the
//! stages that take pages in (clean, extract) in `gleaner run`, threads at
//! a lower priority that yield the cores to the stages after them.
//!
//! Why: in one process every stage's CPU work competes for the same cores
//! with equal shares, and the index has a single indexing thread (Tantivy's).
//! While clean and extract took most of the cores, that thread fell behind,
//! commits grew, the index stage reached its bound of unsearchable
//! documents and held everything before it: the cores went idle at every
//! commit. With the intake at a lower priority, work already taken in
//! moves out first and the pipeline keeps flowing (bench-e2e: idle dips
//! gone, fetch to searchable p50 0.73-0.94 s -> 0.55-0.63 s).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

/// A place to run CPU work from async code. Cloning shares the threads.
#[derive(Clone, Debug, Default)]
pub struct CpuPool {
    /// `None`: tokio's blocking threads.
    threads: Option<Arc<rayon::ThreadPool>>,
}

impl CpuPool {
    /// Tokio's blocking threads, at the process's own priority.
    pub fn blocking() -> Self {
        CpuPool::default()
    }

    /// `threads` threads `nice` steps of niceness below the process (0 to
    /// 19, higher yields more; thread priorities are per thread on Linux
    /// only, so elsewhere, or at 0, the threads keep the process's).
    pub fn yielding(threads: usize, nice: i32) -> anyhow::Result<Self> {
        anyhow::ensure!(
            (0..=19).contains(&nice),
            "a niceness is 0 to 19, not {nice}"
        );
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads.max(1))
            .thread_name(|i| format!("gleaner-intake-{i}"))
            .start_handler(move |_| lower_this_thread(nice))
            .build()?;
        Ok(CpuPool {
            threads: Some(Arc::new(pool)),
        })
    }

    /// Runs `f` on the pool's threads; a panic in `f` is an error here, as
    /// it is from `spawn_blocking`, not the end of the process.
    pub async fn run<R, F>(&self, f: F) -> anyhow::Result<R>
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        let Some(pool) = &self.threads else {
            return Ok(tokio::task::spawn_blocking(f).await?);
        };
        let (tx, rx) = tokio::sync::oneshot::channel();
        pool.spawn(move || {
            let _ = tx.send(catch_unwind(AssertUnwindSafe(f)));
        });
        match rx.await? {
            Ok(r) => Ok(r),
            Err(panic) => {
                let what = panic
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_default();
                anyhow::bail!("CPU work panicked: {what}")
            }
        }
    }
}

/// Lowers the calling thread's priority by `steps` of niceness (from the
/// process's, at most 19). On Linux (NPTL) the nice value is per thread,
/// and `setpriority` on `PRIO_PROCESS` with id 0 sets the caller's: one
/// system call, no crate needed. A failure only costs the priority.
#[allow(unsafe_code)] // two libc calls; see SAFETY below
fn lower_this_thread(steps: i32) {
    #[cfg(target_os = "linux")]
    if steps > 0 {
        // SAFETY: neither call takes a pointer; id 0 is the calling thread.
        // (getpriority's -1 can be a niceness; on the caller it cannot fail.)
        let r = unsafe {
            let now = libc::getpriority(libc::PRIO_PROCESS, 0);
            libc::setpriority(libc::PRIO_PROCESS, 0, (now + steps).min(19))
        };
        if r != 0 {
            tracing::warn!(
                "could not lower the intake threads' priority: {}",
                std::io::Error::last_os_error()
            );
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = steps;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(target_os = "linux")]
    #[allow(unsafe_code)] // one libc call; see SAFETY below
    fn this_threads_nice() -> i32 {
        // SAFETY: as above; getpriority takes no pointers.
        unsafe { libc::getpriority(libc::PRIO_PROCESS, 0) }
    }

    #[cfg(target_os = "linux")]
    #[tokio::test]
    async fn yielding_threads_run_at_the_niceness_given() {
        let before = this_threads_nice();
        let pool = CpuPool::yielding(2, 7).unwrap();
        let seen = pool.run(this_threads_nice).await.unwrap();
        // Seven steps below the caller (a test runner may be niced).
        assert_eq!(seen, (before + 7).min(19));
        assert_eq!(this_threads_nice(), before, "the caller keeps its own");
        let blocking = CpuPool::blocking().run(this_threads_nice).await.unwrap();
        assert_eq!(blocking, before);
    }

    #[tokio::test]
    async fn a_panic_is_an_error_and_the_pool_goes_on() {
        let pool = CpuPool::yielding(1, 3).unwrap();
        let err = pool
            .run(|| -> u32 { panic!("bad page") })
            .await
            .unwrap_err();
        assert!(err.to_string().contains("bad page"), "{err}");
        assert_eq!(pool.run(|| 2 + 2).await.unwrap(), 4);
        assert!(CpuPool::yielding(1, 20).is_err());
    }
}
