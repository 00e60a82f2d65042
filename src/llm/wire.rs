//! The two upstream APIs' request and response shapes: OpenAI-compatible chat
//! completions (OpenAI, vLLM, llama.cpp's server, Ollama, OpenRouter) and
//! Anthropic Messages. Pure functions, so the shapes are tested without a
//! server.

use serde_json::{Value, json};

use super::dialect::Dialect;
use super::error::LlmError;
use super::settings::Provider;

/// One non-streaming completion: a system prompt and one user message.
#[derive(Debug, Clone, PartialEq)]
pub struct CompletionRequest {
    pub model: String,
    pub system: String,
    pub user: String,
    pub max_tokens: u32,
    pub temperature: f32,
}

/// What came back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Completion {
    pub text: String,
    /// The model that answered, as the upstream names it.
    pub model: String,
    pub input_tokens: Option<u64>,
    pub output_tokens: Option<u64>,
    /// The prompt's tokens the upstream read, those it had cached counted
    /// in (some count only what they had to evaluate): what a prompt read
    /// at a fraction of its size is judged by.
    pub prompt_read: Option<u64>,
}

/// A URL without its query (and fragment), and the query.
pub(crate) fn split_query(url: &str) -> (&str, Option<&str>) {
    let url = url.split_once('#').map_or(url, |(before, _)| before);
    match url.split_once('?') {
        Some((path, query)) => (path, Some(query).filter(|query| !query.is_empty())),
        None => (url, None),
    }
}

/// `path` with `query` after it, when there is one.
pub(crate) fn with_query(path: String, query: Option<&str>) -> String {
    match query {
        Some(query) => format!("{path}?{query}"),
        None => path,
    }
}

/// What each upstream API expects.
impl Provider {
    /// The endpoint under `base_url` (a trailing slash or `/v1` is
    /// tolerated); a query the base carries (Azure's `?api-version=…`)
    /// stays after the path.
    pub(crate) fn endpoint(self, base_url: &str) -> String {
        let (base, query) = split_query(base_url);
        let base = base.trim_end_matches('/');
        let path = match self {
            Self::OpenAi => format!("{base}/chat/completions"),
            Self::Anthropic if base.ends_with("/v1") => format!("{base}/messages"),
            Self::Anthropic => format!("{base}/v1/messages"),
        };
        with_query(path, query)
    }

    /// The request's body; `dialect` says what this OpenAI-compatible model
    /// accepts (Anthropic has one form).
    pub(crate) fn body(self, request: &CompletionRequest, dialect: Dialect) -> Value {
        match self {
            Self::OpenAi => {
                let mut body = json!({
                    "model": request.model,
                    "messages": [
                        {"role": "system", "content": request.system},
                        {"role": "user", "content": request.user},
                    ],
                    "stream": false,
                });
                let cap = if dialect.max_completion_tokens {
                    "max_completion_tokens"
                } else {
                    "max_tokens"
                };
                body[cap] = json!(request.max_tokens);
                if !dialect.default_temperature {
                    body["temperature"] = json!(request.temperature);
                }
                body
            }
            Self::Anthropic => json!({
                "model": request.model,
                "system": request.system,
                "messages": [{"role": "user", "content": request.user}],
                "max_tokens": request.max_tokens,
                "temperature": request.temperature,
            }),
        }
    }

    pub fn parse(self, body: &[u8], requested_model: &str) -> Result<Completion, LlmError> {
        let value: Value =
            serde_json::from_slice(body).map_err(|err| LlmError::Malformed(format!("not JSON: {err}")))?;
        let usage = &value["usage"];
        let (text, input, output) = match self {
            Self::OpenAi => {
                let choice = value
                    .pointer("/choices/0/message")
                    .ok_or_else(|| LlmError::Malformed("no choices[0].message".into()))?;
                (
                    text_of(&choice["content"]),
                    &usage["prompt_tokens"],
                    &usage["completion_tokens"],
                )
            }
            Self::Anthropic => {
                let content = value
                    .get("content")
                    .ok_or_else(|| LlmError::Malformed("no content".into()))?;
                (text_of(content), &usage["input_tokens"], &usage["output_tokens"])
            }
        };
        let text = text.ok_or_else(|| LlmError::Malformed("the content is not text".into()))?;
        if text.trim().is_empty() {
            return Err(LlmError::Empty);
        }
        Ok(Completion {
            text: text.trim().to_owned(),
            model: value["model"].as_str().unwrap_or(requested_model).to_owned(),
            input_tokens: input.as_u64(),
            output_tokens: output.as_u64(),
            prompt_read: self.prompt_read(&value),
        })
    }

