//! The schema's one baseline, and older databases joining it: a database
//! made by the ten migrations the baseline was squashed from (all of them,
//! part of them, or with texts of them that were edited afterwards) is
//! adopted and ends up the same as a new one, object by object, its data
//! kept.

use std::path::{Path, PathBuf};

use compactd::store;
use sqlx::migrate::Migrator;
use sqlx::{ConnectOptions, PgPool};

use crate::helpers::Database;

const BASELINE: i64 = 20261201000000;

/// Every migration's version: the baseline and those that follow it.
fn versions() -> Vec<i64> {
    let mut versions: Vec<i64> = std::fs::read_dir("migrations")
        .unwrap()
        .filter_map(|entry| {
            let name = entry.unwrap().file_name().into_string().unwrap();
            name.strip_suffix(".sql")?.split('_').next()?.parse().ok()
        })
        .collect();
    versions.sort();
    versions
}

/// A database the baseline alone made: what adopting an older one must
/// leave, before the migrations after the baseline run.
async fn baseline_only() -> Database {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let folder = std::env::temp_dir().join(format!("compactd-baseline-{}-{nanos}", std::process::id()));
    let _ = std::fs::remove_dir_all(&folder);
    std::fs::create_dir_all(&folder).unwrap();
    let name = format!("{BASELINE}_baseline.sql");
    std::fs::copy(Path::new("migrations").join(&name), folder.join(&name)).unwrap();
    let database = Database::empty().await;
    Migrator::new(folder.as_path())
        .await
        .unwrap()
        .run(&database.pool)
        .await
        .unwrap();
    database
}

/// Everything the schema is made of, one line per object, sorted: columns
/// (in order, with types, defaults and generation), indexes, constraints,
/// functions, views, triggers and table options.
async fn schema_of(pool: &PgPool) -> Vec<String> {
    sqlx::query_scalar(
        "SELECT format('column %s.%s #%s %s %s default=%s generated=%s', table_name, column_name, ordinal_position,
                       data_type, is_nullable, column_default, generation_expression)
           FROM information_schema.columns
          WHERE table_schema = 'public' AND table_name <> '_sqlx_migrations'
         UNION ALL
         SELECT 'index ' || indexdef FROM pg_indexes
          WHERE schemaname = 'public' AND tablename <> '_sqlx_migrations'
         UNION ALL
         SELECT format('constraint %s %s %s', conrelid::regclass, conname, pg_get_constraintdef(oid))
           FROM pg_constraint
          WHERE connamespace = 'public'::regnamespace AND conrelid <> '_sqlx_migrations'::regclass
         UNION ALL
         SELECT 'function ' || pg_get_functiondef(oid) FROM pg_proc WHERE pronamespace = 'public'::regnamespace
         UNION ALL
         SELECT format('view %s %s', viewname, definition) FROM pg_views WHERE schemaname = 'public'
         UNION ALL
         SELECT 'trigger ' || pg_get_triggerdef(oid) FROM pg_trigger WHERE NOT tgisinternal
         UNION ALL
         SELECT format('relation %s %s %s', relname, relkind, reloptions) FROM pg_class
          WHERE relnamespace = 'public'::regnamespace AND relname NOT LIKE '_sqlx_migrations%'
         ORDER BY 1",
    )
    .fetch_all(pool)
    .await
    .unwrap()
}

async fn versions_of(pool: &PgPool) -> Vec<i64> {
    sqlx::query_scalar("SELECT version FROM _sqlx_migrations ORDER BY version")
        .fetch_all(pool)
        .await
        .unwrap()
}

/// A folder of migrations: the legacy ones, the first `take` of them, with
/// the earlier texts named in `earlier` (fixture files) in place of theirs.
fn legacy_folder(take: usize, earlier: &[&str]) -> PathBuf {
    let folder = std::env::temp_dir().join(format!(
        "compactd-legacy-{}-{take}-{}",
        std::process::id(),
        earlier.join("+").replace('/', "_")
    ));
    let _ = std::fs::remove_dir_all(&folder);
    std::fs::create_dir_all(&folder).unwrap();
    let mut files: Vec<PathBuf> = std::fs::read_dir("migrations/legacy")
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    files.sort();
    for file in files.into_iter().take(take) {
        let name = file.file_name().unwrap().to_str().unwrap().to_owned();
        let version = name.split('_').next().unwrap();
        let text = match earlier.iter().find(|fixture| fixture.starts_with(version)) {
            Some(fixture) => Path::new("tests/api/fixtures/edited_migrations").join(fixture),
            None => file,
        };
        std::fs::copy(text, folder.join(&name)).unwrap();
    }
    folder
}

