//! URLs the fetch stage has taken off the topics but not finished: requests
//! still running when their batch's deadline passed (they finish in the
//! background, so a stalled server holds up nobody) and URLs of a paused
//! host (they wait for the pause to end). Their input offsets are committed
//! with the batch, so with a state directory they are written to a synced
//! log first; after a crash every URL still in the log goes back to the
//! frontier.

use gleaner_core::messages::FrontierLink;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

/// Released entries logged before the log is rewritten with only the live ones.
const COMPACT_AFTER: usize = 10_000;

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Line {
    Park(FrontierLink),
    Release(String),
}

#[derive(Default)]
pub struct Parked {
    links: HashMap<String, FrontierLink>,
    log: Option<(PathBuf, File)>,
    released: usize,
}

impl Parked {
    /// The parked URLs of `dir/parked.log`: those a crash left there are
    /// returned by [`Parked::orphans`].
    pub fn open(dir: &Path) -> anyhow::Result<Self> {
        let path = dir.join("parked.log");
        let mut links = HashMap::new();
        if let Ok(f) = File::open(&path) {
            // A torn last line (crash mid-write) does not parse and is skipped.
            for line in BufReader::new(f).lines().map_while(Result::ok) {
                match serde_json::from_str::<Line>(&line) {
                    Ok(Line::Park(l)) => {
                        links.insert(l.url.clone(), l);
                    }
                    Ok(Line::Release(u)) => {
                        links.remove(&u);
                    }
                    Err(_) => {}
                }
            }
        }
        let mut parked = Parked {
            links,
            log: None,
            released: 0,
        };
        parked.rewrite(&path)?;
        Ok(parked)
    }

    /// Rewrites the log with only the live entries (atomically).
    fn rewrite(&mut self, path: &Path) -> anyhow::Result<()> {
        let tmp = path.with_extension("tmp");
        let mut f = File::create(&tmp)?;
        let mut buf = Vec::new();
        for l in self.links.values() {
            serde_json::to_writer(&mut buf, &Line::Park(l.clone()))?;
            buf.push(b'\n');
        }
        f.write_all(&buf)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)?;
        let log = OpenOptions::new().append(true).open(path)?;
        self.log = Some((path.to_path_buf(), log));
        self.released = 0;
        Ok(())
    }

    fn append(&mut self, lines: &[Line], sync: bool) -> anyhow::Result<()> {
        let Some((_, log)) = self.log.as_mut() else {
            return Ok(());
        };
        let mut buf = Vec::new();
        for l in lines {
            serde_json::to_writer(&mut buf, l)?;
            buf.push(b'\n');
        }
        log.write_all(&buf)?;
        if sync {
            log.sync_data()?;
        }
        Ok(())
    }

    /// Parks these URLs; durable (synced) when this returns.
    pub fn park(&mut self, links: Vec<FrontierLink>) -> anyhow::Result<()> {
        if links.is_empty() {
            return Ok(());
        }
        let lines: Vec<Line> = links.into_iter().map(Line::Park).collect();
        self.append(&lines, true)?;
        for l in lines {
            if let Line::Park(l) = l {
                self.links.insert(l.url.clone(), l);
            }
        }
        Ok(())
    }

    /// Forgets these URLs: their outputs have been produced. Not synced: a
    /// release lost in a crash only means one URL is fetched again.
    pub fn release(&mut self, urls: &[String]) -> anyhow::Result<()> {
        let lines: Vec<Line> = urls
            .iter()
            .filter(|u| self.links.remove(*u).is_some())
            .map(|u| Line::Release(u.clone()))
            .collect();
        if lines.is_empty() {
            return Ok(());
        }
        self.append(&lines, false)?;
        self.released += lines.len();
        if self.released >= COMPACT_AFTER {
            if let Some(path) = self.log.as_ref().map(|(p, _)| p.clone()) {
                self.rewrite(&path)?;
            }
        }
        Ok(())
    }

    pub fn get(&self, url: &str) -> Option<&FrontierLink> {
        self.links.get(url)
    }

    pub fn len(&self) -> usize {
        self.links.len()
    }

    /// Every parked URL (after a restart: the ones a crash left behind).
    pub fn all(&self) -> Vec<FrontierLink> {
        self.links.values().cloned().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn link(url: &str) -> FrontierLink {
        FrontierLink {
            url: url.into(),
            depth: 1,
            max_depth: 2,
            scope: Default::default(),
            seed_host: "x.test".into(),
            parent: String::new(),
            priority: 0,
            allow: vec![],
            deny: vec![],
            deferred: true,
        }
    }

    #[test]
    fn parked_urls_survive_a_reopen_and_released_ones_do_not() {
        let dir = tempfile::tempdir().unwrap();
        let mut p = Parked::open(dir.path()).unwrap();
        p.park(vec![link("http://x.test/a"), link("http://x.test/b")])
            .unwrap();
        p.release(&["http://x.test/a".into()]).unwrap();
        drop(p);
        // A torn line at the end, as a crash mid-write leaves it.
        let mut f = OpenOptions::new()
            .append(true)
            .open(dir.path().join("parked.log"))
            .unwrap();
        f.write_all(b"{\"park\":{\"url\":\"http://x.te").unwrap();
        let p = Parked::open(dir.path()).unwrap();
        let urls: Vec<String> = p.all().into_iter().map(|l| l.url).collect();
        assert_eq!(urls, vec!["http://x.test/b".to_string()]);
        // The reopen rewrote the log with the live entry only.
        let log = std::fs::read_to_string(dir.path().join("parked.log")).unwrap();
        assert_eq!(log.lines().count(), 1);
    }
}