    /// The prompt's tokens read, cached ones added back: Anthropic counts
    /// cache reads and writes apart from `input_tokens`; llama.cpp's
    /// `timings` give what it evaluated (`prompt_n`) and reused (`cache_n`);
    /// OpenAI's `cached_tokens` are part of `prompt_tokens`, and a server's
    /// larger than it cannot be, so they are what it left out.
    fn prompt_read(self, answer: &Value) -> Option<u64> {
        let usage = &answer["usage"];
        let number = |value: &Value| value.as_u64().unwrap_or(0);
        match self {
            Self::Anthropic => usage["input_tokens"].as_u64().map(|input| {
                input
                    .saturating_add(number(&usage["cache_read_input_tokens"]))
                    .saturating_add(number(&usage["cache_creation_input_tokens"]))
            }),
            Self::OpenAi => {
                let timings = &answer["timings"];
                if let Some(evaluated) = timings["prompt_n"].as_u64() {
                    return Some(evaluated.saturating_add(number(&timings["cache_n"])));
                }
                let prompt = usage["prompt_tokens"].as_u64()?;
                let cached = number(&usage["prompt_tokens_details"]["cached_tokens"]);
                Some(if cached > prompt {
                    prompt.saturating_add(cached)
                } else {
                    prompt
                })
            }
        }
    }
}

