//! The map shape of stage: one input in, its outputs out, nothing held,
//! safe to run on every core at once (clean, extract, summarize). A map
//! stage is one method; [`Mapped`] runs it as a [`Stage`] that forks a
//! worker per core sharing it.

use crate::stage::{Handled, Input, Stage};
use async_trait::async_trait;
use std::sync::Arc;

#[async_trait]
pub trait MapStage: Send + Sync + 'static {
    /// What `input` becomes (or why it gives nothing). Shared by every
    /// worker: what it keeps between inputs is behind its own locks.
    async fn map(&self, input: &Input) -> Handled;
}

/// A map stage as a [`Stage`]: every worker shares the one value.
pub struct Mapped(pub Arc<dyn MapStage>);

impl Mapped {
    pub fn new(stage: impl MapStage) -> Self {
        Mapped(Arc::new(stage))
    }
}

#[async_trait]
impl Stage for Mapped {
    async fn handle(&mut self, input: &Input) -> Handled {
        self.0.map(input).await
    }

    fn fork(&self) -> Option<Box<dyn Stage>> {
        Some(Box::new(Mapped(self.0.clone())))
    }
}
