//! Stories: reports of one news story grouped as they arrive.
//!
//! - [`vector`]: what an article is compared on (TF-IDF with headline and
//!   name-like words weighted);
//! - [`window`]: the open stories and how an article joins one, merges;
//! - [`stage`]: the stage on either bus; [`offline`]: the same over JSON lines.

pub mod metrics;
pub mod offline;
mod settings;
mod spec;
pub mod stage;
pub mod vector;
pub mod window;

pub use settings::StorySettings;
pub use spec::StoriesSpec;
pub use stage::StoriesStage;
pub use window::{Assigned, Stories};
