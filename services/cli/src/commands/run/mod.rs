//! `gleaner run`: every stage of `[pipeline] stages` in one process, on the
//! in-process bus.

use crate::args::Common;
use crate::commands::{config, data_dir, init_logs};
use clap::Args;
use std::process::ExitCode;
pub mod fetch_log;
mod progress;
mod report;

use crate::args::SeedOptions;
use crate::datadir::{self, DataLock};
use anyhow::Context;
use fetch_log::FetchLog;
use gleaner_core::cpu::CpuPool;
use gleaner_core::memory::{MemoryOptions, MemoryPipeline};
use gleaner_core::metrics::Metric;
use gleaner_core::registry::{StageContext, StageSpec};
use gleaner_core::{Config, Topic};
use progress::Progress;
use report::RunReport;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// How long a stopping run waits for its stages.
const STOP_LIMIT: Duration = Duration::from_secs(30);

/// Where in the data directory fetch keeps its state.
const FETCH_STATE: &str = "fetch-state";

/// How often a run looks for seeds left by `gleaner seed --data`.
const INBOX_POLL: Duration = Duration::from_millis(200);

/// What `gleaner run` was asked for besides the seeds.
pub(crate) struct RunOptions {
    pub data: PathBuf,
    pub allow_private: bool,
    pub depth: Option<u32>,
    pub follow: bool,
    /// Where to serve /metrics and /health.
    pub metrics: Option<String>,
    /// Print the end-of-run report as JSON on stdout too.
    pub json: bool,
    /// Forget what earlier runs on the directory fetched.
    pub refetch: bool,
}

