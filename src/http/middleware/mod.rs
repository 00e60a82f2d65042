//! The layers every request passes through.

pub mod deadline;
pub mod headers;
pub mod observe;
