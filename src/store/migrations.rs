//! The schema's migrations: one baseline (`migrations/`), and the way an
//! older database joins it. Databases made before the baseline ran the ten
//! migrations it was squashed from (`migrations/legacy/`); such a database
//! is first brought to the last of them, then adopted: its record of the ten
//! is replaced by the baseline's, which built the same schema
//! (tests/api/migrations.rs compares the two, object by object).
//!
//! Three of the ten were edited after some databases had applied them (an
//! applied migration must never change: sqlx refuses a database whose
//! record disagrees with the file, and today's main refuses such a
//! database). Each earlier text is known here by its checksum, with the
//! statements that turn what it built into what the final text builds.

use sqlx::migrate::{MigrateError, Migrator};
use sqlx::{Connection, Executor, PgConnection, PgPool};

use super::statements::{self, on};
use crate::domain::text::hex;

/// The schema's migrations, embedded: the binary carries its schema.
pub(crate) static MIGRATOR: Migrator = sqlx::migrate!("./migrations");

/// The migrations the baseline was squashed from, for databases part way
/// along them.
static LEGACY: Migrator = sqlx::migrate!("./migrations/legacy");

/// The baseline's version.
const BASELINE: i64 = 20261201000000;

/// The first and last legacy versions.
const LEGACY_VERSIONS: std::ops::RangeInclusive<i64> = 20261130000001..=20261130000010;

/// Serializes adoption across replicas starting at once (any number other
/// than sqlx's own lock key would do: this is "compactd" in ASCII).
const ADOPTION_LOCK: i64 = 0x636f_6d70_6163_7464;

/// An earlier text of a legacy migration: its checksum (SHA-384, hex) and
/// what turns its schema into the final text's.
struct EarlierText {
    version: i64,
    checksum: &'static str,
    repair: &'static str,
}

const EARLIER_TEXTS: [EarlierText; 4] = [
    // The first text: CHECK constraints on the hot tables (a tenth of the hot
    // path's throughput) and an idempotency answer that could not be pending.
    EarlierText {
        version: 20261130000001,
        checksum: "b343ff481bca51ff755e24d31e225d97bf7ef8fdbdd6950959dfc0e9b7e1dc72c8ae37bd724ce10a0f43c0dee15bd76a",
        repair: "DO $$
                 DECLARE c record;
                 BEGIN
                     FOR c IN SELECT conrelid::regclass AS tab, conname FROM pg_constraint
                               WHERE contype = 'c'
                                 AND conrelid IN ('conversations'::regclass, 'events'::regclass,
                                                  'turns'::regclass, 'idempotency_keys'::regclass)
                     LOOP
                         EXECUTE format('ALTER TABLE %s DROP CONSTRAINT %I', c.tab, c.conname);
                     END LOOP;
                 END $$;
                 ALTER TABLE idempotency_keys ALTER COLUMN status DROP NOT NULL, ALTER COLUMN body DROP NOT NULL;",
    },
    // The second: the idempotency answer still could not be pending.
    EarlierText {
        version: 20261130000001,
        checksum: "2f340cd7e3668317a5b925ae12772e1c783d63bd2a799722f42aa5ca2235ca4781bb25b709fc77bcc9bf5ccc6e41d552",
        repair: "ALTER TABLE idempotency_keys ALTER COLUMN status DROP NOT NULL, ALTER COLUMN body DROP NOT NULL;",
    },
    // A comment changed; the schema did not.
    EarlierText {
        version: 20261130000004,
        checksum: "abe27ddd394fb42f96a62bb9d22075242ee4e3483fdbad356928e034b8118f40450699ebf3956ec746c9bd37c811abb5",
        repair: "",
    },
    // Before the keep set's hourly sums.
    EarlierText {
        version: 20261130000008,
        checksum: "3303ef244fc58faf1e9efd94b2d3a7574049a60bef50c32758488a73e27ae62836ae73be48ee12618dc5b2aaca67d55c",
        repair: "CREATE TABLE IF NOT EXISTS keep_hourly (
                     tenant   text        NOT NULL,
                     hour     timestamptz NOT NULL,
                     kind     text        NOT NULL,
                     checked  bigint      NOT NULL,
                     present  bigint      NOT NULL,
                     appended bigint      NOT NULL,
                     parked   bigint      NOT NULL,
                     PRIMARY KEY (tenant, hour, kind)
                 );
                 CREATE INDEX IF NOT EXISTS compactions_with_keep ON compactions (tenant, at) WHERE keep IS NOT NULL;",
    },
];

/// Brings the database's schema up to date: an older database is adopted
/// first, then whatever follows the baseline runs.
#[tracing::instrument(level = "debug", skip_all)]
pub async fn migrate(pool: &PgPool) -> Result<(), MigrateError> {
    {
        let mut conn = pool.acquire().await?;
        adopt_legacy(&mut conn).await?;
        create_ledger_reader(&mut conn).await?;
    }
    MIGRATOR.run(pool).await
}

