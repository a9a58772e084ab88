//! The Kafka bus (librdkafka through rdkafka): one stage per process,
//! reading its input topics in a consumer group and producing its outputs.
//! Stage crates never import this crate: a stage reads back its state
//! through `gleaner_core::registry::BusState`, which [`KafkaState`]
//! implements here.

mod admin;
mod client;
mod flow;
mod guard;
mod inflight;
pub mod metrics;
mod namesake;
mod producer;
mod report;
mod runner;
mod standby;
mod state;
mod watchdog;
mod whole;

pub use admin::{
    check_reachable, create_topics, group_offsets, read_records, read_tail, PartitionOffsets,
    Record, REACH_WAIT,
};
pub use client::{BusContext, GroupState};
pub use guard::ReplayGuard;
pub use namesake::{host_name, wait_for_no_namesake};
pub use producer::{producer, Producer};
pub use runner::{produce_all, run_stage};
pub use standby::wait_to_be_active;
pub use state::KafkaState;
