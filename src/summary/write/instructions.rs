//! What a summary must keep (SPEC §4): the text handed to a harness with every
//! `compact` decision, and part of the service's own summarization prompt.
//!
//! Pinned in source: summaries written under it are reproducible, and a change
//! to it is a deliberate, reviewed change.

/// The keep rules, addressed to whoever writes the summary.
pub const KEEP_INSTRUCTIONS: &str = "When you summarize this conversation, keep word for word the user's latest request and every \"don't\" or \"不要\" they said. Keep exact paths, URLs and ids. Keep decisions with their reasons, open tasks with their next step, who said what in group chats, and what each thread is about. Leave out the agent's profile and memory: they are provided again.";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_keep_rules_name_everything_the_spec_lists() {
        for must in [
            "latest request",
            "\"don't\"",
            "不要",
            "paths, URLs and ids",
            "decisions with their reasons",
            "open tasks with their next step",
            "who said what in group chats",
            "what each thread is about",
            "Leave out the agent's profile and memory",
        ] {
            assert!(KEEP_INSTRUCTIONS.contains(must), "missing: {must}");
        }
    }
}
