//! What kinds of thing a summary must keep, and who said them: named by the
//! reading and by the keep set alike, so they sit beside both.

/// What kind of thing an item is (stable names: the API and the ledger use them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, strum::IntoStaticStr, strum::VariantArray)]
#[strum(serialize_all = "snake_case")]
pub enum KeepKind {
    /// The user's latest real request: one item, replaced by each newer one.
    Request,
    /// A sentence of the user's that forbids or restricts.
    Prohibition,
    Path,
    Url,
    /// Commit hashes, UUIDs, ticket keys, `#123`, version strings, error codes.
    Id,
    /// A shell command the user typed or the agent ran through a tool.
    Command,
    /// A number with a unit, or a named setting.
    Quantity,
    /// A path the agent created, wrote, edited, moved or deleted.
    FileChanged,
}

named!(KeepKind);

/// Where an item was seen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, strum::IntoStaticStr, strum::VariantArray)]
#[strum(serialize_all = "snake_case")]
pub enum Source {
    User,
    Assistant,
    ToolCall,
    /// A tool's output, and harness text in the user role.
    ToolResult,
}

named!(Source);

impl Source {
    const fn bit(self) -> u8 {
        match self {
            Self::User => 1,
            Self::Assistant => 2,
            Self::ToolCall => 4,
            Self::ToolResult => 8,
        }
    }
}

/// Every source an item was seen in.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Sources(u8);

impl Sources {
    pub(crate) const fn of(source: Source) -> Self {
        Self(source.bit())
    }

    /// From the stored bits; bits no source has are dropped.
    pub(crate) const fn from_bits(bits: u8) -> Self {
        Self(bits & 0b1111)
    }

    pub(crate) const fn bits(self) -> u8 {
        self.0
    }

    pub(crate) const fn contains(self, source: Source) -> bool {
        self.0 & source.bit() != 0
    }

    pub(crate) fn insert(&mut self, source: Source) {
        self.0 |= source.bit();
    }

    pub(crate) fn iter(self) -> impl Iterator<Item = Source> {
        Source::ALL.iter().copied().filter(move |source| self.contains(*source))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_and_sources_have_stable_names() {
        for kind in KeepKind::ALL.iter().copied() {
            assert_eq!(KeepKind::parse(kind.as_str()), Some(kind));
        }
        for source in Source::ALL.iter().copied() {
            assert_eq!(Source::parse(source.as_str()), Some(source));
        }
        assert_eq!(KeepKind::parse("critical"), None);
    }

    #[test]
    fn sources_accumulate() {
        let mut sources = Sources::of(Source::ToolResult);
        sources.insert(Source::Assistant);
        assert!(sources.contains(Source::Assistant) && sources.contains(Source::ToolResult));
        assert!(!sources.contains(Source::User));
        assert_eq!(
            sources.iter().collect::<Vec<_>>(),
            [Source::Assistant, Source::ToolResult]
        );
        assert_eq!(Sources::from_bits(sources.bits()), sources);
        assert_eq!(Sources::from_bits(0xff).bits(), 0b1111);
    }
}
