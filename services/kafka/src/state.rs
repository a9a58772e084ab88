//! What the broker keeps, for a stage rebuilding its state at start.

use gleaner_core::registry::{BusState, Record};
use gleaner_core::{Config, Topic};

/// The topics on the broker, read back by their names in the config.
pub struct KafkaState {
    pub brokers: String,
    pub cfg: Config,
}

impl BusState for KafkaState {
    fn read(&self, topic: Topic, per_partition: i64) -> anyhow::Result<Vec<Record>> {
        crate::read_records(&self.brokers, &self.cfg.topic_name(topic), per_partition)
    }
}
