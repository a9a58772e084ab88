//! `DATA/fetch-log.jsonl`: one line per page a run fetched (URL, host,
//! status, bytes, milliseconds, time), appended as pages pass, for
//! `gleaner report` (the pages themselves are too big to keep).

use gleaner_core::messages::Page;
use gleaner_core::stage::Output;
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::Path;

pub const FILE: &str = "fetch-log.jsonl";

/// One fetched page.
#[derive(Debug, Serialize, Deserialize)]
pub struct Fetch {
    pub url: String,
    pub host: String,
    pub status: u16,
    pub bytes: u64,
    #[serde(default)]
    pub ms: Option<u64>,
    pub fetched_at: String,
}

impl Fetch {
    pub fn of(page: &Page) -> Self {
        Fetch {
            url: page.url.clone(),
            host: gleaner_core::util::host_of(&page.url),
            status: page.status,
            bytes: page.html.len() as u64,
            ms: page.fetch_ms,
            fetched_at: page.fetched_at.clone(),
        }
    }
}

pub struct FetchLog {
    file: std::io::BufWriter<std::fs::File>,
}

impl FetchLog {
    pub fn open(data: &Path) -> anyhow::Result<Self> {
        std::fs::create_dir_all(data)?;
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(data.join(FILE))?;
        Ok(FetchLog {
            file: std::io::BufWriter::new(file),
        })
    }

    /// Appends the page of a `pages` record.
    pub fn record(&mut self, out: &Output) {
        let fetch = match out.payload.typed_ref::<Page>() {
            Some(page) => Fetch::of(page),
            None => match out.decode::<Page>() {
                Ok(page) => Fetch::of(&page),
                Err(_) => return,
            },
        };
        if let Ok(line) = serde_json::to_vec(&fetch) {
            let _ = self
                .file
                .write_all(&line)
                .and_then(|()| self.file.write_all(b"\n"));
        }
    }

    pub fn flush(&mut self) {
        let _ = self.file.flush();
    }
}
