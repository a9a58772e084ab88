//! The summarize stage: summaries of the configured lengths for each unique
//! article, from the built-in extractive engine or an HTTP summary engine.
//!
//! - [`extractive`]: the built-in engine;
//! - [`http`]: the client of an HTTP summary engine;
//! - [`stage`]: the stage, which asks the configured engine and falls back
//!   to the built-in one.

pub mod extractive;
pub mod http;
mod settings;
mod spec;
pub mod stage;

pub use extractive::extractive;
pub use http::Engine;
pub use settings::{SummarizeSettings, SummaryLength};
pub use spec::SummarizeSpec;
pub use stage::SummarizeStage;
