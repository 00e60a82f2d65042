//! The decision policy of SPEC §2 (and the scoring and audit rules of §5),
//! as pure functions over plain structs: no I/O, no clock (time is always the
//! caller's `at`). What a summary keeps and how it is written is `summary/`'s.

pub mod audit;
pub(crate) mod cache_life;
pub(crate) mod config;
pub(crate) mod conversation;
pub(crate) mod cut;
mod decide;
pub(crate) mod decision;
pub(crate) mod guard;
mod idle;
mod model_call;
mod next_message;
pub(crate) mod pending;
pub(crate) mod prepare;
pub(crate) mod reason;
pub(crate) mod score;
pub(crate) mod trigger;

pub use cache_life::{CacheLife, CacheLifeSetting};
pub use config::PolicyConfig;
pub use conversation::{Conversation, TurnEnd, UsageReport};
pub(crate) use decide::decide;
pub(crate) use decision::{Decision, DecisionKind, Moment};
pub(crate) use guard::Guard;
pub(crate) use model_call::ModelCall;
pub(crate) use pending::PendingDecision;
pub(crate) use trigger::{CompactionTrigger, Trigger};
