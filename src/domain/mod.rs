//! Values checked once at the edge, so nothing past it sees an unchecked one.
//!
//! Each type is built only through its `parse`; an invalid value cannot exist.

mod at;
mod conversation_id;
mod count;
mod cursor;
mod role;
pub mod series;
mod tenant;
pub mod text;

pub use at::At;
pub use conversation_id::ConversationId;
pub use count::Count;
pub use cursor::FleetCursor;
pub use role::Role;
pub use tenant::TenantId;

/// Why a value was refused: said to the caller as a 422 naming the field.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {problem}")]
pub struct InvalidValue {
    pub field: String,
    pub problem: String,
}

impl InvalidValue {
    pub fn new(field: impl Into<String>, problem: impl Into<String>) -> Self {
        Self {
            field: field.into(),
            problem: problem.into(),
        }
    }
}
