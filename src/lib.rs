//! compactd: tells LLM agents when to compact their conversation or roll it
//! over into a new one, and keeps every conversation's state and history in
//! Postgres.

#[macro_use]
mod names;

pub mod app;
pub mod auth;
pub mod background;
pub mod commands;
pub mod config;
pub mod domain;
pub mod hook;
pub mod http;
pub mod llm;
pub mod policy;
pub mod records;
pub mod replay;
pub mod serve;
pub mod sessions;
pub mod startup;
pub mod store;
pub mod summary;
pub mod telemetry;
