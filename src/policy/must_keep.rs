//! The keep guard of SPEC §4: the items a summary must carry word for word,
//! found by the service itself, and the summary completed with any that the
//! summarizer dropped.

use std::collections::HashSet;
use std::sync::LazyLock;

use regex::Regex;

use super::handoff::quote;
use super::transcript::{Message, Role, TOOL_ARGS_CLIP_BYTES, TOOL_RESULT_CLIP_BYTES, clip};

/// The pinned heading under which dropped items are appended.
pub const KEPT_HEADING: &str = "Kept word for word by compactd (the summary had left these out):";

/// At most this many paths, URLs and ids are carried (newest first): enough
/// for the facts a conversation turns on, not a dump of every tool result.
pub const MAX_IDENTIFIERS: usize = 48;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum KeepKind {
    /// A turn an audit scored 5 (SPEC §5): carried word for word always.
    Critical,
    LatestRequest,
    Prohibition,
    Path,
    Url,
    Id,
}

impl KeepKind {
    fn label(self) -> &'static str {
        match self {
            Self::Critical => "Critical, word for word",
            Self::LatestRequest => "The user's latest request",
            Self::Prohibition => "The user said",
            Self::Path => "Path",
            Self::Url => "URL",
            Self::Id => "Id",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct KeepItem {
    pub kind: KeepKind,
    pub text: String,
}

static URL: LazyLock<Regex> = LazyLock::new(|| Regex::new(r#"(?i)\bhttps?://[^\s<>"'`]+"#).expect("a valid pattern"));
static PATH: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?:~|\.{1,2})?/[\w.\-]+(?:/[\w.\-]+)*/?|\b[A-Za-z]:\\[\w.\-\\]+|\b[\w\-]+(?:/[\w.\-]+)+\.[A-Za-z0-9]{1,8}\b",
    )
    .expect("a valid pattern")
});
static UUID: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b")
        .expect("a valid pattern")
});
static TOKEN: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"#?\b[A-Za-z0-9][A-Za-z0-9_\-]*[A-Za-z0-9]\b").expect("a valid pattern"));
static SENTENCE_END: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"[.!?]+(?:\s+|$)|[。！？]+|\n+").expect("a valid pattern"));
static PROHIBITION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:don'?t|do not|never|must not|mustn'?t|shouldn'?t|should not)\b|不要|別|不准|禁止|勿")
        .expect("a valid pattern")
});

/// Whether a bare token names something: an id-like mix of letters and digits
/// (`PROJ-42`, `req_8f3a2`, `a1b2c3d`), a number of four digits or more, or
/// an issue reference such as `#118`.
fn is_id(token: &str) -> bool {
    if let Some(number) = token.strip_prefix('#') {
        return number.len() >= 2 && number.bytes().all(|b| b.is_ascii_digit());
    }
    let digits = token.bytes().filter(u8::is_ascii_digit).count();
    let letters = token.bytes().filter(u8::is_ascii_alphabetic).count();
    (digits > 0 && letters > 0 && token.len() >= 5) || (letters == 0 && digits >= 4 && !token.contains('-'))
}

/// Paths, URLs and ids in `text`, in order of appearance.
pub fn identifiers(text: &str) -> Vec<KeepItem> {
    let mut found: Vec<(usize, KeepItem)> = Vec::new();
    let mut taken: Vec<(usize, usize)> = Vec::new();
    let overlaps =
        |taken: &[(usize, usize)], start: usize, end: usize| taken.iter().any(|(s, e)| start < *e && *s < end);
    for url in URL.find_iter(text) {
        let trimmed = url
            .as_str()
            .trim_end_matches(['.', ',', ';', ':', '!', '?', ')', ']', '}']);
        taken.push((url.start(), url.end()));
        found.push((
            url.start(),
            KeepItem {
                kind: KeepKind::Url,
                text: trimmed.to_owned(),
            },
        ));
    }
    for path in PATH.find_iter(text) {
        let trimmed = path.as_str().trim_end_matches(['.', ',', ';', ':']);
        // `and/or` is not a path: a slash glued to a word is not where one starts.
        let glued = text[..path.start()]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_alphanumeric() || c == '_');
        if glued || overlaps(&taken, path.start(), path.end()) || !trimmed.chars().any(char::is_alphanumeric) {
            continue;
        }
        taken.push((path.start(), path.end()));
        found.push((
            path.start(),
            KeepItem {
                kind: KeepKind::Path,
                text: trimmed.to_owned(),
            },
        ));
    }
    for id in UUID.find_iter(text) {
        if !overlaps(&taken, id.start(), id.end()) {
            taken.push((id.start(), id.end()));
            found.push((
                id.start(),
                KeepItem {
                    kind: KeepKind::Id,
                    text: id.as_str().to_owned(),
                },
            ));
        }
    }
    for token in TOKEN.find_iter(text) {
        if !overlaps(&taken, token.start(), token.end()) && is_id(token.as_str()) {
            found.push((
                token.start(),
                KeepItem {
                    kind: KeepKind::Id,
                    text: token.as_str().to_owned(),
                },
            ));
        }
    }
    found.sort_by_key(|(start, _)| *start);
    found.into_iter().map(|(_, item)| item).collect()
}

