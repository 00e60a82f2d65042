//! What an agent sends the model next (SPEC §5 `GET /conversations/{id}/context`,
//! MCP `get_context`): the critical turns word for word, the rolling memory,
//! the newest live turns (bounded in bytes as a page of turns is), and the
//! same assembled as the prompt's messages.

use super::turns::MAX_PAGE_BYTES;
use crate::app::history::Said;
use crate::app::{AppResult, Services};
use crate::domain::{ConversationId, TenantId};
use crate::records::Critical as CriticalTurn;
use crate::store::turns;

/// The context, as read and as it is to be sent.
#[derive(Debug)]
pub(crate) struct Context {
    pub conversation_id: String,
    /// Turns an audit scored 5, oldest first.
    pub critical: Vec<CriticalTurn>,
    pub memory: Option<String>,
    /// The newest live turns that fit, oldest first.
    pub recent: Vec<Said>,
    /// The same, ready to send: [critical, memory, recent turns].
    pub messages: Vec<PromptMessage>,
}

/// One message of the prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PromptMessage {
    /// `system`, `user` or `assistant`.
    pub role: &'static str,
    pub content: String,
}

/// The conversation's context with its `recent` newest live turns at most.
pub(crate) async fn context(
    services: &Services,
    tenant: &TenantId,
    id: &ConversationId,
    recent: u32,
) -> AppResult<Context> {
    let mut conn = services.warm.acquire().await?;
    let stored = super::stored(&mut conn, tenant, id).await?;
    let mut newest = turns::recent_live(&mut conn, tenant, id, recent.into()).await?;
    drop(conn);
    // The newest turns whose texts fit a page's bytes (issue 23): each text
    // is cut as a list cuts it, and older turns give way to newer ones.
    let mut size = 0;
    let kept_from = newest
        .iter()
        .rposition(|turn| {
            size += turn.user.as_ref().map_or(0, String::len) + turn.assistant.as_ref().map_or(0, String::len);
            size > MAX_PAGE_BYTES
        })
        .map_or(0, |over| (over + 1).min(newest.len() - 1));
    newest.drain(..kept_from);
    let conversation = stored.conversation_id.to_string();
    let recent: Vec<Said> = newest
        .into_iter()
        .map(|turn| Said {
            conversation: conversation.clone(),
            critical: stored.critical.iter().any(|c| c.turn_id == turn.seq),
            turn,
        })
        .collect();
    let messages = prompt(&stored.critical, stored.memory.as_deref(), &recent);
    Ok(Context {
        conversation_id: conversation,
        critical: stored.critical,
        memory: stored.memory,
        recent,
        messages,
    })
}

/// The prompt's messages: the critical turns in one system message, the
/// memory in another, then the recent turns as they were said.
fn prompt(critical: &[CriticalTurn], memory: Option<&str>, recent: &[Said]) -> Vec<PromptMessage> {
    let mut messages = Vec::new();
    if !critical.is_empty() {
        let mut content = "Critical turns from earlier in this conversation, word for word:".to_owned();
        for turn in critical {
            for (who, text) in [("User", &turn.user), ("Assistant", &turn.assistant)] {
                if let Some(text) = text {
                    content.push_str(&format!("\n\n{who} (turn {}):\n{text}", turn.turn_id));
                }
            }
        }
        messages.push(PromptMessage {
            role: "system",
            content,
        });
    }
    if let Some(memory) = memory.filter(|memory| !memory.trim().is_empty()) {
        messages.push(PromptMessage {
            role: "system",
            content: format!("What you remember of this conversation:\n{memory}"),
        });
    }
    for said in recent {
        for (role, text) in [("user", &said.turn.user), ("assistant", &said.turn.assistant)] {
            if let Some(text) = text {
                messages.push(PromptMessage {
                    role,
                    content: text.clone(),
                });
            }
        }
    }
    messages
}

#[cfg(test)]
mod tests {
    use chrono::Utc;

    use super::*;
    use crate::store::turns::Turn;

    fn said(seq: i64, user: Option<&str>, assistant: Option<&str>) -> Said {
        Said {
            conversation: "c".to_owned(),
            critical: false,
            turn: Turn {
                seq,
                at: Utc::now(),
                user_messages: 1,
                user: user.map(Into::into),
                assistant: assistant.map(Into::into),
                score: None,
                score_source: None,
                evicted: false,
                user_chars: None,
                assistant_chars: None,
            },
        }
    }

    #[test]
    fn the_prompt_is_the_critical_turns_then_the_memory_then_the_recent_turns_as_said() {
        let critical = [CriticalTurn {
            turn_id: 3,
            user: Some("deploy to eu-west-1 only".to_owned()),
            assistant: None,
        }];
        let recent = [
            said(9, Some("and now?"), Some("running the tests")),
            said(10, None, Some("done")),
        ];
        let messages = prompt(&critical, Some("we fixed the parser"), &recent);
        let roles: Vec<_> = messages.iter().map(|m| m.role).collect();
        assert_eq!(roles, ["system", "system", "user", "assistant", "assistant"]);
        assert!(
            messages[0]
                .content
                .ends_with("User (turn 3):\ndeploy to eu-west-1 only")
        );
        assert_eq!(
            messages[1].content,
            "What you remember of this conversation:\nwe fixed the parser"
        );
        assert_eq!(messages[4].content, "done");
    }

    #[test]
    fn no_critical_turns_and_a_blank_memory_add_no_system_message() {
        let messages = prompt(&[], Some("  \n"), &[said(1, Some("hi"), None)]);
        assert_eq!(
            messages,
            [PromptMessage {
                role: "user",
                content: "hi".to_owned()
            }]
        );
    }
}
