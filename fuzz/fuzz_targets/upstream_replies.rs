//! What an upstream LLM sends back, and what a summary may say: parsing the
//! reply and a refusal, reading Retry-After, and completing, fencing and
//! defusing the text never panic.

#![no_main]

use std::time::SystemTime;

use compactd::llm::Provider;
use compactd::llm::dialect::Dialect;
use compactd::llm::retry::retry_after;
use compactd::policy::handoff::{Handoff, defuse_handoff_tags};
use compactd::policy::must_keep::{complete, extract};
use compactd::policy::prompt::user_message;
use compactd::policy::transcript::{Message, Role};
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
    let messages = [Message::new(Role::User, text.as_ref()), Message::new(Role::Tool, text.as_ref())];
    let items = extract(Some(&text), &messages);
    let (summary, _) = complete(&text, &items);
    let summary = defuse_handoff_tags(&summary);
    assert!(!summary.contains("</handoff>"), "a summary carried the closing tag");
    let _ = user_message(Some(&summary), &messages);
    let rendered = Handoff { summary: Some(summary), reply: Some(text.to_string()), ..Handoff::default() }.render();
    assert_eq!(rendered.matches("</handoff>").count(), 1, "the handoff was broken out of");
});
