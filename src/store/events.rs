//! Reading a conversation's append-only event log.
//!
//! The events that work done apart from the caller's request writes — a
//! compaction (by a caller or the idle sweep), `scored`, `audited`, `prepared`, `skipped` —
//! are also announced, in the statement that writes them, on the Postgres
//! channel `compactd_background`, as `tenant/conversation_id/kind`: a
//! dashboard or script can `LISTEN compactd_background` instead of polling
//! (the tests wait on it; README, "Events to listen to").

use chrono::{DateTime, Utc};
use serde_json::Value;
use sqlx::PgConnection;

use super::StoreResult;
use super::statements::{self, on};
use crate::domain::{ConversationId, TenantId};

/// What an entry of the log records: every kind written, named once (the
/// SQL that writes or reads one names it through here).
#[derive(Debug, Clone, Copy, PartialEq, Eq, strum::IntoStaticStr, strum::VariantArray)]
#[strum(serialize_all = "snake_case")]
pub(crate) enum EventKind {
    Usage,
    TurnEnded,
    Decision,
    Compaction,
    Handoff,
    RolloverDeclined,
    Scored,
    Audited,
    Prepared,
    Skipped,
}

impl EventKind {
    /// The name stored in `events.kind` (and announced on `compactd_background`).
    pub(crate) fn as_str(self) -> &'static str {
        self.into()
    }
}

impl std::fmt::Display for EventKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The events /stats counts, by the name it counts them under, each with
/// the predicate of its partial index (baseline migration): /stats counts
/// with exactly these, and a deleted conversation keeps exactly these,
/// without content, so the counts stay right.
pub(crate) fn counted() -> [(&'static str, String); 4] {
    let (decision, handoff) = (EventKind::Decision, EventKind::Handoff);
    [
        (
            "compact",
            format!("kind = '{decision}' AND payload->>'decision' = 'compact'"),
        ),
        (
            "rollover",
            format!("kind = '{decision}' AND payload->>'decision' = 'rollover'"),
        ),
        (
            "rollovers",
            format!("kind = '{handoff}' AND payload->>'role' = 'predecessor'"),
        ),
        (
            "declined_rollovers",
            format!("kind = '{}'", EventKind::RolloverDeclined),
        ),
    ]
}

/// What a counted event keeps of its payload once its conversation is
/// deleted: what /stats reads of it.
pub(crate) fn counted_payload() -> String {
    format!(
        "CASE kind WHEN '{}' THEN jsonb_build_object('decision', payload->'decision')
                   WHEN '{}' THEN jsonb_build_object('role', payload->'role')
                   ELSE '{{}}'::jsonb END",
        EventKind::Decision,
        EventKind::Handoff
    )
}

/// One entry of the log.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub(crate) struct Event {
    /// 1, 2, 3… within the conversation, without gaps.
    pub seq: i64,
    pub at: DateTime<Utc>,
    pub kind: String,
    pub payload: Value,
    /// When the service wrote it (`at` is when it happened).
    pub recorded_at: DateTime<Utc>,
}

/// Events with `seq > after`, oldest first, at most `limit`.
#[tracing::instrument(level = "debug", skip_all)]
pub(crate) async fn list(
    conn: &mut PgConnection,
    tenant: &TenantId,
    id: &ConversationId,
    after: i64,
    limit: i64,
) -> StoreResult<Vec<Event>> {
    let events = statements::query_as::<Event>(
        "SELECT seq, at, kind, payload, recorded_at FROM events
          WHERE tenant = $1 AND conversation_id = $2 AND seq > $3
          ORDER BY seq LIMIT $4",
    )
    .bind(tenant.as_str())
    .bind(id.as_str())
    .bind(after)
    .bind(limit)
    .fetch_all(on(&mut *conn))
    .await?;
    Ok(events)
}

/// The context use the agent reported after the conversation's last
/// successful compaction (or ever, before its first), if it reported any.
#[tracing::instrument(level = "debug", skip_all)]
pub(crate) async fn used_reported_since_compaction(
    conn: &mut PgConnection,
    tenant: &TenantId,
    id: &ConversationId,
) -> StoreResult<Option<u64>> {
    let used: Option<i64> = statements::query_scalar(&format!(
        "SELECT (payload->>'used')::bigint FROM events
          WHERE tenant = $1 AND conversation_id = $2 AND kind = '{usage}'
            AND seq > coalesce((SELECT max(seq) FROM events
                                 WHERE tenant = $1 AND conversation_id = $2 AND kind = '{compaction}'
                                   AND (payload->>'success')::boolean), 0)
          ORDER BY seq DESC LIMIT 1",
        usage = EventKind::Usage,
        compaction = EventKind::Compaction,
    ))
    .bind(tenant.as_str())
    .bind(id.as_str())
    .fetch_optional(on(conn))
    .await?
    .flatten();
    Ok(used.and_then(|used| u64::try_from(used).ok()).filter(|used| *used > 0))
}

#[cfg(test)]
mod tests {
    use strum::VariantArray;

    use super::EventKind;

    #[test]
    fn event_kinds_keep_the_names_stored_logs_and_listeners_know() {
        let names: Vec<&str> = EventKind::VARIANTS.iter().map(|kind| kind.as_str()).collect();
        assert_eq!(
            names,
            [
                "usage",
                "turn_ended",
                "decision",
                "compaction",
                "handoff",
                "rollover_declined",
                "scored",
                "audited",
                "prepared",
                "skipped"
            ]
        );
        assert_eq!(format!("'{}'", EventKind::RolloverDeclined), "'rollover_declined'");
    }
}
