//! What an OpenAI-compatible server accepts varies by model: OpenAI's
//! reasoning models refuse `max_tokens` (they want `max_completion_tokens`)
//! and any temperature but their default, while most other servers (vLLM,
//! llama.cpp, Ollama) know only `max_tokens`. The client starts with the form
//! every server understands and learns from a refusal that names the
//! parameter what that model wants instead.

use serde_json::Value;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Dialect {
    /// The output cap goes as `max_completion_tokens`, not `max_tokens`.
    pub max_completion_tokens: bool,
    /// No temperature is sent: the model takes only its default.
    pub default_temperature: bool,
}

impl Dialect {
    /// The dialect a refusal asks for, when it is a 400 naming a parameter
    /// this dialect can still change; `None` for anything else, so a model
    /// that refuses both forms gets its error, not a loop.
    pub fn adapted_to(self, status: u16, body: &[u8]) -> Option<Self> {
        if status != 400 {
            return None;
        }
        let value: Value = serde_json::from_slice(body).ok()?;
        let error = value.get("error")?;
        let param = error.get("param").and_then(Value::as_str);
        let message = error.get("message").and_then(Value::as_str).unwrap_or_default();
        let code = error.get("code").and_then(Value::as_str).unwrap_or_default();
        // Only a refusal of the parameter itself: "max_tokens is too large"
        // is a value to fix in the configuration, not another form to send.
        if !code.starts_with("unsupported") && !message.to_ascii_lowercase().contains("unsupported") {
            return None;
        }
        let names = |name: &str| param == Some(name) || message.contains(&format!("'{name}'"));
        let mut adapted = self;
        if names("max_tokens") {
            adapted.max_completion_tokens = true;
        } else if names("temperature") {
            adapted.default_temperature = true;
        }
        (adapted != self).then_some(adapted)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NO_MAX_TOKENS: &[u8] = br#"{"error": {"message": "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.", "type": "invalid_request_error", "param": "max_tokens", "code": "unsupported_parameter"}}"#;
    const DEFAULT_TEMPERATURE_ONLY: &[u8] = br#"{"error": {"message": "Unsupported value: 'temperature' does not support 0.2 with this model. Only the default (1) value is supported.", "type": "invalid_request_error", "param": "temperature", "code": "unsupported_value"}}"#;

    #[test]
    fn a_refused_max_tokens_switches_to_max_completion_tokens() {
        let adapted = Dialect::default().adapted_to(400, NO_MAX_TOKENS);
        assert_eq!(
            adapted,
            Some(Dialect {
                max_completion_tokens: true,
                default_temperature: false
            })
        );
    }

    #[test]
    fn a_refused_temperature_is_left_out_and_both_refusals_add_up() {
        let first = Dialect::default().adapted_to(400, NO_MAX_TOKENS).unwrap();
        let second = first.adapted_to(400, DEFAULT_TEMPERATURE_ONLY).unwrap();
        assert_eq!(
            second,
            Dialect {
                max_completion_tokens: true,
                default_temperature: true
            }
        );
    }

    #[test]
    fn a_parameter_named_in_the_message_only_counts_too() {
        let body =
            br#"{"error": {"message": "Unsupported parameter: 'max_tokens' is not supported with this model."}}"#;
        assert!(Dialect::default().adapted_to(400, body).is_some());
    }

    #[test]
    fn anything_else_is_not_a_reason_to_adapt() {
        let switched = Dialect {
            max_completion_tokens: true,
            default_temperature: false,
        };
        // The same refusal again: this model refuses both forms.
        assert_eq!(switched.adapted_to(400, NO_MAX_TOKENS), None);
        assert_eq!(Dialect::default().adapted_to(500, NO_MAX_TOKENS), None);
        assert_eq!(Dialect::default().adapted_to(400, b"<html>bad request</html>"), None);
        let other = br#"{"error": {"message": "Unsupported value: 'messages' is empty.", "param": "messages"}}"#;
        assert_eq!(Dialect::default().adapted_to(400, other), None);
        let too_large = br#"{"error": {"message": "'max_tokens' is too large: 9000. This model supports at most 4096.", "param": "max_tokens", "code": "invalid_value"}}"#;
        assert_eq!(Dialect::default().adapted_to(400, too_large), None);
    }
}
