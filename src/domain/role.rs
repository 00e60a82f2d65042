//! What a key may do (SPEC §6).

use super::InvalidValue;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, clap::ValueEnum)]
pub enum Role {
    /// Writes and reads its tenant's conversations.
    Agent,
    /// Reads only.
    Reader,
    /// Also `manual_recovery` boundaries.
    Admin,
}

impl Role {
    pub(crate) const ALL: [Self; 3] = [Self::Agent, Self::Reader, Self::Admin];

    pub(crate) const fn as_str(self) -> &'static str {
        match self {
            Self::Agent => "agent",
            Self::Reader => "reader",
            Self::Admin => "admin",
        }
    }

    pub(crate) fn parse(field: &str, raw: &str) -> Result<Self, InvalidValue> {
        Self::ALL
            .into_iter()
            .find(|role| role.as_str() == raw)
            .ok_or_else(|| InvalidValue::new(field, "must be agent, reader or admin"))
    }

    pub(crate) const fn may_write(self) -> bool {
        !matches!(self, Self::Reader)
    }
}
