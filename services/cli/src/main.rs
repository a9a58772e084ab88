//! `gleaner`: every stage of the pipeline, embedded in one process (`run`)
//! or one per process on Kafka (`fetch`, `clean`, ...), plus `seed`,
//! `search`, `serve`, `topics` and one-shot `extract`.

mod args;
mod bad_input;
mod commands;
mod datadir;
mod metrics_server;
mod stages;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "gleaner",
    version,
    about = "Turns the web into a stream of clean, deduplicated, summarised, searchable articles",
    after_help = "Exit status: 0 done; 1 a fatal error; 2 bad usage or input (a missing seed file, a URL without a scheme, an unknown config key); 3 finished, but some seeds or pages failed to fetch (see the report on stderr and dead-letter.jsonl)."
)]
struct Cli {
    /// Configuration file, also taken after the subcommand (default: the
    /// bundled pipelines.toml).
    #[arg(long = "config", id = "config_first", value_name = "FILE")]
    config: Option<std::path::PathBuf>,
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Run every stage in one process, no broker; exits when nothing is left to do (unless --follow or --every).
    #[command(
        after_help = "Example: gleaner run --seeds https://example.com/news/ --depth 2 --data crawl"
    )]
    Run(commands::run::RunCmd),
    /// Fetch service on Kafka: seeds + frontier -> pages + frontier.
    #[command(
        after_help = "Example: gleaner fetch --state fetch-state --instance 1 --metrics 127.0.0.1:9101"
    )]
    Fetch(commands::service::FetchCmd),
    /// Clean service on Kafka: pages -> cleaned.
    #[command(after_help = "Example: gleaner clean --brokers 127.0.0.1:9092")]
    Clean(commands::service::CleanCmd),
    /// With inputs: print the main text of each file, directory or URL.
    /// Without: the extract service on Kafka (cleaned -> articles).
    #[command(
        after_help = "Example: gleaner extract --json page.html https://example.com/article"
    )]
    Extract(commands::extract::ExtractCmd),
    /// Dedup service on Kafka: articles -> unique + duplicates.
    /// With --input: the same over a file of Article JSON lines.
    #[command(after_help = "Example: gleaner dedup --input articles.jsonl --output dedup-out")]
    Dedup(commands::dedup::DedupCmd),
    /// Stories service on Kafka: unique -> grouped (each article with its
    /// story id) + story-log. With --input: the same over a file of Article
    /// JSON lines.
    #[command(after_help = "Example: gleaner stories --input articles.jsonl --output stories-out")]
    Stories(commands::stories::StoriesCmd),
    /// Summarize service on Kafka: unique -> summarized.
    #[command(after_help = "Example: gleaner summarize --brokers 127.0.0.1:9092")]
    Summarize(commands::service::SummarizeCmd),
    /// Index service on Kafka: summarized -> the Tantivy index in DIR/index.
    #[command(after_help = "Example: gleaner index --data gleaner-data")]
    Index(commands::service::IndexCmd),
    /// Produce seed URLs onto the seeds topic.
    #[command(
        after_help = "Example: gleaner seed --depth 1 https://example.com/ (or --data crawl to hand it to a running `gleaner run`)"
    )]
    Seed(commands::seed::SeedCmd),
    /// Search the index.
    #[command(
        after_help = "Example: gleaner search --data crawl --limit 5 '\"harbour bridge\" -closed'",
        after_long_help = "Query language:\n  harbour bridge      both words (in any field, any order)\n  \"harbour bridge\"    the phrase\n  -closed             without the word\n  ferry OR bridge     either\n  title:bridge        in the title\n  title:/bridg.*/     a title word (or body:) matching the regular expression\n  author:\"mara olsen\" by that author (a word or the whole name)\n  site:bbc.co.uk      on that site (registered domain; also --site)\n  lang:de             in that language (also --lang)\n  after:2026-03-01    published that day or later (also --from)\n  before:2026-03-05   published before that day (--to includes its day)\n  (ferry OR bridge)   parentheses group (at most 1,000 characters, 32 levels)\nWords match every form in the article's language (Häuser finds Haus in German), with or without accents (nepal finds Népal); Chinese and Japanese match by character pairs.\n\nExample: gleaner search --data crawl --limit 5 '\"harbour bridge\" -closed'"
    )]
    Search(commands::search::SearchCmd),
    /// Search page (GET /?q=..., GET /stories), HTTP API (GET /api/v1/search, /api/v1/articles/ID, /api/v1/stories, /api/v1/stats, /api/v1/openapi.json), crawl report (GET /report), GET /health.
    #[command(after_help = "Example: gleaner serve --data crawl --listen 127.0.0.1:8080")]
    Serve(commands::serve::ServeCmd),
    /// Score an extractor on a labelled set in the WCXB layout (html/, ground-truth/).
    #[command(after_help = "Example: gleaner eval ../shared/datasets/wcxb-dev --per-type")]
    Eval(commands::eval::EvalCmd),
    /// Score the summary engine on reference summaries (ROUGE-1, ROUGE-2,
    /// ROUGE-Lsum F1) beside Lead-3 and the lead cut to each summary's length.
    #[command(
        name = "eval-summaries",
        after_help = "Example: gleaner eval-summaries ../shared/datasets/summaries-bbc100/pairs.jsonl"
    )]
    EvalSummaries(commands::eval_summaries::EvalSummariesCmd),
    /// Any stage of [pipeline] stages as a Kafka service, by name (a stage
    /// added to the registry has no subcommand of its own), or stages next
    /// to each other as one service: `fetch+clean+extract`.
    #[command(
        after_help = "Example: gleaner stage fetch+clean+extract --state fetch-state --brokers 127.0.0.1:9092\n\n\
Stages joined by + run in one process, each handing the next its outputs in\n\
memory: the topics between them (pages, cleaned; summarized) are not written,\n\
which spares the broker a record and a consumer per page and link. Dedup and\n\
stories run alone (one active instance each, rebuilding from their output)."
    )]
    Stage(commands::service::StageCmd),
    /// Write the crawl report of a data directory: one HTML file with
    /// charts (pages over time, answers per host, latency, extractors,
    /// duplicates, top terms, the Zipf plot).
    #[command(
        after_help = "Example: gleaner report --data crawl (then open crawl/report.html, or /report on gleaner serve)"
    )]
    Report(commands::report::ReportCmd),
    /// Create every topic the configured flow uses (existing ones are left alone).
    #[command(after_help = "Example: gleaner topics --brokers 127.0.0.1:9092")]
    Topics(commands::topics::TopicsCmd),
    /// Where every stage stands: on Kafka, per stage and partition the
    /// committed offset, end, lag, owner and last commit; with --data, the
    /// counts and queues of the `gleaner run` working on DIR.
    #[command(after_help = "Example: gleaner status --brokers 127.0.0.1:9092 (or --data crawl)")]
    Status(commands::status::StatusCmd),
}

