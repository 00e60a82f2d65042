//! The reads as use cases: each takes checked values, reads in one place
//! and answers domain values; REST's routes and MCP's tools both call them
//! and render the answer the same way.

pub(crate) mod compactions;
pub(crate) mod context;
pub(crate) mod conversations;
pub(crate) mod due;
pub(crate) mod fleet;
pub(crate) mod keep;
pub(crate) mod turns;
