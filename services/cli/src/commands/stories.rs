//! `gleaner stories`: the stories service on Kafka, or with `--input` the
//! same code over a file of Article JSON lines.

use crate::args::{Common, Kafka};
use crate::commands::{config, init_logs, open_input};
use anyhow::Context;
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

/// The options of `gleaner stories`.
#[derive(Args)]
pub struct StoriesCmd {
    /// Article JSON lines to group offline (`-` for stdin), instead of the Kafka service.
    #[arg(long, value_name = "FILE")]
    pub input: Option<PathBuf>,
    /// With --input: where stories.jsonl ({id, story} per article) and story-log.jsonl go.
    #[arg(long, value_name = "DIR", default_value = "stories-out")]
    pub output: PathBuf,
    #[command(flatten)]
    pub kafka: Kafka,
    #[command(flatten)]
    pub common: Common,
}

impl StoriesCmd {
    pub async fn run(self) -> anyhow::Result<ExitCode> {
        let Some(input) = self.input else {
            return crate::commands::service::serve_stage(
                "stories",
                &self.common,
                &self.kafka,
                Default::default(),
            )
            .await;
        };
        init_logs("warn");
        let cfg = config(&self.common)?;
        let settings: gleaner_stories::StorySettings = cfg.section()?;
        let output = self.output;
        tokio::task::spawn_blocking(move || -> anyhow::Result<()> {
            let reader = open_input(&input)?;
            std::fs::create_dir_all(&output)
                .with_context(|| format!("creating {}", output.display()))?;
            let create = |name: &str| -> anyhow::Result<std::io::BufWriter<std::fs::File>> {
                let p = output.join(name);
                let f = std::fs::File::create(&p)
                    .with_context(|| format!("creating {}", p.display()))?;
                Ok(std::io::BufWriter::new(f))
            };
            let started = Instant::now();
            let r = gleaner_stories::offline::run(
                reader,
                settings,
                create("stories.jsonl")?,
                create("story-log.jsonl")?,
            )?;
            let secs = started.elapsed().as_secs_f64();
            println!(
                "{} articles in {secs:.2}s: {:.0} articles/s\n  \
                 {} stories ({} of two or more articles), {} merges (in {}); {} lines not articles (each named on stderr)\n  \
                 window {} articles in {} open stories; {:.1} candidates found and {:.1} compared per article",
                r.articles,
                r.articles as f64 / secs.max(1e-9),
                r.created - r.merged,
                r.multi,
                r.merged,
                output.display(),
                r.bad_lines,
                r.held,
                r.open,
                r.found as f64 / r.articles.max(1) as f64,
                r.compared as f64 / r.articles.max(1) as f64,
            );
            Ok(())
        })
        .await??;
        Ok(ExitCode::SUCCESS)
    }
}
