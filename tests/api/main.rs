//! Integration tests: the real service on port 0, real Postgres, over HTTP.

mod auth;
mod background;
mod bad_input;
mod binary;
mod concurrency;
mod conversations;
mod decide;
mod due;
mod faults;
mod handoff;
mod health;
mod helpers;
mod history;
mod idempotency;
mod injection;
mod ledger;
mod llm_client;
mod logs;
mod openapi;
mod private_postgres;
mod replicas;
mod schemathesis;
mod summarize;
mod transitions;
mod turn_ended;
mod usage;
