//! `gleaner search`: queries the index and prints the hits.

use gleaner_core::Config;
use std::io::Write;
use std::path::Path;

pub fn run(cfg: &Config, data: &Path, query: &str, limit: usize, json: bool) -> anyhow::Result<()> {
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
