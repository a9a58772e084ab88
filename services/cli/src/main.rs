//! `gleaner`: every stage of the pipeline, embedded in one process (`run`)
//! or one per process on Kafka (`fetch`, `clean`, ...), plus `seed`,
//! `search`, `serve`, `topics` and one-shot `extract`.

mod eval;
mod oneshot;
mod serve;

use anyhow::Context;
use clap::{Args, Parser, Subcommand};
use gleaner_core::memory::{MemoryOptions, MemoryPipeline};
use gleaner_core::messages::Seed;
use gleaner_core::stage::{Output, Stage};
use gleaner_core::{Config, Topic};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

#[derive(Parser)]
#[command(
    name = "gleaner",
    version,
    about = "Turns the web into a stream of clean, deduplicated, summarised, searchable articles"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Args, Clone)]
struct Common {
    /// Configuration file (default: the bundled pipelines.toml).
    #[arg(long, global = true, value_name = "FILE")]
    config: Option<PathBuf>,
}

/// What a seed carries besides its URL.
#[derive(Args, Clone, Default)]
struct SeedOptions {
    /// Fetch the seeds again every SECS seconds (the fetch service keeps the schedule in --state; `gleaner run` keeps running).
    #[arg(long = "every", value_name = "SECS")]
    every_secs: Option<u64>,
    /// With --every: revisit sooner when new links appeared, later when none did.
    #[arg(long)]
    adaptive: bool,
    /// Follow only links matching this URL pattern (`*` is a wildcard, else a prefix); repeatable.
    #[arg(long, value_name = "PATTERN")]
    allow: Vec<String>,
    /// Do not follow links matching this URL pattern; repeatable.
    #[arg(long, value_name = "PATTERN")]
    deny: Vec<String>,
}

#[derive(Args, Clone)]
struct Kafka {
    /// Kafka bootstrap servers (default: kafka.brokers from the config).
    #[arg(long, env = "GLEANER_BROKERS")]
    brokers: Option<String>,
    /// Serve Prometheus metrics on this address (GET /metrics).
    #[arg(long, value_name = "ADDR")]
    metrics: Option<String>,
}

