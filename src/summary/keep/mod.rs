//! The keep set (SPEC §4): the durable, deduplicated must-keep items of a
//! conversation — a message's items ([`extract`]), what forbids
//! ([`prohibition`]), the set they accumulate in ([`set`]), its kinds, the
//! figures a compaction reports ([`figures`]), the names a summary made up
//! ([`invented`]) and what a harness's own summary is given back
//! ([`give_back`]).

pub(crate) mod extract;
pub(super) mod figures;
pub(crate) mod give_back;
pub mod invented;
mod prohibition;
pub(crate) mod set;

pub use super::kinds::{KeepKind, Source, Sources};
pub use extract::{Sighting, sightings};
pub(crate) use figures::{KeepFigures, KindFigures};
pub(crate) use prohibition::prohibitions;
pub use set::{KeepItem, KeepSet, Place, Tier};
