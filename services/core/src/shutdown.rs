//! Stopping on SIGINT or SIGTERM, for every long-running command.

use tokio::sync::watch;

/// A watch channel that turns true on SIGINT or SIGTERM; a second signal
/// ends the process at once (status 130).
pub fn shutdown_signal() -> watch::Receiver<bool> {
    let (tx, rx) = watch::channel(false);
    tokio::spawn(async move {
        first_and_second_signal(|| {
            tracing::info!("shutdown signal received");
            let _ = tx.send(true);
        })
        .await;
        // The second: the user does not want to wait for the drain.
        eprintln!("gleaner: second interrupt: exiting now");
        std::process::exit(130);
    });
    rx
}

/// Waits for SIGINT or SIGTERM, calls `first`, then waits for another.
async fn first_and_second_signal(first: impl FnOnce()) {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = term.recv() => {}
                }
                first();
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = term.recv() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
                first();
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
        first();
        let _ = tokio::signal::ctrl_c().await;
    }
}
