//! Who is calling (SPEC §6): API keys with a tenant and a role, checked
//! against an in-memory copy of the keys that every change to the table
//! refreshes at once (LISTEN/NOTIFY); and each key's request rate.

pub(crate) mod key;
mod rate;
mod registry;

pub(crate) use rate::RateLimits;
pub use registry::{Denied, KeyRegistry};

use crate::domain::{Role, TenantId};

/// The caller of a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Caller {
    pub tenant: TenantId,
    pub role: Role,
    /// The key's id; `None` in open mode.
    pub key_id: Option<String>,
}

impl Caller {
    /// Anyone, when the service runs with no keys: tenant `default`, all rights.
    pub(crate) fn open() -> Self {
        Self {
            tenant: TenantId::open(),
            role: Role::Admin,
            key_id: None,
        }
    }
}
