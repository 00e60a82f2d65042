//! What the API answers, shared by the resources: a conversation's state,
//! a ledger row, and how the policy's names travel.

pub mod conversation;
pub mod ledger;
pub mod wire;
