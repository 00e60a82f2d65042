//! What keeps the hot path's cost flat (issue 38): a row looked up by its
//! key is planned on the key even where the planner knows nothing of the
//! table yet (a new database: the plans a connection makes then are the ones
//! it keeps), and the day a conversation was last written is written by the
//! statements that write it, not generated for every update.

use serde_json::{Value, json};
use sqlx::Row;

use crate::helpers::{Database, spawn_app, spawn_with_pool, test_settings};

/// Tables whose lookup by key a newer index can still win, and why that is
/// left: none is on the hot path, and each reads by its other index.
const LOOKUPS_OFF_THE_KEY: &[(&str, &str)] = &[
    (
        "compactions",
        "read by (tenant, id) and by time; (tenant, id) is the key Citus can enforce",
    ),
    ("preparations", "read by time; looked up by key once per preparation"),
];

/// The index a generic plan of `SELECT * FROM table WHERE <key> = <params>`
/// scans `table` with (`None`: not an index scan).
async fn index_of_the_lookup(conn: &mut sqlx::PgConnection, table: &str, key: &[(String, String)]) -> Option<String> {
    let condition: Vec<String> = key
        .iter()
        .enumerate()
        .map(|(i, (column, _))| format!("\"{column}\" = ${}", i + 1))
        .collect();
    let types: Vec<&str> = key.iter().map(|(_, kind)| kind.as_str()).collect();
    let nulls = vec!["NULL"; key.len()].join(", ");
    sqlx::raw_sql("SET plan_cache_mode = force_generic_plan")
        .execute(&mut *conn)
        .await
        .unwrap();
    sqlx::raw_sql(&format!(
        "PREPARE lookup ({}) AS SELECT * FROM \"{table}\" WHERE {}",
        types.join(", "),
        condition.join(" AND ")
    ))
    .execute(&mut *conn)
    .await
    .unwrap();
    let plan: Value =
        sqlx::query_scalar::<_, sqlx::types::Json<Value>>(&format!("EXPLAIN (FORMAT JSON) EXECUTE lookup ({nulls})"))
            .fetch_one(&mut *conn)
            .await
            .unwrap()
            .0;
    sqlx::raw_sql("DEALLOCATE lookup").execute(&mut *conn).await.unwrap();
    plan[0]["Plan"]["Index Name"].as_str().map(str::to_owned)
}

#[tokio::test]
async fn a_lookup_by_key_is_planned_on_the_key_in_a_new_database() {
    let database = Database::create().await;
    let mut conn = database.pool.acquire().await.unwrap();
    let keys = sqlx::query(
        "SELECT c.relname::text AS table_name, i.indexrelid::regclass::text AS key_name,
                array_agg(a.attname::text ORDER BY k.ord) AS columns,
                array_agg(format_type(a.atttypid, a.atttypmod) ORDER BY k.ord) AS types
           FROM pg_index i
           JOIN pg_class c ON c.oid = i.indrelid
           JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = current_schema()
           CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord)
           JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = k.attnum
          WHERE i.indisprimary AND c.relname <> '_sqlx_migrations'
          GROUP BY 1, 2 ORDER BY 1",
    )
    .fetch_all(&mut *conn)
    .await
    .unwrap();
    assert!(keys.len() > 10, "every table of the schema: {}", keys.len());
    let mut off_the_key = Vec::new();
    for row in &keys {
        let table: String = row.get("table_name");
        let key_name: String = row.get("key_name");
        let columns: Vec<String> = row.get("columns");
        let types: Vec<String> = row.get("types");
        let key: Vec<(String, String)> = columns.into_iter().zip(types).collect();
        let index = index_of_the_lookup(&mut conn, &table, &key).await;
        if index.as_deref() != Some(key_name.as_str()) {
            off_the_key.push((table, index));
        }
    }
    let unlisted: Vec<_> = off_the_key
        .iter()
        .filter(|(table, _)| !LOOKUPS_OFF_THE_KEY.iter().any(|(listed, _)| listed == table))
        .collect();
    assert!(unlisted.is_empty(), "lookups by key planned off the key: {unlisted:?}");
    for (listed, why) in LOOKUPS_OFF_THE_KEY {
        assert!(
            off_the_key.iter().any(|(table, _)| table == listed),
            "{listed} ({why}) is looked up on its key now: take it off the list"
        );
    }
    // The hot path's own: the conversation, by its id.
    assert!(
        keys.iter()
            .any(|row| row.get::<String, _>("table_name") == "conversations")
    );
}

async fn activity(app: &crate::helpers::TestApp, id: &str) -> (bool, bool) {
    let row = sqlx::query(
        "SELECT active_on = (updated_at AT TIME ZONE 'UTC')::date AS of_its_last_write,
                active_on = (now() AT TIME ZONE 'UTC')::date AS today
           FROM conversations WHERE conversation_id = $1",
    )
    .bind(id)
    .fetch_one(&app.pool)
    .await
    .unwrap();
    (row.get("of_its_last_write"), row.get("today"))
}

async fn quiet_for_forty_days(app: &crate::helpers::TestApp, id: &str) {
    sqlx::query(
        "UPDATE conversations SET updated_at = updated_at - interval '40 days',
                active_on = active_on - 40 WHERE conversation_id = $1",
    )
    .bind(id)
    .execute(&app.pool)
    .await
    .unwrap();
    assert_eq!(activity(app, id).await, (true, false));
}

#[tokio::test]
async fn every_hot_write_after_a_quiet_spell_marks_the_conversation_active_today() {
    let app = spawn_app().await;
    let id = "quiet-then-busy";
    let writes: [(&str, Value); 3] = [
        (
            "/usage",
            json!({"conversation_id": id, "used": 190_000, "size": 200_000}),
        ),
        ("/turn-ended", json!({"conversation_id": id})),
        ("/decide", json!({"conversation_id": id})),
    ];
    let (status, _) = app.post_json("/usage", &writes[0].1).await;
    assert_eq!(status, 200);
    assert_eq!(
        activity(&app, id).await,
        (true, true),
        "a new conversation is active today"
    );
    for (path, body) in &writes {
        quiet_for_forty_days(&app, id).await;
        let (status, answer) = app.post_json(path, body).await;
        assert_eq!(status, 200, "{path}: {answer}");
        if *path == "/decide" {
            assert_ne!(answer["decision"], "keep", "a decision that is written: {answer}");
        }
        assert_eq!(activity(&app, id).await, (true, true), "after {path}");
    }
}

/// A connection the hot path kept warm is checked out of sqlx's pool, so a
/// caller asking the pool itself (a fleet read begins its transaction there)
/// would wait a whole acquire timeout for it, and get a 503, if nothing gave
/// it back once the pool filled.
#[tokio::test]
async fn a_connection_kept_warm_never_keeps_a_fleet_read_waiting() {
    let app = spawn_with_pool(test_settings(), 2).await;
    let (status, answer) = app
        .post_json(
            "/usage",
            &json!({"conversation_id": "warm", "used": 1_000, "size": 200_000}),
        )
        .await;
    assert_eq!(status, 200, "{answer}");
    // The other of the two connections, held here: the pool has none left
    // but the one the hot path kept.
    let _held = app.pool.acquire().await.expect("the pool's second connection");
    for path in ["/compactions", "/stats"] {
        let (status, answer) = app.get_json(path).await;
        assert_eq!(status, 200, "{path}: {answer}");
    }
    let (status, answer) = app
        .post_json(
            "/usage",
            &json!({"conversation_id": "warm", "used": 2_000, "size": 200_000}),
        )
        .await;
    assert_eq!(status, 200, "and the hot path still answers: {answer}");
}