impl Cmd {
    /// The options every subcommand shares, `--config` among them.
    fn common(&mut self) -> &mut args::Common {
        match self {
            Cmd::Run(c) => &mut c.common,
            Cmd::Fetch(c) => &mut c.common,
            Cmd::Clean(c) => &mut c.common,
            Cmd::Extract(c) => &mut c.common,
            Cmd::Dedup(c) => &mut c.common,
            Cmd::Stories(c) => &mut c.common,
            Cmd::Summarize(c) => &mut c.common,
            Cmd::Index(c) => &mut c.common,
            Cmd::Seed(c) => &mut c.common,
            Cmd::Search(c) => &mut c.common,
            Cmd::Serve(c) => &mut c.common,
            Cmd::Eval(c) => &mut c.common,
            Cmd::EvalSummaries(c) => &mut c.common,
            Cmd::Stage(c) => &mut c.common,
            Cmd::Report(c) => &mut c.common,
            Cmd::Topics(c) => &mut c.common,
            Cmd::Status(c) => &mut c.common,
        }
    }

    async fn run(self) -> anyhow::Result<ExitCode> {
        match self {
            Cmd::Run(c) => c.run().await,
            Cmd::Fetch(c) => c.run().await,
            Cmd::Clean(c) => c.run().await,
            Cmd::Extract(c) => c.run().await,
            Cmd::Dedup(c) => c.run().await,
            Cmd::Stories(c) => c.run().await,
            Cmd::Summarize(c) => c.run().await,
            Cmd::Index(c) => c.run().await,
            Cmd::Seed(c) => c.run().await,
            Cmd::Search(c) => c.run().await,
            Cmd::Serve(c) => c.run().await,
            Cmd::Eval(c) => c.run().await,
            Cmd::EvalSummaries(c) => c.run().await,
            Cmd::Stage(c) => c.run().await,
            Cmd::Report(c) => c.run().await,
            Cmd::Topics(c) => c.run().await,
            Cmd::Status(c) => c.run().await,
        }
    }
}

