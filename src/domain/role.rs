//! What a key may do (SPEC §6).

use super::InvalidValue;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, clap::ValueEnum, strum::IntoStaticStr, strum::VariantArray)]
#[strum(serialize_all = "snake_case")]
/// A key's role: named apart from a chat message's (`domain::transcript::Role`).
pub enum KeyRole {
    /// Writes and reads its tenant's conversations.
    Agent,
    /// Reads only.
    Reader,
    /// Also `manual_recovery` boundaries.
    Admin,
}

named!(KeyRole);

impl KeyRole {
    /// `raw` as a role, or why not, naming `field`.
    pub(crate) fn checked(field: &str, raw: &str) -> Result<Self, InvalidValue> {
        Self::parse(raw).ok_or_else(|| InvalidValue::new(field, "must be agent, reader or admin"))
    }

    pub(crate) const fn may_write(self) -> bool {
        !matches!(self, Self::Reader)
    }
}
