//! The fetch stage's durable state: the seen-URL filter, kept as a snapshot
//! plus a log of the URLs completed since, so that after a crash (even
//! kill -9) no completed URL is fetched again. Pending URLs need no state
//! here: they are on the seeds and frontier topics until their offsets are
//! committed, which happens only after their pages were produced.

use crate::bloom::Bloom;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

/// URLs logged before the log is folded into a new snapshot.
const SNAPSHOT_EVERY: usize = 100_000;

pub struct SeenStore {
    dir: PathBuf,
    log: File,
    logged: usize,
}

impl SeenStore {
    /// Opens (or creates) the state in `dir` and loads the filter into
    /// `seen`: the snapshot, then every URL of the log.
    pub fn open(dir: &Path, seen: &mut Bloom) -> anyhow::Result<Self> {
        std::fs::create_dir_all(dir)?;
        let snapshot = dir.join("seen.bloom");
        if let Ok(bytes) = std::fs::read(&snapshot) {
            match Bloom::from_bytes(&bytes, seen) {
                Some(b) => *seen = b,
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
            dir: dir.to_path_buf(),
            log,
            logged,
        })
    }

    /// Makes these completed URLs durable (written and synced) before the
    /// batch's offsets can be committed.
    pub fn record(&mut self, urls: &[String], seen: &Bloom) -> anyhow::Result<()> {
        if urls.is_empty() {
            return Ok(());
        }
        let mut buf = String::new();
        for u in urls {
            buf.push_str(u);
            buf.push('\n');
        }
        self.log.write_all(buf.as_bytes())?;
        self.log.sync_data()?;
        self.logged += urls.len();
        if self.logged >= SNAPSHOT_EVERY {
            self.snapshot(seen)?;
        }
        Ok(())
    }

    /// Writes the whole filter atomically and empties the log.
    pub fn snapshot(&mut self, seen: &Bloom) -> anyhow::Result<()> {
        let tmp = self.dir.join("seen.bloom.tmp");
        let mut f = File::create(&tmp)?;
        f.write_all(&seen.to_bytes())?;
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
        let mut seen = Bloom::new(1000, 0.01);
        let mut store = SeenStore::open(dir.path(), &mut seen).unwrap();
        seen.insert("http://x.test/a");
        store.record(&["http://x.test/a".into()], &seen).unwrap();
        drop(store);
        let mut again = Bloom::new(1000, 0.01);
        let mut store = SeenStore::open(dir.path(), &mut again).unwrap();
        assert!(again.contains("http://x.test/a"), "from the log");
        again.insert("http://x.test/b");
        store.record(&["http://x.test/b".into()], &again).unwrap();
        store.snapshot(&again).unwrap();
        drop(store);
        let mut third = Bloom::new(1000, 0.01);
        SeenStore::open(dir.path(), &mut third).unwrap();
        assert!(
            third.contains("http://x.test/a") && third.contains("http://x.test/b"),
            "from the snapshot"
        );
        assert!(!third.contains("http://x.test/c"));
    }
}
