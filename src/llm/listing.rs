//! The summary model's window as its upstream's model listing gives it
//! (SPEC §3, *Any context size*): an OpenAI-compatible `GET …/models`
//! answer names each model's context under a server's own field — vLLM's
//! `max_model_len`, OpenRouter's, Together's and Fireworks' `context_length`,
//! Groq's `context_window`, Mistral's `max_context_length`; llama.cpp's
//! server gives only the size its model was trained at (`meta.n_ctx_train`),
//! an upper bound a refusal narrows. A listing that says nothing (OpenAI's,
//! Ollama's, llama-cpp-python's) leaves the window to be learned from
//! refusals.

use serde_json::Value;

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
const PLAUSIBLE: std::ops::RangeInclusive<u64> = 1_024..=100_000_000;

/// The window the listing `body` gives `model`, if it gives one: the entry
/// of that id, or llama.cpp's one model whatever it calls it (it is named
/// by its file); a gateway's lone default model is not the one asked.
pub(crate) fn listed_window(body: &Value, model: &str) -> Option<u64> {
    let entries = body
        .get("data")
        .or_else(|| body.get("models"))
        .unwrap_or(body)
        .as_array()?;
    let named = entries
        .iter()
        .find(|entry| entry.get("id").and_then(Value::as_str) == Some(model));
    let entry = match (named, entries.as_slice()) {
        (Some(entry), _) => entry,
        (None, [only]) if is_llama_cpp(only) => only,
        (None, _) => return None,
    };
    SERVED.iter().find_map(|path| {
        let value = path.iter().try_fold(entry, |at, key| at.get(key))?;
        value.as_u64().filter(|window| PLAUSIBLE.contains(window))
    })
}

/// llama.cpp's server lists the one model it serves with its metadata.
fn is_llama_cpp(entry: &Value) -> bool {
    entry.get("meta").is_some_and(Value::is_object) || entry.get("owned_by").and_then(Value::as_str) == Some("llamacpp")
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
        let gateway = json!({"data": [{"id": "default-model", "owned_by": "proxy", "context_length": 4096}]});
        assert_eq!(listed_window(&gateway, "gpt-4o-mini"), None, "another model's window");
        let served = json!({"data": [{"id": "m", "meta": {"n_ctx": 4096, "n_ctx_train": 131072}}]});
        assert_eq!(
            listed_window(&served, "local"),
            Some(4_096),
            "the size served, not trained"
        );
    }

    #[test]
    fn groq_s_and_mistral_s_fields_are_read_too_and_a_length_loaded_before_the_most_it_takes() {
        let groq = json!({"data": [{"id": "llama-3.1-8b-instant", "context_window": 131072}]});
        assert_eq!(listed_window(&groq, "llama-3.1-8b-instant"), Some(131_072));
        let mistral = json!({"data": [{"id": "mistral-small-latest", "max_context_length": 32768}]});
        assert_eq!(listed_window(&mistral, "mistral-small-latest"), Some(32_768));
        let loaded =
            json!({"data": [{"id": "qwen2.5-7b", "max_context_length": 32768, "loaded_context_length": 8192}]});
        assert_eq!(listed_window(&loaded, "qwen2.5-7b"), Some(8_192), "what is loaded");
    }

    #[test]
    fn a_listing_that_names_no_context_or_an_absurd_one_gives_nothing() {
        let openai = json!({"object": "list", "data": [
            {"id": "gpt-4o-mini", "object": "model", "owned_by": "openai"},
            {"id": "gpt-4o", "object": "model", "owned_by": "openai"}
        ]});
        assert_eq!(listed_window(&openai, "gpt-4o-mini"), None);
        for absurd in [json!(0), json!(512), json!(-4096), json!("8192"), json!(1e12)] {
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
