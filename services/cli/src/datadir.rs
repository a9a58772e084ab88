//! A data directory in use by one `gleaner run`: its lock, and its inbox,
//! where `gleaner seed --data DIR` leaves seeds for the run working on DIR
//! (or, when none is, for the next one), and where a stopped run leaves the
//! records no stage had handled yet, for the next run to go on with.

use anyhow::Context;
use gleaner_core::messages::Seed;
use gleaner_core::stage::Output;
use gleaner_core::Topic;
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};

const LOCK: &str = "gleaner.lock";
const INBOX: &str = "inbox";

/// Held while a run works on the directory; released when dropped (or
/// when the process dies, since it is an OS file lock).
pub struct DataLock {
    _file: File,
}

impl DataLock {
    pub fn acquire(dir: &Path) -> anyhow::Result<Self> {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("creating data directory {}", dir.display()))?;
        let mut file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .read(true)
            .write(true)
            .open(dir.join(LOCK))
            .with_context(|| format!("opening {}", dir.join(LOCK).display()))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                let mut pid = String::new();
                let _ = file.read_to_string(&mut pid);
                anyhow::bail!(
                    "{} is in use by another gleaner run (pid {}); add seeds to it with `gleaner seed --data {} URL`, or give this run another --data",
                    dir.display(),
                    pid.trim(),
                    dir.display()
                );
            }
            Err(std::fs::TryLockError::Error(e)) => {
                return Err(e).with_context(|| format!("locking {}", dir.join(LOCK).display()))
            }
        }
        file.set_len(0)?;
        file.rewind()?;
        write!(file, "{}", std::process::id())?;
        Ok(DataLock { _file: file })
    }

    /// Whether a run holds the directory now.
    pub fn held_by_a_run(dir: &Path) -> bool {
        match File::open(dir.join(LOCK)) {
            Ok(f) => matches!(f.try_lock_shared(), Err(std::fs::TryLockError::WouldBlock)),
            Err(_) => false,
        }
    }
}

/// Leaves seeds for the run on `dir`: written whole under a temporary name,
/// synced, then renamed, so a run never reads half a file.
pub fn post_seeds(dir: &Path, seeds: &[Output]) -> anyhow::Result<PathBuf> {
    let lines: Vec<Vec<u8>> = seeds
        .iter()
        .map(|s| s.payload.bytes().into_owned())
        .collect();
    post_lines(dir, "", &lines)
}

/// Leaves records of `topic` for the next run on `dir` (a stopped run's
/// unhandled queue); `<name>.<topic>.jsonl` in the inbox.
pub fn post_records(dir: &Path, topic: Topic, records: &[Vec<u8>]) -> anyhow::Result<PathBuf> {
    post_lines(dir, &format!(".{}", topic.short()), records)
}

fn post_lines(dir: &Path, suffix: &str, lines: &[Vec<u8>]) -> anyhow::Result<PathBuf> {
    let inbox = dir.join(INBOX);
    std::fs::create_dir_all(&inbox).with_context(|| format!("creating {}", inbox.display()))?;
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let name = format!("{nanos:020}-{}", std::process::id());
    let tmp = inbox.join(format!(".{name}.tmp"));
    let mut f = File::create(&tmp)?;
    for line in lines {
        f.write_all(line)?;
        f.write_all(b"\n")?;
    }
    f.sync_all()?;
    let path = inbox.join(format!("{name}{suffix}.jsonl"));
    std::fs::rename(&tmp, &path)?;
    Ok(path)
}

/// The topic of an inbox file: `<name>.<topic>.jsonl`, else seeds.
fn topic_of(path: &Path) -> Topic {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    match stem.rsplit_once('.') {
        Some((_, short)) => Topic::BUILT_IN
            .into_iter()
            .find(|t| t.short() == short)
            .unwrap_or(Topic::SEEDS),
        None => Topic::SEEDS,
    }
}