/// Brings the schema at `options` up to date on a connection of its own,
/// closed after: Postgres itself, when the service's pool goes through a
/// transaction pooler (migrations hold a session lock).
pub async fn migrate_at(options: sqlx::postgres::PgConnectOptions) -> Result<(), MigrateError> {
    let pool = super::pool(options, 1);
    let migrated = migrate(&pool).await;
    pool.close().await;
    migrated
}

/// The ledger's read-only role, made before the baseline looks for it.
/// Roles are cluster-wide: two databases of one cluster migrated at once
/// (replicas of two deployments, parallel tests on a fresh machine) both
/// find it missing, and the second `CREATE ROLE` fails with a unique
/// violation the baseline does not catch (and, applied, cannot change).
async fn create_ledger_reader(conn: &mut PgConnection) -> Result<(), MigrateError> {
    create_role_once(conn, "compactd_ledger_reader").await
}

/// Creates the role `name` (`NOLOGIN`) unless it exists or the database
/// user may not create roles (a managed Postgres), however many sessions
/// ask at once: the loser of a race sees `duplicate_object` or, when both
/// passed the existence check together, `unique_violation`; both mean it
/// exists.
///
/// # Panics
/// When `name` is not an identifier Postgres takes unquoted and whole: a
/// lower-case ASCII letter or an underscore, then those or digits, at most
/// 63 bytes (it is written into the statement).
#[tracing::instrument(level = "debug", skip_all)]
pub async fn create_role_once(conn: &mut PgConnection, name: &str) -> Result<(), MigrateError> {
    assert!(
        (1..=63).contains(&name.len())
            && name.starts_with(|c: char| c.is_ascii_lowercase() || c == '_')
            && name
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_'),
        "a role name of lower-case letters, digits and underscores, not {name:?}"
    );
    statements::query(&format!(
        "DO $$
         BEGIN
             IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '{name}')
                AND (SELECT rolsuper OR rolcreaterole FROM pg_roles WHERE rolname = current_user) THEN
                 CREATE ROLE {name} NOLOGIN;
             END IF;
         EXCEPTION WHEN duplicate_object OR unique_violation THEN
             NULL;
         END $$"
    ))
    .execute(on(&mut *conn))
    .await?;
    Ok(())
}

/// Adopts a database made by the legacy migrations, if this is one: in one
/// transaction, under a lock replicas starting together share, the earlier
/// texts' schemas repaired, the legacy migrations it lacks applied, and its
/// record of them replaced by the baseline's.
async fn adopt_legacy(conn: &mut PgConnection) -> Result<(), MigrateError> {
    let mut tx = conn.begin().await?;
    statements::query("SELECT pg_advisory_xact_lock($1)")
        .bind(ADOPTION_LOCK)
        .execute(&mut *tx)
        .await?;
    let recorded: bool = statements::query_scalar("SELECT to_regclass('_sqlx_migrations') IS NOT NULL")
        .fetch_one(&mut *tx)
        .await?;
    if !recorded {
        return Ok(());
    }
    let applied: Vec<(i64, Vec<u8>)> =
        statements::query_as("SELECT version, checksum FROM _sqlx_migrations WHERE success ORDER BY version")
            .fetch_all(&mut *tx)
            .await?;
    let legacy = applied.iter().any(|(version, _)| LEGACY_VERSIONS.contains(version));
    if !legacy || applied.iter().any(|(version, _)| *version == BASELINE) {
        return Ok(());
    }
    tracing::info!("this database was made by the migrations before the baseline: adopting it");
    for (version, checksum) in &applied {
        let hex = hex(checksum);
        if let Some(earlier) = EARLIER_TEXTS
            .iter()
            .find(|text| text.version == *version && text.checksum == hex)
        {
            tracing::info!(version, "repairing what an earlier text of this migration built");
            (&mut *tx).execute(earlier.repair).await?;
        }
    }
    // The rest of the ten, where it stopped part way.
    for migration in LEGACY.iter() {
        if !applied.iter().any(|(version, _)| *version == migration.version) {
            tracing::info!(version = migration.version, "applying a migration before the baseline");
            (&mut *tx).execute(&*migration.sql).await?;
        }
    }
    let (description, checksum) = MIGRATOR
        .iter()
        .find(|migration| migration.version == BASELINE)
        .map(|migration| (migration.description.to_string(), migration.checksum.to_vec()))
        .unwrap_or_default();
    statements::query("DELETE FROM _sqlx_migrations WHERE version BETWEEN $1 AND $2")
        .bind(LEGACY_VERSIONS.start())
        .bind(LEGACY_VERSIONS.end())
        .execute(&mut *tx)
        .await?;
    statements::query(
        "INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time)
         VALUES ($1, $2, true, $3, 0)",
    )
    .bind(BASELINE)
    .bind(description)
    .bind(checksum)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(())
}
