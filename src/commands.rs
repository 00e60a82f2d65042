//! Running the command line: serve, migrate, print the OpenAPI document,
//! replay sessions, manage keys — each against the configured database or a
//! private one started for the command.

use private_postgres::PrivatePostgres;
use sqlx::postgres::PgConnectOptions;

use crate::app::keys;
use crate::app::purge;
use crate::config::{
    Cli, Command, DatabaseArgs, HookArgs, KeysAction, Pooler, ReplayArgs, ServeArgs, Settings, TenantsAction,
};
use crate::replay::render;
use crate::replay::{ReplayOptions, Schedule, SessionReport, replay_files, replay_into};
use crate::startup::{Application, shutdown_signal};
use crate::{http, store};

/// Runs what the command line asks for.
pub fn run(cli: Cli) -> Result<(), AnyError> {
    match cli.command {
        Some(Command::Openapi) => {
            print!("{}", http::openapi::document());
            Ok(())
        }
        Some(Command::Migrate(database)) => with_database(&database, |target| async move {
            target.migrate().await?;
            tracing::info!("migrations are up to date");
            Ok(())
        }),
        Some(Command::Serve(args)) => serve(*args),
        Some(Command::Replay(args)) => replay(*args),
        Some(Command::Hook(args)) => hook(&args),
        Some(Command::Keys { action, database }) => with_database(&database, |target| manage_keys(action, target)),
        Some(Command::Tenants { action, database }) => with_database(&database, |target| on_tenant(action, target)),
        Some(Command::DatabaseUrl(database)) => {
            println!("{}", database_url(&database)?);
            Ok(())
        }
        None => serve(cli.serve),
    }
}

/// The configured database's URL, or the running private Postgres's; never
/// starts one (a URL to a server that stops with this command opens nothing).
fn database_url(database: &DatabaseArgs) -> Result<String, AnyError> {
    if let Some(url) = &database.database_url {
        return Ok(url.clone());
    }
    PrivatePostgres::running_url(&database.data_dir)?.ok_or_else(|| {
        format!(
            "no private Postgres runs in {}: start compactd there first (or set DATABASE_URL)",
            database.data_dir.display()
        )
        .into()
    })
}

/// Whatever stopped a command.
pub(crate) type AnyError = Box<dyn std::error::Error + Send + Sync>;

fn serve(args: ServeArgs) -> Result<(), AnyError> {
    let settings = Settings::try_from(&args)?;
    let max_connections = args.max_connections;
    with_database(&args.database, move |target| async move {
        let app = Application::build(settings, store::pool(target.options, max_connections)).await?;
        let shutdown = shutdown_signal();
        // Tests and scripts wait for this line instead of polling.
        println!("compactd listening on http://{}", app.local_addr());
        tracing::info!(addr = %app.local_addr(), "compactd is serving");
        app.run_until(shutdown).await?;
        Ok(())
    })
}

/// A harness's hook: never in the agent's way, so what fails is said on
/// stderr and the hook still exits 0 (Claude Code blocks a compaction on 2).
fn hook(args: &HookArgs) -> Result<(), AnyError> {
    let harness = args.harness;
    let options = crate::hook::HookOptions {
        url: args.url.clone(),
        api_key: args.api_key.clone(),
        max_tokens: args.max_tokens,
        window: args.window,
    };
    let deadline = std::time::Duration::from_secs(args.deadline_secs);
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let ran = runtime.block_on(async {
        tokio::time::timeout(deadline, async {
            // The hook's input, read whole but bounded (a harness sends a
            // few hundred bytes), within the deadline too.
            let mut input = Vec::new();
            let stdin = tokio::io::AsyncReadExt::take(tokio::io::stdin(), 1024 * 1024);
            tokio::io::AsyncReadExt::read_to_end(&mut Box::pin(stdin), &mut input)
                .await
                .map_err(|err| format!("the hook's input cannot be read: {err}"))?;
            // Bytes that are not UTF-8 are the parser's to refuse.
            let input = String::from_utf8_lossy(&input);
            crate::hook::run(harness, &options, &input)
                .await
                .map_err(|err| err.to_string())
        })
        .await
    });
    // A read of stdin that never ends holds a blocking thread: not waited for.
    runtime.shutdown_background();
    match ran {
        Ok(Ok(Some(answer))) => println!("{answer}"),
        Ok(Ok(None)) => {}
        Ok(Err(err)) => eprintln!("compactd hook {}: {err}", harness.as_str()),
        Err(_) => eprintln!(
            "compactd hook {}: gave up after {} s (COMPACTD_HOOK_DEADLINE_SECS); what it stored so far stays, and the next run goes on from there",
            harness.as_str(),
            args.deadline_secs
        ),
    }
    Ok(())
}

