//! What every handler can reach, and how long requests may take.

use std::sync::Arc;
use std::time::Duration;

use crate::app::Services;
use crate::auth::{KeyRegistry, RateLimits};

/// What every handler can reach.
#[derive(Clone)]
pub struct AppState {
    /// What the use cases share.
    pub services: Services,
    /// The largest body accepted, for the 413 to say.
    pub max_body_bytes: usize,
    pub keys: Arc<KeyRegistry>,
    pub rate_limits: Arc<RateLimits>,
    pub timeouts: Timeouts,
}

/// How long requests may take before they are answered 503.
#[derive(Debug, Clone, Copy)]
pub struct Timeouts {
    pub request: Duration,
    /// /summarize, which waits for the upstream LLM.
    pub summarize: Duration,
}
