//! The path past one Postgres (issue 25; README, *Past one Postgres*): with
//! the tenant as the distribution column, every table but the reference
//! ones keeps a tenant's rows on one shard, every key can be enforced there,
//! and every statement of the store names its tenant, so it runs on one
//! shard — all but the cross-tenant ones listed here, with why.
//!
//! Checked over the live schema (what the migrations make) and over the
//! store's SQL as written.

use std::path::Path;

use crate::helpers::Database;

/// Tables copied whole to every shard: small, read by every tenant's
/// requests, and not of any one tenant.
const REFERENCE_TABLES: [&str; 2] = ["api_keys", "processes"];

/// Tables distributed by `tenant`, co-located (a tenant's rows of each on
/// the same shard, so joins and foreign keys between them stay local).
const DISTRIBUTED_TABLES: [&str; 13] = [
    "compactions",
    "conversations",
    "deletions",
    "events",
    "idempotency_keys",
    "keep_hourly",
    "keep_items",
    "preparations",
    "purges",
    "turn_pieces_due",
    "turn_search_pieces",
    "turns",
    "upstream_usage",
];

/// The store's statements that do not name one tenant: the background's
/// claims across tenants (each would be a multi-shard statement, or a claim
/// per shard) and the queues' depths for /metrics. `(file, the statement's
/// start, why)`.
const CROSS_TENANT: [(&str, &str, &str); 15] = [
    (
        "processes.rs",
        "INSERT INTO processes",
        "a service process says it is alive (a reference table: of no tenant)",
    ),
    (
        "processes.rs",
        "DELETE FROM processes WHERE id",
        "a service process says it stopped",
    ),
    (
        "processes.rs",
        "DELETE FROM processes WHERE seen_at",
        "forgets processes long dead",
    ),
    (
        "idempotency.rs",
        "DELETE FROM idempotency_keys WHERE",
        "forgets every tenant's expired keys",
    ),
    (
        "preparations.rs",
        "UPDATE preparations p SET claimed_at",
        "claims the next preparation of any tenant",
    ),
    (
        "preparations.rs",
        "SELECT count(*) FROM preparations",
        "the preparations' queue depth",
    ),
    (
        "prepared.rs",
        "WITH expired AS ( UPDATE preparations",
        "expires every tenant's unused preparations",
    ),
    (
        "purges.rs",
        "UPDATE purges SET claimed_at",
        "claims the oldest purge of any tenant",
    ),
    (
        "retention.rs",
        "SELECT tenant, conversation_id",
        "finds every tenant's idle conversations and locks what they link to",
    ),
    (
        "scoring.rs",
        "UPDATE turns t SET score_claimed_at",
        "claims turns of any tenant to score",
    ),
    ("scoring.rs", "SELECT count(*) FROM turns", "the scorer's queue depth"),
    (
        "search_pieces.rs",
        "SELECT tenant, conversation_id, seq FROM turn_pieces_due",
        "claims the next long turn of any tenant",
    ),
    (
        "search_pieces.rs",
        "SELECT count(*) FROM turn_pieces_due",
        "the search pieces' queue depth",
    ),
    (
        "due.rs",
        "SELECT {columns} FROM conversations WHERE ($1::text IS NULL OR tenant = $1)",
        "the idle sweep reads every tenant's (a tenant's /due, one)",
    ),
    ("keys.rs", "", "api_keys is a reference table"),
];

async fn rows(database: &Database, sql: &str) -> Vec<(String, String, String)> {
    sqlx::query_as(sql).fetch_all(&database.pool).await.unwrap()
}

