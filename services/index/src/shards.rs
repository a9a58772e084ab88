//! Several index shards searched as one index.
//!
//! Each index instance on Kafka writes its own Tantivy index (a shard)
//! from the partitions it owns. Search reads them through one read-only
//! directory whose `meta.json` lists the segments of every shard (segment
//! ids are random UUIDs, so they never collide) and whose segment files are
//! read from the shard that holds them. One searcher then sees every
//! shard's segments: scores use the statistics of all shards together,
//! facets and totals count every shard, copies are collapsed across them,
//! and paging needs no merge: the hits are those of one index holding the
//! same documents.
//!
//! Written by hand because Tantivy has no searcher over several indexes
//! (Quickwit merges per-split results in its own root searcher instead,
//! with per-split statistics); a union of segments is this project's own
//! choice, a few lines over Tantivy's `Directory` trait.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};
use tantivy::directory::error::{DeleteError, LockError, OpenReadError, OpenWriteError};
use tantivy::directory::{
    Directory, DirectoryLock, FileHandle, Lock, MmapDirectory, WatchCallback, WatchHandle, WritePtr,
};

const META: &str = "meta.json";

/// The shards' directories as one, read-only.
#[derive(Clone, Debug)]
pub(crate) struct ShardsDirectory {
    shards: Vec<(PathBuf, MmapDirectory)>,
    /// The shard holding each segment (by its id without dashes, the
    /// prefix of its files' names), as of the last `meta.json` read.
    owner: Arc<RwLock<HashMap<String, usize>>>,
}

impl ShardsDirectory {
    pub(crate) fn open(dirs: &[PathBuf]) -> anyhow::Result<Self> {
        anyhow::ensure!(!dirs.is_empty(), "no index shard given");
        let shards = dirs
            .iter()
            .map(|d| {
                let mmap = MmapDirectory::open(d)
                    .map_err(|e| anyhow::anyhow!("opening the shard {}: {e}", d.display()))?;
                Ok((d.clone(), mmap))
            })
            .collect::<anyhow::Result<Vec<_>>>()?;
        let dir = ShardsDirectory {
            shards,
            owner: Arc::default(),
        };
        // Every shard must be an index of the same schema: said now, once.
        dir.union_meta().map_err(|e| anyhow::anyhow!("{e}"))?;
        Ok(dir)
    }

    /// The shards' `meta.json` as one: the first shard's, with every
    /// shard's segments and the largest opstamp.
    fn union_meta(&self) -> Result<Vec<u8>, OpenReadError> {
        let bad = |path: &Path, why: String| OpenReadError::IoError {
            io_error: Arc::new(std::io::Error::new(std::io::ErrorKind::InvalidData, why)),
            filepath: path.join(META),
        };
        let mut union: Option<serde_json::Value> = None;
        let mut owner = HashMap::new();
        for (i, (path, shard)) in self.shards.iter().enumerate() {
            let bytes = shard.atomic_read(Path::new(META))?;
            let mut meta: serde_json::Value = serde_json::from_slice(&bytes)
                .map_err(|e| bad(path, format!("not an index's meta.json: {e}")))?;
            let segments = match meta.get_mut("segments").map(serde_json::Value::take) {
                Some(serde_json::Value::Array(s)) => s,
                _ => return Err(bad(path, "meta.json lists no segments".into())),
            };
            for s in &segments {
                if let Some(id) = s.get("segment_id").and_then(|v| v.as_str()) {
                    owner.insert(id.replace('-', ""), i);
                }
            }
            match &mut union {
                None => {
                    meta["segments"] = serde_json::Value::Array(segments);
                    meta["payload"] = serde_json::Value::Null;
                    union = Some(meta);
                }
                Some(u) => {
                    if u.get("schema") != meta.get("schema") {
                        return Err(bad(
                            path,
                            format!(
                                "its fields differ from those of {} (made by another version of gleaner)",
                                self.shards[0].0.display()
                            ),
                        ));
                    }
                    let opstamp = |m: &serde_json::Value| m["opstamp"].as_u64().unwrap_or(0);
                    u["opstamp"] = opstamp(u).max(opstamp(&meta)).into();
                    if let Some(all) = u["segments"].as_array_mut() {
                        all.extend(segments);
                    }
                }
            }
        }
        *self.owner.write().unwrap_or_else(|e| e.into_inner()) = owner;
        Ok(serde_json::to_vec(&union).unwrap_or_default())
    }

    /// The shard holding `path` (a segment's file is named by its id).
    fn shard_of(&self, path: &Path) -> Option<&MmapDirectory> {
        let name = path.file_name()?.to_str()?;
        let id = name.split('.').next()?;
        let known = self
            .owner
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(id)
            .copied();
        match known {
            Some(i) => Some(&self.shards[i].1),
            // Not listed in the last meta.json read: whichever shard has it.
            None => self
                .shards
                .iter()
                .map(|(_, s)| s)
                .find(|s| s.exists(path).unwrap_or(false)),
        }
    }
}

fn read_only(path: &Path) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::PermissionDenied,
        format!("{}: index shards are searched read-only", path.display()),
    )
}

impl Directory for ShardsDirectory {
    fn get_file_handle(&self, path: &Path) -> Result<Arc<dyn FileHandle>, OpenReadError> {
        match self.shard_of(path) {
            Some(shard) => shard.get_file_handle(path),
            None => Err(OpenReadError::FileDoesNotExist(path.to_path_buf())),
        }
    }

    fn delete(&self, path: &Path) -> Result<(), DeleteError> {
        Err(DeleteError::IoError {
            io_error: Arc::new(read_only(path)),
            filepath: path.to_path_buf(),
        })
    }

    fn exists(&self, path: &Path) -> Result<bool, OpenReadError> {
        if path == Path::new(META) {
            return Ok(true);
        }
        Ok(self.shard_of(path).is_some())
    }

    fn open_write(&self, path: &Path) -> Result<WritePtr, OpenWriteError> {
        Err(OpenWriteError::IoError {
            io_error: Arc::new(read_only(path)),
            filepath: path.to_path_buf(),
        })
    }

    fn atomic_read(&self, path: &Path) -> Result<Vec<u8>, OpenReadError> {
        if path == Path::new(META) {
            return self.union_meta();
        }
        // Tantivy's own bookkeeping (.managed.json) is the writers'.
        Err(OpenReadError::FileDoesNotExist(path.to_path_buf()))
    }

    fn atomic_write(&self, path: &Path, _: &[u8]) -> std::io::Result<()> {
        Err(read_only(path))
    }

    fn sync_directory(&self) -> std::io::Result<()> {
        Ok(())
    }

    /// The lock of every shard, taken in order (the meta lock keeps a
    /// shard's writer from removing files while a reader opens them).
    fn acquire_lock(&self, lock: &Lock) -> Result<DirectoryLock, LockError> {
        let locks = self
            .shards
            .iter()
            .map(|(_, s)| s.acquire_lock(lock))
            .collect::<Result<Vec<DirectoryLock>, LockError>>()?;
        Ok(DirectoryLock::from(Box::new(locks)))
    }

    /// A commit in any shard calls `callback`, for as long as the returned
    /// handle lives.
    fn watch(&self, callback: WatchCallback) -> tantivy::Result<WatchHandle> {
        let handles = self
            .shards
            .iter()
            .map(|(_, s)| s.watch(callback.clone()))
            .collect::<tantivy::Result<Vec<WatchHandle>>>()?;
        Ok(WatchHandle::new(Arc::new(WatchCallback::new(move || {
            let _ = &handles;
        }))))
    }
}

#[cfg(test)]
#[path = "shards_tests.rs"]
mod tests;
