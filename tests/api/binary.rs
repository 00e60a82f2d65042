//! Runs the `compactd` binary itself, for what only a process shows: its
//! start-up, its logs, its shutdown.

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};
use tokio::process::{Child, Command};
use tokio::sync::oneshot;

pub struct Service {
    child: Child,
    pub address: String,
    lines: Arc<Mutex<Vec<String>>>,
}

fn collect(
    stream: impl AsyncRead + Unpin + Send + 'static,
    lines: Arc<Mutex<Vec<String>>>,
    mut listening: Option<oneshot::Sender<String>>,
) {
    tokio::spawn(async move {
        let mut reader = BufReader::new(stream).lines();
        while let Ok(Some(line)) = reader.next_line().await {
            if let Some(address) = line.strip_prefix("compactd listening on ")
                && let Some(tell) = listening.take()
            {
                let _ = tell.send(address.to_owned());
            }
            lines.lock().unwrap().push(line);
        }
    });
}

/// Starts the binary with `env` set and `unset` removed, and waits for the
/// line that says where it listens.
pub async fn start(env: &[(&str, &str)], unset: &[&str]) -> Service {
    let mut command = Command::new(env!("CARGO_BIN_EXE_compactd"));
    command.env("COMPACTD_ADDR", "127.0.0.1:0");
    for name in unset {
        command.env_remove(name);
    }
    for (name, value) in env {
        command.env(name, value);
    }
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("the binary starts");
    let lines = Arc::new(Mutex::new(Vec::new()));
    let (listening, address) = oneshot::channel();
    collect(child.stdout.take().unwrap(), lines.clone(), Some(listening));
    collect(child.stderr.take().unwrap(), lines.clone(), None);
    let address = match tokio::time::timeout(Duration::from_secs(120), address).await {
        Ok(Ok(address)) => address,
        _ => panic!("the service did not listen: {:#?}", lines.lock().unwrap()),
    };
    Service { child, address, lines }
}

impl Service {
    /// Its resident memory now, in MiB, as the kernel counts it.
    pub fn rss_mib(&self) -> f64 {
        let pid = self.child.id().expect("still running");
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
        status
            .lines()
            .find_map(|line| line.strip_prefix("VmRSS:"))
            .and_then(|value| value.split_whitespace().next()?.parse::<f64>().ok())
            .map_or(0.0, |kib| kib / 1024.0)
    }

    pub fn output(&self) -> Vec<String> {
        self.lines.lock().unwrap().clone()
    }

    /// SIGTERM, then the exit; answers everything it wrote.
    pub async fn stop(mut self) -> Vec<String> {
        let pid = self.child.id().expect("still running") as i32;
        kill(Pid::from_raw(pid), Signal::SIGTERM).expect("our own child takes signals");
        let status = tokio::time::timeout(Duration::from_secs(60), self.child.wait())
            .await
            .unwrap()
            .unwrap();
        assert!(status.success(), "{status}");
        // The readers drain what is left once the pipes close.
        tokio::task::yield_now().await;
        self.output()
    }
}

impl Service {
    /// SIGSTOP: the process is alive but does nothing, as one stalled (or
    /// cut off from its database) is.
    pub fn pause(&self) {
        self.signal(Signal::SIGSTOP);
    }

    /// SIGCONT: a paused process goes on where it stopped.
    pub fn resume(&self) {
        self.signal(Signal::SIGCONT);
    }

    fn signal(&self, signal: Signal) {
        let pid = self.child.id().expect("still running") as i32;
        kill(Pid::from_raw(pid), signal).expect("our own child takes signals");
    }

    /// SIGKILL: the process dies mid-work, as in a crash.
    pub async fn kill(mut self) {
        self.child.kill().await.expect("the process is killed");
    }
}
