//! Integration tests: the real service on port 0, real Postgres, over HTTP.

pub mod auth;
mod background;
mod bad_input;
mod binary;
mod browser;
mod clients;
mod concurrency;
mod connections;
mod conversations;
mod dashboard;
mod decide;
mod due;
mod faults;
mod handoff;
mod health;
mod helpers;
mod history;
mod idempotency;
mod injection;
mod keep;
mod ledger;
mod llm_client;
mod lock_order;
mod logs;
mod observability;
mod openapi;
mod outages;
mod private_postgres;
mod replay;
mod replicas;
mod schemathesis;
mod summarize;
#[path = "../../bench/synthetic/mod.rs"]
mod synthetic;
mod transitions;
mod turn_ended;
mod usage;
