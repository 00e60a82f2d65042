//! A tenant's purge, as the store keeps it: who asked, when, and how far
//! its batches have got.

use chrono::{DateTime, Utc};

use crate::domain::TenantId;

/// A purge of every conversation a tenant had when it was asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Purge {
    pub tenant: TenantId,
    pub id: i64,
    pub requested_at: DateTime<Utc>,
    /// `api` or `command line`.
    pub requested_by: String,
    /// The key that asked; `None` for the command line and open mode.
    pub key_id: Option<String>,
    pub finished_at: Option<DateTime<Utc>>,
    pub batches: u64,
    pub conversations: u64,
    pub turns: u64,
}
