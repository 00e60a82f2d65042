//! Behind pgbouncer in transaction mode (Debian's 1.18, which keeps no
//! prepared statements): with `COMPACTD_DATABASE_POOLER=transaction` every
//! request is answered and counted exactly while two server connections
//! serve two dozen agents; migrations and key changes go straight to Postgres.

use std::io::{BufRead, BufReader};
use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};

use crate::binary;
use crate::helpers::{Database, admin_options, read, wait_for_count};

const AGENTS: usize = 24;
const TURNS: usize = 8;

/// A pgbouncer of the test's own, in transaction mode, in front of the
/// test Postgres; stopped when dropped.
struct Pgbouncer {
    child: Child,
    port: u16,
    dir: PathBuf,
}

impl Pgbouncer {
    fn start(server_connections: u32) -> Self {
        let binary = ["/usr/sbin/pgbouncer", "/usr/bin/pgbouncer", "/usr/local/bin/pgbouncer"]
            .into_iter()
            .map(PathBuf::from)
            .find(|path| path.is_file())
            .expect("pgbouncer is installed (Debian's package `pgbouncer`; .ci/run installs it)");
        let server = admin_options();
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .unwrap()
            .port();
        let dir = std::env::temp_dir().join(format!("compactd-pgbouncer-{}-{port}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        // Run as `postgres` when we are root (pgbouncer refuses root), which must read these.
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        let user = server.get_username().to_owned();
        std::fs::write(dir.join("users.txt"), format!("\"{user}\" \"\"\n")).unwrap();
        let config = format!(
            "[databases]\n* = host={host} port={server_port}\n\
             [pgbouncer]\nlisten_addr = 127.0.0.1\nlisten_port = {port}\nunix_socket_dir =\n\
             auth_type = trust\nauth_file = {auth}\nadmin_users = {user}\n\
             pool_mode = transaction\ndefault_pool_size = {server_connections}\nmax_client_conn = 500\n",
            host = server.get_host(),
            server_port = server.get_port(),
            auth = dir.join("users.txt").display(),
        );
        std::fs::write(dir.join("pgbouncer.ini"), config).unwrap();
        for file in ["users.txt", "pgbouncer.ini"] {
            std::fs::set_permissions(dir.join(file), std::fs::Permissions::from_mode(0o644)).unwrap();
        }
        let mut command = Command::new(binary);
        if nix::unistd::geteuid().is_root() {
            command.args(["-u", "postgres"]);
        }
        let mut child = command
            .arg(dir.join("pgbouncer.ini"))
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("pgbouncer starts");
        // It says when it serves.
        let mut log = BufReader::new(child.stderr.take().unwrap()).lines();
        let mut seen = Vec::new();
        loop {
            match log.next() {
                Some(Ok(line)) if line.contains("process up") => break,
                Some(Ok(line)) => seen.push(line),
                _ => panic!("pgbouncer did not start: {seen:#?}"),
            }
        }
        // Its later lines go nowhere, and it must not block writing them.
        std::thread::spawn(move || log.for_each(drop));
        Self { child, port, dir }
    }

    fn url(&self, database: &str) -> String {
        let user = admin_options().get_username().to_owned();
        format!("postgres://{user}@127.0.0.1:{}/{database}", self.port)
    }

    /// Transactions it passed to `database`, from its admin console.
    async fn transactions(&self, database: &str) -> i64 {
        let user = admin_options().get_username().to_owned();
        let output = tokio::process::Command::new("psql")
            .args([
                "-h",
                "127.0.0.1",
                "-p",
                &self.port.to_string(),
                "-U",
                &user,
                "-At",
                "-F",
                "|",
            ])
            .args(["-c", "SHOW STATS", "pgbouncer"])
            .output()
            .await
            .expect("psql runs");
        let stats = String::from_utf8_lossy(&output.stdout);
        stats
            .lines()
            .map(|line| line.split('|').collect::<Vec<_>>())
            .find(|columns| columns[0] == database)
            .and_then(|columns| columns[1].parse().ok())
            .unwrap_or_else(|| {
                panic!(
                    "no stats for {database}: {stats}{}",
                    String::from_utf8_lossy(&output.stderr)
                )
            })
    }
}

impl Drop for Pgbouncer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

async fn keys_command(env: &[(&str, &str)], args: &[&str]) -> String {
    let output = tokio::process::Command::new(env!("CARGO_BIN_EXE_compactd"))
        .arg("keys")
        .args(args)
        .envs(env.iter().copied())
        .output()
        .await
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout).unwrap().trim().to_owned()
}

/// An agent's turns, then a compaction and a look at its conversation:
/// each request's path, status and answer.
async fn agent_at_work(client: reqwest::Client, base: String, key: String, agent: usize) -> Vec<(String, u16, Value)> {
    let id = format!("agent-{agent}");
    let mut answers = Vec::new();
    let mut calls = Vec::new();
    for turn in 0..TURNS {
        calls.push(("/usage", json!({"conversation_id": id, "used": 20_000 * (turn + 1)})));
        calls.push((
            "/turn-ended",
            json!({"conversation_id": id, "user": format!("step {turn} of {id}"), "assistant": "done"}),
        ));
    }
    calls.push(("/decide", json!({"conversation_id": id, "moment": "turn_end"})));
    calls.push(("/summarize", json!({"conversation_id": id})));
    for (path, body) in calls {
        let sent = client
            .post(format!("{base}{path}"))
            .bearer_auth(&key)
            .json(&body)
            .send();
        let (status, answer) = read(sent.await.unwrap()).await;
        answers.push((path.to_owned(), status, answer));
        // Readiness pings the database through the pooler too, under the load.
        let (status, ready) = read(client.get(format!("{base}/readyz")).send().await.unwrap()).await;
        answers.push(("/readyz".to_owned(), status, ready));
    }
    let shown = client
        .get(format!("{base}/conversations/{id}"))
        .bearer_auth(&key)
        .send();
    let (status, answer) = read(shown.await.unwrap()).await;
    answers.push((format!("/conversations/{id}"), status, answer));
    answers
}

#[tokio::test]
async fn behind_pgbouncer_in_transaction_mode_every_request_is_answered_and_counted_once() {
    let database = Database::empty().await;
    let bouncer = Pgbouncer::start(2);
    let pooled = bouncer.url(&database.name);
    let direct = database.url();
    let env = [
        ("DATABASE_URL", pooled.as_str()),
        ("COMPACTD_DATABASE_POOLER", "transaction"),
        ("COMPACTD_DIRECT_DATABASE_URL", direct.as_str()),
        ("COMPACTD_MAX_CONNECTIONS", "8"),
    ];
    // Migrations go straight to Postgres, on an empty database.
    let service = binary::start(&env, &[]).await;
    // The command line goes through the pooler too.
    let key = keys_command(&env[..3], &["create", "--tenant", "acme", "--role", "admin"]).await;
    let client = reqwest::Client::new();
    let base = service.address.clone();

    let agents = (0..AGENTS).map(|agent| tokio::spawn(agent_at_work(client.clone(), base.clone(), key.clone(), agent)));
    let mut answers = Vec::new();
    for agent in agents.collect::<Vec<_>>() {
        answers.extend(agent.await.unwrap());
    }
    for path in [
        "/stats",
        "/compactions",
        "/due",
        "/conversations",
        "/stats/series?bucket=hour",
    ] {
        let (status, body) = read(
            client
                .get(format!("{base}{path}"))
                .bearer_auth(&key)
                .send()
                .await
                .unwrap(),
        )
        .await;
        answers.push((path.to_owned(), status, body));
    }
    let failed: Vec<_> = answers
        .iter()
        .filter(|(_, status, _)| !(200..300).contains(status))
        .collect();
    assert!(
        failed.is_empty(),
        "{} of {} failed: {failed:#?}\nthe service said: {:#?}",
        failed.len(),
        answers.len(),
        service
            .output()
            .iter()
            .filter(|line| line.contains("WARN") || line.contains("ERROR"))
            .collect::<Vec<_>>()
    );

    let counts: (i64, i64, i64) = sqlx::query_as(
        "SELECT (SELECT count(*) FROM conversations), (SELECT count(*) FROM turns),
                (SELECT count(*) FROM compactions WHERE success)",
    )
    .fetch_one(&database.pool)
    .await
    .unwrap();
    assert_eq!(counts, (AGENTS as i64, (AGENTS * TURNS) as i64, AGENTS as i64));
    // The background works through the pooler too: every turn scored once.
    let total = (AGENTS * TURNS) as i64;
    wait_for_count(
        &database.pool,
        "SELECT count(*) FROM turns WHERE score IS NOT NULL",
        total,
    )
    .await;
    assert!(
        bouncer.transactions(&database.name).await >= answers.len() as i64,
        "the requests went through pgbouncer"
    );

    // A key revoked through the pooler is refused at once: the service
    // listens for key changes on its direct connection (the backstop
    // re-read is 30 s away).
    let id = key.split('_').nth(1).unwrap().to_owned();
    keys_command(&env[..3], &["revoke", &id]).await;
    let revoked_at = tokio::time::Instant::now();
    loop {
        let (status, _) = read(
            client
                .get(format!("{base}/stats"))
                .bearer_auth(&key)
                .send()
                .await
                .unwrap(),
        )
        .await;
        if status == 401 {
            break;
        }
        assert!(
            revoked_at.elapsed() < Duration::from_secs(10),
            "the revocation was not heard"
        );
        tokio::task::yield_now().await;
    }
    let output = service.stop().await;
    let complaints: Vec<_> = output
        .iter()
        .filter(|line| line.contains("prepared statement"))
        .collect();
    assert!(complaints.is_empty(), "{complaints:#?}");
}

#[tokio::test]
async fn a_transaction_pooler_without_a_direct_url_is_refused_at_startup() {
    let output = tokio::process::Command::new(env!("CARGO_BIN_EXE_compactd"))
        .env("DATABASE_URL", "postgres://nobody@127.0.0.1:1/none")
        .env("COMPACTD_DATABASE_POOLER", "transaction")
        .env_remove("COMPACTD_DIRECT_DATABASE_URL")
        .env("COMPACTD_ADDR", "127.0.0.1:0")
        .output()
        .await
        .unwrap();
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(said.contains("COMPACTD_DIRECT_DATABASE_URL"), "{said}");
}
