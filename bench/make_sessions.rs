//! Writes the synthetic sessions bench/fidelity replays, and beside each the
//! ground truth of what it planted (`<name>.truth.json`).
//!
//!   cargo run --release --example make_sessions -- OUT_DIR

#[path = "synthetic/mod.rs"]
mod synthetic;

use std::path::PathBuf;

use synthetic::{Spec, aider_session, claude_code_session};

fn main() -> std::io::Result<()> {
    let out = PathBuf::from(
        std::env::args()
            .nth(1)
            .unwrap_or_else(|| "target/fidelity/sessions".into()),
    );
    std::fs::create_dir_all(&out)?;
    let long = Spec {
        turns: 420,
        seed: 7,
        long_run_every: 100,
        long_run_rounds: 12,
        long_run_output_chars: 6_000,
    };
    let short = Spec {
        turns: 90,
        seed: 11,
        long_run_every: 45,
        long_run_rounds: 12,
        long_run_output_chars: 4_000,
    };
    let sessions = [
        ("claude-code-long.jsonl", claude_code_session(long)),
        ("claude-code-short.jsonl", claude_code_session(short)),
        ("aider-ru-en.aider.chat.history.md", aider_session(160, 3)),
    ];
    for (name, (text, truth)) in sessions {
        std::fs::write(out.join(name), text)?;
        std::fs::write(
            out.join(format!("{name}.truth.json")),
            serde_json::to_string_pretty(&truth)?,
        )?;
        println!("{}", out.join(name).display());
    }
    Ok(())
}
