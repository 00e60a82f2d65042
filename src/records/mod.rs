//! What the store keeps, as plain values: the rows the use cases read and
//! answer (a conversation, a ledger row, a turn's text, the fleet's
//! figures). No SQL here: the store fills them, the use cases pass them
//! on, and the edge renders them, without any of those naming the others.

mod conversation;
mod erased;
mod ledger;
mod pricing;
mod purge;
mod standby;
mod stats;
mod turn;

pub(crate) use conversation::{Critical, Saving, StoredConversation};
pub(crate) use erased::Erased;
pub(crate) use ledger::{FleetFilter, Recorded, Savings};
pub(crate) use pricing::CallPricing;
pub(crate) use purge::{Purge, PurgeAsker};
pub(crate) use standby::{StandbyReport, StandbyState};
pub(crate) use stats::{DeletionStats, Money, PreparationStats, Stats, TriggerStats};
pub(crate) use turn::TurnText;
