//! End a turn (SPEC §3 /turn-ended): counts the turn and its user messages,
//! clears the quiet-spell flags, and stores its text as the next turn.

use chrono::{DateTime, Utc};
use sqlx::PgConnection;

use super::{AppResult, Services, Staged, staged_as_it_comes};
use crate::domain::{ConversationId, TenantId};
use crate::policy::TurnEnd;
use crate::records::{StoredConversation, TurnText};
use crate::store::conversations::{self};

/// A checked turn end.
#[derive(Debug)]
pub(crate) struct EndTurn {
    pub tenant: TenantId,
    pub id: ConversationId,
    pub turn: TurnEnd,
    pub text: TurnText,
    pub at: DateTime<Utc>,
}

/// The state after the turn, and the stored turn's id when it had text.
#[derive(Debug)]
pub(crate) struct TurnEnded {
    pub stored: StoredConversation,
    pub turn_id: Option<i64>,
}

staged_as_it_comes!(EndTurn);

impl Staged for EndTurn {
    type Answer = TurnEnded;

    async fn apply(self, _: &Services, conn: &mut PgConnection) -> AppResult<TurnEnded> {
        let (stored, turn_id) =
            conversations::end_turn(conn, &self.tenant, &self.id, &self.turn, self.text, self.at).await?;
        Ok(TurnEnded { stored, turn_id })
    }
}
