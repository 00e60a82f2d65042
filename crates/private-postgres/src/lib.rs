//! A private Postgres for a service started without a database URL:
//! initialized on first start in the data folder, reused on the next, and
//! stopped when the service stops.
//!
//! Postgres refuses to run as root. Started as root, it runs in a user
//! namespace where it is the `postgres` user while its files stay owned by the
//! real user (so any data folder works, even under a private home); where user
//! namespaces are unavailable it runs as the `postgres` user through
//! `runuser`, which needs the folder reachable by that user.

use std::fs;
use std::io::{self, Read};
use std::net::{Ipv4Addr, TcpListener};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::thread::sleep;
use std::time::{Duration, Instant};

use nix::sys::prctl;
use nix::sys::signal::{Signal, kill};
use nix::unistd::{Pid, User, geteuid};

/// How long a start (initdb aside) may take before we give up.
const START_TIMEOUT: Duration = Duration::from_secs(60);
/// How long a fast shutdown may take before the server is killed.
const STOP_TIMEOUT: Duration = Duration::from_secs(30);
/// How often start-up checks whether the server is ready.
const POLL: Duration = Duration::from_millis(50);
const SUPERUSER: &str = "postgres";

#[derive(Debug, thiserror::Error)]
pub enum PrivatePostgresError {
    #[error(
        "no Postgres server binaries ({0}) on PATH or under /usr/lib/postgresql/*/bin; install Postgres or set DATABASE_URL"
    )]
    BinariesNotFound(&'static str),
    #[error("{what}: {source}")]
    Io { what: String, source: io::Error },
    #[error("{0}")]
    Failed(String),
}

fn io_error(what: impl Into<String>) -> impl FnOnce(io::Error) -> PrivatePostgresError {
    let what = what.into();
    move |source| PrivatePostgresError::Io { what, source }
}

/// How the server processes are started.
#[derive(Debug, Clone)]
enum RunAs {
    /// As ourselves: we are not root.
    Myself,
    /// Root, mapped to an unprivileged user inside a user namespace.
    UserNamespace { uid: u32, gid: u32 },
    /// Root, switching to the `postgres` user.
    Runuser,
}

/// A running private Postgres; stopped when dropped.
pub struct PrivatePostgres {
    child: Option<Child>,
    cluster: PathBuf,
    port: u16,
    password: String,
}

impl PrivatePostgres {
    /// A cluster was made in `data_dir` before (it need not be running).
    pub fn exists(data_dir: &Path) -> bool {
        data_dir.join("pgdata").join("PG_VERSION").exists()
    }

    /// Starts the cluster in `data_dir`, creating it on first use.
    ///
    /// Call this from the thread that lives as long as the process (the main
    /// thread): the server is told to shut down when its parent thread exits.
    pub fn start(data_dir: &Path) -> Result<Self, PrivatePostgresError> {
        Self::start_on(data_dir, None)
    }

