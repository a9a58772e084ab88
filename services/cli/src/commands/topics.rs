//! `gleaner topics`: creates every topic the configured flow uses.

use crate::args::Common;
use crate::args::Kafka;
use crate::commands::brokers;
use crate::commands::{config, init_logs};
use crate::stages;
use clap::Args;
use gleaner_core::Config;
use std::process::ExitCode;

pub async fn run(cfg: &Config, kafka: &Kafka) -> anyhow::Result<()> {
    let registry = stages::registry();
    let flow = stages::flow(cfg, &registry)?;
    let brokers = brokers(cfg, kafka);
    crate::commands::broker_reachable(&brokers).await?;
    let created = gleaner_kafka::create_topics(cfg, &brokers, &flow.topics()).await?;
    println!(
        "created {} topic(s){}",
        created.len(),
        if created.is_empty() {
            String::new()
        } else {
            format!(": {}", created.join(", "))
        }
    );
    Ok(())
}

/// The options of `gleaner topics`.
#[derive(Args)]
pub struct TopicsCmd {
    #[command(flatten)]
    pub kafka: Kafka,
    #[command(flatten)]
    pub common: Common,
}

impl TopicsCmd {
    pub async fn run(self) -> anyhow::Result<ExitCode> {
        init_logs("warn");
        run(&config(&self.common)?, &self.kafka).await?;
        Ok(ExitCode::SUCCESS)
    }
}
