//! The HTTP API (SPEC §3), by kind: `routes/` has one module per resource,
//! each with its own `router()` (parse, call one use case, render);
//! `middleware/` the layers every request passes; `extract/` the request's
//! parts, checked; `views/` what the API answers; `router.rs` puts them
//! together.

pub mod connection;
pub(crate) mod error;
pub(crate) mod extract;
#[cfg(feature = "fuzzing")]
pub mod fuzzing;
pub mod idempotency;
pub(crate) mod mcp;
pub(crate) mod middleware;
pub mod openapi;
pub(crate) mod problems;
mod router;
pub(crate) mod routes;
mod state;
pub(crate) mod views;

pub(crate) use router::router;
pub(crate) use state::{AppState, Shared};
