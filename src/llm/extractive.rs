//! The summarizer that needs no model (SPEC §4): used when no upstream is
//! configured or the tenant's upstream budget is spent. It follows the same
//! keep rules, by construction: its summary *is* the must-keep items, plus the
//! recent exchange, in sections a later extraction reads back.

use crate::policy::handoff::quote;
use crate::policy::must_keep::{KeepItem, KeepKind};
use crate::policy::transcript::{Message, Role, clip};

/// How many of the newest messages the recent exchange shows...
pub const RECENT_MESSAGES: usize = 8;
/// ...and how much of each.
pub const RECENT_MESSAGE_BYTES: usize = 400;

/// A bounded summary of `messages` on top of the anchor, whose must-keep
/// `items` were extracted from both. `why` says why no model wrote it.
pub fn summarize(messages: &[Message], items: &[KeepItem], why: &str) -> String {
    let mut lines = vec![format!("Summary written by compactd without a model ({why}).")];
    let of = |kind: KeepKind| {
        items
            .iter()
            .filter(move |item| item.kind == kind)
            .map(|item| item.text.as_str())
    };
    let critical: Vec<&str> = of(KeepKind::Critical).collect();
    if !critical.is_empty() {
        lines.push("Critical, word for word:".to_owned());
        lines.extend(critical.iter().map(|text| format!("- {text}")));
    }
    if let Some(request) = of(KeepKind::LatestRequest).next() {
        lines.push(format!("The user's latest request: {request}"));
    }
    let said: Vec<&str> = of(KeepKind::Prohibition).collect();
    if !said.is_empty() {
        lines.push("The user said:".to_owned());
        lines.extend(said.iter().map(|text| format!("- {text}")));
    }
    let identifiers: Vec<&str> = of(KeepKind::Path)
        .chain(of(KeepKind::Url))
        .chain(of(KeepKind::Id))
        .collect();
    if !identifiers.is_empty() {
        lines.push(format!("Paths, URLs and ids: {}", identifiers.join(", ")));
    }
    let recent: Vec<String> = messages
        .iter()
        .rev()
        .filter(|m| m.role != Role::System)
        .take(RECENT_MESSAGES)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .map(describe)
        .collect();
    if !recent.is_empty() {
        lines.push(format!("The last {} messages:", recent.len()));
        lines.extend(recent);
    }
    lines.join("\n")
}

fn describe(message: &Message) -> String {
    let text = |t: &str| clip(&quote(t).replace('\n', " "), RECENT_MESSAGE_BYTES);
    let calls: Vec<String> = message
        .tool_calls
        .iter()
        .map(|call| format!("called {}", call.name))
        .collect();
    match message.role {
        Role::Tool => format!("- tool result: {}", text(&message.content)),
        role if message.content.trim().is_empty() => format!("- {}: {}", role.as_str(), calls.join(", ")),
        role if calls.is_empty() => format!("- {}: {}", role.as_str(), text(&message.content)),
        role => format!("- {}: {} ({})", role.as_str(), text(&message.content), calls.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::must_keep::{complete, extract};
    use crate::policy::transcript::ToolCall;

    fn transcript() -> Vec<Message> {
        vec![
            Message::new(Role::User, "Deploy build 4711 from /srv/releases. Don't touch prod."),
            Message {
                tool_calls: vec![ToolCall {
                    id: "c1".into(),
                    name: "deploy".into(),
                    arguments: "{\"build\":4711}".into(),
                }],
                ..Message::new(Role::Assistant, "")
            },
            Message {
                tool_call_id: Some("c1".into()),
                ..Message::new(Role::Tool, "ok: https://ci.example.com/runs/9")
            },
            Message::new(Role::User, "Now post the link in #releases."),
        ]
    }

    #[test]
    fn the_extractive_summary_keeps_everything_the_keep_rules_name() {
        let messages = transcript();
        let items = extract(Some("Earlier: ticket OPS-9."), &messages);
        let summary = summarize(&messages, &items, "no upstream is configured");
        let (completed, missing) = complete(&summary, &items);
        assert!(missing.is_empty(), "nothing to append: {missing:?}");
        assert_eq!(completed, summary);
        for kept in [
            "Now post the link in #releases.",
            "Don't touch prod.",
            "/srv/releases",
            "https://ci.example.com/runs/9",
            "4711",
            "OPS-9",
        ] {
            assert!(summary.contains(kept), "{kept} missing from:\n{summary}");
        }
        assert!(summary.starts_with("Summary written by compactd without a model (no upstream is configured)."));
    }

    #[test]
    fn an_anchor_survives_being_summarized_again() {
        let first_items = extract(None, &transcript());
        let first = summarize(&transcript(), &first_items, "test");
        let later = vec![Message::new(Role::User, "thanks")];
        let items = extract(Some(&first), &later);
        let second = summarize(&later, &items, "test");
        for kept in ["Don't touch prod.", "/srv/releases", "4711"] {
            assert!(second.contains(kept), "{kept} lost:\n{second}");
        }
    }

    #[test]
    fn summarizing_summaries_does_not_pile_up_copies() {
        let mut prior = None::<String>;
        let mut sizes = Vec::new();
        for round in 0..4 {
            let messages = vec![Message::new(Role::User, format!("Round {round}: don't touch prod."))];
            let items = extract(prior.as_deref(), &messages);
            let summary = summarize(&messages, &items, "test");
            sizes.push(summary.matches("touch prod").count());
            prior = Some(summary);
        }
        let last = prior.clone().unwrap_or_default();
        assert!(
            sizes.windows(2).all(|w| w[1] <= w[0] + 2),
            "copies pile up: {sizes:?}\n{last}"
        );
        assert!(!prior.unwrap().contains("- -"));
    }

    #[test]
    fn the_summary_stays_bounded() {
        let long: Vec<Message> = (0..500)
            .map(|i| Message::new(Role::User, format!("message {i} {}", "x".repeat(5000))))
            .collect();
        let items = extract(None, &long);
        let summary = summarize(&long, &items, "test");
        assert!(summary.len() < 20_000, "{} bytes", summary.len());
    }
}
