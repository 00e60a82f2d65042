//! What reading a turn into the keep set costs, to decide where it runs
//! (SPEC §4): at /turn-ended (on the hot path, every turn) or at compaction
//! time (off it, in one batch). Times the extraction of the stored turns of
//! the synthetic long session — the user's and the assistant's text, as
//! /turn-ended stores them — and of its full transcripts with tool calls.
//!
//!   cargo run --release --example extraction

#[path = "synthetic/mod.rs"]
mod synthetic;

use std::time::Instant;

use compactd::domain::transcript::{Message, Role};
use compactd::summary::keep::sightings;
use compactd::summary::read::HarnessPatterns;

fn main() {
    let (text, _) = synthetic::claude_code_session(synthetic::Spec {
        turns: 420,
        seed: 7,
        long_run_every: 100,
        long_run_rounds: 12,
        long_run_output_chars: 6_000,
    });
    let dir = std::env::temp_dir().join("compactd-extraction-bench.jsonl");
    std::fs::write(&dir, text).expect("a temporary file");
    let harness = HarnessPatterns::default();
    let session = compactd::sessions::load(&dir, &harness).expect("the session reads");
    // As /turn-ended stores a turn: the user's message and the answers.
    let stored: Vec<[Message; 2]> = session
        .turns
        .iter()
        .map(|turn| {
            let user = turn.messages.first().map(|m| m.content.clone()).unwrap_or_default();
            let answer: Vec<&str> = turn
                .messages
                .iter()
                .filter(|m| m.role == Role::Assistant)
                .map(|m| m.content.as_str())
                .collect();
            [
                Message::new(Role::User, user),
                Message::new(Role::Assistant, answer.join("\n\n")),
            ]
        })
        .collect();
    for (what, messages) in [
        (
            "stored turns (user and assistant text)",
            stored.iter().flatten().collect::<Vec<_>>(),
        ),
        (
            "whole transcripts (tool calls and results too)",
            session.turns.iter().flat_map(|t| t.messages.iter()).collect::<Vec<_>>(),
        ),
    ] {
        let mut best = f64::MAX;
        let mut items = 0;
        for _ in 0..5 {
            let started = Instant::now();
            items = messages.iter().map(|m| sightings(m, &harness).len()).sum::<usize>();
            best = best.min(started.elapsed().as_secs_f64());
        }
        println!(
            "{what}: {} turns, {} messages, {items} items: {:.1} ms in all, {:.1} µs a turn (best of 5)",
            session.turns.len(),
            messages.len(),
            best * 1e3,
            best * 1e6 / session.turns.len() as f64
        );
    }
}
