//! `gleaner dedup`: offline over a file of articles, or the Kafka service
//! with its window rebuilt from the tail of its own output.

use anyhow::Context;
use gleaner_core::Config;
use gleaner_dedup::offline::Report;
use std::path::Path;

/// The dedup stage as the config says.
pub(crate) fn stage(cfg: &Config) -> gleaner_dedup::DedupStage {
    gleaner_dedup::DedupStage::new(cfg.dedup.clone()).after_summarize(cfg.summarize.before_dedup)
}

/// The dedup service's stage, its window rebuilt from the tail of the
/// unique topic, so reposts of articles seen before a restart are still
/// caught.
pub(crate) async fn kafka_stage(
    cfg: &Config,
    brokers: &str,
) -> anyhow::Result<gleaner_dedup::DedupStage> {
    let mut stage = stage(cfg);
    let (b, topic) = (brokers.to_string(), cfg.topics.unique.clone());
    let per_partition =
        (cfg.dedup.window_count as i64 / i64::from(cfg.kafka.partitions.max(1))).max(1);
    // Reading, parsing and judging the tail are blocking and CPU work.
    let (stage, n) = tokio::task::spawn_blocking(move || -> anyhow::Result<_> {
        let tail = gleaner_core::kafka::read_tail(&b, &topic, per_partition)?;
        let articles: Vec<gleaner_core::messages::Article> = tail
            .iter()
            .filter_map(|p| serde_json::from_slice(p).ok())
            .collect();
        let n = stage.remember(&articles);
        Ok((stage, n))
    })
    .await??;
    tracing::info!(
        articles = n,
        "dedup window rebuilt from {}",
        cfg.topics.unique
    );
    Ok(stage)
}

/// `gleaner dedup --input FILE|- --output DIR`, blocking.
pub(crate) fn offline(cfg: &Config, input: &Path, output: &Path) -> anyhow::Result<()> {
    let report = if input.as_os_str() == "-" {
        gleaner_dedup::offline::run(
            cfg.dedup.clone(),
            std::io::BufReader::with_capacity(1 << 20, std::io::stdin()),
            output,
        )?
    } else {
        let f =
            std::fs::File::open(input).with_context(|| format!("opening {}", input.display()))?;
        gleaner_dedup::offline::run(
            cfg.dedup.clone(),
            std::io::BufReader::with_capacity(1 << 20, f),
            output,
        )?
    };
    print_dedup_report(&report, output);
    Ok(())
}

fn print_dedup_report(r: &Report, out: &Path) {
    use std::io::Write;
    let judged = r.stats.judged.max(1) as f64;
    let text = format!(
        "{} articles in {:.2}s: {:.0} articles/s\n  \
         unique {}  duplicates {}  corrections {}  dead letters {}  (in {})\n  \
         window {} articles, {} bytes/article counted; {:.1} candidates and {:.1} verified per article; peak RSS {} MiB\n",
        r.articles,
        r.seconds,
        r.per_second(),
        r.unique,
        r.duplicates,
        r.corrections,
        r.dead_letters,
        out.display(),
        r.window_len,
        r.window_bytes / r.window_len.max(1),
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
