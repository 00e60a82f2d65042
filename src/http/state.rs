//! What every handler can reach, and how long requests may take.

use std::ops::Deref;
use std::sync::Arc;

use crate::app::Services;
use crate::auth::{KeyRegistry, RateLimits};
use crate::config::Timeouts;

/// What every handler can reach. Every extractor and middleware takes its
/// own copy of the state for every request, so a copy is one `Arc`: cloning
/// the services field by field cost the hot path about 3% of the service's
/// CPU (issue 38).
#[derive(Clone)]
pub(crate) struct AppState(Arc<Shared>);

impl AppState {
    pub(crate) fn new(shared: Shared) -> Self {
        Self(Arc::new(shared))
    }
}

impl Deref for AppState {
    type Target = Shared;

    fn deref(&self) -> &Shared {
        &self.0
    }
}

/// The state itself.
pub(crate) struct Shared {
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
