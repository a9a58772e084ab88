//! `gleaner search`: queries the index and prints the hits.

use crate::args::Common;
use crate::commands::{config, data_dir, init_logs};
use clap::Args;
use gleaner_core::Config;
use std::io::Write;
use std::path::Path;
use std::path::PathBuf;
use std::process::ExitCode;

pub fn search(
    cfg: &Config,
    data: &Path,
    query: &str,
    limit: usize,
    json: bool,
) -> anyhow::Result<()> {
    let dir = data.join("index");
    if !dir.join("meta.json").exists() {
        return Err(crate::commands::bad_input(format!(
            "no index in {} (give --data DIR of a `gleaner run`, or run one first)",
            dir.display()
        )));
    }
    let idx = gleaner_index::SearchIndex::open(
        &dir,
        cfg.section::<gleaner_index::IndexSettings>()?.snippet_chars,
    )?;
    let hits = idx.search(query, limit)?;
    print_hits(&hits, json)
}

fn print_hits(hits: &[gleaner_index::Hit], json: bool) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    if json {
        for h in hits {
            writeln!(out, "{}", serde_json::to_string(h)?)?;
        }
        return Ok(());
    }
    if hits.is_empty() {
        writeln!(out, "no hits")?;
    }
    for (i, h) in hits.iter().enumerate() {
        writeln!(
            out,
            "{}. {}  (score {:.2})\n   {}\n   {}\n",
            i + 1,
            h.title,
            h.score,
            h.url,
            // One line: paragraph breaks become single spaces.
            h.snippet.split_whitespace().collect::<Vec<_>>().join(" ")
        )?;
    }
    Ok(())
}

/// The options of `gleaner search`.
#[derive(Args)]
pub struct SearchCmd {
    /// Data directory (default: run.data_dir, "gleaner-data").
    #[arg(long)]
    pub data: Option<PathBuf>,
    /// Hits to show.
    #[arg(long, default_value_t = 10)]
    pub limit: usize,
    /// One JSON object per hit per line.
    #[arg(long)]
    pub json: bool,
    /// The query: words, "phrases", AND/OR, -exclusions.
    #[arg(required = true, num_args = 1..)]
    pub query: Vec<String>,
    #[command(flatten)]
    pub common: Common,
}

impl SearchCmd {
    pub async fn run(self) -> anyhow::Result<ExitCode> {
        init_logs("warn");
        let cfg = config(&self.common)?;
        let data = data_dir(&cfg, self.data);
        search(&cfg, &data, &self.query.join(" "), self.limit, self.json)?;
        Ok(ExitCode::SUCCESS)
    }
}
