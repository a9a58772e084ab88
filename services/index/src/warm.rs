//! The index's files read once in the background as search starts, so that
//! the operating system holds them in memory before the first queries (as
//! Elasticsearch's `index.store.preload` does). After a restart, or once
//! other work has pushed the index out of the page cache, the first queries
//! read their postings from disk: right after a `.ci/run`,
//! scripts/bench-search.sh's first queries took 40-200 ms where the same
//! queries take 5-15 ms warm. Up to half the memory the system reports
//! available is read, the files queries read most first (dictionaries,
//! fast fields, norms, postings, positions, then stored articles); a
//! larger index keeps what its queries bring in.

use std::io::Read;
use std::path::{Path, PathBuf};

/// File extensions in the order they are read: what every query reads
/// first, stored documents (read for a page's hits only) last.
const ORDER: &[&str] = &["term", "fast", "fieldnorm", "idx", "pos", "store"];

/// Starts reading the index files in `dirs` on a thread of its own;
/// the thread's result is the number of bytes read.
pub fn warm_page_cache(dirs: &[PathBuf]) -> std::thread::JoinHandle<u64> {
    let dirs = dirs.to_vec();
    let budget = available_memory().map_or(0, |m| m / 2);
    std::thread::Builder::new()
        .name("gleaner-warm".into())
        .spawn(move || read_files(&dirs, budget))
        .unwrap_or_else(|_| std::thread::spawn(|| 0))
}

fn read_files(dirs: &[PathBuf], budget: u64) -> u64 {
    let mut files: Vec<(usize, u64, PathBuf)> = dirs
        .iter()
        .filter_map(|d| std::fs::read_dir(d).ok())
        .flatten()
        .flatten()
        .filter_map(|e| {
            let path = e.path();
            let ext = path.extension()?.to_str()?;
            let rank = ORDER.iter().position(|o| *o == ext)?;
            Some((rank, e.metadata().ok()?.len(), path))
        })
        .collect();
    files.sort();
    let mut buf = vec![0u8; 1 << 20];
    let mut read = 0u64;
    for (_, len, path) in files {
        if read + len > budget {
            continue;
        }
        read += read_through(&path, &mut buf);
    }
    read
}

/// Reads `path` to its end (a file merged away meanwhile is skipped).
fn read_through(path: &Path, buf: &mut [u8]) -> u64 {
    let Ok(mut f) = std::fs::File::open(path) else {
        return 0;
    };
    let mut n = 0u64;
    while let Ok(k) = f.read(buf) {
        if k == 0 {
            break;
        }
        n += k as u64;
    }
    n
}

/// The memory the system reports available, in bytes (Linux; `None`
/// elsewhere, where nothing is read).
fn available_memory() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_index_files_are_read_within_the_budget() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.term"), vec![1u8; 3000]).unwrap();
        std::fs::write(dir.path().join("a.store"), vec![1u8; 5000]).unwrap();
        std::fs::write(dir.path().join("meta.json"), b"{}").unwrap();
        let dirs = [dir.path().to_path_buf(), dir.path().join("missing")];
        assert_eq!(
            read_files(&dirs, 1 << 20),
            8000,
            "meta.json is not an index file"
        );
        assert_eq!(
            read_files(&dirs, 4000),
            3000,
            "the dictionary first, the store past the budget"
        );
        assert!(available_memory().is_some_and(|m| m > 0));
        assert_eq!(warm_page_cache(&dirs).join().unwrap(), 8000);
    }
}
