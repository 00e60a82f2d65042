//! Everything that touches SQL. Each request on the hot path is one statement
//! (or one transaction) with the conversation's row locked, so concurrent
//! reports on one conversation never lose an update.
//!
//! Every store function takes the connection (or transaction) it runs on,
//! `&mut PgConnection`, so the use case that calls it decides what shares a
//! transaction. Only what is about the pool itself takes the pool: building
//! it, migrating, the readiness ping (can a connection be had at all?) and
//! the fleet read's own transaction.

pub(crate) mod audits;
pub(crate) mod budget;
pub(crate) mod compactions;
pub(crate) mod conversations;
pub(crate) mod deletions;
pub(crate) mod due;
mod error;
pub(crate) mod events;
pub(crate) mod export;
pub(crate) mod handoffs;
pub mod idempotency;
pub(crate) mod keep;
pub(crate) mod keys;
pub(crate) mod lease;
pub(crate) mod ledger;
mod migrations;
mod names;
mod pool;
pub(crate) mod preparations;
pub(crate) mod prepared;
pub mod processes;
pub(crate) mod purges;
mod races;
pub(crate) mod retention;
mod row;
pub(crate) mod scoring;
pub(crate) mod search_pieces;
pub(crate) mod series;
pub(crate) mod standby;
mod state;
pub mod statements;
pub(crate) mod stats;
mod transitions;
pub(crate) mod turns;
mod warm;

pub use error::StoreError;
pub(crate) use error::{StoreResult, count_of, db_count};
pub use migrations::{create_role_once, migrate, migrate_at};
pub(crate) use pool::ping;
pub use pool::{pool, side_pool};
pub(crate) use races::{lock_conversation_first, retry_lost_races};
pub(crate) use standby::{FleetReads, fleet_read};
pub(crate) use warm::Warm;
