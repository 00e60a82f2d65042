//! A caller's conversation id (SPEC §1): 1–200 printable characters.

use std::fmt;

use super::InvalidValue;

/// The most characters (Unicode scalar values) an id may have.
pub(crate) const MAX_CHARS: usize = 200;

#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct ConversationId(String);

impl ConversationId {
    pub(crate) fn parse(field: &str, raw: String) -> Result<Self, InvalidValue> {
        let chars = raw.chars().count();
        if chars == 0 {
            return Err(InvalidValue::new(field, "must not be empty"));
        }
        if chars > MAX_CHARS {
            return Err(InvalidValue::new(
                field,
                format!("must be at most {MAX_CHARS} characters, not {chars}"),
            ));
        }
        if let Some(bad) = raw.chars().find(|c| c.is_control()) {
            return Err(InvalidValue::new(
                field,
                format!("must not contain control characters (found U+{:04X})", u32::from(bad)),
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

impl fmt::Display for ConversationId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(raw: &str) -> Result<ConversationId, InvalidValue> {
        ConversationId::parse("conversation_id", raw.to_owned())
    }

    #[test]
    fn ordinary_ids_are_accepted_as_given() {
        for id in ["a", "conv-42", "chat/2026/10:18", "會話 7", "  spaced  "] {
            assert_eq!(parse(id).unwrap().as_str(), id);
        }
    }

    #[test]
    fn two_hundred_characters_are_counted_as_characters_not_bytes() {
        assert!(parse(&"字".repeat(200)).is_ok());
        let err = parse(&"字".repeat(201)).unwrap_err();
        assert_eq!(err.field, "conversation_id");
        assert!(err.problem.contains("at most 200"));
    }

    #[test]
    fn empty_ids_and_control_characters_are_refused() {
        assert!(parse("").unwrap_err().problem.contains("empty"));
        for bad in ["a\nb", "tab\there", "nul\0", "del\u{7f}", "c1\u{85}"] {
            assert!(parse(bad).unwrap_err().problem.contains("control"), "{bad:?}");
        }
    }
}
