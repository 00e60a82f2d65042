//! A handle on the client connection a request came on (issue 37): what a
//! streamed answer uses to close a connection whose reader stopped reading,
//! since hyper, waiting for a socket that takes nothing, never asks the
//! answer's body for more and so cannot hear from it.

use std::sync::Arc;

use tokio::sync::Notify;

/// Put in each request's extensions by the server; severing it closes the
/// connection at once, whatever it is doing.
#[derive(Debug, Clone, Default)]
pub struct Connection {
    severed: Arc<Notify>,
}

impl Connection {
    /// Closes the connection (once the server's task for it next runs).
    pub fn sever(&self) {
        self.severed.notify_one();
    }

    /// Resolves once the connection is severed.
    pub async fn severed(&self) {
        self.severed.notified().await;
    }
}
