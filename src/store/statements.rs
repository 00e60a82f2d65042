//! How statements reach the database. Postgres keeps a named statement per
//! connection, and sqlx names and reuses one per query text (the hot path
//! parses nothing after its first request). A pooler in transaction mode
//! (pgbouncer before 1.21) hands a client's next transaction to any server
//! connection, where that name means nothing or another statement: behind
//! one, every statement is sent unnamed, parsed each time it runs.
//!
//! Unnamed, a statement takes two round trips (parse, then execute), and
//! the pooler may hand the second to another server connection, where the
//! statement does not exist: so behind one, a statement outside a
//! transaction is run in a transaction of its own ([`on`]), which keeps it
//! on one server connection and commits it as it would have alone.
//!
//! It is the process's way of talking to its database, set once at startup
//! (`COMPACTD_DATABASE_POOLER=transaction`), so every statement in `src/`
//! is made here rather than with `sqlx::query` directly, and run on [`on`].

use std::sync::atomic::{AtomicBool, Ordering};

use futures_util::future::BoxFuture;
use futures_util::stream::{self, BoxStream};
use futures_util::{FutureExt, StreamExt, TryStreamExt};
use sqlx::postgres::{PgArguments, PgQueryResult, PgRow, PgStatement, PgTypeInfo};
use sqlx::query::{Query, QueryAs, QueryScalar};
use sqlx::{Connection, Describe, Either, Execute, Executor, FromRow, PgConnection, Postgres};

static UNNAMED: AtomicBool = AtomicBool::new(false);

/// From now on, every statement of this process is sent unnamed.
pub fn send_unnamed() {
    UNNAMED.store(true, Ordering::Relaxed);
}

/// Whether statements are sent unnamed (behind a transaction pooler).
pub fn unnamed() -> bool {
    UNNAMED.load(Ordering::Relaxed)
}

pub(crate) fn query(sql: &str) -> Query<'_, Postgres, PgArguments> {
    sqlx::query(sql).persistent(!unnamed())
}

pub(crate) fn query_as<'q, O>(sql: &'q str) -> QueryAs<'q, Postgres, O, PgArguments>
where
    O: for<'r> FromRow<'r, PgRow>,
{
    sqlx::query_as(sql).persistent(!unnamed())
}

pub(crate) fn query_scalar<'q, O>(sql: &'q str) -> QueryScalar<'q, Postgres, O, PgArguments>
where
    (O,): for<'r> FromRow<'r, PgRow>,
{
    sqlx::query_scalar(sql).persistent(!unnamed())
}

/// `conn` as the statements run on it: unchanged, except that behind a
/// transaction pooler a statement outside a transaction gets one of its own.
pub(crate) fn on(conn: &mut PgConnection) -> On<'_> {
    On(conn)
}

/// A connection whose lone statements are kept whole behind a pooler.
#[derive(Debug)]
pub(crate) struct On<'c>(&'c mut PgConnection);

impl On<'_> {
    fn needs_a_transaction(&self) -> bool {
        unnamed() && !self.0.is_in_transaction()
    }
}

impl<'c> Executor<'c> for On<'c> {
    type Database = Postgres;

    fn fetch_many<'e, 'q: 'e, E>(self, query: E) -> BoxStream<'e, Result<Either<PgQueryResult, PgRow>, sqlx::Error>>
    where
        'c: 'e,
        E: 'q + Execute<'q, Postgres>,
    {
        if !self.needs_a_transaction() {
            return self.0.fetch_many(query);
        }
        let conn = self.0;
        let all = async move {
            let mut tx = conn.begin().await?;
            let results: Vec<_> = (&mut *tx).fetch_many(query).try_collect().await?;
            tx.commit().await?;
            Ok::<_, sqlx::Error>(stream::iter(results.into_iter().map(Ok)))
        };
        stream::once(all).try_flatten().boxed()
    }

    fn fetch_optional<'e, 'q: 'e, E>(self, query: E) -> BoxFuture<'e, Result<Option<PgRow>, sqlx::Error>>
    where
        'c: 'e,
        E: 'q + Execute<'q, Postgres>,
    {
        if !self.needs_a_transaction() {
            return self.0.fetch_optional(query);
        }
        let conn = self.0;
        async move {
            let mut tx = conn.begin().await?;
            let row = (&mut *tx).fetch_optional(query).await?;
            tx.commit().await?;
            Ok(row)
        }
        .boxed()
    }

    fn prepare_with<'e, 'q: 'e>(
        self,
        sql: &'q str,
        parameters: &'e [PgTypeInfo],
    ) -> BoxFuture<'e, Result<PgStatement<'q>, sqlx::Error>>
    where
        'c: 'e,
    {
        self.0.prepare_with(sql, parameters)
    }

    fn describe<'e, 'q: 'e>(self, sql: &'q str) -> BoxFuture<'e, Result<Describe<Postgres>, sqlx::Error>>
    where
        'c: 'e,
    {
        self.0.describe(sql)
    }
}
