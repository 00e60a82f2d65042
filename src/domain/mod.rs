//! Values checked once at the edge, so nothing past it sees an unchecked one.
//!
//! Each type is built only through its `parse`; an invalid value cannot exist.
//! And the shape every transcript is read into ([`transcript`]), whichever
//! harness wrote it.

mod at;
mod conversation_id;
mod count;
mod cursor;
mod harness;
mod model_name;
mod price;
mod role;
pub(crate) mod series;
mod tenant;
pub(crate) mod text;
pub mod transcript;
pub(crate) use at::At;
pub(crate) use conversation_id::ConversationId;
pub(crate) use count::Count;
pub(crate) use cursor::FleetCursor;
pub use harness::Harness;
pub(crate) use harness::HarnessName;
pub(crate) use model_name::ModelName;
pub use price::{Price, Prices};
pub(crate) use role::KeyRole;
pub use tenant::TenantId;
mod invalid;
pub use invalid::InvalidValue;
