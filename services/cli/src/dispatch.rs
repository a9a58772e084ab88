//! Runs the parsed command: each subcommand's module does the work.

use crate::commands::service::Place;
use crate::commands::{self, data_dir, init_logs};
use crate::{stages, Cmd, Common};
use gleaner_core::Config;
use std::process::ExitCode;

fn config(common: &Common) -> anyhow::Result<Config> {
    stages::load_config(common.config.as_deref()).map_err(|e| commands::bad_input(format!("{e:#}")))
}

/// `--extractor`, else the config's.
fn extractor_of(cfg: &Config, flag: Option<&str>) -> anyhow::Result<gleaner_extract::Extractor> {
    match flag {
        Some(name) => name.parse(),
        None => cfg
            .section::<gleaner_extract::ExtractSettings>()?
            .extractor
            .parse(),
    }
}

pub(crate) async fn dispatch(cmd: Cmd) -> anyhow::Result<ExitCode> {
    match cmd {
        Cmd::Run {
            seeds,
            data,
            allow_private,
            depth,
            delay,
            follow,
            metrics,
            json,
            refetch,
            schedule,
            common,
        } => {
            // Dead letters are counted in the summary and kept in a file;
            // only errors go to the terminal.
            init_logs("error");
            let mut cfg = config(&common)?;
            if let Some(ms) = delay {
                let mut fetch: gleaner_fetch::FetchSettings = cfg.section()?;
                fetch.per_host_delay_ms = ms;
                cfg.set_section(&fetch)?;
            }
            let follow = follow || schedule.every_secs.is_some();
            let data = data_dir(&cfg, data);
            let registry = stages::registry();
            let run = commands::run::RunOptions {
                data,
                allow_private,
                depth,
                follow,
                metrics,
                json,
                refetch,
            };
            let failed =
                commands::run::run_embedded(&cfg, &registry, &seeds, &schedule, run).await?;
            if failed > 0 {
                return Ok(ExitCode::from(3));
            }
        }
        Cmd::Fetch {
            allow_private,
            state,
            kafka,
            common,
        } => {
            init_logs("info");
            let place = Place {
                state,
                allow_private,
                ..Place::default()
            };
            commands::service::run("fetch", config(&common)?, &kafka, place).await?;
        }
        Cmd::Clean { kafka, common } => {
            init_logs("info");
            commands::service::run("clean", config(&common)?, &kafka, Place::default()).await?;
        }
        Cmd::Extract {
            inputs,
            json,
            extractor,
            kafka,
            common,
        } => {
            let cfg = config(&common)?;
            if inputs.is_empty() {
                init_logs("info");
                commands::service::run("extract", cfg, &kafka, Place::default()).await?;
            } else {
                init_logs("warn");
                let which = extractor_of(&cfg, extractor.as_deref())?;
                let (failures, not_html) =
                    commands::extract::extract_inputs(&cfg, &inputs, which, json).await?;
                if not_html > 0 {
                    return Ok(ExitCode::from(2));
                }
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
            let cfg = config(&common)?;
            // Judging is CPU work: off the async runtime.
            tokio::task::spawn_blocking(move || commands::dedup::offline(&cfg, &input, &output))
                .await??;
        }
        Cmd::Dedup {
            input: None,
            kafka,
            common,
            ..
        } => {
            init_logs("info");
            commands::service::run("dedup", config(&common)?, &kafka, Place::default()).await?;
        }
        Cmd::Summarize { kafka, common } => {
            init_logs("info");
            commands::service::run("summarize", config(&common)?, &kafka, Place::default()).await?;
        }
        Cmd::Index {
            data,
            kafka,
            common,
        } => {
            init_logs("info");
            let place = Place {
                data,
                ..Place::default()
            };
            commands::service::run("index", config(&common)?, &kafka, place).await?;
        }
        Cmd::Seed {
            urls,
            data,
            depth,
            recrawl,
            schedule,
            kafka,
            common,
        } => {
            init_logs("warn");
            let cfg = config(&common)?;
            let seeds = commands::seed::seed_outputs(&urls, depth, recrawl, &schedule)?;
            match data {
                Some(dir) => commands::seed::post(&dir, &seeds)?,
                None => commands::seed::produce(&cfg, &kafka, &seeds).await?,
            }
        }
        Cmd::Search {
            data,
            limit,
            json,
            query,
            common,
        } => {
            init_logs("warn");
            let cfg = config(&common)?;
            let data = data_dir(&cfg, data);
            commands::search::run(&cfg, &data, &query.join(" "), limit, json)?;
        }
        Cmd::Report {
            data,
            output,
            common,
        } => {
            let cfg = config(&common)?;
            let data = data_dir(&cfg, data);
            let written = commands::report::write(&data, output)?;
            println!("report written to {}", written.display());
        }
        Cmd::Serve {
            data,
            listen,
            common,
        } => {
            init_logs("info");
            let cfg = config(&common)?;
            let dir = data_dir(&cfg, data).join("index");
            let listen = match listen {
                Some(l) => l,
                None => cfg.section::<commands::serve::ServeSettings>()?.listen,
            };
            commands::serve::serve(&cfg, &dir, &listen).await?;
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
            let cfg = config(&common)?;
            let which = extractor_of(&cfg, extractor.as_deref())?;
            if bench {
                commands::eval::bench(&dir, which, 3)?;
            } else {
                let opts = commands::eval::Options {
                    per_type,
                    json,
                    ids,
                    dump_features,
                    per_page,
                    oracle,
                };
                commands::eval::run(&dir, which, &opts)?;
            }
        }
        Cmd::Stage {
            name,
            data,
            state,
            allow_private,
            kafka,
            common,
        } => {
            init_logs("info");
            let place = Place {
                data,
                state,
                allow_private,
            };
            commands::service::run(&name, config(&common)?, &kafka, place).await?;
        }
        Cmd::Status {
            data,
            kafka,
            common,
        } => {
            init_logs("warn");
            commands::status::run(&config(&common)?, &kafka, data.as_deref()).await?;
        }
        Cmd::Topics { kafka, common } => {
            init_logs("warn");
            commands::topics::run(&config(&common)?, &kafka).await?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