#[tokio::test]
async fn every_table_is_distributed_by_tenant_or_a_reference_table_and_every_key_leads_with_the_tenant() {
    let database = Database::create().await;

    let tables: Vec<String> = sqlx::query_scalar(
        "SELECT relname::text FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
          WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p') AND relname NOT LIKE '\\_sqlx%'
          ORDER BY 1",
    )
    .fetch_all(&database.pool)
    .await
    .unwrap();
    let mut decided: Vec<&str> = DISTRIBUTED_TABLES.iter().chain(&REFERENCE_TABLES).copied().collect();
    decided.sort_unstable();
    assert_eq!(
        tables, decided,
        "every table is decided: distributed by tenant, or a reference table"
    );

    // Every primary key and unique index of a distributed table: a shard
    // can enforce it only if it holds the tenant's rows, so it leads with
    // the tenant.
    let keys = rows(
        &database,
        "SELECT c.relname::text, i.relname::text, a.attname::text
           FROM pg_index x JOIN pg_class c ON c.oid = x.indrelid JOIN pg_class i ON i.oid = x.indexrelid
           JOIN pg_namespace n ON n.oid = c.relnamespace
           LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = x.indkey[0]
          WHERE n.nspname = current_schema() AND (x.indisunique OR x.indisprimary)
          ORDER BY 1, 2",
    )
    .await;
    let distributed = |table: &str| DISTRIBUTED_TABLES.contains(&table);
    let not_led: Vec<_> = keys
        .iter()
        .filter(|(table, _, first)| distributed(table) && first != "tenant")
        .collect();
    assert!(
        not_led.is_empty(),
        "unique keys that do not lead with the tenant: {not_led:?}"
    );
    assert!(
        DISTRIBUTED_TABLES
            .iter()
            .all(|table| keys.iter().any(|(t, index, _)| t == table && index.ends_with("_pkey"))),
        "every distributed table has a primary key: {keys:?}"
    );

    // A foreign key between distributed tables stays on one shard when both
    // sides lead with the tenant.
    let foreign = rows(
        &database,
        "SELECT c.relname::text || ' -> ' || r.relname::text, a.attname::text, b.attname::text
           FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid JOIN pg_class r ON r.oid = k.confrelid
           JOIN pg_namespace n ON n.oid = c.relnamespace
           JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = k.conkey[1]
           JOIN pg_attribute b ON b.attrelid = k.confrelid AND b.attnum = k.confkey[1]
          WHERE n.nspname = current_schema() AND k.contype = 'f'",
    )
    .await;
    assert!(!foreign.is_empty(), "the check sees the foreign keys");
    let off_shard: Vec<_> = foreign
        .iter()
        .filter(|(_, from, to)| from != "tenant" || to != "tenant")
        .collect();
    assert!(off_shard.is_empty(), "foreign keys across shards: {off_shard:?}");
}

