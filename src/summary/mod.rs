//! Summaries written (SPEC §3, §4): by the upstream model, the delta chunked
//! when it outgrows the model's window, or by the extractive summarizer that
//! needs none; merged into a prepared narrative or taken from the harness;
//! every one fitted to its budget with the keep set's items.

mod chunked;
mod chunks;
mod extractive;
pub mod handoff;
pub mod keep;
/// The kinds of the keep set's items and who said them: named by the
/// reading as by the set, so they sit beside both.
mod kinds;
pub mod prompt;
pub mod read;
pub mod summarizer;
pub mod write;
mod writer;
pub(crate) use summarizer::Via;
pub(crate) use writer::Writer;
