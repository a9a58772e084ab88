//! `gleaner dedup --input`: dedup offline over a file of articles (the
//! Kafka service is commands/service.rs).

use crate::args::{Common, Kafka};
use crate::commands::{config, init_logs, open_input};
use clap::Args;
use gleaner_core::Config;
use gleaner_dedup::offline::Report;
use std::path::Path;
use std::path::PathBuf;
use std::process::ExitCode;

/// `gleaner dedup --input FILE|- --output DIR`, blocking.
pub(crate) fn offline(
    cfg: &Config,
    input: &Path,
    output: &Path,
    explain: bool,
) -> anyhow::Result<()> {
    let settings: gleaner_dedup::DedupSettings = cfg.section()?;
    let report =
        gleaner_dedup::offline::run_explained(settings, open_input(input)?, output, explain)?;
    print_dedup_report(&report, output);
    Ok(())
}

fn print_dedup_report(r: &Report, out: &Path) {
    use std::io::Write;
    let judged = r.stats.judged.max(1) as f64;
    let text = format!(
        "{} articles in {:.2}s: {:.0} articles/s\n  \
         unique {}  duplicates {}  corrections {}  dead letters {}  (in {})\n  \
         window {} articles{}; {:.1} candidates and {:.1} verified per article; peak RSS {} MiB\n",
        r.articles,
        r.seconds,
        r.per_second(),
        r.unique,
        r.duplicates,
        r.corrections,
        r.dead_letters,
        out.display(),
        r.window_len,
        // An empty window's bytes are its reserved tables, not per article.
        match r.window_len {
            0 => String::new(),
            n => format!(", {} bytes/article counted", r.window_bytes / n),
        },
        r.stats.candidates as f64 / judged,
        r.stats.verified as f64 / judged,
        peak_rss_kib().map_or("?".into(), |k| (k / 1024).to_string()),
    );
    // A closed pipe (`| head`) is not an error worth a panic.
    let _ = std::io::stdout().lock().write_all(text.as_bytes());
}

/// The process's peak resident memory (VmHWM), on Linux.
fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// The options of `gleaner dedup`.
#[derive(Args)]
pub struct DedupCmd {
    /// Article JSON lines to judge offline (`-` for stdin), instead of the Kafka service.
    #[arg(long, value_name = "FILE")]
    pub input: Option<PathBuf>,
    /// With --input: where unique.jsonl, duplicates.jsonl and dead-letter.jsonl go.
    #[arg(long, value_name = "DIR", default_value = "dedup-out")]
    pub output: PathBuf,
    /// With --input: also write explain.jsonl, why each article judged new matched nothing.
    #[arg(long)]
    pub explain: bool,
    #[command(flatten)]
    pub kafka: Kafka,
    #[command(flatten)]
    pub common: Common,
}

impl DedupCmd {
    pub async fn run(self) -> anyhow::Result<ExitCode> {
        let Some(input) = self.input else {
            return crate::commands::service::serve_stage(
                "dedup",
                &self.common,
                &self.kafka,
                Default::default(),
            )
            .await;
        };
        init_logs("warn");
        let cfg = config(&self.common)?;
        let (output, explain) = (self.output, self.explain);
        // Judging is CPU work: off the async runtime.
        tokio::task::spawn_blocking(move || offline(&cfg, &input, &output, explain)).await??;
        Ok(ExitCode::SUCCESS)
    }
}
