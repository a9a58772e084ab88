//! Dedup: drops reposts from the article stream, keeping the earliest
//! published copy.
//!
//! - [`features`]: what is kept of a text (hashed terms, a shingle sketch);
//! - `gleaner_text::docfreq`: the streaming document frequencies behind IDF;
//! - [`vector`]: top-K TF-IDF vectors and the weight two articles share;
//! - [`termset`]: every term of an article, as a small Bloom filter;
//! - [`sketch`]: containment of one text in another from two sketches;
//! - [`stored`]: sketch, vector and term filter packed in one allocation;
//! - [`postings`]: the capped candidate index; [`keys`]: which sketch
//!   hashes an article is posted and looked up under there;
//! - [`window`]: the window and the verdicts;
//! - [`stage`]: the stage on either bus; [`offline`]: the same over JSON lines.

pub mod features;
pub mod keys;
pub mod metrics;
pub mod offline;
pub mod postings;
mod settings;
pub mod sketch;
mod spec;
pub mod stage;
pub mod stored;
pub mod termset;
pub mod vector;
pub mod window;

pub use spec::DedupSpec;
pub use stage::{DedupStage, Deduper};
pub use window::{Decision, DedupSettings, Window};