/// Runs the flow on the in-process bus; gives how many URLs failed to
/// fetch (the command exits with status 3 when some did).
pub(crate) async fn run_embedded(
    cfg: &Config,
    registry: &[&dyn StageSpec],
    seeds: &[String],
    scope: &SeedOptions,
    opts: RunOptions,
) -> anyhow::Result<u64> {
    let RunOptions {
        data,
        allow_private,
        depth,
        follow,
        metrics,
        json,
        refetch,
    } = opts;
    let started = Instant::now();
    let fetch_cfg = cfg.section::<gleaner_fetch::FetchSettings>()?;
    let (max_links, max_url) = (fetch_cfg.max_links_per_page, fetch_cfg.max_url_length);
    let mut seed_msgs = crate::commands::seed::seed_outputs(seeds, depth, false, scope, max_url)?;
    // One run per data directory; seeds left for it by `gleaner seed
    // --data` while no run was active go in first.
    let _lock = DataLock::acquire(&data)?;
    seed_msgs.extend(datadir::take_inbox(&data)?);
    anyhow::ensure!(
        !seed_msgs.is_empty() || follow,
        "nothing to crawl: give --seeds, or --follow to wait for `gleaner seed --data {}`",
        data.display()
    );
    gleaner_core::metrics::describe(RUN_METRICS);
    for spec in registry {
        gleaner_core::metrics::describe(spec.metrics());
    }
    let index_dir = data.join("index");
    // The fetched set, the URLs fetch held and the recrawl schedule live
    // here, so the next run on the directory goes on where this one ended.
    let fetch_state = data.join(FETCH_STATE);
    if refetch && fetch_state.exists() {
        std::fs::remove_dir_all(&fetch_state)
            .map_err(|e| anyhow::anyhow!("forgetting {}: {e}", fetch_state.display()))?;
    }
    let flow = crate::stages::flow(cfg, registry)?;
    let workers = cfg.run.worker_count();
    let base = StageContext {
        cfg: cfg.clone(),
        input: Topic::SEEDS,
        kind: Topic::SEEDS,
        output: None,
        data: data.clone(),
        state: Some(fetch_state),
        allow_private,
        long_running: follow,
        bus: std::sync::Arc::new(gleaner_core::registry::InProcess {
            sink_dir: Some(data.clone()),
        }),
        intake: CpuPool::yielding(workers, cfg.run.intake_nice).context("run.intake_nice")?,
    };
    let mut stages = Vec::new();
    for placed in &flow.stages {
        stages.push(placed.build(&base).await?);
    }
    let pipeline = MemoryPipeline::start(
        stages,
        &MemoryOptions {
            channel_capacity: cfg.run.channel_capacity,
            batch_max: cfg.kafka.batch_max,
            workers,
            sink_dir: Some(data.clone()),
            sink_topics: [
                Topic::ARTICLES,
                Topic::DUPLICATES,
                Topic::DEAD_LETTER,
                Topic::SKIPPED,
            ]
            .into_iter()
            .chain(
                flow.stages
                    .iter()
                    .flat_map(|p| p.spec.state_topics().iter().copied()),
            )
            .collect(),
        },
    )?;
    let report = std::sync::Arc::new(std::sync::Mutex::new(RunReport::new(
        registry.iter().flat_map(|s| s.reasons()).copied().collect(),
    )));
    let tally = report.clone();
    let fetch_log = std::sync::Arc::new(std::sync::Mutex::new(FetchLog::open(&data)?));
    let log = fetch_log.clone();
    pipeline.set_tap(
        report::TOPICS.to_vec(),
        std::sync::Arc::new(move |out| {
            if let Ok(mut r) = tally.lock() {
                r.observe(out);
            }
            if out.topic == Topic::PAGES {
                if let Ok(mut l) = log.lock() {
                    l.record(out);
                }
            }
        }),
    );
    for s in seed_msgs {
        pipeline.publish(s).await;
    }
    // Healthy while the run runs; the check is dropped when it stops.
    gleaner_core::health::register("run", || Ok(()));
    if let Some(addr) = &metrics {
        let local = crate::metrics_server::serve(addr).await?;
        eprintln!("metrics on http://{local}/metrics, health on http://{local}/health");
    }
    let tty = std::io::stderr().is_terminal();
    let mut progress = Progress::new(tty);
    let mut stop = gleaner_core::shutdown::shutdown_signal();
    let mut tick =
        tokio::time::interval(Duration::from_millis(cfg.run.progress_interval_ms.max(50)));
    // The sink files are on disk within a second of a record passing.
    let mut flush = tokio::time::interval(Duration::from_secs(1));
    let mut inbox = tokio::time::interval(INBOX_POLL);
    loop {
        tokio::select! {
            _ = pipeline.wait_idle(), if !follow => break,
            _ = stop.wait_for(|s| *s) => {
                progress.println(&format!(
                    "interrupted: no new URLs; finishing what is in flight (at most {} s; Ctrl-C again to quit now)",
                    STOP_LIMIT.as_secs()
                ));
                finish_in_flight(&pipeline, &mut progress).await;
                break
            }
            _ = flush.tick() => {
                pipeline.flush();
                if let Ok(mut l) = fetch_log.lock() {
                    l.flush();
                }
            }
            _ = inbox.tick() => {
                // File work: off the async runtime.
                let dir = data.clone();
                match tokio::task::spawn_blocking(move || datadir::take_inbox(&dir)).await {
                    Ok(Ok(seeds)) => for s in seeds { pipeline.publish(s).await },
                    Ok(Err(e)) => eprintln!("gleaner: taking seeds from {}: {e:#}", data.display()),
                    Err(e) => eprintln!("gleaner: taking seeds failed: {e}"),
                }
            }
            _ = tick.tick() => {
                let c = pipeline.counts();
                write_status(&data, &c, &pipeline.queued(), pipeline.in_flight());
                progress.update(&c, pipeline.in_flight());
            }
        }
    }
    gleaner_core::health::register("run", || Err("stopping".into()));
    // Each stage finishes its batch; what is still queued is kept for the
    // next run, and fetch keeps the URLs it held in its state.
    // The topics with queues, for the last status (all empty unless kept).
    let mut kept = pipeline.queued();
    kept.values_mut().for_each(|n| *n = 0);
    let (c, unhandled) = tokio::time::timeout(STOP_LIMIT, pipeline.shutdown_keeping())
        .await
        .map_err(|_| {
            anyhow::anyhow!(
                "stages did not stop within {} s; URLs not finished are fetched again by the next run",
                STOP_LIMIT.as_secs()
            )
        })??;
    progress.finish();
    if let Ok(mut l) = fetch_log.lock() {
        l.flush();
    }
    // The last word for `gleaner status`: what was made, and what is kept
    // for the next run (the ticks stop before the end).
    for input in &unhandled {
        *kept.entry(input.topic).or_default() += 1;
    }
    write_status(&data, &c, &kept, unhandled.len() as i64);
    keep_for_next_run(&data, unhandled)?;
    let secs = started.elapsed().as_secs_f64();
    let in_index = gleaner_index::SearchIndex::open(
        &index_dir,
        cfg.section::<gleaner_index::IndexSettings>()?.snippet_chars,
    )
    .map(|s| s.num_docs())
    .unwrap_or(0);
    // From a page's fetch to its article being searchable.
    let latency = |q| gleaner_core::samples::quantile(gleaner_index::FETCH_TO_SEARCHABLE, q);
    let searchable = match (latency(0.5), latency(0.99)) {
        (Some((p50, n)), Some((p99, _))) => serde_json::json!({"p50": p50, "p99": p99, "count": n}),
        _ => serde_json::Value::Null,
    };
    // Limits that cut something say so.
    let links_cut = gleaner_core::metrics::value("gleaner_fetch_links_cut_total", &[]) as u64;
    let pages_cut = gleaner_core::metrics::value("gleaner_fetch_pages_links_cut_total", &[]) as u64;
    let too_long = gleaner_core::metrics::value("gleaner_fetch_links_too_long_total", &[]) as u64;
    let report = std::mem::take(
        &mut *report
            .lock()
            .map_err(|_| anyhow::anyhow!("report lock poisoned"))?,
    );
    // The same figures, for scripts and tests.
    let summary = serde_json::json!({
        "report": &report,
        "seconds": secs,
        "produced": by_name(&c),
        "index_docs": in_index,
        "fetch_to_searchable_seconds": searchable,
        "links_cut": {"links": links_cut, "pages": pages_cut, "max_links_per_page": max_links},
        "links_too_long": {"links": too_long, "max_url_length": max_url},
    });
    std::fs::write(
        data.join("summary.json"),
        serde_json::to_vec_pretty(&summary)?,
    )?;
    println!("done in {secs:.1}s");
    println!(
        "  pages fetched   {} ({:.1} pages/s)",
        c[&Topic::PAGES],
        c[&Topic::PAGES] as f64 / secs.max(1e-3)
    );
    println!("  articles        {}", c[&Topic::ARTICLES]);
    println!(
        "  duplicates      {}  (see {})",
        c[&Topic::DUPLICATES],
        data.join("duplicates.jsonl").display()
    );
    // What the last stage (the index) reads.
    let indexed = flow.last_input();
    println!(
        "  indexed         {}  (index holds {in_index} in {})",
        c[&indexed],
        index_dir.display()
    );
    println!(
        "  dead letters    {}  (see {})",
        c[&Topic::DEAD_LETTER],
        data.join("dead-letter.jsonl").display()
    );
    println!(
        "  skipped         {}  (not articles, disallowed by robots.txt; see {})",
        c.get(&Topic::SKIPPED).copied().unwrap_or(0),
        data.join("skipped.jsonl").display()
    );
    if let (Some((p50, _)), Some((p99, _))) = (latency(0.5), latency(0.99)) {
        println!("  searchable      {p50:.2} s after fetch at the median, {p99:.2} s at p99");
    }
    if links_cut > 0 {
        println!(
            "  links cut       {links_cut} on {pages_cut} page(s) with more than {} links, not followed (raise fetch.max_links_per_page)",
            max_links
        );
    }
    if too_long > 0 {
        println!(
            "  links too long  {too_long} longer than {max_url} characters, not followed (fetch.max_url_length)"
        );
    }
    eprint!("{}", report.render());
    if json {
        println!("{}", serde_json::to_string(&report)?);
    }
    Ok(report.failed())
}

