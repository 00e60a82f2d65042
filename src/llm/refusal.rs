//! A context-length refusal (SPEC §3, *Any context size*): whether an
//! upstream's error answer says the prompt did not fit, and the numbers it
//! gives — the model's window and the prompt as it counted it — where it
//! gives them, as OpenAI, Anthropic, vLLM and llama.cpp's server word them.

use std::sync::LazyLock;

use regex::Regex;

/// What a context-length refusal said, where it said it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ContextRefusal {
    /// The model's context, in its tokens.
    pub window: Option<u64>,
    /// The prompt's tokens as the upstream counted them.
    pub prompt: Option<u64>,
}

static REFUSAL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)context_length_exceeded|maximum context length|context (?:window|size|length)|prompt is too long|too many tokens|exceeds? (?:the )?(?:model'?s? )?(?:max(?:imum)? )?(?:context|token limit)|n_ctx",
    )
    .expect("a valid pattern")
});

/// Where refusals give the window, most specific first.
static WINDOW: LazyLock<Vec<Regex>> = LazyLock::new(|| {
    patterns(&[
        r"(?i)maximum context length (?:is|of) (\d+)",
        r#""n_ctx"\s*:\s*(\d+)"#,
        r"(?i)(\d+) (?:tokens )?maximum",
        r"(?i)context (?:window|size|length) (?:is |of )?\(?(\d+)",
        r"(?i)n_ctx\D{0,4}(\d+)",
    ])
});

/// Where they give the prompt's tokens (not the prompt and the answer's).
static PROMPT: LazyLock<Vec<Regex>> = LazyLock::new(|| {
    patterns(&[
        r"(?i)\((\d+) in the messages",
        r"(?i)prompt is too long: (\d+)",
        r#""n_prompt_tokens"\s*:\s*(\d+)"#,
    ])
});

fn patterns(sources: &[&str]) -> Vec<Regex> {
    sources
        .iter()
        .map(|source| Regex::new(source).expect("a valid pattern"))
        .collect()
}

/// The number the first pattern that matches captures.
fn first_number(patterns: &[Regex], text: &str) -> Option<u64> {
    patterns
        .iter()
        .find_map(|pattern| pattern.captures(text)?.get(1)?.as_str().parse().ok())
}

/// The refusal in an error answer's `body`, when it is one.
pub(crate) fn refusal(status: u16, body: &str) -> Option<ContextRefusal> {
    let refused = matches!(status, 400 | 413 | 422 | 500) && REFUSAL.is_match(body);
    refused.then(|| ContextRefusal {
        window: first_number(&WINDOW, body),
        prompt: first_number(&PROMPT, body),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn openai_s_and_llama_cpp_s_refusal_gives_the_window_and_the_prompt() {
        let body = r#"{"error":{"message":"This model's maximum context length is 8192 tokens. However, you requested 72264 tokens (68264 in the messages, 4000 in the completion). Please reduce the length of the messages or completion.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}"#;
        assert_eq!(
            refusal(400, body),
            Some(ContextRefusal {
                window: Some(8_192),
                prompt: Some(68_264)
            })
        );
    }

    #[test]
    fn anthropic_s_and_llama_server_s_refusals_are_read_too() {
        let anthropic = r#"{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210034 tokens > 200000 maximum"}}"#;
        assert_eq!(
            refusal(400, anthropic),
            Some(ContextRefusal {
                window: Some(200_000),
                prompt: Some(210_034)
            })
        );
        let llama_server = r#"{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error","n_prompt_tokens":9120,"n_ctx":8192}}"#;
        assert_eq!(
            refusal(400, llama_server),
            Some(ContextRefusal {
                window: Some(8_192),
                prompt: Some(9_120)
            })
        );
        let bare = "413 Request Entity Too Large: too many tokens";
        assert_eq!(refusal(413, bare), Some(ContextRefusal::default()));
    }

    #[test]
    fn other_refusals_are_not_about_the_context() {
        assert_eq!(
            refusal(400, r#"{"error":{"message":"Unsupported parameter: 'max_tokens'"}}"#),
            None
        );
        assert_eq!(refusal(401, "maximum context length is 8192"), None);
        assert_eq!(refusal(429, "too many tokens per minute"), None);
    }
}
