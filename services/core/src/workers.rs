//! A map stage (one that `fork()`s: clean, extract, summarize) handles a
//! batch on every core as a service too, as `gleaner run` gives it a
//! worker per core: the batch is split into one run of inputs per worker,
//! handled at once, and the answers kept in the batch's order. The Kafka
//! runner splits each batch so; a chain whose first stage cannot fork
//! (fetch) splits what it hands its later stages so.

use crate::stage::{Handled, Input, Stage};

/// The stage's forks beside the stage itself (none for a stage that keeps
/// one worker and its order).
pub struct Workers {
    forks: Vec<Box<dyn Stage>>,
}

impl Workers {
    /// `workers` workers in all (`run.worker_count()`, as in `gleaner
    /// run`), if the stage forks.
    pub fn new(stage: &dyn Stage, workers: usize) -> Self {
        let forks = (1..workers).map_while(|_| stage.fork()).collect();
        Workers { forks }
    }

    /// The answers to `batch`, in its order.
    pub async fn handle(&mut self, stage: &mut Box<dyn Stage>, batch: &[Input]) -> Vec<Handled> {
        if self.forks.is_empty() || batch.len() < 2 {
            return stage.handle_batch(batch).await;
        }
        let workers = (self.forks.len() + 1).min(batch.len());
        let per = batch.len().div_ceil(workers);
        let mut runs = batch.chunks(per);
        let first = runs.next().unwrap_or_default();
        let (mine, theirs) = futures::join!(
            stage.handle_batch(first),
            futures::future::join_all(
                self.forks
                    .iter_mut()
                    .zip(runs)
                    .map(|(fork, run)| fork.handle_batch(run))
            )
        );
        let mut answers = mine;
        answers.extend(theirs.into_iter().flatten());
        answers
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Topic;
    use crate::map::{MapStage, Mapped};
    use crate::stage::Output;
    use async_trait::async_trait;

    /// Answers each input with its key, after a pause, so that a batch
    /// handled input after input takes the sum of the pauses.
    struct Echo;

    #[async_trait]
    impl MapStage for Echo {
        async fn map(&self, input: &Input) -> Handled {
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            let key = input.key.clone().unwrap_or_default();
            Ok(vec![Output::new(Topic::CLEANED, key.clone(), key)])
        }
    }

    fn input(key: &str) -> Input {
        Input {
            topic: Topic::PAGES,
            key: Some(key.to_string()),
            payload: None,
            origin: None,
        }
    }

    #[tokio::test]
    async fn a_batch_is_split_over_the_workers_and_answered_in_its_order() {
        let mut stage: Box<dyn Stage> = Box::new(Mapped::new(Echo));
        let mut workers = Workers::new(&*stage, 4);
        assert_eq!(workers.forks.len(), 3);
        let batch: Vec<Input> = (0..8).map(|i| input(&i.to_string())).collect();
        let t0 = std::time::Instant::now();
        let answers = workers.handle(&mut stage, &batch).await;
        let keys: Vec<String> = answers
            .into_iter()
            .map(|a| a.unwrap()[0].key.clone())
            .collect();
        assert_eq!(keys, ["0", "1", "2", "3", "4", "5", "6", "7"]);
        // Two inputs per worker, at once: about 100 ms, not 400.
        assert!(t0.elapsed() < std::time::Duration::from_millis(300));
    }
}
