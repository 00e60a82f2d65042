//! Report usage (SPEC §3 /usage): after a model call, the context in use and
//! the call's token counts; creates the conversation on first sight and
//! observes the cache life.

use chrono::{DateTime, Utc};
use sqlx::PgConnection;

use super::{Outcome, Ready, Services, ready_as_it_comes};
use crate::domain::{ConversationId, TenantId};
use crate::policy::UsageReport;
use crate::store::{StoredConversation, conversations};

/// A checked usage report.
#[derive(Debug)]
pub(crate) struct RecordUsage {
    pub tenant: TenantId,
    pub id: ConversationId,
    pub report: UsageReport,
    pub at: DateTime<Utc>,
}

ready_as_it_comes!(RecordUsage);

impl Ready for RecordUsage {
    type Answer = StoredConversation;

    async fn apply(self, services: &Services, conn: &mut PgConnection) -> Outcome<StoredConversation> {
        let stored =
            conversations::record_usage(conn, &self.tenant, &self.id, &self.report, self.at, &services.policy).await?;
        Ok(stored)
    }
}