    /// As [`start`](Self::start), on `port` when given (a restart that
    /// clients must find where they left it).
    pub fn start_on(data_dir: &Path, port: Option<u16>) -> Result<Self, PrivatePostgresError> {
        fs::create_dir_all(data_dir).map_err(io_error(format!("creating {}", data_dir.display())))?;
        let data_dir = data_dir.canonicalize().map_err(io_error("resolving the data folder"))?;
        let initdb = find_binary("initdb")?;
        let postgres = find_binary("postgres")?;
        let run_as = choose_run_as();
        let cluster = data_dir.join("pgdata");
        let password_file = data_dir.join("superuser-password");
        if !cluster.join("PG_VERSION").exists() {
            tracing::info!(folder = %cluster.display(), "initializing the private Postgres");
            initialize(&initdb, &run_as, &cluster, &password_file)?;
        } else {
            tracing::info!(folder = %cluster.display(), "reusing the private Postgres");
        }
        let password = fs::read_to_string(&password_file)
            .map_err(io_error(format!("reading {}", password_file.display())))?
            .trim()
            .to_owned();
        // Another compactd (a `keys` command beside a running service) may
        // already run this cluster: share it, and leave its stopping to it.
        if let Some(running) = live_server_port(&cluster) {
            tracing::info!(port = running, "the private Postgres is already running; using it");
            return Ok(Self {
                child: None,
                cluster,
                port: running,
                password,
            });
        }
        let port = match port {
            Some(port) => port,
            None => free_port()?,
        };
        remove_stale_pid_file(&cluster)?;
        let log_path = data_dir.join("postgres.log");
        let log = fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&log_path)
            .map_err(io_error(format!("opening {}", log_path.display())))?;
        let mut command = command_as(&run_as, &postgres);
        command
            .arg("-D")
            .arg(&cluster)
            .args([
                "-p",
                &port.to_string(),
                "-c",
                "listen_addresses=127.0.0.1",
                "-c",
                "unix_socket_directories=",
            ])
            .stdin(Stdio::null())
            .stdout(log.try_clone().map_err(io_error("sharing the log"))?)
            .stderr(log);
        stop_with_parent(&mut command);
        let child = command
            .spawn()
            .map_err(io_error(format!("starting {}", postgres.display())))?;
        let mut server = Self {
            child: Some(child),
            cluster,
            port,
            password,
        };
        server.wait_until_ready(&log_path)?;
        tracing::info!(port, "private Postgres is ready");
        Ok(server)
    }

    /// A streaming hot standby of this server in `data_dir`: copied with
    /// `pg_basebackup` on first use (which also tells it where its primary
    /// is), then started like any private Postgres. It answers reads and
    /// replays what the primary writes, a moment behind.
    pub fn start_standby(&self, data_dir: &Path) -> Result<Self, PrivatePostgresError> {
        fs::create_dir_all(data_dir).map_err(io_error(format!("creating {}", data_dir.display())))?;
        let data_dir = data_dir
            .canonicalize()
            .map_err(io_error("resolving the standby's folder"))?;
        let cluster = data_dir.join("pgdata");
        if !cluster.join("PG_VERSION").exists() {
            let run_as = choose_run_as();
            let scratch = data_dir.join("pgdata.initializing");
            if scratch.exists() {
                fs::remove_dir_all(&scratch).map_err(io_error("removing an interrupted copy"))?;
            }
            let password_file = data_dir.join("superuser-password");
            fs::OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(true)
                .mode(0o600)
                .open(&password_file)
                .and_then(|mut file| io::Write::write_all(&mut file, self.password.as_bytes()))
                .map_err(io_error(format!("writing {}", password_file.display())))?;
            if let RunAs::Runuser = run_as {
                chown_to_postgres(&data_dir)?;
            }
            let basebackup = find_binary("pg_basebackup")?;
            let output = command_as(&run_as, &basebackup)
                .args(["-h", "127.0.0.1", "-p", &self.port.to_string(), "-U", SUPERUSER, "-D"])
                .arg(&scratch)
                // -R: standby.signal, and the primary's address and password
                // in postgresql.auto.conf.
                .args(["-R", "-X", "stream", "--checkpoint=fast", "--no-sync"])
                .env("PGPASSWORD", &self.password)
                .stdin(Stdio::null())
                .output()
                .map_err(io_error(format!("running {}", basebackup.display())))?;
            if !output.status.success() {
                return Err(PrivatePostgresError::Failed(format!(
                    "pg_basebackup failed ({}): {}{}",
                    output.status,
                    String::from_utf8_lossy(&output.stdout),
                    String::from_utf8_lossy(&output.stderr)
                )));
            }
            fs::rename(&scratch, &cluster).map_err(io_error("moving the standby's copy into place"))?;
        }
        Self::start_on(&data_dir, None)
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// Where to connect to the private Postgres of `data_dir` while a process
    /// runs it (its port changes with every start, its password is in a
    /// file); `None` when none runs there.
    pub fn running_url(data_dir: &Path) -> Result<Option<String>, PrivatePostgresError> {
        let cluster = data_dir.join("pgdata");
        let Some(port) = live_server_port(&cluster) else {
            return Ok(None);
        };
        let password_file = data_dir.join("superuser-password");
        let password =
            fs::read_to_string(&password_file).map_err(io_error(format!("reading {}", password_file.display())))?;
        Ok(Some(url_of(password.trim(), port)))
    }

    /// Where to connect: the superuser, on 127.0.0.1, to database `postgres`.
    pub fn url(&self) -> String {
        url_of(&self.password, self.port)
    }

    fn wait_until_ready(&mut self, log_path: &Path) -> Result<(), PrivatePostgresError> {
        let started = Instant::now();
        let pid_file = self.cluster.join("postmaster.pid");
        loop {
            if let Some(child) = self.child.as_mut()
                && let Ok(Some(status)) = child.try_wait()
            {
                self.child = None;
                return Err(PrivatePostgresError::Failed(format!(
                    "the private Postgres exited ({status}) while starting; its log says:\n{}",
                    log_tail(log_path)
                )));
            }
            // Postgres writes its status as the pid file's eighth line.
            let ready = fs::read_to_string(&pid_file)
                .map(|text| text.lines().nth(7).is_some_and(answers))
                .unwrap_or(false);
            if ready {
                return Ok(());
            }
            if started.elapsed() > START_TIMEOUT {
                return Err(PrivatePostgresError::Failed(format!(
                    "the private Postgres was not ready after {START_TIMEOUT:?}; its log says:\n{}",
                    log_tail(log_path)
                )));
            }
            sleep(POLL);
        }
    }

    /// Immediate shutdown, as in a crash: no checkpoint, recovery from the
    /// WAL on the next start (for fault tests).
    pub fn crash(&mut self) {
        self.signal_and_wait(Signal::SIGQUIT);
    }

    /// Fast shutdown: connections are closed, the data is safe.
    pub fn stop(&mut self) {
        self.signal_and_wait(Signal::SIGINT);
    }

    fn signal_and_wait(&mut self, signal: Signal) {
        let Some(mut child) = self.child.take() else { return };
        // The server's own pid: under runuser our child is only its parent.
        let server_pid = fs::read_to_string(self.cluster.join("postmaster.pid"))
            .ok()
            .and_then(|text| text.lines().next().and_then(|pid| pid.trim().parse::<i32>().ok()));
        let pid = server_pid.unwrap_or(child.id() as i32);
        // Gone already: the wait below sees it.
        let _ = kill(Pid::from_raw(pid), signal);
        let deadline = Instant::now() + STOP_TIMEOUT;
        while Instant::now() < deadline {
            if matches!(child.try_wait(), Ok(Some(_))) {
                tracing::info!("private Postgres stopped");
                return;
            }
            sleep(POLL);
        }
        tracing::warn!("private Postgres did not stop in time; killing it");
        let _ = child.kill();
        let _ = child.wait();
    }
}

