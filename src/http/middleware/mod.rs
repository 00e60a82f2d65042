//! The layers every request passes through.

pub(crate) mod deadline;
pub(crate) mod headers;
pub(crate) mod hosts;
pub(crate) mod observe;