#[derive(Subcommand)]
enum Cmd {
    /// Run every stage in one process, no broker; exits when nothing is left to do (unless --follow or --every).
    Run {
        /// Seed URLs, or files with one URL per line.
        #[arg(long, required = true, num_args = 1.., value_name = "URL_OR_FILE")]
        seeds: Vec<String>,
        /// Data directory (index, articles.jsonl, duplicates.jsonl, dead-letter.jsonl, summary.json).
        #[arg(long)]
        data: Option<PathBuf>,
        /// Fetch private, loopback and link-local addresses.
        #[arg(long)]
        allow_private: bool,
        /// Link depth from each seed (default: fetch.default_depth).
        #[arg(long)]
        depth: Option<u32>,
        /// Least milliseconds between two requests to one host (default: fetch.per_host_delay_ms).
        #[arg(long, value_name = "MS")]
        delay: Option<u64>,
        /// Keep running when idle (scheduled recrawls, hosts paused for
        /// blocking us are waited out) until Ctrl-C; implied by --every.
        #[arg(long)]
        follow: bool,
        #[command(flatten)]
        schedule: SeedOptions,
        #[command(flatten)]
        common: Common,
    },
    /// Fetch service on Kafka: seeds + frontier -> pages + frontier.
    Fetch {
        #[arg(long)]
        allow_private: bool,
        /// Keep the seen-URL set here, so a restart does not fetch completed URLs again.
        #[arg(long, value_name = "DIR")]
        state: Option<PathBuf>,
        #[command(flatten)]
        kafka: Kafka,
        #[command(flatten)]
        common: Common,
    },
    /// Clean service on Kafka: pages -> cleaned.
    Clean {
        #[command(flatten)]
        kafka: Kafka,
        #[command(flatten)]
        common: Common,
    },
    /// With inputs: print the main text of each file, directory or URL.
    /// Without: the extract service on Kafka (cleaned -> articles).
    Extract {
        /// `.html` or `.html.gz` files, directories of them, or URLs.
        #[arg(value_name = "FILE_DIR_OR_URL")]
        inputs: Vec<String>,
        /// One JSON object per line per input.
        #[arg(long)]
        json: bool,
        /// Extraction method: auto, qread or density (default: extract.extractor).
        #[arg(long)]
        extractor: Option<String>,
        #[command(flatten)]
        kafka: Kafka,
        #[command(flatten)]
        common: Common,
    },
    /// Dedup service on Kafka: articles -> unique + duplicates.
    /// With --input: the same over a file of Article JSON lines.
    Dedup {
        /// Article JSON lines to judge offline (`-` for stdin), instead of the Kafka service.
        #[arg(long, value_name = "FILE")]
        input: Option<PathBuf>,
        /// With --input: where unique.jsonl, duplicates.jsonl and dead-letter.jsonl go.
        #[arg(long, value_name = "DIR", default_value = "dedup-out")]
        output: PathBuf,
        #[command(flatten)]
        kafka: Kafka,
        #[command(flatten)]
        common: Common,
    },
    /// Summarize service on Kafka: unique -> summarized.
    Summarize {
        #[command(flatten)]
        kafka: Kafka,
        #[command(flatten)]
        common: Common,
    },
    /// Index service on Kafka: summarized -> the Tantivy index in DIR/index.
    Index {
        #[arg(long)]
        data: Option<PathBuf>,
        #[command(flatten)]
        kafka: Kafka,
        #[command(flatten)]
        common: Common,
    },
    /// Produce seed URLs onto the seeds topic.
    Seed {
        #[arg(required = true, value_name = "URL")]
        urls: Vec<String>,
        #[arg(long)]
        depth: Option<u32>,
        /// Fetch again even if seen before.
        #[arg(long)]
        recrawl: bool,
        #[command(flatten)]
        schedule: SeedOptions,
        #[command(flatten)]
        kafka: Kafka,
        #[command(flatten)]
        common: Common,
    },
    /// Search the index.
    Search {
        #[arg(long)]
        data: Option<PathBuf>,
        #[arg(long, default_value_t = 10)]
        limit: usize,
        /// One JSON object per hit per line.
        #[arg(long)]
        json: bool,
        #[arg(required = true, num_args = 1..)]
        query: Vec<String>,
        #[command(flatten)]
        common: Common,
    },
    /// HTTP search API: GET /search?q=...&limit=..., GET /health.
    Serve {
        #[arg(long)]
        data: Option<PathBuf>,
        /// Address to listen on (default: serve.listen).
        #[arg(long)]
        listen: Option<String>,
        #[command(flatten)]
        common: Common,
    },
    /// Score an extractor on a labelled set in the WCXB layout (html/, ground-truth/).
    Eval {
        dir: PathBuf,
        /// Extraction method (default: extract.extractor).
        #[arg(long)]
        extractor: Option<String>,
        /// Scores per page type too.
        #[arg(long)]
        per_type: bool,
        /// One JSON object with every figure.
        #[arg(long)]
        json: bool,
        /// Only the pages whose ids this file lists, one per line.
        #[arg(long, value_name = "FILE")]
        ids: Option<PathBuf>,
        /// Benchmark instead: pages/s of the extractor and of a bare lol_html pass, and their ratio.
        #[arg(long)]
        bench: bool,
        /// Write each block's features and label as JSON lines (for scripts/train-extract.py).
        #[arg(long, value_name = "FILE")]
        dump_features: Option<PathBuf>,
        /// Write every page's scores and extracted text as JSON lines (for error analysis).
        #[arg(long, value_name = "FILE")]
        per_page: Option<PathBuf>,
        /// Score the blocks the training labels call content instead (the ceiling of a block classifier).
        #[arg(long)]
        oracle: bool,
        #[command(flatten)]
        common: Common,
    },
    /// Create every topic on the broker (existing ones are left alone).
    Topics {
        #[command(flatten)]
        kafka: Kafka,
        #[command(flatten)]
        common: Common,
    },
}

