//! One module per resource, each with its own `router()`.

pub(crate) mod compactions;
pub(crate) mod context;
pub(crate) mod conversations;
pub(crate) mod dashboard;
pub(crate) mod decide;
pub(crate) mod deletion;
pub(crate) mod docs;
pub(crate) mod due;
pub(crate) mod export;
pub(crate) mod handoff;
pub(crate) mod health;
pub(crate) mod keep;
pub(crate) mod keep_check;
pub(crate) mod metrics;
pub(crate) mod purges;
pub(crate) mod stats;
pub(crate) mod summarize;
pub(crate) mod turn_ended;
pub(crate) mod turns;
pub(crate) mod usage;