/// The string literals of a Rust file's code (not its tests) that are SQL
/// statements, by line, with their whitespace folded. A statement that
/// `concat!`s a macro's text between two literals is read as one, the text
/// written `{name}` (the conversation's column list `{columns}`, as the
/// `format!`ted statements write it).
fn statements(source: &str) -> Vec<(usize, String)> {
    let code = source.split("#[cfg(test)]").next().unwrap_or_default();
    let spliced = regex::Regex::new(r#""\s*,\s*(\w+)!\([^()]*\),\s*""#).unwrap();
    // The newlines stay, so that lines are counted as the file has them.
    let code = spliced.replace_all(code, |found: &regex::Captures| {
        let name = if &found[1] == "conversation_columns" {
            "columns"
        } else {
            &found[1]
        };
        format!("{{{name}}}{}", "\n".repeat(found[0].matches('\n').count()))
    });
    let code = code.as_ref();
    let mut found = Vec::new();
    let mut rest = code;
    let mut offset = 0;
    while let Some(start) = rest.find('"') {
        let after = &rest[start + 1..];
        let mut end = None;
        let mut escaped = false;
        for (i, ch) in after.char_indices() {
            match ch {
                '\\' if !escaped => escaped = true,
                '"' if !escaped => {
                    end = Some(i);
                    break;
                }
                _ => escaped = false,
            }
        }
        let Some(end) = end else { break };
        let literal = after[..end].split_whitespace().collect::<Vec<_>>().join(" ");
        let starts = ["WITH ", "SELECT ", "INSERT ", "UPDATE ", "DELETE "];
        if starts.iter().any(|start| literal.starts_with(start)) {
            let line = code[..offset + start].matches('\n').count() + 1;
            found.push((line, literal));
        }
        offset += start + 1 + end + 1;
        rest = &after[end + 1..];
    }
    found
}

/// Statements whose start is spliced in from another literal of the same
/// file, itself checked: `(file, the statement's start, what is spliced)`.
const SPLICED: [(&str, &str, &str); 1] = [(
    "transitions.rs",
    "WITH c AS ({} ",
    "the report's upsert, INSERT INTO conversations AS c (tenant, …) VALUES ($1, …)",
)];

/// Whether a statement keeps to one tenant: it compares the tenant with a
/// parameter, or writes rows whose tenant is one.
fn names_its_tenant(statement: &str) -> bool {
    let compared = ["tenant = $", "tenant = ANY", "(tenant, id) = ($"];
    let written = statement.contains("INSERT INTO ")
        && statement.contains("(tenant,")
        && (statement.contains("VALUES ($1") || statement.contains("SELECT $1"));
    // `$1 IS NULL OR tenant = $1` is every tenant's when $1 is null.
    let optional = statement.contains("IS NULL OR tenant = $");
    (compared.iter().any(|form| statement.contains(form)) && !optional) || written
}

#[test]
fn every_statement_of_the_store_names_its_tenant_but_the_listed_cross_tenant_ones() {
    let store = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/store");
    let mut unlisted = Vec::new();
    let mut listed_and_seen = vec![false; CROSS_TENANT.len()];
    let mut checked = 0;
    for path in rust_files_under(&store) {
        // Named from the store's root: `keys.rs`, `compactions/record.rs`.
        let file = path.strip_prefix(&store).unwrap().to_str().unwrap().to_owned();
        let source = std::fs::read_to_string(&path).unwrap();
        for (line, statement) in statements(&source) {
            let touches = DISTRIBUTED_TABLES.iter().chain(&REFERENCE_TABLES).any(|table| {
                ["FROM ", "UPDATE ", "INTO ", "JOIN "].iter().any(|verb| {
                    statement.contains(&format!("{verb}{table} ")) || statement.ends_with(&format!("{verb}{table}"))
                })
            });
            if !touches {
                continue;
            }
            checked += 1;
            let spliced = SPLICED
                .iter()
                .any(|(in_file, start, _)| *in_file == file && statement.starts_with(start));
            if names_its_tenant(&statement) || spliced {
                continue;
            }
            match CROSS_TENANT
                .iter()
                .position(|(in_file, start, _)| *in_file == file && statement.starts_with(start))
            {
                Some(at) => listed_and_seen[at] = true,
                None => unlisted.push(format!("src/store/{file}:{line}: {statement}")),
            }
        }
    }
    assert!(checked > 100, "the check reads the store's statements ({checked})");
    assert!(
        unlisted.is_empty(),
        "statements that do not name their tenant (name it, or list the statement here with why):\n{}",
        unlisted.join("\n")
    );
    let stale: Vec<_> = CROSS_TENANT
        .iter()
        .zip(&listed_and_seen)
        .filter(|(_, seen)| !**seen)
        .map(|(listed, _)| listed)
        .collect();
    assert!(stale.is_empty(), "listed but no longer in the store: {stale:?}");
}

/// Every Rust file under `dir`, in its folders too, in a stable order.
fn rust_files_under(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(rust_files_under(&path));
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            files.push(path);
        }
    }
    files.sort();
    files
}

#[test]
fn the_statement_check_tells_a_tenants_statement_from_a_fleets() {
    assert!(names_its_tenant(
        "SELECT seq FROM turns WHERE tenant = $1 AND conversation_id = $2"
    ));
    assert!(names_its_tenant(
        "INSERT INTO events (tenant, conversation_id) VALUES ($1, $2)"
    ));
    assert!(!names_its_tenant(
        "SELECT tenant, conversation_id FROM turns WHERE score IS NULL"
    ));
    assert!(!names_its_tenant("DELETE FROM turn_pieces_due WHERE id = $1"));
    assert!(!names_its_tenant(
        "SELECT * FROM turns WHERE ($1::text IS NULL OR tenant = $1)"
    ));
    let found = statements(
        "let a = \"SELECT 1 FROM turns\";\nlet b = \"not sql\";\nlet c = \"UPDATE turns\n   SET x = \\\"y\\\"\";",
    );
    assert_eq!(
        found,
        vec![
            (1, "SELECT 1 FROM turns".to_owned()),
            (3, "UPDATE turns SET x = \\\"y\\\"".to_owned())
        ]
    );
}
