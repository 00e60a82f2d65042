//! Deleting a conversation (SPEC §3, issue 25): its content, or its whole
//! lineage's, goes in one transaction with the audit line that says who
//! deleted how much. Asked again, it answers that it is already done.

use super::{AppResult, Refusal, Services};
use crate::domain::{ConversationId, TenantId};
use crate::store::deletions::{self, DeletionKind, Erased};
use crate::store::{self, StoreResult};

/// What a caller asks to delete.
#[derive(Debug, Clone)]
pub(crate) struct DeleteConversation {
    pub tenant: TenantId,
    pub conversation_id: ConversationId,
    /// Its predecessors and successors too, however far.
    pub lineage: bool,
    /// Who asks (the key's id; `None` in open mode), for the audit line.
    pub key_id: Option<String>,
}

/// What a deletion did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Deleted {
    /// The conversations deleted, in id order; empty when it was done before.
    pub conversations: Vec<String>,
    pub erased: Erased,
    /// The conversation was deleted by an earlier request: nothing was left.
    pub already: bool,
}

/// Deletes what `command` names; the tenant has no such conversation (and
/// never deleted one with that id): not found.
pub(crate) async fn delete_conversation(services: &Services, command: &DeleteConversation) -> AppResult<Deleted> {
    let deleted = store::retry_lost_races(|| async {
        let mut tx = services.pool.begin().await?;
        let deleted = delete_in(&mut tx, command).await?;
        tx.commit().await?;
        Ok(deleted)
    })
    .await?;
    let Some(deleted) = deleted else {
        return Err(Refusal::no_conversation(&command.conversation_id));
    };
    if !deleted.already {
        counted(kind_of(command), &deleted.erased);
        tracing::info!(
            tenant = %command.tenant,
            key = command.key_id.as_deref().unwrap_or("open"),
            kind = kind_of(command).as_str(),
            conversations = deleted.erased.conversations,
            turns = deleted.erased.turns,
            "conversation data deleted"
        );
    }
    Ok(deleted)
}

fn kind_of(command: &DeleteConversation) -> DeletionKind {
    if command.lineage {
        DeletionKind::Lineage
    } else {
        DeletionKind::Conversation
    }
}

async fn delete_in(tx: &mut sqlx::PgConnection, command: &DeleteConversation) -> StoreResult<Option<Deleted>> {
    let (tenant, id) = (&command.tenant, &command.conversation_id);
    let locked = deletions::lock(tx, tenant, id, command.lineage).await?;
    if locked.is_empty() {
        let done_before = deletions::was_deleted(tx, tenant, id).await?;
        return Ok(done_before.then(|| Deleted {
            conversations: Vec::new(),
            erased: Erased::default(),
            already: true,
        }));
    }
    let erased = erase_and_record(tx, tenant, kind_of(command), command.key_id.as_deref(), &locked).await?;
    Ok(Some(Deleted {
        conversations: locked,
        erased,
        already: false,
    }))
}

/// Deletes the (locked) conversations `ids` of `tenant` and writes the
/// audit line that says so, in the caller's transaction.
pub(crate) async fn erase_and_record(
    tx: &mut sqlx::PgConnection,
    tenant: &TenantId,
    kind: DeletionKind,
    key_id: Option<&str>,
    ids: &[String],
) -> StoreResult<Erased> {
    let erased = deletions::erase(tx, tenant, ids).await?;
    deletions::record(tx, tenant, kind, key_id, ids, &erased).await?;
    Ok(erased)
}

/// Counts a committed deletion in /metrics.
pub(crate) fn counted(kind: DeletionKind, erased: &Erased) {
    let kind = kind.as_str();
    metrics::counter!("compactd_deletions_total", "kind" => kind).increment(1);
    metrics::counter!("compactd_deleted_conversations_total", "kind" => kind).increment(erased.conversations);
}
