//! What stops the service: Ctrl+C or SIGTERM, as the future `compactd
//! serve` runs until.

use std::future::Future;

/// Resolves on Ctrl+C or SIGTERM.
pub(crate) fn shutdown_signal() -> impl Future<Output = ()> + Send + 'static {
    use tokio::signal::unix::{Signal, SignalKind, signal};
    // Installed now, not when first polled: a SIGTERM that comes the moment
    // the service says it listens must not meet the default action (death).
    let terminate = signal(SignalKind::terminate()).ok();
    let interrupt = signal(SignalKind::interrupt()).ok();
    async fn received(signal: Option<Signal>) {
        match signal {
            Some(mut signal) => {
                signal.recv().await;
            }
            None => std::future::pending::<()>().await,
        }
    }
    async move {
        tokio::select! {
            () = received(terminate) => {},
            () = received(interrupt) => {},
        }
        tracing::info!("shutting down");
    }
}
