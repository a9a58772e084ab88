//! Scheduled recrawls: a URL seeded with `every_secs` is fetched again each
//! time its interval passes. Adaptive entries (index pages) come back sooner
//! when their last fetch showed new links and later when it did not, within
//! [interval / 8, interval × 8]. Due entries become seeds with `recrawl`
//! set, so they pass the seen-set; the schedule lives in the state directory.

use gleaner_core::messages::{Scope, Seed};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::PathBuf;

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Entry {
    /// The interval asked for.
    pub base_secs: u64,
    /// The interval now (differs from `base_secs` when adaptive).
    pub every_secs: u64,
    pub adaptive: bool,
    pub depth: Option<u32>,
    pub scope: Option<Scope>,
    pub next_due: u64,
    #[serde(default)]
    pub allow: Vec<String>,
    #[serde(default)]
    pub deny: Vec<String>,
    /// The last response's validators, sent back on the next recrawl so
    /// that an unchanged page costs a 304 and goes no further.
    #[serde(default, skip_serializing_if = "Validators::is_empty")]
    pub validators: Validators,
}

/// `ETag` and `Last-Modified` of a response, for a conditional request,
/// and a hash of its body, for servers that send neither.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Validators {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub etag: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_modified: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
}

impl Validators {
    pub fn is_empty(&self) -> bool {
        !self.conditional() && self.body.is_none()
    }

    /// Whether a request can be made conditional with these.
    pub fn conditional(&self) -> bool {
        self.etag.is_some() || self.last_modified.is_some()
    }
}

#[derive(Default)]
pub struct Schedule {
    entries: BTreeMap<String, Entry>,
    path: Option<PathBuf>,
}

impl Schedule {
    /// The schedule kept in `path` (created when first saved).
    pub fn open(path: PathBuf) -> anyhow::Result<Self> {
        let entries = match std::fs::read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes)?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => BTreeMap::new(),
            Err(e) => return Err(e.into()),
        };
        Ok(Schedule {
            entries,
            path: Some(path),
        })
    }

    fn save(&self) -> anyhow::Result<()> {
        let Some(path) = &self.path else {
            return Ok(());
        };
        let tmp = path.with_extension("tmp");
        std::fs::write(&tmp, serde_json::to_vec(&self.entries)?)?;
        std::fs::File::open(&tmp)?.sync_all()?;
        std::fs::rename(&tmp, path)?;
        Ok(())
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn get(&self, url: &str) -> Option<&Entry> {
        self.entries.get(url)
    }

    /// Schedules (or reschedules) a URL from a seed with `every_secs`.
    pub fn add(&mut self, url: &str, seed: &Seed, now: u64) -> anyhow::Result<()> {
        let Some(every) = seed.every_secs.filter(|e| *e > 0) else {
            return Ok(());
        };
        self.entries.insert(
            url.to_string(),
            Entry {
                base_secs: every,
                every_secs: every,
                adaptive: seed.adaptive,
                depth: seed.depth,
                scope: seed.scope,
                next_due: now + every,
                allow: seed.allow.clone(),
                deny: seed.deny.clone(),
                validators: Validators::default(),
            },
        );
        self.save()
    }

    /// The seeds that are due, each moved to its next time.
    pub fn due(&mut self, now: u64) -> anyhow::Result<Vec<Seed>> {
        let mut out = Vec::new();
        for (url, e) in self.entries.iter_mut().filter(|(_, e)| e.next_due <= now) {
            e.next_due = now + e.every_secs;
            out.push(Seed {
                url: url.clone(),
                depth: e.depth,
                scope: e.scope,
                priority: None,
                recrawl: true,
                every_secs: None,
                adaptive: false,
                allow: e.allow.clone(),
                deny: e.deny.clone(),
            });
        }
        if !out.is_empty() {
            self.save()?;
        }
        Ok(out)
    }

    /// After a scheduled URL was fetched: keeps the response's validators
    /// (`None` for a 304, which keeps the old ones) and adapts the interval
    /// to whether the page showed new links; one save for both.
    pub fn observe(
        &mut self,
        url: &str,
        new_links: usize,
        validators: Option<Validators>,
        now: u64,
    ) -> anyhow::Result<()> {
        let Some(e) = self.entries.get_mut(url) else {
            return Ok(());
        };
        let mut changed = false;
        if let Some(v) = validators.filter(|v| *v != e.validators) {
            e.validators = v;
            changed = true;
        }
        if e.adaptive {
            let (min, max) = ((e.base_secs / 8).max(1), e.base_secs.saturating_mul(8));
            e.every_secs = if new_links > 0 {
                (e.every_secs / 2).max(min)
            } else {
                e.every_secs.saturating_mul(2).min(max)
            };
            e.next_due = now + e.every_secs;
            changed = true;
        }
        if changed {
            self.save()?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seed(every: u64, adaptive: bool) -> Seed {
        Seed {
            url: "http://x.test/".into(),
            depth: Some(1),
            every_secs: Some(every),
            adaptive,
            ..Seed::default()
        }
    }

    #[test]
    fn due_moves_on_and_adapts_and_persists() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("schedule.json");
        let mut s = Schedule::open(path.clone()).unwrap();
        s.add("http://x.test/", &seed(80, true), 1000).unwrap();
        assert!(s.due(1079).unwrap().is_empty());
        let due = s.due(1080).unwrap();
        assert_eq!(due.len(), 1);
        assert!(due[0].recrawl && due[0].every_secs.is_none());
        assert!(s.due(1100).unwrap().is_empty(), "moved to its next time");
        s.observe("http://x.test/", 3, None, 1100).unwrap();
        assert_eq!(
            s.get("http://x.test/").unwrap().every_secs,
            40,
            "new links: sooner"
        );
        for _ in 0..10 {
            s.observe("http://x.test/", 0, None, 1100).unwrap();
        }
        assert_eq!(
            s.get("http://x.test/").unwrap().every_secs,
            640,
            "no new links: later, up to 8x"
        );
        let reopened = Schedule::open(path).unwrap();
        assert_eq!(reopened.get("http://x.test/"), s.get("http://x.test/"));
    }
}
