//! The token counts of the last model call reported (SPEC §1), kept with
//! the conversation's state.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::UsageReport;

/// The token counts of one model call.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub(crate) struct ModelCall {
    pub input: Option<u64>,
    pub cached_read: Option<u64>,
    pub cache_written: Option<u64>,
    pub output: Option<u64>,
}

impl ModelCall {
    /// The report's counts, unless it gave none.
    pub(crate) fn of(report: &UsageReport) -> Option<Self> {
        let counts = [report.input, report.cached_read, report.cache_written, report.output];
        counts.iter().any(Option::is_some).then_some(Self {
            input: report.input,
            cached_read: report.cached_read,
            cache_written: report.cache_written,
            output: report.output,
        })
    }
}
