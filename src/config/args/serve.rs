//! `compactd serve`'s flags: where it listens, what it holds at once, its
//! timeouts and claims, the background workers, rate limits, and the groups
//! of flags it shares with a replay.

use std::net::SocketAddr;

use clap::Args;

use super::{DatabaseArgs, LlmArgs, StandbyArgs, SummaryArgs};
use crate::config::allowed_hosts::AllowedHosts;
use crate::config::policy_args::PolicyArgs;
use crate::config::work_args::WorkArgs;

#[derive(Debug, Clone, Args)]
pub struct ServeArgs {
    #[command(flatten)]
    pub database: DatabaseArgs,
    #[command(flatten)]
    pub standby: StandbyArgs,
    #[command(flatten)]
    pub work: WorkArgs,
    /// Address to listen on.
    #[arg(long, env = "COMPACTD_ADDR", default_value = "127.0.0.1:8080")]
    pub addr: SocketAddr,
    /// The names the service answers to besides loopback ones, comma-
    /// separated (`compactd.internal, *.example.com`, or `*` for any); the
    /// Host check applies while no key exists or when names are given, and a
    /// browser's Origin must be one of them or the service itself.
    #[arg(long, env = "COMPACTD_ALLOWED_HOSTS", default_value = "", value_parser = AllowedHosts::parse)]
    pub allowed_hosts: AllowedHosts,
    /// Database connections in the pool: about one per request in flight.
    #[arg(long, env = "COMPACTD_MAX_CONNECTIONS", default_value_t = 16,
          value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub max_connections: u32,
    /// How long a request may take before it is abandoned with a 503
    /// (/summarize: the upstream deadline plus 15 s).
    #[arg(long, env = "COMPACTD_REQUEST_TIMEOUT_SECS", default_value_t = 10,
          value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub request_timeout_secs: u64,
    /// Seconds a client has to send a request's headers, from connecting or
    /// from its previous answer (an idle keep-alive connection closes then).
    #[arg(long, env = "COMPACTD_HEADER_TIMEOUT_SECS", default_value_t = 10,
          value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub header_timeout_secs: u64,
    /// Client connections held at once (fitted under the file limit); more
    /// are answered 503 and closed at once.
    #[arg(long, env = "COMPACTD_CLIENT_CONNECTIONS", default_value_t = 8192,
          value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub client_connections: u64,
    /// Seconds start-up waits for the database to answer, retrying with
    /// backoff (/healthz answers and /readyz says 503 meanwhile).
    #[arg(long, env = "COMPACTD_DATABASE_WAIT_SECS", default_value_t = 60,
          value_parser = clap::value_parser!(u64).range(0..=86_400))]
    pub database_wait_secs: u64,
    /// Run the background workers (scoring, audits, preparations, long turns'
    /// search pieces, the idle sweep) in this process; with none anywhere,
    /// a long turn is searched past its first 200,000 characters by substring.
    #[arg(long, env = "COMPACTD_BACKGROUND", default_value_t = true, action = clap::ArgAction::Set)]
    pub background: bool,
    /// Seconds between idle sweeps (0: none).
    #[arg(long, env = "COMPACTD_IDLE_SWEEP_SECS", default_value_t = 60)]
    pub idle_sweep_secs: u64,
    /// Delete conversations nothing has touched for this many days, in the
    /// background (0: keep them for ever). Their ledger rows stay without content.
    #[arg(long, env = "COMPACTD_RETENTION_DAYS", default_value_t = 0,
          value_parser = clap::value_parser!(u64).range(0..=36_500))]
    pub retention_days: u64,
    /// Seconds after which a worker's claim counts as abandoned and is taken again.
    #[arg(long, env = "COMPACTD_CLAIM_TIMEOUT_SECS", default_value_t = 300,
          value_parser = clap::value_parser!(u64).range(1..=86_400))]
    pub claim_timeout_secs: u64,
    /// Seconds after which a request's claim (a conversation being compacted,
    /// an Idempotency-Key being answered) counts as abandoned: its process
    /// died. It must outlast any request (checked).
    #[arg(long, env = "COMPACTD_REQUEST_CLAIM_TIMEOUT_SECS", default_value_t = 660,
          value_parser = clap::value_parser!(u64).range(1..=86_400))]
    pub request_claim_timeout_secs: u64,
    /// Requests a second each API key may make (0: no limit; none in open mode).
    #[arg(long, env = "COMPACTD_RATE_PER_SECOND", default_value_t = 1000)]
    pub rate_per_second: u32,
    /// The burst above that rate a key may send at once.
    #[arg(long, env = "COMPACTD_RATE_BURST", default_value_t = 2000)]
    pub rate_burst: u32,
    #[command(flatten)]
    pub summaries: SummaryArgs,
    /// The largest request body accepted (413 past it).
    #[arg(long, env = "COMPACTD_MAX_BODY_BYTES", default_value_t = 4 * 1024 * 1024)]
    pub max_body_bytes: usize,
    #[command(flatten)]
    pub policy: PolicyArgs,
    #[command(flatten)]
    pub llm: LlmArgs,
}