/// The sentences of `text` that forbid something.
pub fn prohibitions(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut start = 0;
    for end in SENTENCE_END.find_iter(text).map(|m| m.end()).chain([text.len()]) {
        // A list item's marker is not part of what was said.
        let sentence = text[start..end].trim().trim_start_matches(['-', '*', '•', ' ']).trim();
        if !sentence.is_empty() && PROHIBITION.is_match(sentence) {
            out.push(clip(sentence, 600));
        }
        start = end;
    }
    out
}

/// What the summarizer saw of a message, whose items it can be held to.
fn visible_texts(message: &Message) -> Vec<String> {
    let mut texts = vec![match message.role {
        Role::Tool => clip(&message.content, TOOL_RESULT_CLIP_BYTES),
        _ => message.content.clone(),
    }];
    texts.extend(
        message
            .tool_calls
            .iter()
            .map(|call| clip(&call.arguments, TOOL_ARGS_CLIP_BYTES)),
    );
    texts
}

/// Everything the summary of `messages` on top of `prior` must keep.
pub fn extract(prior: Option<&str>, messages: &[Message]) -> Vec<KeepItem> {
    let mut items = Vec::new();
    if let Some(latest) = messages
        .iter()
        .rev()
        .find(|m| m.role == Role::User && !m.content.trim().is_empty())
    {
        items.push(KeepItem {
            kind: KeepKind::LatestRequest,
            text: quote(&latest.content),
        });
    }
    // The anchor's prohibitions first: it holds the oldest ones.
    let user_texts = prior.into_iter().chain(
        messages
            .iter()
            .filter(|m| m.role == Role::User)
            .map(|m| m.content.as_str()),
    );
    for text in user_texts {
        items.extend(prohibitions(text).into_iter().map(|text| KeepItem {
            kind: KeepKind::Prohibition,
            text,
        }));
    }
    let newest_first = messages
        .iter()
        .rev()
        .flat_map(visible_texts)
        .chain(prior.map(str::to_owned));
    let mut identifiers_kept = 0;
    for text in newest_first {
        for item in identifiers(&text) {
            if identifiers_kept < MAX_IDENTIFIERS && !items.contains(&item) {
                items.push(item);
                identifiers_kept += 1;
            }
        }
    }
    let mut seen = HashSet::new();
    items.retain(|item| seen.insert(item.clone()));
    drop_restatements(items)
}

/// A prohibition that merely quotes another one (an earlier summary's
/// `user: Don't touch prod.` next to `Don't touch prod.`) is dropped, so
/// summaries of summaries do not pile up copies.
fn drop_restatements(items: Vec<KeepItem>) -> Vec<KeepItem> {
    let prohibitions: Vec<String> = items
        .iter()
        .filter(|i| i.kind == KeepKind::Prohibition)
        .map(|i| i.text.clone())
        .collect();
    items
        .into_iter()
        .filter(|item| {
            item.kind != KeepKind::Prohibition
                || !prohibitions
                    .iter()
                    .any(|other| other.len() < item.text.len() && item.text.contains(other.as_str()))
        })
        .collect()
}

