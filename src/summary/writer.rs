//! Who wrote a summary (the ledger's `summarizer`): the upstream model, the
//! extractive summarizer, or the caller's harness; and how each one's
//! narrative gives way to the budget.

use super::write::Shape;

#[derive(Debug, Clone, Copy, PartialEq, Eq, strum::IntoStaticStr, strum::VariantArray)]
#[strum(serialize_all = "snake_case")]
pub(crate) enum Writer {
    Llm,
    Extractive,
    /// The caller's harness wrote it and sent it.
    Harness,
}

named!(Writer);

impl Writer {
    /// How its narrative gives way to the budget.
    pub(crate) const fn shape(self) -> Shape {
        match self {
            Self::Extractive => Shape::Lines,
            Self::Llm | Self::Harness => Shape::Prose,
        }
    }
}
