//! The `compactd` binary: parse the command line, set up logging, and hand
//! over to the library.

use std::process::ExitCode;

use clap::Parser;
use compactd::app::keys;
use std::time::Duration;

use compactd::config::{Cli, Command, DatabaseArgs, KeysAction, LogFormat, ReplayArgs, ServeArgs};
use compactd::http::Timeouts;
use compactd::policy::PolicyConfig;
use compactd::private_postgres::PrivatePostgres;
use compactd::replay::report::render;
use compactd::replay::{ReplayOptions, Schedule, replay_files};
use compactd::serve::ConnectionLimits;
use compactd::startup::{Application, Settings, shutdown_signal};
use compactd::{http, store};
use sqlx::postgres::PgConnectOptions;

/// A faster allocator than glibc's for many small, short-lived allocations
/// across threads (a request's JSON, rows and answer): a few percent of
/// throughput on the hot path (bench/README.md).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let cli = Cli::parse();
    compactd::telemetry::init_logs(cli.log_format == LogFormat::Json);
    let result = match cli.command {
        Some(Command::Openapi) => {
            print!("{}", http::openapi::document());
            Ok(())
        }
        Some(Command::Migrate(database)) => with_database(&database, |options| async move {
            store::migrate(&store::pool(options, 1)).await?;
            tracing::info!("migrations are up to date");
            Ok(())
        }),
        Some(Command::Serve(args)) => serve(*args),
        Some(Command::Replay(args)) => replay(*args),
        Some(Command::Keys { action, database }) => with_database(&database, |options| manage_keys(action, options)),
        None => serve(cli.serve),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            tracing::error!("{err}");
            eprintln!("compactd: {err}");
            ExitCode::FAILURE
        }
    }
}

type AnyError = Box<dyn std::error::Error + Send + Sync>;

fn serve(args: ServeArgs) -> Result<(), AnyError> {
    let settings = Settings {
        addr: args.addr,
        max_body_bytes: args.max_body_bytes,
        policy: args.policy.to_config(),
        summarizer: args.llm.to_summarizer()?,
        rate_per_second: args.rate_per_second,
        rate_burst: args.rate_burst,
        timeouts: args.timeouts(),
        connections: args.connections(),
        database_wait: Duration::from_secs(args.database_wait_secs),
        summaries: args.summaries.to_config()?,
        daily_token_budget: args.llm.daily_token_budget(),
        background: args.background(),
    };
    let max_connections = args.max_connections;
    with_database(&args.database, move |options| async move {
        let app = Application::build(settings, store::pool(options, max_connections)).await?;
        // Tests and scripts wait for this line instead of polling.
        println!("compactd listening on http://{}", app.local_addr());
        tracing::info!(addr = %app.local_addr(), "compactd is serving");
        app.run_until(shutdown_signal()).await?;
        Ok(())
    })
}

fn replay(args: ReplayArgs) -> Result<(), AnyError> {
    let summarizer = if args.no_upstream {
        None
    } else {
        args.llm.to_summarizer()?
    };
    let deadline = Duration::from_secs(args.llm.llm_deadline_secs);
    let settings = Settings {
        addr: ([127, 0, 0, 1], 0).into(),
        max_body_bytes: 256 * 1024 * 1024,
        policy: PolicyConfig::default(),
        summarizer,
        rate_per_second: 0,
        rate_burst: 0,
        timeouts: Timeouts {
            request: Duration::from_secs(60),
            summarize: deadline + Duration::from_secs(15),
        },
        connections: ConnectionLimits::default(),
        database_wait: Duration::from_secs(10),
        summaries: args.summaries.to_config()?,
        daily_token_budget: None,
        background: None,
    };
    let options = ReplayOptions {
        window: args.window,
        schedule: match args.every {
            Some(every) => Schedule::Every(usize::try_from(every).unwrap_or(usize::MAX)),
            None => Schedule::Policy,
        },
    };
    with_database(&args.database, move |options_db| async move {
        let pool = store::pool(options_db, 4);
        let reports = replay_files(&args.files, settings, pool, options).await?;
        if args.json {
            println!("{}", serde_json::to_string_pretty(&reports)?);
        } else {
            for report in &reports {
                print!("{}", render(report));
            }
        }
        Ok(())
    })
}

async fn manage_keys(action: KeysAction, options: PgConnectOptions) -> Result<(), AnyError> {
    let pool = store::pool(options, 1);
    store::migrate(&pool).await?;
    match action {
        KeysAction::Create { tenant, role, note } => {
            let (id, key) = keys::create(&pool, &tenant, &role, note.as_deref()).await?;
            eprintln!("Created key {id} for tenant {tenant} ({role}). Store it now: it is not shown again.");
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

/// Runs `work` against the configured database, or a private one started
/// here on the main thread and stopped when `work` ends.
fn with_database<F, Fut>(database: &DatabaseArgs, work: F) -> Result<(), AnyError>
where
    F: FnOnce(PgConnectOptions) -> Fut,
    Fut: Future<Output = Result<(), AnyError>>,
{
    let mut private = None;
    let options = match &database.database_url {
        Some(url) => url.parse::<PgConnectOptions>()?,
        None => {
            let server = PrivatePostgres::start(&database.data_dir)?;
            let options = server.connect_options();
            private = Some(server);
            options
        }
    };
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    let result = runtime.block_on(work(options));
    drop(runtime);
    drop(private);
    result
}
