//! Extractors whose rejections are our own problem+json errors, so a bad
//! request gets the same clear answer whatever part of it is bad.

mod body;
mod caller;
mod params;
pub(crate) mod whole;

#[cfg(feature = "fuzzing")]
pub(crate) use body::parse_json;
pub(crate) use body::{JsonBody, body_rejection, decode_value};
pub(crate) use caller::{Caller, identify};
pub(crate) use params::{
    ConversationIdParam, ConversationPath, IdempotencyKey, IdempotencyKeyParam, PreferParam, QueryParams, ReturnMinimal,
};
