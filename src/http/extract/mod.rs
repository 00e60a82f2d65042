//! Extractors whose rejections are our own problem+json errors, so a bad
//! request gets the same clear answer whatever part of it is bad.

mod body;
mod caller;
mod params;
pub mod whole;

pub use body::{JsonBody, parse_json};
pub use caller::Caller;
pub use params::{
    ConversationIdParam, ConversationPath, IdempotencyKey, IdempotencyKeyParam, MAX_IDEMPOTENCY_KEY_CHARS, QueryParams,
};