fn squeezed(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The summary with every item it lacks appended under [`KEPT_HEADING`];
/// answers the items appended too.
pub fn complete(summary: &str, items: &[KeepItem]) -> (String, Vec<KeepItem>) {
    let present = squeezed(summary);
    let missing: Vec<KeepItem> = items
        .iter()
        .filter(|item| !present.contains(&squeezed(&item.text)))
        .cloned()
        .collect();
    if missing.is_empty() {
        return (summary.to_owned(), missing);
    }
    let mut text = summary.trim_end().to_owned();
    if !text.is_empty() {
        text.push_str("\n\n");
    }
    text.push_str(KEPT_HEADING);
    for item in &missing {
        text.push_str(&format!("\n- {}: {}", item.kind.label(), item.text));
    }
    (text, missing)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::transcript::ToolCall;

    fn texts(items: &[KeepItem], kind: KeepKind) -> Vec<&str> {
        items
            .iter()
            .filter(|i| i.kind == kind)
            .map(|i| i.text.as_str())
            .collect()
    }

    #[test]
    fn paths_urls_and_ids_are_found() {
        let found = identifiers(
            "Deploy build 4711 from /srv/app/releases/v2 (see https://ci.example.com/runs/88231?x=1). \
             Ticket PROJ-118, commit 9f3c2ab, request req_8f3a2, config ./deploy/prod.yaml and src/policy/mod.rs, \
             session 123e4567-e89b-12d3-a456-426614174000, issue #42.",
        );
        assert_eq!(texts(&found, KeepKind::Url), ["https://ci.example.com/runs/88231?x=1"]);
        assert_eq!(
            texts(&found, KeepKind::Path),
            ["/srv/app/releases/v2", "./deploy/prod.yaml", "src/policy/mod.rs"]
        );
        assert_eq!(
            texts(&found, KeepKind::Id),
            [
                "4711",
                "PROJ-118",
                "9f3c2ab",
                "req_8f3a2",
                "123e4567-e89b-12d3-a456-426614174000",
                "#42"
            ]
        );
    }

    #[test]
    fn ordinary_words_and_small_numbers_are_not_ids() {
        let found = identifiers("Yes, and/or maybe 3 or 42 times on 10 servers; it's fine.");
        assert!(found.is_empty(), "{found:?}");
    }

    #[test]
    fn prohibitions_are_whole_sentences_in_any_language() {
        let found = prohibitions("Ship it today. Don't touch prod! Also never force-push.\n不要刪除日誌。Thanks");
        assert_eq!(found, ["Don't touch prod!", "Also never force-push.", "不要刪除日誌。"]);
    }

    #[test]
    fn the_latest_request_prohibitions_and_identifiers_are_extracted() {
        let messages = vec![
            Message::new(Role::User, "Look at /var/log/app.log but do not restart anything."),
            Message {
                tool_calls: vec![ToolCall {
                    id: "c1".into(),
                    name: "read".into(),
                    arguments: r#"{"path":"/var/log/app.log"}"#.into(),
                }],
                ..Message::new(Role::Assistant, "Reading it.")
            },
            Message {
                tool_call_id: Some("c1".into()),
                ..Message::new(Role::Tool, "error E1234 at job_77aa1")
            },
            Message::new(Role::User, "Fix the error in job_77aa1."),
        ];
        let items = extract(Some("Earlier: ticket OPS-9. Never email the CEO."), &messages);
        assert_eq!(texts(&items, KeepKind::LatestRequest), ["Fix the error in job_77aa1."]);
        assert_eq!(
            texts(&items, KeepKind::Prohibition),
            [
                "Never email the CEO.",
                "Look at /var/log/app.log but do not restart anything."
            ]
        );
        assert_eq!(texts(&items, KeepKind::Path), ["/var/log/app.log"]);
        assert_eq!(texts(&items, KeepKind::Id), ["job_77aa1", "E1234", "OPS-9"]);
    }

    #[test]
    fn identifiers_are_capped_newest_first() {
        let old = Message::new(
            Role::User,
            (0..100).map(|i| format!("id_{i:04}x")).collect::<Vec<_>>().join(" "),
        );
        let new = Message::new(Role::User, "keep job_9999z");
        let items = extract(None, &[old, new]);
        let ids = texts(&items, KeepKind::Id);
        assert_eq!(ids.len(), MAX_IDENTIFIERS);
        assert_eq!(ids[0], "job_9999z");
    }

    #[test]
    fn a_complete_summary_is_left_alone() {
        let items = vec![KeepItem {
            kind: KeepKind::Id,
            text: "4711".into(),
        }];
        assert_eq!(
            complete("Deployed build 4711.", &items),
            ("Deployed build 4711.".to_owned(), vec![])
        );
    }

    #[test]
    fn dropped_items_are_appended_word_for_word() {
        let items = vec![
            KeepItem {
                kind: KeepKind::LatestRequest,
                text: "Deploy  4711\nto staging".into(),
            },
            KeepItem {
                kind: KeepKind::Path,
                text: "/srv/app".into(),
            },
            KeepItem {
                kind: KeepKind::Url,
                text: "https://ci.example.com/runs/1".into(),
            },
        ];
        let (text, missing) = complete("The user wants Deploy 4711 to staging. Paths: none.", &items);
        assert_eq!(missing.len(), 2, "whitespace differences do not count as dropping");
        assert_eq!(
            text,
            format!(
                "The user wants Deploy 4711 to staging. Paths: none.\n\n{KEPT_HEADING}\n- Path: /srv/app\n- URL: https://ci.example.com/runs/1"
            )
        );
    }
}
