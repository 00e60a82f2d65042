//! What an upstream LLM sends back, and what a summary may say: parsing the
//! reply and a refusal, reading Retry-After, reading where things stand in a
//! transcript, and fitting (a prepared summary merged with later lines too),
//! guarding, fencing and defusing the text never panic, and nothing breaks
//! out of a handoff.

#![no_main]

use std::time::SystemTime;

use compactd::config::Provider;
use compactd::llm::dialect::Dialect;
use compactd::llm::retry::retry_after;
use compactd::summary::summarizer::finish;
use compactd::summary::handoff::Handoff;
use compactd::summary::write::narrative::{merged, narrative_of};
use compactd::summary::read::{HarnessPatterns, state_at_cut};
use compactd::summary::keep::{KeepSet, Place, sightings};
use compactd::summary::write::{Parts, Presence, Shape};
use compactd::summary::write::prompt::user_message;
use compactd::domain::transcript::{Message, Role, ToolCall};
use libfuzzer_sys::fuzz_target;
use reqwest::header::{HeaderMap, HeaderValue, RETRY_AFTER};

fuzz_target!(|data: &[u8]| {
    let _ = Provider::OpenAi.parse(data, "model");
    let _ = Provider::Anthropic.parse(data, "model");
    let _ = Dialect::default().adapted_to(400, data);
    if let Ok(value) = HeaderValue::from_bytes(data) {
        let mut headers = HeaderMap::new();
        headers.insert(RETRY_AFTER, value);
        let _ = retry_after(&headers, SystemTime::now());
    }
    let text = String::from_utf8_lossy(data);
    let call = ToolCall { id: "c".into(), name: "Bash".into(), arguments: text.to_string() };
    let messages = [
        Message::new(Role::User, text.as_ref()),
        Message { tool_calls: vec![call], ..Message::new(Role::Assistant, text.as_ref()) },
        Message::new(Role::Tool, text.as_ref()),
    ];
    let harness = HarnessPatterns::default();
    let state = state_at_cut(&messages, &harness);
    let mut set = KeepSet::default();
    let place = Place { conversation_id: "c".into(), turn_id: Some(1), compaction_seq: None, message: None, at: chrono::DateTime::UNIX_EPOCH };
    for message in &messages {
        set.observe(&sightings(message, &harness), &place);
    }
    // A prepared summary's prose with a compaction's lines after it, too.
    let with_lines = merged(&text, &[format!("- {text} → {text}"), "- (continuing)".to_owned()]);
    for (narrative, shape) in [(text.as_ref(), Shape::Prose), (text.as_ref(), Shape::Lines), (with_lines.as_str(), Shape::Prose)] {
        let parts = Parts { state: &state, ..Parts::of(narrative, shape, "c") };
        let (summary, _) = finish(parts, &set, 500);
        assert!(!summary.contains("</handoff>"), "a summary carried the closing tag");
        let presence = Presence::of(&summary);
        let _ = set.items().iter().filter(|item| presence.holds(item)).count();
        let _ = user_message(Some(narrative_of(&summary)), &messages);
        let rendered = Handoff { summary: Some(summary), reply: Some(text.to_string()), ..Handoff::default() }.render();
        assert_eq!(rendered.matches("</handoff>").count(), 1, "the handoff was broken out of");
    }
});
