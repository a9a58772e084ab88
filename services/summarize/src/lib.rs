//! The summarize stage: summaries of the configured lengths for each unique
//! article, from the built-in extractive engine, any OpenAI-compatible
//! model server, or an HTTP engine of gleaner's own protocol.
//!
//! - [`extractive`]: the built-in engine, ranking sentences by their
//!   [`centrality`], without the [`gleaner_text::stop_list`] of the article's language;
//! - [`openai`]: the chat completions client, with [`answer`] checking
//!   what a model answered;
//! - [`http`]: the client of gleaner's own HTTP protocol;
//! - [`cache`]: what remote engines answered, so nothing is asked twice;
//! - [`stage`]: the stage, which asks the cache, then the engine, and
//!   falls back to the built-in engine.

pub mod answer;
mod body;
pub mod cache;
pub mod centrality;
pub mod extractive;
pub mod http;
pub mod metrics;
pub mod openai;
mod settings;
mod spec;
pub mod stage;

pub use extractive::extractive;
pub use settings::{SummarizeSettings, SummaryLength};
pub use spec::SummarizeSpec;
pub use stage::{Engine, SummarizeStage};