/// A clean stop: fetch takes no new URLs and hands back those it had not
/// started; everything already fetched goes through every stage, for at
/// most `STOP_LIMIT`, with a countdown.
async fn finish_in_flight(pipeline: &MemoryPipeline, progress: &mut Progress) {
    pipeline.close_intake(&[Topic::SEEDS, Topic::FRONTIER]);
    let deadline = tokio::time::Instant::now() + STOP_LIMIT;
    let mut second = tokio::time::interval(Duration::from_secs(1));
    loop {
        tokio::select! {
            _ = pipeline.wait_idle() => break,
            _ = tokio::time::sleep_until(deadline) => {
                progress.println(&format!("still busy after {} s: stopping; the rest is kept for the next run", STOP_LIMIT.as_secs()));
                break;
            }
            _ = second.tick() => {
                let left = deadline.saturating_duration_since(tokio::time::Instant::now()).as_secs();
                progress.say(format!("stopping: {} in flight, {left} s left", pipeline.in_flight()));
            }
        }
    }
}

/// Records still queued when the run stopped go to the inbox, by topic,
/// for the next run on the directory to handle.
fn keep_for_next_run(
    data: &std::path::Path,
    unhandled: Vec<gleaner_core::stage::Input>,
) -> anyhow::Result<()> {
    let mut by_topic: std::collections::BTreeMap<Topic, Vec<Vec<u8>>> = Default::default();
    for input in unhandled {
        if let Some(p) = &input.payload {
            by_topic
                .entry(input.topic)
                .or_default()
                .push(p.bytes().into_owned());
        }
    }
    for (topic, records) in by_topic {
        datadir::post_records(data, topic, &records)?;
        eprintln!(
            "kept {} unhandled {topic} record(s) in {} for the next run",
            records.len(),
            data.join("inbox").display()
        );
    }
    Ok(())
}

