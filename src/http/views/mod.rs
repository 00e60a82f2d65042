//! What the API answers, shared by the resources: a conversation's state,
//! a ledger row, and how the policy's names travel.

pub(crate) mod conversation;
pub(crate) mod ledger;
pub(crate) mod wire;
