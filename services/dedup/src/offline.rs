//! Offline mode (`gleaner dedup --input FILE.jsonl --output DIR`): Article
//! JSON lines in, `unique.jsonl`, `duplicates.jsonl` and `dead-letter.jsonl`
//! out, through the stage's own [`Deduper::process`] and runner's
//! [`settle`], so a corpus or a benchmark is judged exactly as the stream.

use crate::stage::Deduper;
use crate::window::{DedupSettings, Stats};
use gleaner_core::stage::{settle, Input};
use gleaner_core::Topic;
use std::io::{BufRead, BufWriter, Write};
use std::path::Path;
use std::time::Instant;

/// Lines judged per batch: large enough to keep both cores busy on the
/// parallel parts, small enough to hold in memory.
const BATCH: usize = 4096;

/// What an offline run did.
#[derive(Debug, Default)]
pub struct Report {
    pub articles: u64,
    pub unique: u64,
    pub duplicates: u64,
    pub corrections: u64,
    pub dead_letters: u64,
    pub seconds: f64,
    pub window_len: usize,
    pub window_bytes: usize,
    pub stats: Stats,
}

impl Report {
    pub fn per_second(&self) -> f64 {
        self.articles as f64 / self.seconds.max(1e-9)
    }
}

/// Reads Article JSON lines from `input` and writes the verdicts to `out`.
pub fn run(cfg: DedupSettings, input: impl BufRead + Send, out: &Path) -> anyhow::Result<Report> {
    run_explained(cfg, input, out, false)
}

/// [`run`], and with `explain` also `explain.jsonl`: why each article
/// judged new matched nothing (`{"id", "why"}`; see `Window::explain`),
/// so that a scorer can say why a planted copy was missed.
pub fn run_explained(
    cfg: DedupSettings,
    input: impl BufRead + Send,
    out: &Path,
    explain: bool,
) -> anyhow::Result<Report> {
    std::fs::create_dir_all(out)?;
    let open = |name: &str| -> anyhow::Result<BufWriter<std::fs::File>> {
        let path = out.join(name);
        let f = std::fs::File::create(&path)
            .map_err(|e| anyhow::anyhow!("creating {}: {e}", path.display()))?;
        Ok(BufWriter::with_capacity(1 << 20, f))
    };
    let (mut unique, mut dups, mut dead) = (
        open("unique.jsonl")?,
        open("duplicates.jsonl")?,
        open("dead-letter.jsonl")?,
    );
    let mut dedup = Deduper::new(cfg, Topic::ARTICLES);
    if explain {
        dedup.window_mut().explain = Some(Vec::new());
    }
    let mut report = Report::default();
    let started = Instant::now();
    let decoder = dedup.decoder();
    let mut lines = gleaner_core::lines::bounded_lines(input, gleaner_core::lines::MAX_LINE_BYTES);
    let mut line_no = 0i64;
    let mut read = || -> anyhow::Result<Vec<Input>> {
        let mut batch = Vec::with_capacity(BATCH);
        for line in lines.by_ref() {
            let line = match line {
                Ok(line) => line,
                // Too long or not UTF-8: what was wrong goes in its place,
                // to the dead letters as a malformed message, and the
                // next line follows.
                Err(e) if e.kind() == std::io::ErrorKind::InvalidData => e.to_string(),
                Err(e) => return Err(e.into()),
            };
            line_no += 1;
            if line.trim().is_empty() {
                continue;
            }
            batch.push(Input {
                topic: Topic::ARTICLES,
                key: None,
                payload: Some(line.into_bytes().into()),
                origin: Some(gleaner_core::stage::Origin {
                    topic: "input".into(),
                    partition: 0,
                    offset: line_no,
                }),
            });
            if batch.len() == BATCH {
                break;
            }
        }
        Ok(batch)
    };
    let mut batch = read()?;
    let mut prepared = decoder.prepare(&batch);
    while !batch.is_empty() {
        report.articles += batch.len() as u64;
        // Judge this batch while the next one is read and prepared.
        let (results, next) = rayon::join(
            || dedup.decide(prepared),
            || {
                read().map(|b| {
                    let p = decoder.prepare(&b);
                    (b, p)
                })
            },
        );
        for (input, handled) in batch.iter().zip(results) {
            for o in settle("dedup", input, handled, None) {
                let w = match o.topic {
                    Topic::UNIQUE => {
                        report.unique += 1;
                        &mut unique
                    }
                    Topic::DUPLICATES => {
                        report.duplicates += 1;
                        &mut dups
                    }
                    _ => {
                        report.dead_letters += 1;
                        &mut dead
                    }
                };
                w.write_all(&o.payload.bytes())?;
                w.write_all(b"\n")?;
            }
        }
        (batch, prepared) = next?;
    }
    for mut w in [unique, dups, dead] {
        w.flush()?;
    }
    if let Some(why) = dedup.window_mut().explain.take() {
        let mut w = open("explain.jsonl")?;
        for (id, why) in why {
            serde_json::to_writer(&mut w, &serde_json::json!({"id": id, "why": why}))?;
            w.write_all(b"\n")?;
        }
        w.flush()?;
    }
    report.seconds = started.elapsed().as_secs_f64();
    report.window_len = dedup.window().len();
    report.window_bytes = dedup.window().bytes();
    report.stats = dedup.window().stats;
    // Duplicate records that correct an earlier verdict are counted apart.
    report.corrections = report.stats.corrections;
    report.duplicates -= report.corrections.min(report.duplicates);
    Ok(report)
}
