//! The Kafka bus (librdkafka through rdkafka): one stage per process,
//! reading its input topics in a consumer group and producing its outputs.

mod admin;
mod client;
mod guard;
mod report;
mod runner;

pub use admin::{create_topics, group_offsets, read_records, read_tail, PartitionOffsets, Record};
pub use client::{producer, BusContext, GroupState, Producer};
pub use guard::ReplayGuard;
pub use runner::{produce_all, run_stage};

use tokio::sync::watch;

/// A watch channel that turns true on SIGINT or SIGTERM.
pub fn shutdown_signal() -> watch::Receiver<bool> {
    let (tx, rx) = watch::channel(false);
    tokio::spawn(async move {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{signal, SignalKind};
            let mut term = match signal(SignalKind::terminate()) {
                Ok(s) => s,
                Err(_) => {
                    let _ = tokio::signal::ctrl_c().await;
                    let _ = tx.send(true);
                    return;
                }
            };
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
        }
        #[cfg(not(unix))]
        let _ = tokio::signal::ctrl_c().await;
        tracing::info!("shutdown signal received");
        let _ = tx.send(true);
    });
    rx
}
