//! How a use case that writes runs: its slow part with no transaction open,
//! then its writes beside whatever its caller commits with them, and what it
//! claimed given back unless they commit.

use std::future::Future;

use sqlx::{Connection, PgConnection};

use super::services::{AppResult, Refusal, Services};
use crate::store::lease;

/// A use case that writes. Its slow part ([`UseCase::stage`]) runs with no
/// transaction open; its writes ([`Staged::apply`]) in the one transaction
/// the caller opens and commits.
pub(crate) trait UseCase: Send + 'static {
    type Staged: Staged;

    /// It claims something that must be given back (a conversation being
    /// compacted): it runs to the end even when its caller goes away.
    const RUN_TO_COMPLETION: bool = false;

    fn stage(self, services: &Services) -> impl Future<Output = AppResult<Self::Staged>> + Send;
}

/// What a use case's slow part staged: its writes, still to apply.
pub(crate) trait Staged: Send + 'static {
    type Answer: Send;

    fn apply<'a>(
        self,
        services: &'a Services,
        conn: &'a mut PgConnection,
    ) -> impl Future<Output = AppResult<Self::Answer>> + Send + 'a;

    /// What `stage` claimed: it goes back unless the writes commit.
    fn take_lease(&mut self) -> Option<lease::Held> {
        None
    }
}

/// What a use case's answer is.
pub(crate) type Answer<U> = <<U as UseCase>::Staged as Staged>::Answer;

/// What the caller writes beside a use case's writes, in its transaction
/// (the answer an Idempotency-Key keeps), and how the answer leaves.
pub(crate) trait Beside<A>: Send {
    type Output: Send;
    type Error: From<Refusal> + Send;

    /// Whether there is anything to commit beside the use case's writes;
    /// without, they run on one connection with no transaction around them
    /// (the hot path's writes are single statements).
    fn in_transaction(&self) -> bool;

    fn write(
        self,
        answer: A,
        conn: &mut PgConnection,
    ) -> impl Future<Output = Result<Self::Output, Self::Error>> + Send;
}

/// Nothing beside: the answer as it is.
pub(crate) struct Alone;

impl<A: Send> Beside<A> for Alone {
    type Output = A;
    type Error = Refusal;

    fn in_transaction(&self) -> bool {
        false
    }

    async fn write(self, answer: A, _: &mut PgConnection) -> AppResult<A> {
        Ok(answer)
    }
}

/// Runs a use case: its slow part, then its writes with what the caller
/// writes `beside` them. What the use case claimed goes back unless the
/// writes commit.
pub(crate) async fn perform<U, B>(services: &Services, use_case: U, beside: B) -> Result<B::Output, B::Error>
where
    U: UseCase,
    B: Beside<Answer<U>>,
{
    let mut staged = use_case.stage(services).await?;
    let claim = staged.take_lease();
    let written = async {
        let mut conn = services.warm.acquire().await.map_err(Refusal::from)?;
        let output = if beside.in_transaction() {
            let mut tx = conn.begin().await.map_err(Refusal::from)?;
            let answer = staged.apply(services, &mut tx).await?;
            let output = beside.write(answer, &mut tx).await?;
            tx.commit().await.map_err(Refusal::from)?;
            output
        } else {
            let answer = staged.apply(services, &mut conn).await?;
            beside.write(answer, &mut conn).await?
        };
        // Only a connection whose exchange ran to its end is kept warm; one
        // that failed or was dropped midway goes back through sqlx's test.
        conn.keep_warm();
        Ok(output)
    }
    .await;
    if let Some(claim) = claim {
        claim.settle(written.is_ok()).await;
    }
    written
}

/// A use case whose slow part is nothing: it is ready as it comes.
macro_rules! staged_as_it_comes {
    ($command:ty) => {
        impl $crate::app::UseCase for $command {
            type Staged = Self;

            async fn stage(self, _: &$crate::app::Services) -> $crate::app::AppResult<Self> {
                Ok(self)
            }
        }
    };
}
pub(crate) use staged_as_it_comes;
