//! Integration tests: the real service on port 0, real Postgres, over HTTP.

mod bad_input;
mod concurrency;
mod conversations;
mod decide;
mod due;
mod handoff;
mod health;
mod helpers;
mod idempotency;
mod ledger;
mod llm_client;
mod openapi;
mod private_postgres;
mod summarize;
mod transitions;
mod turn_ended;
mod usage;
