//! Configuration: the command line (`args`, `policy_args`), the settings the
//! service runs with (`settings`, `allowed_hosts`), and the one place flags
//! become settings (`from_args`). It imports only values: the domain's, the
//! policy's, the summary's and the upstream client's settings, never the
//! store or the app.

mod allowed_hosts;
mod args;
mod from_args;
mod policy_args;
mod settings;
mod work_args;

pub use allowed_hosts::AllowedHosts;
pub use args::{
    Cli, Command, DatabaseArgs, HookArgs, KeysAction, LlmArgs, LogFormat, Pooler, ProviderChoice, ReplayArgs,
    ServeArgs, StandbyArgs, SummaryArgs, TenantsAction,
};
pub use policy_args::PolicyArgs;
pub use settings::{
    BackgroundSettings, ConnectionLimits, DEFAULT_DAILY_TOKEN_BUDGET, DEFAULT_SUMMARY_MAX_TOKENS, DatabaseSettings,
    Invalid, Leases, Settings, Standby, SummaryConfig, Timeouts, Upstream, WorkLimits,
};
pub use work_args::WorkArgs;