/// A database as the legacy migrations in `folder` left it, with a little data.
async fn legacy_database(folder: &Path) -> Database {
    let database = Database::empty().await;
    Migrator::new(folder).await.unwrap().run(&database.pool).await.unwrap();
    sqlx::query("INSERT INTO upstream_usage (tenant, day, input_tokens, output_tokens, calls) VALUES ('acme', '2026-11-30', 5, 7, 1)")
        .execute(&database.pool)
        .await
        .unwrap();
    database
}

async fn adopted_like_a_new_one(legacy: &Database) {
    let fresh = Database::create().await;
    store::migrate(&legacy.pool)
        .await
        .expect("the older database is adopted");
    assert_eq!(versions_of(&legacy.pool).await, versions());
    assert_eq!(schema_of(&legacy.pool).await, schema_of(&fresh.pool).await);
    let kept: (i64, i64) =
        sqlx::query_as("SELECT input_tokens, output_tokens FROM upstream_usage WHERE tenant = 'acme'")
            .fetch_one(&legacy.pool)
            .await
            .unwrap();
    assert_eq!(kept, (5, 7), "the data stays");
    store::migrate(&legacy.pool)
        .await
        .expect("and migrating again changes nothing");
    assert_eq!(versions_of(&legacy.pool).await, versions());
}

#[tokio::test]
async fn a_new_database_is_made_by_the_baseline_and_what_follows_it() {
    let database = Database::create().await;
    assert_eq!(versions_of(&database.pool).await, versions());
    assert_eq!(versions()[0], BASELINE, "{:?}", versions());
    assert!(schema_of(&database.pool).await.len() > 100);
}

#[tokio::test]
async fn a_database_made_by_the_ten_older_migrations_is_adopted_unchanged() {
    let legacy = legacy_database(&legacy_folder(10, &[])).await;
    let before = schema_of(&legacy.pool).await;
    adopted_like_a_new_one(&legacy).await;
    assert_eq!(
        before,
        schema_of(&baseline_only().await.pool).await,
        "the older migrations built what the baseline builds: adoption alone changes no object"
    );
}

#[tokio::test]
async fn a_database_part_way_along_the_older_migrations_is_brought_to_their_end_then_adopted() {
    let legacy = legacy_database(&legacy_folder(7, &[])).await;
    adopted_like_a_new_one(&legacy).await;
}

#[tokio::test]
async fn a_database_made_with_texts_edited_since_is_repaired_then_adopted() {
    for earlier in [
        &[
            "20261130000001_core.e73f390.sql",
            "20261130000004_scores_and_memory.82d20cd.sql",
        ][..],
        &["20261130000001_core.229fa3b.sql", "20261130000008_keep_set.556d65a.sql"][..],
    ] {
        let legacy = legacy_database(&legacy_folder(10, earlier)).await;
        let recorded = sqlx::query_scalar::<_, i64>("SELECT count(*) FROM _sqlx_migrations")
            .fetch_one(&legacy.pool)
            .await
            .unwrap();
        assert_eq!(recorded, 10);
        adopted_like_a_new_one(&legacy).await;
    }
}

#[tokio::test]
async fn sessions_racing_to_create_a_role_all_succeed_and_make_it_once() {
    // Roles are cluster-wide: a name of this run's own, dropped at the end.
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let role = format!("compactd_race_{}_{nanos}", std::process::id());
    let racers = 8;
    let start = std::sync::Arc::new(tokio::sync::Barrier::new(racers));
    let mut racing = tokio::task::JoinSet::new();
    for _ in 0..racers {
        let (start, role) = (start.clone(), role.clone());
        racing.spawn(async move {
            let mut conn = crate::helpers::admin_options().connect().await.unwrap();
            start.wait().await;
            store::create_role_once(&mut conn, &role).await
        });
    }
    let mut failures = Vec::new();
    while let Some(raced) = racing.join_next().await {
        if let Err(err) = raced.unwrap() {
            failures.push(err.to_string());
        }
    }
    let mut conn = crate::helpers::admin_options().connect().await.unwrap();
    let made: i64 = sqlx::query_scalar("SELECT count(*) FROM pg_roles WHERE rolname = $1")
        .bind(&role)
        .fetch_one(&mut conn)
        .await
        .unwrap();
    sqlx::query(&format!("DROP ROLE IF EXISTS {role}"))
        .execute(&mut conn)
        .await
        .unwrap();
    assert_eq!(failures, Vec::<String>::new(), "every session that raced succeeded");
    assert_eq!(made, 1);
}
