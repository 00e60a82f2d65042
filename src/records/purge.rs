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

/// Who asked for a purge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PurgeAsker {
    /// A tenant's admin key (or anyone, in open mode), through the API.
    Api,
    /// An operator, with `compactd tenants purge`.
    CommandLine,
}

impl PurgeAsker {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Api => "api",
            Self::CommandLine => "command line",
        }
    }
}
