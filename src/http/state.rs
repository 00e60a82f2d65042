//! What every handler can reach, and how long requests may take.

use std::sync::Arc;

use crate::app::Services;
use crate::auth::{KeyRegistry, RateLimits};
use crate::config::Timeouts;

/// What every handler can reach.
#[derive(Clone)]
pub(crate) struct AppState {
    /// What the use cases share.
    pub services: Services,
    /// The largest body accepted, for the 413 to say.
    pub max_body_bytes: usize,
    pub keys: Arc<KeyRegistry>,
    pub rate_limits: Arc<RateLimits>,
    pub timeouts: Timeouts,
    /// The names the service answers to.
    pub hosts: Arc<crate::config::AllowedHosts>,
}
