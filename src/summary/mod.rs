//! Everything about a summary (SPEC §3, §4). A transcript is [`read`], its
//! [`keep`] set gathered, and the summary written ([`write`]): by the upstream model,
//! the delta chunked when it outgrows the model's window, or by the
//! extractive writer that needs none; merged into a prepared narrative or
//! taken from the harness; every one fitted to its budget with the keep
//! set's items. [`summarizer`] puts them together; [`handoff`] is the text
//! that starts a successor.

pub mod handoff;
pub mod keep;
mod kinds;
pub mod read;
pub mod summarizer;
pub mod write;
mod writer;
pub(crate) use summarizer::Via;
pub(crate) use writer::Writer;
