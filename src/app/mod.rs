//! The use cases: one module for each thing the service does (report usage,
//! end a turn, decide, summarize, hand off, score, audit, sweep the idle,
//! manage keys). Each parses nothing and renders nothing: it takes checked
//! values, owns what its transaction writes, and answers domain values.
//! `http/` parses a request, calls one use case and renders its answer;
//! `background/` schedules the same use cases.
//!
//! A use case that writes runs in two steps ([`UseCase`]): its slow part
//! with no transaction open (reads, upstream calls), then its writes in one
//! transaction, which the caller may share with the answer it keeps for an
//! Idempotency-Key.

pub(crate) mod audit;
pub(crate) mod budget;
pub(crate) mod decide;
pub(crate) mod delete;
pub(crate) mod gate;
pub(crate) mod handoff;
pub(crate) mod history;
pub(crate) mod idempotency;
pub(crate) mod idle_sweep;
pub(crate) mod keep_check;
pub(crate) mod keep_set;
pub mod keys;
pub(crate) mod purge;
pub(crate) mod queries;
pub(crate) mod retention;
pub(crate) mod score;
pub(crate) mod search_pieces;
mod services;
pub(crate) mod summarize;
mod transcript;
pub(crate) mod turn_end;
pub(crate) mod usage;
mod use_case;

pub(crate) use budget::Budget;
pub(crate) use services::{AppResult, Exports, Refusal, Services};
pub(crate) use use_case::{Alone, Answer, Beside, Staged, UseCase, perform, staged_as_it_comes};
