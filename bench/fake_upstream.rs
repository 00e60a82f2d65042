//! A fake OpenAI-compatible upstream for bench/fidelity: it answers every
//! summary request with a random half of the lines it was shown (the prior
//! summary and the transcript, not the prompt's frame around them), cut at
//! the `max_tokens` it was asked for, as a careless model would. The half is chosen by a seed drawn from the
//! request itself, so the same request always gets the same answer and two
//! replays can be compared byte for byte.
//!
//!   cargo run --release --example fake_upstream -- [PORT]
//!
//! Prints `fake upstream listening on http://127.0.0.1:PORT` when ready.

use axum::routing::post;
use axum::{Json, Router};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

/// About four characters a token: enough to honour `max_tokens` as a model does.
const CHARS_PER_TOKEN: usize = 4;

async fn complete(Json(request): Json<Value>) -> Json<Value> {
    let prompt = request["messages"][1]["content"].as_str().unwrap_or_default();
    let max_tokens = request["max_tokens"]
        .as_u64()
        .or_else(|| request["max_completion_tokens"].as_u64())
        .unwrap_or(1_000) as usize;
    let digest = Sha256::digest(prompt.as_bytes());
    let mut seed = [0_u8; 8];
    seed.copy_from_slice(&digest[..8]);
    let mut rng = fastrand::Rng::with_seed(u64::from_le_bytes(seed));
    let seen: Vec<&str> = prompt
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('<') && !line.starts_with("</") && !is_frame(line))
        .collect();
    let mut kept = String::new();
    for line in seen {
        if rng.bool() {
            if kept.len() + line.len() + 1 > max_tokens * CHARS_PER_TOKEN {
                break;
            }
            kept.push_str(line);
            kept.push('\n');
        }
    }
    if kept.trim().is_empty() {
        kept = "Nothing of note happened.".to_owned();
    }
    Json(json!({
        "model": "fake-half",
        "choices": [{"message": {"role": "assistant", "content": kept}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": prompt.len() / CHARS_PER_TOKEN, "completion_tokens": kept.len() / CHARS_PER_TOKEN},
    }))
}

/// A line of the prompt's own frame (its headings, its last line, a
/// message's header): a careless model loses half of what it reads, but
/// does not write the prompt back, which compactd refuses as no summary.
fn is_frame(line: &str) -> bool {
    let header = line
        .strip_prefix('[')
        .and_then(|rest| rest.split_once("] "))
        .is_some_and(|(number, rest)| number.bytes().all(|b| b.is_ascii_digit()) && rest.ends_with(':'));
    header || line == "PRIOR SUMMARY" || line.starts_with("TRANSCRIPT (") || line == "Write the new summary now."
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let port: u16 = std::env::args().nth(1).and_then(|p| p.parse().ok()).unwrap_or(0);
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    println!("fake upstream listening on http://{}", listener.local_addr()?);
    let app = Router::new().route("/v1/chat/completions", post(complete));
    axum::serve(listener, app).await
}