fn replay(args: ReplayArgs) -> Result<(), AnyError> {
    let settings = Settings::replaying(&args)?;
    let options = ReplayOptions {
        window: args.window,
        from_stored_turns: args.from_stored_turns,
        prepare: args.prepare,
        end_now: args.end_now,
        schedule: match args.every {
            Some(every) => Schedule::Every(usize::try_from(every).unwrap_or(usize::MAX)),
            None => Schedule::Policy,
        },
    };
    let print = |reports: Vec<SessionReport>| -> Result<(), AnyError> {
        if args.json {
            println!("{}", serde_json::to_string_pretty(&reports)?);
        } else {
            for report in &reports {
                print!("{}", render(report));
            }
        }
        Ok(())
    };
    if let Some(url) = &args.url {
        let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
        let reports = runtime.block_on(replay_into(
            url,
            args.api_key.clone(),
            &args.files,
            settings.summaries,
            options,
        ))?;
        return print(reports);
    }
    if args.database.database_url.is_none() && !PrivatePostgres::exists(&args.database.data_dir) {
        // Said, not silent: a replay run from another folder than the
        // service's starts a Postgres nobody's dashboard reads.
        eprintln!(
            "compactd replay: no DATABASE_URL and no private Postgres in {}: starting one there for this replay. To replay into the compactd you run, pass --url http://127.0.0.1:8080 (or run from its folder).",
            args.database.data_dir.display()
        );
    }
    let files = args.files.clone();
    with_database(&args.database, move |target| async move {
        let pool = store::pool(target.options, 4);
        print(replay_files(&files, settings, pool, options).await?)
    })
}

async fn manage_keys(action: KeysAction, target: Target) -> Result<(), AnyError> {
    target.migrate().await?;
    let pool = store::pool(target.options, 1);
    match action {
        KeysAction::Create { tenant, role, note } => {
            let (id, key) = keys::create(&pool, &tenant, role.as_str(), note.as_deref()).await?;
            eprintln!(
                "Created key {id} for tenant {tenant} ({}). Store it now: it is not shown again.",
                role.as_str()
            );
            println!("{key}");
        }
        KeysAction::List => {
            println!(
                "{:<16}  {:<20}  {:<6}  {:<20}  {:<20}  note",
                "id", "tenant", "role", "created", "revoked"
            );
            for key in keys::list(&pool).await? {
                let when = |t: chrono::DateTime<chrono::Utc>| t.format("%Y-%m-%d %H:%M:%S").to_string();
                println!(
                    "{:<16}  {:<20}  {:<6}  {:<20}  {:<20}  {}",
                    key.id,
                    key.tenant,
                    key.role,
                    when(key.created_at),
                    key.revoked_at.map(when).unwrap_or_else(|| "-".into()),
                    key.note.unwrap_or_default()
                );
            }
        }
        KeysAction::Revoke { id } => {
            if !keys::revoke(&pool, &id).await? {
                return Err(format!("no live key {id}").into());
            }
            eprintln!("Revoked key {id}; running services stop accepting it at once.");
        }
    }
    pool.close().await;
    Ok(())
}

async fn on_tenant(action: TenantsAction, target: Target) -> Result<(), AnyError> {
    let TenantsAction::Purge { tenant } = action;
    target.migrate().await?;
    let pool = store::pool(target.options, 2);
    let (purge, asked) = purge::ask_as_operator(&pool, &tenant).await?;
    eprintln!(
        "{} purge {} of tenant {tenant}: deleting its conversations {} at a time.",
        if asked { "Started" } else { "Taking up" },
        purge.id,
        purge::BATCH
    );
    let done = purge::work(&pool, purge, None, |now| {
        eprintln!("  {} conversations, {} turns deleted", now.conversations, now.turns);
    })
    .await?;
    println!(
        "Purged tenant {tenant}: {} conversations and {} turns deleted in {} batches (purge {}).",
        done.conversations, done.turns, done.batches, done.id
    );
    pool.close().await;
    Ok(())
}

/// Where a command's statements go, and where its migrations go.
struct Target {
    options: PgConnectOptions,
    /// Postgres itself, past a transaction pooler.
    direct: Option<PgConnectOptions>,
}

impl Target {
    /// Brings the schema up to date, straight to Postgres when a pooler
    /// stands in front (migrations hold a session lock).
    async fn migrate(&self) -> Result<(), AnyError> {
        Ok(store::migrate_at(self.direct.clone().unwrap_or_else(|| self.options.clone())).await?)
    }
}

/// Runs `work` against the configured database, or a private one started
/// here on the main thread and stopped when `work` ends.
fn with_database<F, Fut>(database: &DatabaseArgs, work: F) -> Result<(), AnyError>
where
    F: FnOnce(Target) -> Fut,
    Fut: Future<Output = Result<(), AnyError>>,
{
    let direct = database
        .session_url()?
        .map(str::parse::<PgConnectOptions>)
        .transpose()?;
    if database.database_pooler == Pooler::Transaction {
        store::statements::send_unnamed();
    }
    let mut private = None;
    let options = match &database.database_url {
        Some(url) => url.parse::<PgConnectOptions>()?,
        None => {
            let server = PrivatePostgres::start(&database.data_dir)?;
            tracing::info!(
                port = server.port(),
                "the private Postgres is up; open it with: psql \"$(compactd database-url --data-dir {})\"",
                database.data_dir.display()
            );
            let options = server.url().parse::<PgConnectOptions>()?;
            private = Some(server);
            options
        }
    };
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    let result = runtime.block_on(work(Target { options, direct }));
    drop(runtime);
    drop(private);
    result
}
