//! The yardstick for `bench/run`: a bare axum + sqlx endpoint doing one
//! single-row UPDATE per request, with the same pool settings compactd uses.
//! Not part of the service.
//!
//! `DATABASE_URL=... BENCH_ADDR=127.0.0.1:8091 cargo run --release --example bare_update`

use axum::extract::State;
use axum::routing::post;
use axum::{Json, Router};
use serde::Deserialize;
use sqlx::PgPool;
use sqlx::postgres::PgConnectOptions;

#[derive(Deserialize)]
struct Bump {
    id: i32,
}

async fn bump(State(pool): State<PgPool>, Json(bump): Json<Bump>) -> Result<Json<i64>, String> {
    sqlx::query_scalar("UPDATE bench_counter SET n = n + 1 WHERE id = $1 RETURNING n")
        .bind(bump.id)
        .fetch_one(&pool)
        .await
        .map(Json)
        .map_err(|err| err.to_string())
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let options: PgConnectOptions = std::env::var("DATABASE_URL")?.parse()?;
    let pool = compactd::store::pool(options, 16);
    let addr = std::env::var("BENCH_ADDR").unwrap_or_else(|_| "127.0.0.1:8091".into());
    let listener = tokio::net::TcpListener::bind(&addr).await?;
    println!("bare_update listening on http://{addr}");
    axum::serve(listener, Router::new().route("/bump", post(bump)).with_state(pool)).await?;
    Ok(())
}
