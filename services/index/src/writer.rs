//! The index stage's Tantivy writer, whose commits can run in the
//! background. In `gleaner run` a commit that held the stage stalled the
//! whole pipeline behind it: the channel before the index filled, then
//! every stage before it waited, and a crawl left a tenth of its two cores
//! idle in dips at each commit. While a commit runs, new documents wait in
//! the stage and are added when it is done.

use tantivy::{IndexWriter, TantivyDocument, Term};
use tokio::task::JoinHandle;

type Commit = JoinHandle<(IndexWriter, anyhow::Result<()>)>;

enum State {
    Ready(IndexWriter),
    Committing(Commit),
    /// The commit finished, its result not yet taken; no writer when its
    /// task panicked.
    Done(Option<IndexWriter>, anyhow::Result<()>),
    /// Lost with a task that panicked.
    Gone,
}

pub(crate) struct Writer {
    state: State,
    id_field: tantivy::schema::Field,
}

impl Writer {
    pub(crate) fn new(writer: IndexWriter, id_field: tantivy::schema::Field) -> Self {
        Writer {
            state: State::Ready(writer),
            id_field,
        }
    }

    /// Whether documents can be added or a commit started now.
    pub(crate) fn is_ready(&self) -> bool {
        matches!(self.state, State::Ready(_))
    }

    /// Upserts `docs` (each replaces the document with its id). Must be
    /// ready. On error the writer's uncommitted documents are rolled back.
    pub(crate) async fn add(&mut self, docs: Vec<(String, TantivyDocument)>) -> anyhow::Result<()> {
        let mut writer = self.take_ready()?;
        let id_field = self.id_field;
        // add_document waits when Tantivy's indexing thread is behind:
        // off the async runtime.
        let task = tokio::task::spawn_blocking(move || {
            let r = or_rollback(&mut writer, |writer| {
                for (id, doc) in docs {
                    writer.delete_term(Term::from_field_text(id_field, &id));
                    writer.add_document(doc)?;
                }
                Ok(())
            });
            (writer, r)
        });
        let (writer, r) = task
            .await
            .map_err(|e| anyhow::anyhow!("index task failed: {e}"))?;
        self.state = State::Ready(writer);
        r
    }

    /// Starts committing what was added, with `payload`, in the background.
    /// Must be ready. A failed commit rolls back what it would have made
    /// durable.
    pub(crate) fn start_commit(&mut self, payload: String) -> anyhow::Result<()> {
        let mut writer = self.take_ready()?;
        self.state = State::Committing(tokio::task::spawn_blocking(move || {
            let r = or_rollback(&mut writer, |writer| {
                let mut commit = writer.prepare_commit()?;
                commit.set_payload(&payload);
                commit.commit()?;
                Ok(())
            });
            (writer, r)
        }));
        Ok(())
    }

    /// The writer, when ready; otherwise an error, and the state (a commit
    /// running, say) is left as it was.
    fn take_ready(&mut self) -> anyhow::Result<IndexWriter> {
        match std::mem::replace(&mut self.state, State::Gone) {
            State::Ready(w) => Ok(w),
            other => {
                self.state = other;
                anyhow::bail!("index writer is busy or lost")
            }
        }
    }

    /// Resolves when the commit started last has finished; pending when
    /// none runs. Safe to drop before it resolves: the commit goes on.
    pub(crate) async fn finished(&mut self) {
        match &mut self.state {
            State::Committing(task) => {
                self.state = match task.await {
                    Ok((writer, r)) => State::Done(Some(writer), r),
                    Err(e) => {
                        State::Done(None, Err(anyhow::anyhow!("index commit task failed: {e}")))
                    }
                };
            }
            State::Done(..) => {}
            _ => std::future::pending().await,
        }
    }

    /// The result of the commit started last, once it has finished (at
    /// once if `wait`); `None` while it runs or when none was started.
    pub(crate) async fn outcome(&mut self, wait: bool) -> Option<anyhow::Result<()>> {
        if let State::Committing(task) = &self.state {
            if !wait && !task.is_finished() {
                return None;
            }
            self.finished().await;
        }
        match std::mem::replace(&mut self.state, State::Gone) {
            State::Done(writer, r) => {
                if let Some(w) = writer {
                    self.state = State::Ready(w);
                }
                Some(r)
            }
            other => {
                self.state = other;
                None
            }
        }
    }

    /// Waits for a running commit and takes the writer out, to be
    /// dropped: nothing is added or committed after.
    pub(crate) async fn take(&mut self) -> Option<IndexWriter> {
        self.outcome(true).await;
        match std::mem::replace(&mut self.state, State::Gone) {
            State::Ready(w) => Some(w),
            _ => None,
        }
    }
}

/// Runs `f` on the writer; on error, rolls back what was not committed.
fn or_rollback(
    writer: &mut IndexWriter,
    f: impl FnOnce(&mut IndexWriter) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let r = f(writer);
    if r.is_err() {
        let _ = writer.rollback();
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Asking a busy writer to add is refused and leaves the running
    /// commit alone: its result still comes, and the writer after it.
    #[tokio::test]
    async fn a_busy_writer_refuses_and_keeps_its_commit() {
        let dir = tempfile::tempdir().unwrap();
        let (index, fields) = crate::schema::open_or_create(dir.path()).unwrap();
        let mut w = Writer::new(
            index.writer_with_num_threads(1, 15_000_000).unwrap(),
            fields.id,
        );
        w.start_commit("{}".into()).unwrap();
        assert!(w.add(vec![]).await.is_err(), "busy while committing");
        assert!(w.start_commit("{}".into()).is_err());
        assert!(matches!(w.outcome(true).await, Some(Ok(()))));
        assert!(w.is_ready(), "the writer is back after the commit");
        assert!(w.add(vec![]).await.is_ok());
    }
}
