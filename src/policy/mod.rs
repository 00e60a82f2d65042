//! The decision policy of SPEC §2 and the keep rules of §4, as pure functions
//! over plain structs: no I/O, no clock (time is always the caller's `at`).

pub mod audit;
pub mod cache_life;
pub mod config;
pub mod conversation;
pub mod cut;
mod decide;
pub mod decision;
pub mod guard;
pub mod handoff;
mod idle;
pub mod keep;
mod model_call;
mod next_message;
pub mod pending;
pub mod prompt;
pub mod reason;
pub mod score;
pub mod transcript;
pub mod trigger;

pub use cache_life::{CacheLife, CacheLifeSetting};
pub use config::PolicyConfig;
pub use conversation::{Conversation, TurnEnd, UsageReport};
pub use decide::decide;
pub use decision::{Decision, DecisionKind, Moment};
pub use guard::Guard;
pub use keep::KEEP_INSTRUCTIONS;
pub use model_call::ModelCall;
pub use pending::PendingDecision;
pub use trigger::Trigger;
