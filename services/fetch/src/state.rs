//! The fetch stage's durable state: the set of fetched URLs (a Bloom
//! filter), kept as a snapshot plus a log of the URLs completed since, so
//! that after a crash (even kill -9) no completed URL is fetched again. A
//! URL enters it only once the broker has acknowledged its page: a crash
//! before that fetches it again rather than losing it. Pending URLs need no
//! state here: they are on the seeds and frontier topics until their
//! offsets are committed, which happens only after their pages were
//! produced (and the parked log keeps those taken off the topics).

use crate::bloom::Bloom;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

/// URLs logged before the log is folded into a new snapshot.
const SNAPSHOT_EVERY: usize = 100_000;

pub struct SeenStore {
    /// The URLs whose pages the broker has acknowledged.
    fetched: Bloom,
    dir: PathBuf,
    log: File,
    logged: usize,
}

impl SeenStore {
    /// Opens (or creates) the state in `dir`: the snapshot, then every URL
    /// of the log, in a filter sized like `like`.
    pub fn open(dir: &Path, like: &Bloom) -> anyhow::Result<Self> {
        let mut seen = like.clone();
        std::fs::create_dir_all(dir)?;
        let snapshot = dir.join("seen.bloom");
        if let Ok(bytes) = std::fs::read(&snapshot) {
            match Bloom::from_bytes(&bytes, &seen) {
                Some(b) => seen = b,
                None => {
                    tracing::warn!(path = %snapshot.display(), "seen-set snapshot does not match the configured size; starting empty")
                }
            }
        }
        let log_path = dir.join("seen.log");
        let mut logged = 0;
        if let Ok(f) = File::open(&log_path) {
            // A torn last line (crash mid-write) is just not counted.
            for line in BufReader::new(f).lines().map_while(Result::ok) {
                if !line.is_empty() {
                    seen.insert(&line);
                    logged += 1;
                }
            }
        }
        let log = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&log_path)?;
        tracing::info!(dir = %dir.display(), urls = seen.len(), replayed = logged, "fetch state loaded");
        Ok(SeenStore {
            fetched: seen,
            dir: dir.to_path_buf(),
            log,
            logged,
        })
    }

    /// The fetched URLs (for a new seen-set after a restart).
    pub fn fetched(&self) -> &Bloom {
        &self.fetched
    }

    /// Whether `url`'s page is known to be on the broker.
    pub fn contains(&self, url: &str) -> bool {
        self.fetched.contains(url)
    }

    /// Makes these URLs, whose pages the broker has acknowledged, durable
    /// (written and synced).
    pub fn record(&mut self, urls: &[String]) -> anyhow::Result<()> {
        if urls.is_empty() {
            return Ok(());
        }
        let mut buf = String::new();
        for u in urls {
            self.fetched.insert(u);
            buf.push_str(u);
            buf.push('\n');
        }
        self.log.write_all(buf.as_bytes())?;
        self.log.sync_data()?;
        self.logged += urls.len();
        if self.logged >= SNAPSHOT_EVERY {
            self.snapshot()?;
        }
        Ok(())
    }

    /// Writes the whole filter atomically and empties the log.
    pub fn snapshot(&mut self) -> anyhow::Result<()> {
        let tmp = self.dir.join("seen.bloom.tmp");
        let mut f = File::create(&tmp)?;
        f.write_all(&self.fetched.to_bytes())?;
        f.sync_all()?;
        std::fs::rename(&tmp, self.dir.join("seen.bloom"))?;
        self.log.set_len(0)?;
        self.log.sync_all()?;
        self.logged = 0;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn survives_reopen_with_and_without_snapshot() {
        let dir = tempfile::tempdir().unwrap();
        let like = Bloom::new(1000, 0.01);
        let mut store = SeenStore::open(dir.path(), &like).unwrap();
        store.record(&["http://x.test/a".into()]).unwrap();
        assert!(store.contains("http://x.test/a"));
        drop(store);
        let mut store = SeenStore::open(dir.path(), &like).unwrap();
        assert!(store.contains("http://x.test/a"), "from the log");
        store.record(&["http://x.test/b".into()]).unwrap();
        store.snapshot().unwrap();
        drop(store);
        let third = SeenStore::open(dir.path(), &like).unwrap();
        assert!(
            third.contains("http://x.test/a") && third.contains("http://x.test/b"),
            "from the snapshot"
        );
        assert!(!third.contains("http://x.test/c"));
    }
}
