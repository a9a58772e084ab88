//! gleaner's shared core: the messages, the configuration, the stage trait and
//! the two buses that carry messages between stages (Kafka and in-process).

pub mod carried;
pub mod chain;
mod cleaned_wire;
pub mod config;
pub mod cpu;
pub mod event;
pub mod health;
pub mod lines;
pub mod map;
pub mod memory;
pub mod messages;
pub mod metrics;
pub mod outcome;
mod packed;
mod page_wire;
pub use packed::compress_pages;
pub mod payload;
pub mod recent;
pub mod registry;
pub mod samples;
pub mod shutdown;
pub mod stage;
pub mod sync;
pub mod util;
pub mod workers;

pub use config::{Config, Topic};
pub use map::{MapStage, Mapped};
pub use payload::Payload;
pub use stage::{Input, Origin, Output, Stage, Wired, Wiring};
