//! The reads as use cases: each takes checked values, reads in one place
//! and answers domain values; REST's routes and MCP's tools both call them
//! and render the answer the same way.

pub(crate) mod compactions;
pub(crate) mod context;
pub(crate) mod conversations;
pub(crate) mod due;
pub(crate) mod export;
pub(crate) mod fleet;
pub(crate) mod keep;
pub(crate) mod turns;

use sqlx::PgConnection;

use crate::app::{AppResult, Refusal};
use crate::domain::{ConversationId, TenantId};
use crate::records::StoredConversation;

/// The conversation, or the one refusal every read gives for a conversation
/// the tenant does not have.
async fn stored(conn: &mut PgConnection, tenant: &TenantId, id: &ConversationId) -> AppResult<StoredConversation> {
    crate::store::conversations::find(conn, tenant, id)
        .await?
        .ok_or_else(|| Refusal::no_conversation(id))
}
