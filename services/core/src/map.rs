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

    /// How many inputs of a batch are mapped at once (their outputs keep
    /// the batch's order): above 1 for a stage that waits on a remote
    /// service (summarize's model server), so a batch is not asked one
    /// input after another.
    fn concurrency(&self) -> usize {
        1
    }
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

    async fn handle_batch(&mut self, inputs: &[Input]) -> Vec<Handled> {
        use futures::StreamExt;
        let n = self.0.concurrency().max(1);
        if n == 1 {
            let mut out = Vec::with_capacity(inputs.len());
            for input in inputs {
                out.push(self.0.map(input).await);
            }
            return out;
        }
        // Up to `n` at once, answered in the batch's order.
        let mut pending = futures::stream::FuturesOrdered::new();
        let mut rest = inputs.iter();
        for input in rest.by_ref().take(n) {
            pending.push_back(self.0.map(input));
        }
        let mut out = Vec::with_capacity(inputs.len());
        while let Some(handled) = pending.next().await {
            out.push(handled);
            if let Some(input) = rest.next() {
                pending.push_back(self.0.map(input));
            }
        }
        out
    }

    fn fork(&self) -> Option<Box<dyn Stage>> {
        Some(Box::new(Mapped(self.0.clone())))
    }
}
