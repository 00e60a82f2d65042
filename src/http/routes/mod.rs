//! One module per resource, each with its own `router()`.

pub mod compactions;
pub mod context;
pub mod conversations;
pub mod dashboard;
pub mod decide;
pub mod docs;
pub mod due;
pub mod handoff;
pub mod health;
pub mod keep;
pub mod metrics;
pub mod stats;
pub mod summarize;
pub mod turn_ended;
pub mod turns;
pub mod usage;