impl Drop for PrivatePostgres {
    fn drop(&mut self) {
        self.stop();
    }
}

fn initialize(initdb: &Path, run_as: &RunAs, cluster: &Path, password_file: &Path) -> Result<(), PrivatePostgresError> {
    let parent = cluster.parent().unwrap_or(Path::new("."));
    // initdb into a scratch folder, renamed when complete: an interrupted
    // first start leaves nothing that looks like a cluster.
    let scratch = parent.join("pgdata.initializing");
    if scratch.exists() {
        fs::remove_dir_all(&scratch).map_err(io_error("removing an interrupted initialization"))?;
    }
    fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(password_file)
        .and_then(|mut file| io::Write::write_all(&mut file, random_password()?.as_bytes()))
        .map_err(io_error(format!("writing {}", password_file.display())))?;
    if let RunAs::Runuser = run_as {
        // The postgres user must own what it runs on.
        chown_to_postgres(parent)?;
    }
    let output = command_as(run_as, initdb)
        .arg("-D")
        .arg(&scratch)
        .args([
            "-U",
            SUPERUSER,
            "--auth=scram-sha-256",
            "--no-locale",
            "-E",
            "UTF8",
            "--no-sync",
        ])
        .arg(format!("--pwfile={}", password_file.display()))
        .stdin(Stdio::null())
        .output()
        .map_err(io_error(format!("running {}", initdb.display())))?;
    if !output.status.success() {
        return Err(PrivatePostgresError::Failed(format!(
            "initdb failed ({}): {}{}",
            output.status,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )));
    }
    fs::rename(&scratch, cluster).map_err(io_error("moving the new cluster into place"))
}

