//! `gleaner topics`: creates every topic the configured flow uses.

use crate::commands::brokers;
use crate::{stages, Kafka};
use gleaner_core::Config;

pub async fn run(cfg: &Config, kafka: &Kafka) -> anyhow::Result<()> {
    let registry = stages::registry();
    let flow = stages::flow(cfg, &registry)?;
    let created = gleaner_kafka::create_topics(cfg, &brokers(cfg, kafka), &flow.topics()).await?;
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
