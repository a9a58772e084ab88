//! `gleaner`: every stage of the pipeline, embedded in one process (`run`)
//! or one per process on Kafka (`fetch`, `clean`, ...), plus `seed`,
//! `search`, `serve`, `topics` and one-shot `extract`.

mod dedup;
mod eval;
mod oneshot;
mod run;
mod seeds;
mod serve;

use clap::{Args, Parser, Subcommand};
use gleaner_core::stage::Stage;
use gleaner_core::Config;
use std::path::{Path, PathBuf};
use std::time::Duration;

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
            run::run_embedded(
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
            // Judging is CPU work: off the async runtime.
            tokio::task::spawn_blocking(move || dedup::offline(&cfg, &input, &output)).await??;
        }
        Cmd::Dedup {
            input: None,
            kafka,
            common,
            ..
        } => {
            init_logs("info");
            let cfg = Config::load(common.config.as_deref())?;
            let stage = dedup::kafka_stage(&cfg, &brokers(&cfg, &kafka)).await?;
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
            let outs = seeds::seed_outputs(&urls, depth, recrawl, &schedule)?;
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
