//! Who is calling (SPEC §6): API keys with a tenant and a role, checked
//! against an in-memory copy of the keys that every change to the table
//! refreshes at once (LISTEN/NOTIFY); and each key's request rate.

pub(crate) mod key;
mod rate;
mod registry;
pub(crate) use rate::RateLimits;
pub use registry::{Denied, KeyRegistry};
mod caller;
pub(crate) use caller::Caller;
