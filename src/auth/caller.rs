//! The caller of a request: a key's tenant and role, or anyone in open mode.

use crate::domain::{KeyRole, TenantId};

/// The caller of a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Caller {
    pub tenant: TenantId,
    pub role: KeyRole,
    /// The key's id; `None` in open mode.
    pub key_id: Option<String>,
}

impl Caller {
    /// Anyone, when the service runs with no keys: tenant `default`, all rights.
    pub(crate) fn open() -> Self {
        Self {
            tenant: TenantId::open(),
            role: KeyRole::Admin,
            key_id: None,
        }
    }
}
