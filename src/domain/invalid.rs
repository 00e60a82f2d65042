//! Why a value was refused: said to the caller as a 422 naming the field.

/// Why a value was refused: said to the caller as a 422 naming the field.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {problem}")]
pub struct InvalidValue {
    pub field: String,
    pub problem: String,
}

impl InvalidValue {
    pub(crate) fn new(field: impl Into<String>, problem: impl Into<String>) -> Self {
        Self {
            field: field.into(),
            problem: problem.into(),
        }
    }
}