/// A binary on PATH, else under Debian's versioned folders (newest first).
fn find_binary(name: &'static str) -> Result<PathBuf, PrivatePostgresError> {
    let on_path = std::env::var_os("PATH")
        .map(|path| {
            std::env::split_paths(&path)
                .map(|dir| dir.join(name))
                .collect::<Vec<_>>()
        })
        .unwrap_or_default();
    let mut versioned: Vec<(u32, PathBuf)> = fs::read_dir("/usr/lib/postgresql")
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .filter_map(|entry| {
                    let version = entry.file_name().to_string_lossy().parse::<u32>().ok()?;
                    Some((version, entry.path().join("bin").join(name)))
                })
                .collect()
        })
        .unwrap_or_default();
    versioned.sort_by_key(|(version, _)| std::cmp::Reverse(*version));
    on_path
        .into_iter()
        .chain(versioned.into_iter().map(|(_, path)| path))
        .chain([PathBuf::from("/usr/local/pgsql/bin").join(name)])
        .find(|candidate| candidate.is_file())
        .ok_or(PrivatePostgresError::BinariesNotFound(name))
}

fn choose_run_as() -> RunAs {
    if !geteuid().is_root() {
        return RunAs::Myself;
    }
    let (uid, gid) = user_ids(SUPERUSER)
        .or_else(|| user_ids("nobody"))
        .unwrap_or((65534, 65534));
    let works = Command::new("unshare")
        .args([
            "--user",
            &format!("--map-user={uid}"),
            &format!("--map-group={gid}"),
            "true",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success());
    if works {
        RunAs::UserNamespace { uid, gid }
    } else {
        RunAs::Runuser
    }
}

fn command_as(run_as: &RunAs, program: &Path) -> Command {
    match run_as {
        RunAs::Myself => Command::new(program),
        RunAs::UserNamespace { uid, gid } => {
            let mut command = Command::new("unshare");
            command
                .args(["--user", &format!("--map-user={uid}"), &format!("--map-group={gid}")])
                .arg(program);
            command
        }
        RunAs::Runuser => {
            let mut command = Command::new("runuser");
            command.args(["-u", SUPERUSER, "--"]).arg(program);
            command
        }
    }
}

/// The server gets SIGINT (fast shutdown) if this process dies without
/// stopping it, so a killed service leaves no server behind.
fn stop_with_parent(command: &mut Command) {
    // SAFETY: the closure runs in the forked child before exec; prctl(2) is
    // async-signal-safe and touches only the child's own state.
    unsafe {
        command.pre_exec(|| prctl::set_pdeathsig(Signal::SIGINT).map_err(io::Error::from));
    }
}

fn user_ids(name: &str) -> Option<(u32, u32)> {
    let user = User::from_name(name).ok()??;
    Some((user.uid.as_raw(), user.gid.as_raw()))
}

/// Whether a process with this pid exists (signal 0 only asks).
fn alive(pid: i32) -> bool {
    pid > 0 && kill(Pid::from_raw(pid), None).is_ok()
}

fn chown_to_postgres(dir: &Path) -> Result<(), PrivatePostgresError> {
    let status = Command::new("chown")
        .args(["-R", &format!("{SUPERUSER}:")])
        .arg(dir)
        .status()
        .map_err(io_error("running chown"))?;
    if !status.success() {
        return Err(PrivatePostgresError::Failed(format!(
            "chown of {} failed",
            dir.display()
        )));
    }
    fs::set_permissions(dir, fs::Permissions::from_mode(0o700)).map_err(io_error("restricting the data folder"))
}

/// The port of a live server on `cluster`, from its pid file (line 4), once
/// it says it is ready.
/// The superuser, on 127.0.0.1, to database `postgres`.
fn url_of(password: &str, port: u16) -> String {
    // The password is hex: nothing in it needs escaping.
    format!("postgres://{SUPERUSER}:{password}@127.0.0.1:{port}/postgres")
}

fn live_server_port(cluster: &Path) -> Option<u16> {
    let text = fs::read_to_string(cluster.join("postmaster.pid")).ok()?;
    let pid = text.lines().next()?.trim().parse::<i32>().ok()?;
    let alive = alive(pid);
    let ready = text.lines().nth(7).is_some_and(answers);
    let port = text.lines().nth(3)?.trim().parse().ok()?;
    (alive && ready).then_some(port)
}

/// Whether a pid file's status line says the server takes connections: a
/// primary says `ready`, a hot standby `standby`.
fn answers(status: &str) -> bool {
    matches!(status.trim(), "ready" | "standby")
}

/// A pid file left by a server that died (a crash, a kill) still says
/// "ready": it must go before a new start is awaited. One whose server lives
/// is left alone, and the start fails on it with Postgres's own message.
fn remove_stale_pid_file(cluster: &Path) -> Result<(), PrivatePostgresError> {
    let pid_file = cluster.join("postmaster.pid");
    let Ok(text) = fs::read_to_string(&pid_file) else {
        return Ok(());
    };
    let pid = text.lines().next().and_then(|pid| pid.trim().parse::<i32>().ok());
    let alive = pid.is_some_and(alive);
    if !alive {
        fs::remove_file(&pid_file).map_err(io_error("removing a stale postmaster.pid"))?;
    }
    Ok(())
}

fn free_port() -> Result<u16, PrivatePostgresError> {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).map_err(io_error("finding a free port"))?;
    listener
        .local_addr()
        .map(|addr| addr.port())
        .map_err(io_error("finding a free port"))
}

