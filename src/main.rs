//! The `compactd` binary: parse the command line, set up logging, and hand
//! over to the library.

use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use compactd::config::{Cli, LogFormat};

/// A faster allocator than glibc's for many small, short-lived allocations
/// across threads (a request's JSON, rows and answer): a few percent of
/// throughput on the hot path (bench/README.md).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc gives memory freed by one thread back to the OS when an
/// allocating thread next gets to it: after a burst (six exports of a 75 MB
/// conversation at once) a quiet process kept some 90 MB for as long as it
/// stayed quiet (issue 37). Once a second, what was freed and is due to go
/// back goes, program-wide.
fn give_back_freed_memory() {
    let every = Duration::from_secs(1);
    let spawned = std::thread::Builder::new().name("give-back".into()).spawn(move || {
        loop {
            std::thread::sleep(every);
            // SAFETY: takes no pointers, touches only the allocator's own
            // state, and may be called from any thread at any time.
            unsafe { libmimalloc_sys::mi_collect(false) };
        }
    });
    if let Err(err) = spawned {
        eprintln!("compactd: freed memory will go back to the OS only as the allocator gets to it: {err}");
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    compactd::telemetry::init_logs(cli.log_format == LogFormat::Json);
    give_back_freed_memory();
    match compactd::commands::run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            tracing::error!("{err}");
            eprintln!("compactd: {err}");
            ExitCode::FAILURE
        }
    }
}