/// The host a record is about (its `url`, or its article's), for its key.
fn key_of(line: &str) -> String {
    let v: serde_json::Value = serde_json::from_str(line).unwrap_or_default();
    let url = v["url"]
        .as_str()
        .or_else(|| v["article"]["url"].as_str())
        .unwrap_or("");
    gleaner_core::util::host_of(url)
}

/// Takes the seeds and kept records waiting in the inbox, oldest first;
/// each file is removed once read. Seed lines that are not seeds are
/// reported and skipped.
pub fn take_inbox(dir: &Path) -> anyhow::Result<Vec<Output>> {
    let inbox = dir.join(INBOX);
    let mut files: Vec<PathBuf> = match std::fs::read_dir(&inbox) {
        Ok(entries) => entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
            .collect(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(vec![]),
        Err(e) => return Err(e).with_context(|| format!("reading {}", inbox.display())),
    };
    files.sort();
    let mut seeds = Vec::new();
    for path in files {
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("reading {}", path.display()))?;
        let topic = topic_of(&path);
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            if topic != Topic::SEEDS {
                // A stopped run's record, checked by the stage that reads it.
                seeds.push(Output {
                    topic,
                    key: key_of(line),
                    payload: gleaner_core::Payload::Bytes(std::sync::Arc::new(
                        line.as_bytes().to_vec(),
                    )),
                    made_by: None,
                });
                continue;
            }
            match serde_json::from_str::<Seed>(line) {
                Ok(seed) => {
                    let key = gleaner_core::util::host_of(&seed.url);
                    seeds.push(Output::new(Topic::SEEDS, key, seed));
                }
                Err(e) => eprintln!("gleaner: {}: not a seed ({e}): {line}", path.display()),
            }
        }
        std::fs::remove_file(&path).with_context(|| format!("removing {}", path.display()))?;
    }
    Ok(seeds)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seed(url: &str) -> Output {
        let s = Seed {
            url: url.into(),
            ..Seed::default()
        };
        Output::new(Topic::SEEDS, "h", s)
    }

    #[test]
    fn one_run_per_directory_and_seeds_pass_through_the_inbox() {
        let dir = tempfile::tempdir().unwrap();
        assert!(!DataLock::held_by_a_run(dir.path()));
        let lock = DataLock::acquire(dir.path()).unwrap();
        assert!(DataLock::held_by_a_run(dir.path()));
        let err = DataLock::acquire(dir.path()).err().unwrap().to_string();
        assert!(
            err.contains("in use by another gleaner run")
                && err.contains(&format!("pid {}", std::process::id())),
            "{err}"
        );
        drop(lock);
        assert!(!DataLock::held_by_a_run(dir.path()));
        assert!(
            DataLock::acquire(dir.path()).is_ok(),
            "free again once released"
        );

        assert!(take_inbox(dir.path()).unwrap().is_empty());
        post_seeds(
            dir.path(),
            &[seed("http://a.test/"), seed("http://b.test/")],
        )
        .unwrap();
        post_seeds(dir.path(), &[seed("http://c.test/")]).unwrap();
        let taken: Vec<Seed> = take_inbox(dir.path())
            .unwrap()
            .iter()
            .map(|o| o.decode().unwrap())
            .collect();
        let urls: Vec<&str> = taken.iter().map(|s| s.url.as_str()).collect();
        assert_eq!(urls, ["http://a.test/", "http://b.test/", "http://c.test/"]);
        assert!(take_inbox(dir.path()).unwrap().is_empty(), "taken once");

        // A stopped run's records come back on their own topic.
        post_records(
            dir.path(),
            Topic::FRONTIER,
            &[br#"{"url":"http://d.test/x","depth":1}"#.to_vec()],
        )
        .unwrap();
        let back = take_inbox(dir.path()).unwrap();
        assert_eq!(back.len(), 1);
        assert_eq!(
            (back[0].topic, back[0].key.as_str()),
            (Topic::FRONTIER, "d.test")
        );
        assert!(take_inbox(dir.path()).unwrap().is_empty(), "taken once");
    }
}
