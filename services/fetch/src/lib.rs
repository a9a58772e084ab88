//! The fetch stage: a polite crawler. Seeds and frontier links in; pages and
//! newly found links out.
//!
//! Politeness: robots.txt is honoured (cached per host), requests to one host
//! are spaced by max(configured delay, Crawl-delay), and a Bloom filter keeps
//! a URL from being fetched twice. Safety: names are resolved and private,
//! loopback, link-local and multicast addresses refused unless allowed.
//!
//! One module per concern: `stage` (the batch loop), `plan` (inputs to jobs,
//! pages to outputs), `crawler` (one URL, start to end), `client` (routes and
//! proxies), `politeness`, `health` (blocks and pauses), `robots_cache`,
//! `scope`, `frontier` (per-host queues and workers), `parked`, `schedule`, `state` and `bloom` (the seen
//! set), `links`, `feeds`, `body` (read and decode) and `address`.

mod address;
pub mod bloom;
mod body;
mod challenge;
mod client;
mod crawler;
mod error;
mod feeds;
mod frontier;
mod health;
mod links;
pub mod metrics;
mod parked;
mod plan;
mod politeness;
mod request;
pub mod robots;
mod robots_cache;
mod schedule;
mod scope;
mod settings;
mod spec;
mod stage;
mod state;

pub use address::is_public;
pub use body::{decode_html, read_capped};
pub use crawler::Fetched;
pub use error::FetchError;
pub use gleaner_core::util::registered_domain;
pub use scope::url_matches;
pub use settings::FetchSettings;
pub use spec::FetchSpec;
pub use stage::FetchStage;
