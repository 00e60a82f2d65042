//! The summary model's window as its upstream's model listing gives it
//! (SPEC §3, *Any context size*): an OpenAI-compatible `GET …/models`
//! answer names each model's context under a server's own field — vLLM's
//! `max_model_len`, OpenRouter's, Together's and Fireworks' `context_length`,
//! Groq's `context_window`, Mistral's `max_context_length`, LM Studio's
//! `loaded_context_length`, llama.cpp's `meta.n_ctx` (or the size it was
//! trained at, an upper bound). A listing that says nothing leaves the
//! window to be learned from refusals.

use std::time::Duration;

use serde_json::Value;
use tokio::time::Instant;

use super::UpstreamModel;

/// The most a listing may take of a summary's time: a few seconds, and
/// never more than a quarter of what is left for the summary's calls.
const ASKED_WITHIN: Duration = Duration::from_secs(5);
const SHARE_OF_TIME_LEFT: u32 = 4;

/// Asks the upstream's listing for the window, once per process, while the
/// window is unknown; an upstream that could not answer is asked again at
/// the next summary. Done by `until` at the latest.
pub(crate) async fn learn_window(model: &UpstreamModel, until: Instant) {
    if model.context.tokens().is_some() {
        return;
    }
    let timeout = ASKED_WITHIN.min(until.saturating_duration_since(Instant::now()) / SHARE_OF_TIME_LEFT);
    let asked = model
        .context
        .listing
        .get_or_try_init(|| async {
            let window = model.client.listed_window(&model.model, timeout).await?;
            if let Some(window) = window {
                tracing::info!(model = %model.model, window, "the upstream's model listing gives the summary model's window");
                model.context.listed(window);
            }
            Ok::<(), super::LlmError>(())
        })
        .await;
    if let Err(error) = asked {
        tracing::debug!(
            error = error.details(),
            "the upstream's model listing could not be read"
        );
    }
}

/// Fields that give the context the model is served at, most specific first.
const SERVED: &[&[&str]] = &[
    &["max_model_len"],
    &["loaded_context_length"],
    &["top_provider", "context_length"],
    &["context_length"],
    &["context_window"],
    &["max_context_length"],
    &["meta", "n_ctx"],
    &["meta", "n_ctx_train"],
];

/// A window outside these bounds is a listing's mistake, not a model.
const PLAUSIBLE: std::ops::RangeInclusive<u64> = 512..=100_000_000;

/// The window the listing `body` gives `model`, if it gives one. A listing
/// of one model serves that one whatever it calls it (llama.cpp names it by
/// its file); in a longer one only the entry of that id counts.
pub(crate) fn listed_window(body: &Value, model: &str) -> Option<u64> {
    let entries = body
        .get("data")
        .or_else(|| body.get("models"))
        .unwrap_or(body)
        .as_array()?;
    let entry = match entries.as_slice() {
        [only] => only,
        many => many
            .iter()
            .find(|entry| entry.get("id").and_then(Value::as_str) == Some(model))?,
    };
    SERVED.iter().find_map(|path| {
        let value = path.iter().try_fold(entry, |at, key| at.get(key))?;
        value.as_u64().filter(|window| PLAUSIBLE.contains(window))
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn vllm_s_listing_gives_the_length_it_serves() {
        let body = json!({"object": "list", "data": [
            {"id": "Qwen/Qwen2.5-7B-Instruct", "object": "model", "max_model_len": 32768}
        ]});
        assert_eq!(listed_window(&body, "Qwen/Qwen2.5-7B-Instruct"), Some(32_768));
    }

    #[test]
    fn openrouter_s_listing_gives_the_top_provider_s_context_for_the_model_asked() {
        let body = json!({"data": [
            {"id": "openai/gpt-4o-mini", "context_length": 128000,
             "top_provider": {"context_length": 128000, "max_completion_tokens": 16384}},
            {"id": "meta-llama/llama-3.1-8b-instruct", "context_length": 131072,
             "top_provider": {"context_length": 16384, "max_completion_tokens": 8192}}
        ]});
        assert_eq!(listed_window(&body, "meta-llama/llama-3.1-8b-instruct"), Some(16_384));
        assert_eq!(listed_window(&body, "openai/gpt-4o-mini"), Some(128_000));
        assert_eq!(listed_window(&body, "anthropic/claude-3-haiku"), None, "not listed");
    }

    #[test]
    fn llama_cpp_s_one_model_is_the_one_asked_whatever_its_name() {
        let body = json!({"object": "list", "data": [
            {"id": "/models/smollm2-135m.gguf", "object": "model",
             "meta": {"vocab_type": 2, "n_vocab": 49152, "n_ctx_train": 8192, "n_embd": 576}}
        ]});
        assert_eq!(listed_window(&body, "local"), Some(8_192));
        let served = json!({"data": [{"id": "m", "meta": {"n_ctx": 4096, "n_ctx_train": 131072}}]});
        assert_eq!(
            listed_window(&served, "local"),
            Some(4_096),
            "the size served, not trained"
        );
    }

    #[test]
    fn groq_s_mistral_s_and_lm_studio_s_fields_are_read_too() {
        let groq = json!({"data": [{"id": "llama-3.1-8b-instant", "context_window": 131072}]});
        assert_eq!(listed_window(&groq, "llama-3.1-8b-instant"), Some(131_072));
        let mistral = json!({"data": [{"id": "mistral-small-latest", "max_context_length": 32768}]});
        assert_eq!(listed_window(&mistral, "mistral-small-latest"), Some(32_768));
        let lm_studio =
            json!({"data": [{"id": "qwen2.5-7b", "max_context_length": 32768, "loaded_context_length": 8192}]});
        assert_eq!(listed_window(&lm_studio, "qwen2.5-7b"), Some(8_192), "what is loaded");
    }

    #[test]
    fn a_listing_that_names_no_context_or_an_absurd_one_gives_nothing() {
        let openai = json!({"object": "list", "data": [
            {"id": "gpt-4o-mini", "object": "model", "owned_by": "openai"},
            {"id": "gpt-4o", "object": "model", "owned_by": "openai"}
        ]});
        assert_eq!(listed_window(&openai, "gpt-4o-mini"), None);
        for absurd in [json!(0), json!(12), json!(-4096), json!("8192"), json!(1e12)] {
            let body = json!({"data": [{"id": "m", "context_length": absurd}]});
            assert_eq!(listed_window(&body, "m"), None, "{body}");
        }
        for not_a_listing in [
            json!(null),
            json!("models"),
            json!({"data": {}}),
            json!({"error": "no"}),
        ] {
            assert_eq!(listed_window(&not_a_listing, "m"), None, "{not_a_listing}");
        }
        assert_eq!(listed_window(&json!({"data": []}), "m"), None);
    }
}