fn init_logs(default: &str) {
    let filter = tracing_subscriber::EnvFilter::try_from_env("GLEANER_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .try_init();
}

fn data_dir(cfg: &Config, data: Option<PathBuf>) -> PathBuf {
    data.unwrap_or_else(|| PathBuf::from(&cfg.run.data_dir))
}

fn brokers(cfg: &Config, k: &Kafka) -> String {
    k.brokers
        .clone()
        .unwrap_or_else(|| cfg.kafka.brokers.clone())
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    match dispatch(cli.cmd).await {
        Ok(code) => code,
        Err(e) => {
            eprintln!("gleaner: error: {e:#}");
            std::process::ExitCode::from(2)
        }
    }
}

async fn dispatch(cmd: Cmd) -> anyhow::Result<std::process::ExitCode> {
    use std::process::ExitCode;
    match cmd {
        Cmd::Run {
            seeds,
            data,
            allow_private,
            depth,
            delay,
            follow,
            schedule,
            common,
        } => {
            // Dead letters are counted in the summary and kept in a file;
            // only errors go to the terminal.
            init_logs("error");
            let mut cfg = Config::load(common.config.as_deref())?;
            if let Some(ms) = delay {
                cfg.fetch.per_host_delay_ms = ms;
            }
            let follow = follow || schedule.every_secs.is_some();
            run_embedded(
                &cfg,
                &seeds,
                data_dir(&cfg, data),
                allow_private,
                depth,
                &schedule,
                follow,
            )
            .await?;
        }
        Cmd::Fetch {
            allow_private,
            state,
            kafka,
            common,
        } => {
            init_logs("info");
            let cfg = Config::load(common.config.as_deref())?;
            let mut stage = gleaner_fetch::FetchStage::new(&cfg.fetch, allow_private)?
                .wait_for_paused_hosts(true);
            if let Some(dir) = state {
                stage = stage.with_state(&dir)?;
            }
            service(Box::new(stage), &cfg, &kafka).await?;
        }
        Cmd::Clean { kafka, common } => {
            init_logs("info");
            let cfg = Config::load(common.config.as_deref())?;
            service(Box::new(gleaner_clean::CleanStage), &cfg, &kafka).await?;
        }
        Cmd::Extract {
            inputs,
            json,
            extractor,
            kafka,
            common,
        } => {
            let cfg = Config::load(common.config.as_deref())?;
            let which = extractor
                .as_deref()
                .unwrap_or(&cfg.extract.extractor)
                .parse()?;
            if inputs.is_empty() {
                init_logs("info");
                let stage = gleaner_extract::ExtractStage::new(which, &cfg.extract);
                // The rules topic is a compacted table: read it whole on every
                // start (the consumer group only brings changes after that).
                let (b, topic) = (brokers(&cfg, &kafka), cfg.topics.rules.clone());
                let records = tokio::task::spawn_blocking(move || {
                    gleaner_core::kafka::read_records(&b, &topic, i64::MAX)
                })
                .await??;
                let n = records.len();
                for (key, value) in records {
                    let rules = match value
                        .as_deref()
                        .map(serde_json::from_slice::<gleaner_core::messages::SiteRules>)
                    {
                        None => None,
                        Some(Ok(r)) => Some(r),
                        Some(Err(e)) => {
                            tracing::warn!(?key, error = %e, "malformed site rules skipped");
                            continue;
                        }
                    };
                    let host = rules
                        .as_ref()
                        .map(|r| r.host.clone())
                        .filter(|h| !h.is_empty())
                        .or(key)
                        .unwrap_or_default();
                    if !host.is_empty() {
                        stage.set_rules(&host, rules);
                    }
                }
                tracing::info!(records = n, "site rules loaded from {}", cfg.topics.rules);
                service(Box::new(stage), &cfg, &kafka).await?;
            } else {
                init_logs("warn");
                let failures = oneshot::extract_inputs(&cfg, &inputs, which, json).await?;
                if failures > 0 {
                    return Ok(ExitCode::from(1));
                }
            }
        }
        Cmd::Dedup {
            input: Some(input),
            output,
            common,
            ..
        } => {
            init_logs("warn");
            let cfg = Config::load(common.config.as_deref())?;
            let report = if input.as_os_str() == "-" {
                gleaner_dedup::offline::run(
                    cfg.dedup.clone(),
                    std::io::BufReader::with_capacity(1 << 20, std::io::stdin()),
                    &output,
                )?
            } else {
                let f = std::fs::File::open(&input)
                    .with_context(|| format!("opening {}", input.display()))?;
                gleaner_dedup::offline::run(
                    cfg.dedup.clone(),
                    std::io::BufReader::with_capacity(1 << 20, f),
                    &output,
                )?
            };
            print_dedup_report(&report, &output);
        }
        Cmd::Dedup {
            input: None,
            kafka,
            common,
            ..
        } => {
            init_logs("info");
            let cfg = Config::load(common.config.as_deref())?;
            let mut stage = dedup_stage(&cfg);
            // The window is rebuilt from the tail of this stage's own
            // output, so reposts of articles seen before a restart are
            // still caught.
            let brokers = brokers(&cfg, &kafka);
            let (b, topic) = (brokers.clone(), cfg.topics.unique.clone());
            let per_partition =
                (cfg.dedup.window_count as i64 / i64::from(cfg.kafka.partitions.max(1))).max(1);
            let tail = tokio::task::spawn_blocking(move || {
                gleaner_core::kafka::read_tail(&b, &topic, per_partition)
            })
            .await??;
            let articles: Vec<gleaner_core::messages::Article> = tail
                .iter()
                .filter_map(|p| serde_json::from_slice(p).ok())
                .collect();
            let n = stage.remember(&articles);
            tracing::info!(
                articles = n,
                "dedup window rebuilt from {}",
                cfg.topics.unique
            );
            service(Box::new(stage), &cfg, &kafka).await?;
        }
        Cmd::Summarize { kafka, common } => {
            init_logs("info");
            let cfg = Config::load(common.config.as_deref())?;
            service(Box::new(summarize_stage(&cfg)?), &cfg, &kafka).await?;
        }
        Cmd::Index {
            data,
            kafka,
            common,
        } => {
            init_logs("info");
            let cfg = Config::load(common.config.as_deref())?;
            let dir = data_dir(&cfg, data).join("index");
            let stage = index_stage(&cfg, &dir)?;
            service(Box::new(stage), &cfg, &kafka).await?;
        }
        Cmd::Seed {
            urls,
            depth,
            recrawl,
            schedule,
            kafka,
            common,
        } => {
            init_logs("warn");
            let cfg = Config::load(common.config.as_deref())?;
            let producer = gleaner_core::kafka::producer(&cfg, &brokers(&cfg, &kafka))?;
            let outs = seed_outputs(&urls, depth, recrawl, &schedule)?;
            gleaner_core::kafka::produce_all(&producer, &cfg, &outs).await?;
            println!("produced {} seed(s) to {}", outs.len(), cfg.topics.seeds);
        }
        Cmd::Search {
            data,
            limit,
            json,
            query,
            common,
        } => {
            init_logs("warn");
            let cfg = Config::load(common.config.as_deref())?;
            let idx = gleaner_index::SearchIndex::open(
                &data_dir(&cfg, data).join("index"),
                cfg.index.snippet_chars,
            )?;
            let hits = idx.search(&query.join(" "), limit)?;
            print_hits(&hits, json)?;
        }
        Cmd::Serve {
            data,
            listen,
            common,
        } => {
            init_logs("info");
            let cfg = Config::load(common.config.as_deref())?;
            let dir = data_dir(&cfg, data).join("index");
            serve::serve(&cfg, &dir, listen.as_deref().unwrap_or(&cfg.serve.listen)).await?;
        }
        Cmd::Eval {
            dir,
            extractor,
            per_type,
            json,
            ids,
            bench,
            dump_features,
            per_page,
            oracle,
            common,
        } => {
            init_logs("error");
            let cfg = Config::load(common.config.as_deref())?;
            let which = extractor
                .as_deref()
                .unwrap_or(&cfg.extract.extractor)
                .parse()?;
            if bench {
                eval::bench(&dir, which, 3)?;
            } else {
                eval::run(
                    &dir,
                    which,
                    &eval::Options {
                        per_type,
                        json,
                        ids,
                        dump_features,
                        per_page,
                        oracle,
                    },
                )?;
            }
        }
        Cmd::Topics { kafka, common } => {
            init_logs("warn");
            let cfg = Config::load(common.config.as_deref())?;
            let created = gleaner_core::kafka::create_topics(&cfg, &brokers(&cfg, &kafka)).await?;
            println!(
                "created {} topic(s){}",
                created.len(),
                if created.is_empty() {
                    String::new()
                } else {
                    format!(": {}", created.join(", "))
                }
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn dedup_stage(cfg: &Config) -> gleaner_dedup::DedupStage {
    gleaner_dedup::DedupStage::new(cfg.dedup.clone()).after_summarize(cfg.summarize.before_dedup)
}

fn print_dedup_report(r: &gleaner_dedup::offline::Report, out: &Path) {
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

fn index_stage(cfg: &Config, dir: &Path) -> anyhow::Result<gleaner_index::IndexStage> {
    Ok(
        gleaner_index::IndexStage::open(dir, cfg.index.writer_heap_bytes)?
            .reading_unique(cfg.summarize.before_dedup),
    )
}

fn summarize_stage(cfg: &Config) -> anyhow::Result<gleaner_summarize::SummarizeStage> {
    let s = &cfg.summarize;
    let engine = match s.engine.as_str() {
        "http" => gleaner_summarize::Engine::http(
            &s.http_url,
            Duration::from_millis(s.http_timeout_ms),
            s.http_retries,
        )?,
        _ => gleaner_summarize::Engine::Extractive,
    };
    Ok(gleaner_summarize::SummarizeStage {
        engine,
        lengths: s.lengths.clone(),
        before_dedup: s.before_dedup,
    })
}

async fn service(stage: Box<dyn Stage>, cfg: &Config, kafka: &Kafka) -> anyhow::Result<()> {
    if let Some(addr) = &kafka.metrics {
        gleaner_core::metrics::serve(addr).await?;
    }
    let stop = gleaner_core::kafka::shutdown_signal();
    gleaner_core::kafka::run_stage(stage, cfg, &brokers(cfg, kafka), stop).await
}

/// Seed messages for URLs, or files of URLs (one per line, `#` comments).
fn seed_outputs(
    args: &[String],
    depth: Option<u32>,
    recrawl: bool,
    schedule: &SeedOptions,
) -> anyhow::Result<Vec<Output>> {
    let mut urls = Vec::new();
    for a in args {
        let p = Path::new(a);
        if !a.contains("://") && p.is_file() {
            let text =
                std::fs::read_to_string(p).with_context(|| format!("reading seeds from {a}"))?;
            urls.extend(
                text.lines()
                    .map(str::trim)
                    .filter(|l| !l.is_empty() && !l.starts_with('#'))
                    .map(str::to_string),
            );
        } else {
            urls.push(a.clone());
        }
    }
    urls.iter()
        .map(|u| {
            let parsed = gleaner_core::util::normalise_url(u)
                .with_context(|| format!("bad seed URL {u:?}"))?;
            anyhow::ensure!(
                matches!(parsed.scheme(), "http" | "https"),
                "seed {u:?} is not an http(s) URL"
            );
            let seed = Seed {
                url: parsed.to_string(),
                depth,
                scope: None,
                priority: None,
                recrawl,
                every_secs: schedule.every_secs,
                adaptive: schedule.adaptive,
                allow: schedule.allow.clone(),
                deny: schedule.deny.clone(),
            };
            Ok(Output::json(
                Topic::Seeds,
                gleaner_core::util::host_of(parsed.as_str()),
                &seed,
            ))
        })
        .collect()
}

async fn run_embedded(
    cfg: &Config,
    seeds: &[String],
    data: PathBuf,
    allow_private: bool,
    depth: Option<u32>,
    scope: &SeedOptions,
    follow: bool,
) -> anyhow::Result<()> {
    let started = Instant::now();
    let seed_msgs = seed_outputs(seeds, depth, false, scope)?;
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
        Box::new(dedup_stage(cfg)),
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

fn print_hits(hits: &[gleaner_index::Hit], json: bool) -> anyhow::Result<()> {
    use std::io::Write;
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