/// Help and version as clap prints them; a usage error in one line (its
/// first, without clap's pointer to --help) and status 2, as the other
/// bad input.
fn usage_error(e: clap::Error) -> ! {
    use clap::error::ErrorKind::*;
    if matches!(
        e.kind(),
        DisplayHelp | DisplayVersion | DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        e.exit()
    }
    let text = e.render().to_string();
    let first = text.lines().next().unwrap_or("bad usage");
    let tips: Vec<&str> = text
        .lines()
        .filter_map(|l| l.trim().strip_prefix("tip: "))
        .collect();
    let tips = if tips.is_empty() {
        String::new()
    } else {
        format!(" ({})", tips.join("; "))
    };
    eprintln!("gleaner: {}{tips}", first.trim_start_matches("error: "));
    std::process::exit(2)
}

/// The command line, with `gleaner stage --help` listing the stages the
/// binary knows, each with its own description.
fn command() -> clap::Command {
    let stages: String = stages::registry()
        .iter()
        .map(|s| format!("\n  {:<10} {}", s.name(), s.about()))
        .collect();
    Cli::command().mut_subcommand("stage", |c| {
        let example = c
            .get_after_help()
            .map(|h| h.to_string())
            .unwrap_or_default();
        c.after_long_help(format!("{example}\n\nStages:{stages}"))
    })
}

#[tokio::main]
async fn main() -> ExitCode {
    let parsed = command()
        .try_get_matches()
        .and_then(|m| Cli::from_arg_matches(&m));
    let mut cli = match parsed {
        Ok(cli) => cli,
        Err(e) => usage_error(e),
    };
    // `gleaner --config F run` as well as `gleaner run --config F`.
    if let Some(first) = cli.config.take() {
        let common = cli.cmd.common();
        if common.config.is_some() {
            eprintln!("gleaner: --config given twice (before and after the subcommand)");
            return ExitCode::from(2);
        }
        common.config = Some(first);
    }
    match cli.cmd.run().await {
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

    /// Every subcommand's --help has its description and an example, and
    /// every option says what it does.
    #[test]
    fn every_subcommand_has_a_description_an_example_and_every_option_a_help() {
        let cli = super::command();
        let mut abouts = std::collections::BTreeSet::new();
        for sub in cli.get_subcommands() {
            let name = sub.get_name();
            let about = sub.get_about().map(|h| h.to_string()).unwrap_or_default();
            assert!(!about.is_empty(), "{name}: no description");
            assert!(
                abouts.insert(about.clone()),
                "{name}: another's description: {about}"
            );
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
        let stage = cli.find_subcommand("stage").unwrap();
        let long = stage.get_after_long_help().unwrap().to_string();
        for spec in crate::stages::registry() {
            assert!(
                long.contains(spec.about()),
                "stage --help lacks {}",
                spec.name()
            );
        }
    }
}
