//! `gleaner run`: every stage in one process on the in-process bus.

use crate::{dedup, index_stage, summarize_stage, SeedOptions};
use anyhow::Context;
use gleaner_core::memory::{MemoryOptions, MemoryPipeline};
use gleaner_core::stage::Stage;
use gleaner_core::{Config, Topic};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::{Duration, Instant};

pub(crate) async fn run_embedded(
    cfg: &Config,
    seeds: &[String],
    data: PathBuf,
    allow_private: bool,
    depth: Option<u32>,
    scope: &SeedOptions,
    follow: bool,
) -> anyhow::Result<()> {
    let started = Instant::now();
    let seed_msgs = crate::seeds::seed_outputs(seeds, depth, false, scope)?;
    std::fs::create_dir_all(&data)
        .with_context(|| format!("creating data directory {}", data.display()))?;
    let index_dir = data.join("index");
    let stages: Vec<Box<dyn Stage>> = vec![
        Box::new(
            gleaner_fetch::FetchStage::new(&cfg.fetch, allow_private)?
                .wait_for_paused_hosts(follow),
        ),
        Box::new(gleaner_clean::CleanStage),
        Box::new(gleaner_extract::ExtractStage::new(
            cfg.extract.extractor.parse()?,
            &cfg.extract,
        )),
        Box::new(dedup::stage(cfg)),
        Box::new(summarize_stage(cfg)?),
        Box::new(index_stage(cfg, &index_dir)?),
    ];
    let pipeline = MemoryPipeline::start(
        stages,
        &MemoryOptions {
            channel_capacity: cfg.run.channel_capacity,
            batch_max: cfg.kafka.batch_max,
            max_record_bytes: cfg.kafka.max_record_bytes,
            sink_dir: Some(data.clone()),
            sink_topics: vec![Topic::Articles, Topic::Duplicates, Topic::DeadLetter],
        },
    )?;
    for s in seed_msgs {
        pipeline.publish(s).await;
    }
    let tty = std::io::stderr().is_terminal();
    let mut stop = gleaner_core::kafka::shutdown_signal();
    let mut tick =
        tokio::time::interval(Duration::from_millis(cfg.run.progress_interval_ms.max(50)));
    let mut last_line = String::new();
    loop {
        tokio::select! {
            _ = pipeline.wait_idle(), if !follow => break,
            _ = stop.wait_for(|s| *s) => { eprintln!("\ninterrupted: finishing in-flight work"); break }
            _ = tick.tick() => {
                let c = pipeline.counts();
                let line = format!(
                    "fetched {} pages | {} articles | {} duplicates | {} summarized | {} dead letters | {} queued",
                    c[&Topic::Pages], c[&Topic::Articles], c[&Topic::Duplicates], c[&Topic::Summarized],
                    c[&Topic::DeadLetter], pipeline.in_flight()
                );
                if tty {
                    eprint!("\r{line}\x1b[K");
                } else if line != last_line {
                    eprintln!("{line}");
                }
                last_line = line;
            }
        }
    }
    let c = pipeline.shutdown().await?;
    if tty {
        eprintln!();
    }
    let secs = started.elapsed().as_secs_f64();
    let in_index = gleaner_index::SearchIndex::open(&index_dir, cfg.index.snippet_chars)
        .map(|s| s.num_docs())
        .unwrap_or(0);
    // The same figures, for scripts and tests.
    let summary = serde_json::json!({
        "seconds": secs,
        "produced": c.iter().map(|(t, n)| (t.short().to_string(), *n)).collect::<std::collections::BTreeMap<_, _>>(),
        "index_docs": in_index,
    });
    std::fs::write(
        data.join("summary.json"),
        serde_json::to_vec_pretty(&summary)?,
    )?;
    println!("done in {secs:.1}s");
    println!(
        "  pages fetched   {} ({:.1} pages/s)",
        c[&Topic::Pages],
        c[&Topic::Pages] as f64 / secs.max(1e-3)
    );
    println!("  articles        {}", c[&Topic::Articles]);
    println!(
        "  duplicates      {}  (see {})",
        c[&Topic::Duplicates],
        data.join("duplicates.jsonl").display()
    );
    // The index reads unique articles when they come summarized already.
    let indexed = if cfg.summarize.before_dedup {
        Topic::Unique
    } else {
        Topic::Summarized
    };
    println!(
        "  indexed         {}  (index holds {in_index} in {})",
        c[&indexed],
        index_dir.display()
    );
    println!(
        "  dead letters    {}  (see {})",
        c[&Topic::DeadLetter],
        data.join("dead-letter.jsonl").display()
    );
    Ok(())
}
