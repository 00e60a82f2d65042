//! The name of the model an agent called (`gpt-4.1`, `claude-sonnet-4-5`,
//! `openrouter/anthropic/claude-3.5-sonnet`), as a usage report names it: what
//! the tokens that call did not resend are priced at (SPEC §6).

use super::InvalidValue;

/// The most characters a model name may have.
const MAX_CHARS: usize = 200;

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct ModelName(String);

impl ModelName {
    pub(crate) fn parse(field: &str, raw: String) -> Result<Self, InvalidValue> {
        let printable = raw.chars().all(|c| !c.is_control() && !c.is_whitespace());
        if raw.is_empty() || raw.chars().count() > MAX_CHARS || !printable {
            return Err(InvalidValue::new(
                field,
                format!("must be 1 to {MAX_CHARS} characters without spaces or control characters (like `gpt-4.1`)"),
            ));
        }
        Ok(Self(raw))
    }

    pub(crate) fn as_str(&self) -> &str {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_model_name_is_printable_without_spaces() {
        assert!(ModelName::parse("model", "openrouter/anthropic/claude-3.5-sonnet:beta".into()).is_ok());
        for bad in ["", "gpt 4", "gpt\n4", "a\u{0}b"] {
            assert!(ModelName::parse("model", bad.into()).is_err(), "{bad:?}");
        }
        assert!(ModelName::parse("model", "m".repeat(201)).is_err());
        assert!(ModelName::parse("model", "é".repeat(200)).is_ok());
    }
}
