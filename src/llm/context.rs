//! The summary model's context window (SPEC §3, *Any context size*): set by
//! the operator, or learned from the upstream's own word — its model
//! listing, a context-length refusal's numbers, or a prompt it answered
//! having read far less than was sent (a silent truncation) — and how its
//! tokenizer compares with ours.

use std::sync::LazyLock;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use regex::Regex;

use crate::config::Provider;

/// Ratios are kept in thousandths.
const PER_MILLE: u64 = 1_000;
/// Our count is exact for OpenAI's current models...
const OPENAI_RATIO: u64 = 1_000;
/// ...close for Anthropic's...
const ANTHROPIC_RATIO: u64 = 1_150;
/// ...and for a model we do not know, a margin: small models' vocabularies
/// split code and non-English text into more pieces than o200k does.
const UNKNOWN_RATIO: u64 = 1_400;
/// A prompt answered as read at less than this share of what was sent was
/// cut by the upstream (Ollama past its `num_ctx`).
const TRUNCATED_BELOW_PER_MILLE: u64 = 500;
/// Prompts shorter than this are never called truncated: chat templates and
/// tokenizers differ by more than the rule's share on a few words.
const TRUNCATION_FLOOR_TOKENS: u64 = 1_024;

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

/// The summary model's window as far as compactd knows it, and its
/// tokenizer's count against ours; learned values are shared by every call.
#[derive(Debug)]
pub struct ContextWindow {
    configured: Option<u64>,
    /// 0: nothing learned.
    learned: AtomicU64,
    ratio: AtomicU64,
    /// Set once the upstream's model listing has answered.
    pub(crate) listing: tokio::sync::OnceCell<()>,
    listing_failures: AtomicU32,
}

impl ContextWindow {
    pub fn new(configured: Option<u64>, provider: Provider, model: &str) -> Self {
        let model = model.to_ascii_lowercase();
        let ratio = match provider {
            Provider::Anthropic => ANTHROPIC_RATIO,
            Provider::OpenAi
                if ["gpt-", "o1", "o3", "o4", "chatgpt"]
                    .iter()
                    .any(|p| model.starts_with(p)) =>
            {
                OPENAI_RATIO
            }
            Provider::OpenAi => UNKNOWN_RATIO,
        };
        Self {
            configured: configured.filter(|w| *w > 0),
            learned: AtomicU64::new(0),
            ratio: AtomicU64::new(ratio),
            listing: tokio::sync::OnceCell::new(),
            listing_failures: AtomicU32::new(0),
        }
    }

    /// The window, in the upstream's tokens; `None` while unknown.
    pub fn tokens(&self) -> Option<u64> {
        let learned = Some(self.learned.load(Ordering::Relaxed)).filter(|w| *w > 0);
        match (self.configured, learned) {
            (Some(set), Some(learned)) => Some(set.min(learned)),
            (set, learned) => set.or(learned),
        }
    }

    /// Our count of `ours` tokens as the upstream would count them.
    pub fn theirs(&self, ours: u64) -> u64 {
        ours.saturating_mul(self.ratio.load(Ordering::Relaxed))
            .div_ceil(PER_MILLE)
    }

    /// Learns from a refusal of a prompt we counted at `sent` tokens (ours).
    /// Without its numbers, the window is taken to be below what was sent.
    pub fn learn(&self, refusal: ContextRefusal, sent: u64) {
        if let Some(prompt) = refusal.prompt.filter(|p| *p > 0 && sent > 0) {
            let ratio = (prompt.saturating_mul(PER_MILLE) / sent).clamp(PER_MILLE / 2, 4 * PER_MILLE);
            self.ratio.fetch_max(ratio, Ordering::Relaxed);
        }
        let window = refusal.window.unwrap_or_else(|| self.theirs(sent) / 2);
        self.narrow_to(window.max(1));
    }

    /// Whether a completion that read `answered` tokens of a prompt we
    /// counted at `sent` had its prompt cut silently; if so, learns the
    /// window from it.
    pub fn truncated(&self, sent: u64, answered: Option<u64>) -> bool {
        let Some(answered) = answered else {
            return false;
        };
        let expected = sent.min(self.theirs(sent));
        let cut = expected >= TRUNCATION_FLOOR_TOKENS
            && answered.saturating_mul(PER_MILLE) < expected.saturating_mul(TRUNCATED_BELOW_PER_MILLE);
        if cut {
            // What it read is what it holds, the answer's room included.
            self.narrow_to(answered.max(1));
        }
        cut
    }

    /// How often the model listing could not be read.
    pub(crate) fn listing_failures(&self) -> u32 {
        self.listing_failures.load(Ordering::Relaxed)
    }

    pub(crate) fn listing_failed(&self) {
        self.listing_failures.fetch_add(1, Ordering::Relaxed);
    }

    /// Learns the window a model listing gave.
    pub(crate) fn listed(&self, window: u64) {
        self.narrow_to(window.max(1));
    }

    fn narrow_to(&self, window: u64) {
        let _ = self.learned.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |now| {
            Some(if now == 0 { window } else { now.min(window) })
        });
    }
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

    #[test]
    fn a_refusal_teaches_the_window_and_the_tokenizer() {
        let window = ContextWindow::new(None, Provider::OpenAi, "smollm2");
        assert_eq!(window.tokens(), None);

        window.learn(
            ContextRefusal {
                window: Some(8_192),
                prompt: Some(15_000),
            },
            10_000,
        );

        assert_eq!(window.tokens(), Some(8_192));
        assert_eq!(window.theirs(1_000), 1_500, "their tokenizer counts half again as many");
    }

    #[test]
    fn a_refusal_without_numbers_halves_what_was_sent() {
        let window = ContextWindow::new(None, Provider::OpenAi, "gpt-4o-mini");
        window.learn(ContextRefusal::default(), 20_000);
        assert_eq!(window.tokens(), Some(10_000));
        window.learn(ContextRefusal::default(), 10_000);
        assert_eq!(window.tokens(), Some(5_000), "each refusal narrows it");
    }

    #[test]
    fn a_configured_window_holds_until_the_upstream_says_less() {
        let window = ContextWindow::new(Some(32_000), Provider::Anthropic, "claude-haiku");
        assert_eq!(window.tokens(), Some(32_000));
        window.learn(
            ContextRefusal {
                window: Some(16_000),
                prompt: None,
            },
            20_000,
        );
        assert_eq!(window.tokens(), Some(16_000));
    }

    #[test]
    fn a_prompt_read_at_a_fraction_of_its_size_was_truncated() {
        let window = ContextWindow::new(None, Provider::OpenAi, "gpt-4o-mini");
        assert!(!window.truncated(20_000, Some(19_500)), "read whole");
        assert!(!window.truncated(20_000, None), "no usage said");
        assert!(!window.truncated(500, Some(100)), "too short to tell");
        assert_eq!(window.tokens(), None);

        assert!(window.truncated(20_000, Some(2_048)));
        assert_eq!(window.tokens(), Some(2_048));
    }
}