/// A string, or the text parts of a list of content blocks; `None` when it is
/// neither (null content counts as empty text).
fn text_of(content: &Value) -> Option<String> {
    match content {
        Value::Null => Some(String::new()),
        Value::String(text) => Some(text.clone()),
        Value::Array(parts) => Some(
            parts
                .iter()
                .filter(|part| part["type"].as_str().is_none_or(|kind| kind == "text"))
                .filter_map(|part| part["text"].as_str())
                .collect::<Vec<_>>()
                .join(""),
        ),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request() -> CompletionRequest {
        CompletionRequest {
            model: "small".into(),
            system: "sys".into(),
            user: "hello".into(),
            max_tokens: 100,
            temperature: 0.2,
        }
    }

    #[test]
    fn openai_requests_carry_the_system_prompt_and_the_caps() {
        let body = Provider::OpenAi.body(&request(), Dialect::default());
        assert_eq!(body["messages"][0], json!({"role": "system", "content": "sys"}));
        assert_eq!(body["messages"][1], json!({"role": "user", "content": "hello"}));
        assert_eq!(body["max_tokens"], 100);
        assert_eq!(body["temperature"], json!(0.2f32));
        assert_eq!(body["stream"], false);
        assert!(body.get("max_completion_tokens").is_none());
    }

    #[test]
    fn a_reasoning_models_dialect_caps_with_max_completion_tokens_and_no_temperature() {
        let dialect = Dialect {
            max_completion_tokens: true,
            default_temperature: true,
        };
        let body = Provider::OpenAi.body(&request(), dialect);
        assert_eq!(body["max_completion_tokens"], 100);
        assert!(body.get("max_tokens").is_none(), "{body}");
        assert!(body.get("temperature").is_none(), "{body}");
    }

    #[test]
    fn anthropic_requests_put_the_system_prompt_apart() {
        let body = Provider::Anthropic.body(&request(), Dialect::default());
        assert_eq!(body["system"], "sys");
        assert_eq!(body["messages"], json!([{"role": "user", "content": "hello"}]));
    }

    #[test]
    fn endpoints_tolerate_slashes_and_versions() {
        assert_eq!(
            Provider::OpenAi.endpoint("http://h/v1/"),
            "http://h/v1/chat/completions"
        );
        assert_eq!(
            Provider::Anthropic.endpoint("https://api.anthropic.com"),
            "https://api.anthropic.com/v1/messages"
        );
        assert_eq!(Provider::Anthropic.endpoint("http://h/v1"), "http://h/v1/messages");
        assert_eq!(
            Provider::OpenAi.endpoint("https://r.openai.azure.com/openai/deployments/d/?api-version=2024-10-21"),
            "https://r.openai.azure.com/openai/deployments/d/chat/completions?api-version=2024-10-21",
            "a base URL's query stays after the path, as Azure's does"
        );
        assert_eq!(
            Provider::OpenAi.endpoint("http://h/v1?"),
            "http://h/v1/chat/completions"
        );
    }

    #[test]
    fn answers_are_parsed_with_their_token_counts() {
        let openai = br#"{"model":"m-1","choices":[{"message":{"role":"assistant","content":"  Sum.  "}}],"usage":{"prompt_tokens":12,"completion_tokens":3}}"#;
        let completion = Provider::OpenAi.parse(openai, "small").unwrap();
        assert_eq!(
            completion,
            Completion {
                text: "Sum.".into(),
                model: "m-1".into(),
                input_tokens: Some(12),
                output_tokens: Some(3),
                prompt_read: Some(12),
            }
        );
        let anthropic = br#"{"content":[{"type":"text","text":"A"},{"type":"text","text":"B"}],"usage":{"input_tokens":5,"output_tokens":2}}"#;
        let completion = Provider::Anthropic.parse(anthropic, "small").unwrap();
        assert_eq!((completion.text.as_str(), completion.model.as_str()), ("AB", "small"));
    }

    #[test]
    fn what_the_upstream_had_cached_is_counted_as_read() {
        let anthropic = br#"{"content":[{"type":"text","text":"S"}],"usage":{"input_tokens":40,"cache_read_input_tokens":9000,"cache_creation_input_tokens":500,"output_tokens":2}}"#;
        let completion = Provider::Anthropic.parse(anthropic, "m").unwrap();
        assert_eq!(
            (completion.input_tokens, completion.prompt_read),
            (Some(40), Some(9_540))
        );

        let llama_cpp = br#"{"choices":[{"message":{"content":"S"}}],"usage":{"prompt_tokens":120,"completion_tokens":3},"timings":{"prompt_n":120,"cache_n":7000}}"#;
        let completion = Provider::OpenAi.parse(llama_cpp, "m").unwrap();
        assert_eq!(
            (completion.input_tokens, completion.prompt_read),
            (Some(120), Some(7_120))
        );

        let cached = br#"{"choices":[{"message":{"content":"S"}}],"usage":{"prompt_tokens":300,"prompt_tokens_details":{"cached_tokens":6000}}}"#;
        assert_eq!(Provider::OpenAi.parse(cached, "m").unwrap().prompt_read, Some(6_300));
        let openai = br#"{"choices":[{"message":{"content":"S"}}],"usage":{"prompt_tokens":9000,"prompt_tokens_details":{"cached_tokens":6000}}}"#;
        assert_eq!(
            Provider::OpenAi.parse(openai, "m").unwrap().prompt_read,
            Some(9_000),
            "OpenAI's cached tokens are counted in already"
        );
        let whole = br#"{"choices":[{"message":{"content":"S"}}],"usage":{"prompt_tokens":7120},"timings":{"prompt_n":120,"cache_n":7000}}"#;
        assert_eq!(
            Provider::OpenAi.parse(whole, "m").unwrap().prompt_read,
            Some(7_120),
            "not twice"
        );

        let silent = br#"{"choices":[{"message":{"content":"S"}}]}"#;
        assert_eq!(Provider::OpenAi.parse(silent, "m").unwrap().prompt_read, None);
    }

    #[test]
    fn empty_and_malformed_answers_are_errors() {
        let empty = br#"{"choices":[{"message":{"content":"   "}}]}"#;
        assert_eq!(Provider::OpenAi.parse(empty, "m"), Err(LlmError::Empty));
        let null = br#"{"choices":[{"message":{"content":null}}]}"#;
        assert_eq!(Provider::OpenAi.parse(null, "m"), Err(LlmError::Empty));
        assert!(matches!(
            Provider::OpenAi.parse(b"<html>", "m"),
            Err(LlmError::Malformed(_))
        ));
        assert!(matches!(
            Provider::OpenAi.parse(br#"{"choices":[]}"#, "m"),
            Err(LlmError::Malformed(_))
        ));
        assert!(matches!(
            Provider::Anthropic.parse(br#"{"content":7}"#, "m"),
            Err(LlmError::Malformed(_))
        ));
    }
}