fn random_password() -> io::Result<String> {
    let mut bytes = [0_u8; 24];
    fs::File::open("/dev/urandom")?.read_exact(&mut bytes)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

fn log_tail(path: &Path) -> String {
    let text = fs::read_to_string(path).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(20)..].join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("private-postgres-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// A pid file as Postgres writes it: pid, folder, start, port, socket
    /// folder, listen address, shared memory, status.
    fn pid_file(pid: i32, port: u16, status: &str) -> String {
        format!("{pid}\n/data\n1700000000\n{port}\n\n127.0.0.1\n 0 0\n{status}\n")
    }

    #[test]
    fn a_ready_server_that_lives_is_shared_on_its_port() {
        let cluster = scratch("live");
        fs::write(
            cluster.join("postmaster.pid"),
            pid_file(std::process::id() as i32, 5433, "ready"),
        )
        .unwrap();
        assert_eq!(live_server_port(&cluster), Some(5433));
    }

    #[test]
    fn a_server_still_starting_or_dead_is_not_shared() {
        let cluster = scratch("starting");
        fs::write(
            cluster.join("postmaster.pid"),
            pid_file(std::process::id() as i32, 5433, "starting"),
        )
        .unwrap();
        assert_eq!(live_server_port(&cluster), None);
        fs::write(cluster.join("postmaster.pid"), pid_file(i32::MAX, 5433, "ready")).unwrap();
        assert_eq!(live_server_port(&cluster), None);
    }

    #[test]
    fn only_a_dead_server_s_pid_file_is_removed() {
        let cluster = scratch("stale");
        let pid_path = cluster.join("postmaster.pid");
        fs::write(&pid_path, pid_file(std::process::id() as i32, 5433, "ready")).unwrap();
        remove_stale_pid_file(&cluster).unwrap();
        assert!(pid_path.exists(), "a live server's pid file went");
        fs::write(&pid_path, pid_file(i32::MAX, 5433, "ready")).unwrap();
        remove_stale_pid_file(&cluster).unwrap();
        assert!(!pid_path.exists(), "a dead server's pid file stayed");
    }

    #[test]
    fn the_url_names_the_superuser_the_port_and_the_password() {
        let server = PrivatePostgres {
            child: None,
            cluster: PathBuf::from("/nowhere"),
            port: 54321,
            password: "00ff".to_owned(),
        };
        assert_eq!(server.url(), "postgres://postgres:00ff@127.0.0.1:54321/postgres");
    }
}
