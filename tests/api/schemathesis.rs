//! schemathesis (4.x, from PyPI) against the running binary and the committed
//! OpenAPI document: every phase, every check, two tenants' keys (so
//! object-level authorization is checked), a fixed seed. Zero failures.

use std::path::{Path, PathBuf};

use compactd::app::keys as admin;
use serde_json::json;

use crate::binary;
use crate::helpers::Database;
use crate::python;

/// Pinned, so a run is reproducible.
const SCHEMATHESIS: &str = "schemathesis==4.32.5";
const SEED: &str = "42";

/// schemathesis in a virtualenv under the target folder, installed once.
fn schemathesis() -> PathBuf {
    python::venv("schemathesis", &[SCHEMATHESIS]).join("bin/schemathesis")
}

#[tokio::test(flavor = "multi_thread")]
async fn schemathesis_finds_no_failure_in_any_phase() {
    let tool = tokio::task::spawn_blocking(schemathesis).await.unwrap();
    let database = Database::create().await;
    let (_, alice) = admin::create(&database.pool, "alice", "admin", Some("schemathesis"))
        .await
        .unwrap();
    let (_, bob) = admin::create(&database.pool, "bob", "admin", Some("schemathesis"))
        .await
        .unwrap();
    let auth = json!({"auth": [
        {"name": "alice", "fixedHeaders": [{"name": "Authorization", "value": format!("Bearer {alice}")}]},
        {"name": "bob", "fixedHeaders": [{"name": "Authorization", "value": format!("Bearer {bob}")}]},
    ]});
    let auth_file = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("schemathesis-auth-{}.json", database.name));
    std::fs::write(&auth_file, auth.to_string()).unwrap();
    let url = database.url();
    let service = binary::start(&[("DATABASE_URL", url.as_str()), ("RUST_LOG", "warn")], &[]).await;
    let manifest = env!("CARGO_MANIFEST_DIR");

    let run = tokio::process::Command::new(tool)
        .current_dir(env!("CARGO_TARGET_TMPDIR"))
        .env("PYTHONPATH", format!("{manifest}/tests/schemathesis"))
        .env("SCHEMATHESIS_HOOKS", "compactd_hooks")
        .args([
            "run",
            &format!("{manifest}/openapi/openapi.json"),
            "--url",
            &service.address,
        ])
        .args([
            "--checks",
            "all",
            "--phases",
            "examples,coverage,fuzzing,stateful",
            "--seed",
            SEED,
            // Nothing carried over from an earlier run: a clean clone and a
            // developer's checkout test the same cases.
            "--generation-database",
            "none",
            "--no-color",
        ])
        .arg("--auth-wfc")
        .arg(&auth_file)
        .output()
        .await
        .expect("schemathesis runs");
    let output = service.stop().await;
    std::fs::remove_file(&auth_file).ok();

    let report = String::from_utf8_lossy(&run.stdout);
    let errors: Vec<&String> = output
        .iter()
        .filter(|line| line.contains("ERROR") || line.contains("panicked"))
        .collect();
    assert!(
        run.status.success(),
        "schemathesis found failures:\n{report}\nthe service logged:\n{errors:#?}"
    );
    assert!(report.contains("No issues found"), "{report}");
    let summary: Vec<&str> = report
        .lines()
        .filter(|l| l.contains("generated") || l.contains("No issues"))
        .collect();
    println!("schemathesis: {}", summary.join(" / "));
    assert!(
        output.iter().all(|line| !line.contains("panicked")),
        "the service panicked: {output:#?}"
    );
}
