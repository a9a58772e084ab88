//! `gleaner`: every stage of the pipeline, embedded in one process (`run`)
//! or one per process on Kafka (`fetch`, `clean`, ...), plus `seed`,
//! `search`, `serve`, `topics` and one-shot `extract`.

mod commands;
mod datadir;
mod dispatch;
mod metrics_server;
mod stages;

use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "gleaner",
    version,
    about = "Turns the web into a stream of clean, deduplicated, summarised, searchable articles",
    after_help = "Exit status: 0 done; 1 a fatal error; 2 bad usage or input (a missing seed file, a URL without a scheme, an unknown config key); 3 finished, but some seeds or pages failed to fetch (see the report on stderr and dead-letter.jsonl)."
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
    /// Serve Prometheus metrics (GET /metrics) and health (GET /health:
    /// 200 when the stage owns partitions and reaches the broker, 503 with
    /// the reason otherwise) on this address.
    #[arg(long, value_name = "ADDR")]
    metrics: Option<String>,
    /// This instance's name in its stage's consumer group (default:
    /// kafka.instance); each instance of one stage needs its own.
    #[arg(long, value_name = "NAME")]
    instance: Option<String>,
}

#[derive(Subcommand)]
enum Cmd {
    /// Run every stage in one process, no broker; exits when nothing is left to do (unless --follow or --every).
    #[command(
        after_help = "Example: gleaner run --seeds https://example.com/news/ --depth 2 --data crawl"
    )]
    Run {
        /// Seed URLs, or files with one URL per line (optional with --follow:
        /// seeds can come later with `gleaner seed --data DIR`).
        #[arg(long, num_args = 1.., value_name = "URL_OR_FILE")]
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
        /// Serve Prometheus metrics (GET /metrics) and health (GET /health)
        /// on this address, e.g. 127.0.0.1:9898.
        #[arg(long, value_name = "ADDR")]
        metrics: Option<String>,
        /// Also print the end-of-run report (per host: pages, articles,
        /// failures by reason) as one JSON object on stdout.
        #[arg(long)]
        json: bool,
        /// Fetch again what earlier runs on --data fetched (a run otherwise
        /// goes on where the last one ended and skips fetched URLs).
        #[arg(long)]
        refetch: bool,
        #[command(flatten)]
        schedule: SeedOptions,
        #[command(flatten)]
        common: Common,
    },
    /// Fetch service on Kafka: seeds + frontier -> pages + frontier.
    #[command(
        after_help = "Example: gleaner fetch --state fetch-state --instance 1 --metrics 127.0.0.1:9101"
    )]
    Fetch {
        /// Fetch private, loopback and reserved addresses (default: fetch.allow_private).
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
    #[command(after_help = "Example: gleaner clean --brokers 127.0.0.1:9092")]
    Clean {
        #[command(flatten)]
        kafka: Kafka,
        #[command(flatten)]
        common: Common,
    },
    /// With inputs: print the main text of each file, directory or URL.
    /// Without: the extract service on Kafka (cleaned -> articles).
    #[command(
        after_help = "Example: gleaner extract --json page.html https://example.com/article"
    )]
    Extract {
        /// `.html` or `.html.gz` files, directories of them, or URLs.
        #[arg(value_name = "FILE_DIR_OR_URL")]
        inputs: Vec<String>,
        /// One JSON object per line per input.
        #[arg(long)]
        json: bool,
        /// Extraction method (default: extract.extractor).
        #[arg(long, value_parser = clap::builder::PossibleValuesParser::new(gleaner_extract::Extractor::NAMES))]
        extractor: Option<String>,
        #[command(flatten)]
        kafka: Kafka,
        #[command(flatten)]
        common: Common,
    },
    /// Dedup service on Kafka: articles -> unique + duplicates.
    /// With --input: the same over a file of Article JSON lines.
    #[command(after_help = "Example: gleaner dedup --input articles.jsonl --output dedup-out")]
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
    #[command(after_help = "Example: gleaner summarize --brokers 127.0.0.1:9092")]
    Summarize {
        #[command(flatten)]
        kafka: Kafka,
        #[command(flatten)]
        common: Common,
    },
    /// Index service on Kafka: summarized -> the Tantivy index in DIR/index.
    #[command(after_help = "Example: gleaner index --data gleaner-data")]
    Index {
        /// Data directory (default: run.data_dir, "gleaner-data").
        #[arg(long)]
        data: Option<PathBuf>,
        #[command(flatten)]
        kafka: Kafka,
        #[command(flatten)]
        common: Common,
    },
    /// Produce seed URLs onto the seeds topic.
    #[command(
        after_help = "Example: gleaner seed --depth 1 https://example.com/ (or --data crawl to hand it to a running `gleaner run`)"
    )]
    Seed {
        /// Seed URLs.
        #[arg(required = true, value_name = "URL")]
        urls: Vec<String>,
        /// Hand the seeds to the `gleaner run` working on DIR (or, if none
        /// is, to the next one) instead of producing them to Kafka.
        #[arg(long, value_name = "DIR")]
        data: Option<PathBuf>,
        /// Link depth from each seed (default: fetch.default_depth).
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
    #[command(
        after_help = "Example: gleaner search --data crawl --limit 5 '\"harbour bridge\" -closed'"
    )]
    Search {
        /// Data directory (default: run.data_dir, "gleaner-data").
        #[arg(long)]
        data: Option<PathBuf>,
        /// Hits to show.
        #[arg(long, default_value_t = 10)]
        limit: usize,
        /// One JSON object per hit per line.
        #[arg(long)]
        json: bool,
        /// The query: words, "phrases", AND/OR, -exclusions.
        #[arg(required = true, num_args = 1..)]
        query: Vec<String>,
        #[command(flatten)]
        common: Common,
    },
    /// Search page (GET /?q=...), HTTP search API (GET /search?q=...&limit=...), crawl report (GET /report), GET /health.
    #[command(after_help = "Example: gleaner serve --data crawl --listen 127.0.0.1:8080")]
    Serve {
        /// Data directory (default: run.data_dir, "gleaner-data").
        #[arg(long)]
        data: Option<PathBuf>,
        /// Address to listen on (default: serve.listen).
        #[arg(long)]
        listen: Option<String>,
        #[command(flatten)]
        common: Common,
    },
    /// Score an extractor on a labelled set in the WCXB layout (html/, ground-truth/).
    #[command(after_help = "Example: gleaner eval ../shared/datasets/wcxb-dev --per-type")]
    Eval {
        /// A labelled set: html/ID.html.gz and ground-truth/ID.json.
        dir: PathBuf,
        /// Extraction method (default: extract.extractor).
        #[arg(long, value_parser = clap::builder::PossibleValuesParser::new(gleaner_extract::Extractor::NAMES))]
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
    /// Any stage of [pipeline] stages as a Kafka service, by name (a stage
    /// added to the registry has no subcommand of its own).
    #[command(after_help = "Example: gleaner stage extract --brokers 127.0.0.1:9092")]
    Stage {
        /// The stage's name in [pipeline] stages.
        name: String,
        /// Data directory (the index stage keeps its index in DIR/index).
        #[arg(long)]
        data: Option<PathBuf>,
        /// State directory, for a stage that keeps state across restarts (fetch).
        #[arg(long, value_name = "DIR")]
        state: Option<PathBuf>,
        /// Fetch private, loopback and reserved addresses (default: fetch.allow_private).
        #[arg(long)]
        allow_private: bool,
        #[command(flatten)]
        kafka: Kafka,
        #[command(flatten)]
        common: Common,
    },
    /// Create every topic the configured flow uses (existing ones are left alone).
    /// Write the crawl report of a data directory: one HTML file with
    /// charts (pages over time, answers per host, latency, extractors,
    /// duplicates, top terms, the Zipf plot).
    #[command(
        after_help = "Example: gleaner report --data crawl (then open crawl/report.html, or /report on gleaner serve)"
    )]
    Report {
        /// Data directory (default: run.data_dir, "gleaner-data").
        #[arg(long)]
        data: Option<PathBuf>,
        /// Where to write the report (default: DATA/report.html).
        #[arg(long, value_name = "FILE")]
        output: Option<PathBuf>,
        #[command(flatten)]
        common: Common,
    },
    #[command(after_help = "Example: gleaner topics --brokers 127.0.0.1:9092")]
    Topics {
        #[command(flatten)]
        kafka: Kafka,
        #[command(flatten)]
        common: Common,
    },
    /// Where every stage stands: on Kafka, per stage and partition the
    /// committed offset, end, lag, owner and last commit; with --data, the
    /// counts and queues of the `gleaner run` working on DIR.
    #[command(after_help = "Example: gleaner status --brokers 127.0.0.1:9092 (or --data crawl)")]
    Status {
        /// Show the embedded run working on this data directory instead.
        #[arg(long, value_name = "DIR")]
        data: Option<PathBuf>,
        #[command(flatten)]
        kafka: Kafka,
        #[command(flatten)]
        common: Common,
    },
}

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    match dispatch::dispatch(cli.cmd).await {
        Ok(code) => code,
        Err(e) => {
            // `gleaner search ... | head`: the reader has gone, not an error.
            let broken_pipe = e.chain().any(|c| {
                c.downcast_ref::<std::io::Error>()
                    .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
            });
            if broken_pipe {
                return ExitCode::SUCCESS;
            }
            eprintln!("gleaner: error: {e:#}");
            let bad_input = e
                .chain()
                .any(|c| c.downcast_ref::<commands::BadInput>().is_some());
            ExitCode::from(if bad_input { 2 } else { 1 })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Cli;
    use clap::CommandFactory;

    /// Every subcommand's --help has an example, and every option says
    /// what it does.
    #[test]
    fn every_subcommand_has_an_example_and_every_option_a_help() {
        let cli = Cli::command();
        for sub in cli.get_subcommands() {
            let name = sub.get_name();
            let after = sub
                .get_after_help()
                .map(|h| h.to_string())
                .unwrap_or_default();
            assert!(after.starts_with("Example: gleaner"), "{name}: no example");
            for arg in sub.get_arguments() {
                let id = arg.get_id().as_str();
                if id == "help" {
                    continue;
                }
                assert!(arg.get_help().is_some(), "{name} --{id} has no help");
            }
        }
    }
}
