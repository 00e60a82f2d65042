//! Which agent harness wrote a summary it reports (`claude-code`, `codex`,
//! …): a short lower-case name, so the ledger can be read harness by
//! harness.

use super::InvalidValue;

/// The most characters a harness name may have.
pub(crate) const MAX_CHARS: usize = 40;

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct HarnessName(String);

impl HarnessName {
    pub(crate) fn parse(field: &str, raw: String) -> Result<Self, InvalidValue> {
        let first_fits = raw
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_lowercase() || c.is_ascii_digit());
        let rest_fits = raw
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '-' | '_' | '.'));
        if raw.len() > MAX_CHARS || !first_fits || !rest_fits {
            return Err(InvalidValue::new(
                field,
                format!(
                    "must be 1 to {MAX_CHARS} lower-case letters, digits, `-`, `_` or `.`, starting with a letter or digit (like `claude-code`)"
                ),
            ));
        }
        Ok(Self(raw))
    }

    pub(crate) fn as_str(&self) -> &str {
        &self.0
    }

    /// The id as the wire carries it.
    pub(crate) fn into_string(self) -> String {
        self.0
    }
}

/// Which harness calls the hook (`compactd hook claude-code`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Harness {
    ClaudeCode,
    Codex,
}

impl Harness {
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::ClaudeCode => "claude-code",
            Self::Codex => "codex",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(raw: &str) -> Result<HarnessName, InvalidValue> {
        HarnessName::parse("harness", raw.to_owned())
    }

    #[test]
    fn short_lower_case_names_are_accepted() {
        for name in ["claude-code", "codex", "aider", "my_agent.v2", "9lives"] {
            assert_eq!(parse(name).unwrap().as_str(), name);
        }
    }

    #[test]
    fn anything_else_is_refused_naming_the_field() {
        let too_long = "a".repeat(MAX_CHARS + 1);
        for name in ["", "Claude Code", "-codex", "codex\n", "ünï", too_long.as_str()] {
            let err = parse(name).unwrap_err();
            assert_eq!(err.field, "harness", "{name:?}");
        }
        assert!(parse(&"a".repeat(MAX_CHARS)).is_ok());
    }
}