/// Counts by topic short name, for summary.json and status.json.
fn by_name(c: &gleaner_core::memory::Counts) -> std::collections::BTreeMap<String, u64> {
    c.iter().map(|(t, n)| (t.short().to_string(), *n)).collect()
}

/// The metrics `gleaner run` records itself.
pub(crate) const RUN_METRICS: &[Metric] = &[Metric::gauge(
    "gleaner_queue_depth",
    "Records waiting between stages in an embedded run, by topic.",
)];

/// What `gleaner status --data DIR` shows: written whole (a new file
/// renamed over the old) at every progress tick, and once more when the
/// run ends.
fn write_status(
    data: &std::path::Path,
    counts: &gleaner_core::memory::Counts,
    queued: &gleaner_core::memory::Counts,
    in_flight: i64,
) {
    for (topic, n) in queued.iter() {
        gleaner_core::metrics::set(
            "gleaner_queue_depth",
            &[("topic", topic.short())],
            *n as f64,
        );
    }
    let status = serde_json::json!({
        "updated_ms": gleaner_core::util::unix_millis(),
        "pid": std::process::id(),
        "produced": by_name(counts),
        "queued": by_name(queued),
        "in_flight": in_flight,
    });
    let tmp = data.join("status.json.tmp");
    let written = serde_json::to_vec_pretty(&status)
        .map_err(std::io::Error::other)
        .and_then(|b| std::fs::write(&tmp, b))
        .and_then(|()| std::fs::rename(&tmp, data.join("status.json")));
    if let Err(e) = written {
        tracing::debug!(error = %e, "writing status.json failed");
    }
}

/// The options of `gleaner run`.
#[derive(Args)]
pub struct RunCmd {
    /// Seed URLs, or files with one URL per line, `-` for stdin (optional with --follow:
    /// seeds can come later with `gleaner seed --data DIR`).
    #[arg(long, num_args = 1.., value_name = "URL_OR_FILE")]
    pub seeds: Vec<String>,
    /// Data directory (index, articles.jsonl, duplicates.jsonl, dead-letter.jsonl, summary.json).
    #[arg(long)]
    pub data: Option<PathBuf>,
    /// Fetch private, loopback and link-local addresses.
    #[arg(long)]
    pub allow_private: bool,
    /// Link depth from each seed (default: fetch.default_depth).
    #[arg(long)]
    pub depth: Option<u32>,
    /// Least milliseconds between two requests to one host (default: fetch.per_host_delay_ms).
    #[arg(long, value_name = "MS")]
    pub delay: Option<u64>,
    /// Keep running when idle (scheduled recrawls, hosts paused for
    /// blocking us are waited out) until Ctrl-C; implied by --every.
    #[arg(long)]
    pub follow: bool,
    /// Serve Prometheus metrics (GET /metrics) and health (GET /health)
    /// on this address, e.g. 127.0.0.1:9898.
    #[arg(long, value_name = "ADDR")]
    pub metrics: Option<String>,
    /// Also print the end-of-run report (per host: pages, articles,
    /// failures by reason) as one JSON object on stdout.
    #[arg(long)]
    pub json: bool,
    /// Fetch again what earlier runs on --data fetched (a run otherwise
    /// goes on where the last one ended and skips fetched URLs).
    #[arg(long)]
    pub refetch: bool,
    #[command(flatten)]
    pub schedule: SeedOptions,
    #[command(flatten)]
    pub common: Common,
}

impl RunCmd {
    pub async fn run(self) -> anyhow::Result<ExitCode> {
        // Dead letters are counted in the summary and kept in a file;
        // only errors go to the terminal.
        init_logs("error");
        let mut cfg = config(&self.common)?;
        if let Some(ms) = self.delay {
            let mut fetch: gleaner_fetch::FetchSettings = cfg.section()?;
            fetch.per_host_delay_ms = ms;
            cfg.set_section(&fetch)?;
        }
        let follow = self.follow || self.schedule.every_secs.is_some();
        let data = data_dir(&cfg, self.data);
        let registry = crate::stages::registry();
        let run = RunOptions {
            data,
            allow_private: self.allow_private,
            depth: self.depth,
            follow,
            metrics: self.metrics,
            json: self.json,
            refetch: self.refetch,
        };
        let failed = run_embedded(&cfg, &registry, &self.seeds, &self.schedule, run).await?;
        Ok(if failed > 0 {
            ExitCode::from(3)
        } else {
            ExitCode::SUCCESS
        })
    }
}

#[cfg(test)]
mod tests;
