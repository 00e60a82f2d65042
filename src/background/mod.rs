//! When background work runs (SPEC §5): the loops that score stored turns,
//! audit the conversations they touched, prepare summaries ahead (issue 12),
//! write long turns' search pieces (issue 23) and sweep idle ones before
//! their cache expires. The work itself is the use cases' (`app::score`,
//! `app::audit`, `app::idle_sweep`); every piece of it is claimed through
//! the database, so any number of replicas share it, none does it twice, and
//! a replica that dies leaves nothing that is not taken up again.

mod idle;
mod preparer;
mod scorer;
mod search_pieces;
mod workers;
pub(crate) use workers::Workers;
