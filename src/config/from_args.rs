//! From the command line to the settings: every flag checked once, here.

use std::sync::Arc;
use std::time::Duration;

use super::args::{LlmArgs, ProviderChoice, ReplayArgs, ServeArgs, SummaryArgs};
use super::settings::{
    BackgroundSettings, ConnectionLimits, DatabaseSettings, Leases, Settings, Standby, SummaryConfig, Timeouts,
    Upstream, WorkLimits,
};
use crate::llm::{LlmConfig, Provider, RetryPolicy};
use crate::policy::PolicyConfig;
use crate::summary::read::HarnessPatterns;

use super::allowed_hosts::AllowedHosts;
use super::settings::Invalid;

impl TryFrom<&ServeArgs> for Settings {
    type Error = Invalid;

    fn try_from(args: &ServeArgs) -> Result<Self, Invalid> {
        let summarize = Duration::from_secs(args.llm.llm_deadline_secs + 15);
        let request = Duration::from_secs(args.request_timeout_secs);
        let leases = leases(args, summarize.max(request))?;
        Ok(Self {
            addr: args.addr,
            max_body_bytes: args.max_body_bytes,
            policy: PolicyConfig::from(&args.policy),
            summarizer: args.llm.upstream()?,
            rate_per_second: args.rate_per_second,
            rate_burst: args.rate_burst,
            timeouts: Timeouts { request, summarize },
            connections: ConnectionLimits {
                header_timeout: Duration::from_secs(args.header_timeout_secs),
                max_connections: usize::try_from(args.client_connections).unwrap_or(usize::MAX),
                ..ConnectionLimits::default()
            },
            database_wait: Duration::from_secs(args.database_wait_secs),
            summaries: SummaryConfig::try_from(&args.summaries)?,
            daily_token_budget: args.llm.daily_token_budget(),
            background: args.background.then(|| BackgroundSettings {
                idle_sweep_every: (args.idle_sweep_secs > 0).then(|| Duration::from_secs(args.idle_sweep_secs)),
                retention: (args.retention_days > 0).then(|| Duration::from_secs(args.retention_days * 86_400)),
                prepare_deadline: Duration::from_secs(args.llm.prepare_deadline_secs),
                ..BackgroundSettings::default()
            }),
            leases,
            allowed_hosts: args.allowed_hosts.clone(),
            database: DatabaseSettings {
                direct_url: args.database.session_url()?.map(str::to_owned),
                standby: args
                    .standby
                    .read_database_url
                    .clone()
                    .map(|url| Standby::new(url, Duration::from_millis(args.standby.read_max_lag_ms))),
            },
            work: WorkLimits {
                exports_at_once: args.work.exports_at_once as usize,
                export_stall: Duration::from_secs(args.work.export_stall_secs),
                export_deadline: Duration::from_secs(args.work.export_deadline_secs),
                keep_checks_at_once: match args.work.keep_checks_at_once {
                    0 => super::settings::half_the_cores(),
                    n => n as usize,
                },
            },
            prices: args.llm.prices.clone().unwrap_or_default(),
        })
    }
}

/// Every claim's window, each checked to outlast the work it is taken for:
/// one that lapses sooner is taken again while its holder still works, and
/// the same work runs twice (issue 23). A request runs at most `longest`.
fn leases(args: &ServeArgs, longest: Duration) -> Result<Leases, Invalid> {
    let leases = Leases {
        request: Duration::from_secs(args.request_claim_timeout_secs),
        worker: Duration::from_secs(args.claim_timeout_secs),
    };
    if leases.request <= longest {
        return Err(format!(
            "COMPACTD_REQUEST_CLAIM_TIMEOUT_SECS (--request-claim-timeout-secs) is {}, but a request may take {} s \
             (the longer of COMPACTD_REQUEST_TIMEOUT_SECS and COMPACTD_LLM_DEADLINE_SECS + 15): a request's claim \
             must outlast it, so set it above that",
            args.request_claim_timeout_secs,
            longest.as_secs()
        ));
    }
    // A preparation (or a score) waits on the upstream as long as a summary
    // may. Without an upstream, or without workers here, none waits on one.
    let summarize = Duration::from_secs(args.llm.llm_deadline_secs + 15);
    let upstream = args.llm.llm_provider != ProviderChoice::None;
    if args.background && upstream && leases.worker <= summarize {
        return Err(format!(
            "COMPACTD_CLAIM_TIMEOUT_SECS (--claim-timeout-secs) is {}, but a summary may take {} s \
             (COMPACTD_LLM_DEADLINE_SECS + 15): a worker's claim must outlast its work, so set it above that",
            args.claim_timeout_secs,
            summarize.as_secs()
        ));
    }
    Ok(leases)
}

impl Settings {
    /// The service a replay runs in this process: on a free port, with no
    /// limits, no background work, and the default policy.
    pub(crate) fn replaying(args: &ReplayArgs) -> Result<Self, Invalid> {
        let deadline = Duration::from_secs(args.llm.llm_deadline_secs);
        Ok(Self {
            addr: ([127, 0, 0, 1], 0).into(),
            max_body_bytes: 256 * 1024 * 1024,
            policy: PolicyConfig {
                // A replay prepares summaries only when asked to.
                prepare_at_percent: if args.prepare {
                    PolicyConfig::default().prepare_at_percent
                } else {
                    0
                },
                ..PolicyConfig::default()
            },
            summarizer: if args.no_upstream { None } else { args.llm.upstream()? },
            rate_per_second: 0,
            rate_burst: 0,
            timeouts: Timeouts {
                request: Duration::from_secs(60),
                summarize: deadline + Duration::from_secs(15),
            },
            connections: ConnectionLimits::default(),
            database_wait: Duration::from_secs(10),
            summaries: SummaryConfig::try_from(&args.summaries)?,
            daily_token_budget: None,
            background: None,
            leases: Leases::default(),
            // A replay's own service is reached on 127.0.0.1 only.
            allowed_hosts: AllowedHosts::default(),
            database: DatabaseSettings {
                direct_url: args.database.session_url()?.map(str::to_owned),
                standby: None,
            },
            work: WorkLimits::default(),
            prices: args.llm.prices.clone().unwrap_or_default(),
        })
    }
}

impl TryFrom<&SummaryArgs> for SummaryConfig {
    type Error = Invalid;

    /// An error names a pattern that is not a regex.
    fn try_from(args: &SummaryArgs) -> Result<Self, Invalid> {
        Ok(Self {
            max_tokens: args.summary_max_tokens,
            harness: Arc::new(HarnessPatterns::with_extra(&args.harness_patterns)?),
        })
    }
}

impl LlmArgs {
    /// The upstream, `None` when there is none; an error names what is missing.
    pub(crate) fn upstream(&self) -> Result<Option<Upstream>, Invalid> {
        let (provider, name) = match self.llm_provider {
            ProviderChoice::OpenAi => (Provider::OpenAi, "openai"),
            ProviderChoice::Anthropic => (Provider::Anthropic, "anthropic"),
            ProviderChoice::None => return Ok(None),
        };
        let model = self
            .summary_model
            .clone()
            .ok_or_else(|| format!("COMPACTD_SUMMARY_MODEL (--summary-model) is required with the {name} provider"))?;
        let retry = RetryPolicy {
            deadline: Duration::from_secs(self.llm_deadline_secs),
            max_attempts: self.llm_max_attempts,
            retry_after_cap: Duration::from_secs(self.llm_retry_after_cap_secs),
            ..RetryPolicy::default()
        };
        Ok(Some(Upstream {
            llm: LlmConfig {
                provider,
                base_url: self
                    .llm_base_url
                    .clone()
                    .unwrap_or_else(|| provider.default_base_url().to_owned()),
                api_key: self.llm_api_key.clone(),
                retry,
                max_concurrent: usize::try_from(self.llm_max_concurrent).unwrap_or(usize::MAX),
            },
            model,
            score_model: self.score_model.clone(),
            context_tokens: self.summary_model_context_tokens,
        }))
    }

    /// The daily budget per tenant; `None`: no limit.
    pub(crate) fn daily_token_budget(&self) -> Option<u64> {
        Some(self.tenant_daily_token_budget).filter(|budget| *budget > 0)
    }
}

#[cfg(test)]
mod tests {
    use chrono::Duration;
    use clap::Parser;

    use super::*;
    use crate::config::args::{Cli, Command, DatabaseArgs, Pooler};
    use crate::config::settings::DEFAULT_DAILY_TOKEN_BUDGET;
    use crate::policy::CacheLife;

    #[test]
    fn a_tenant_s_upstream_spending_is_bounded_unless_told_otherwise() {
        let cli = Cli::try_parse_from(["compactd"]).unwrap();
        assert_eq!(cli.serve.llm.daily_token_budget(), Some(DEFAULT_DAILY_TOKEN_BUDGET));
        let cli = Cli::try_parse_from(["compactd", "--tenant-daily-token-budget", "0"]).unwrap();
        assert_eq!(cli.serve.llm.daily_token_budget(), None);
    }

    #[test]
    fn the_defaults_are_the_spec_policy() {
        let cli = Cli::try_parse_from(["compactd"]).unwrap();
        assert!(cli.command.is_none());
        assert_eq!(PolicyConfig::from(&cli.serve.policy), PolicyConfig::default());
        assert_eq!(cli.serve.addr.to_string(), "127.0.0.1:8080");
    }

    #[test]
    fn flags_set_thresholds() {
        let cli = Cli::try_parse_from([
            "compactd",
            "serve",
            "--context-pressure-tokens",
            "90000",
            "--default-cache-life",
            "one_hour",
            "--idle-lead-minutes",
            "10",
        ])
        .unwrap();
        let Some(Command::Serve(args)) = cli.command else {
            panic!("serve")
        };
        let config = PolicyConfig::from(&args.policy);
        assert_eq!(config.context_pressure_tokens, Some(90_000));
        assert_eq!(config.default_cache_life, CacheLife::OneHour);
        assert_eq!(config.idle_lead, Duration::minutes(10));
    }

    #[test]
    fn nonsense_is_refused_at_start() {
        for args in [
            ["compactd", "--emergency-percent", "0"],
            ["compactd", "--default-cache-life", "forever"],
            ["compactd", "--context-pressure-tokens", "0"],
        ] {
            assert!(Cli::try_parse_from(args).is_err(), "{args:?}");
        }
    }

    #[test]
    fn a_claim_must_outlast_the_longest_summary() {
        let settings = |args: &[&str]| {
            let cli = Cli::try_parse_from(args).unwrap();
            Settings::try_from(&cli.serve)
        };
        let upstream = ["compactd", "--llm-provider", "openai", "--summary-model", "m"];
        let with = |more: &[&'static str]| settings(&[&upstream[..], more].concat());
        let refused = with(&["--llm-deadline-secs", "120", "--claim-timeout-secs", "90"]).unwrap_err();
        assert!(
            refused.contains("COMPACTD_CLAIM_TIMEOUT_SECS") && refused.contains("135"),
            "{refused}"
        );
        assert!(with(&["--llm-deadline-secs", "120", "--claim-timeout-secs", "135"]).is_err());
        let taken = with(&["--llm-deadline-secs", "120", "--claim-timeout-secs", "136"]).unwrap();
        assert_eq!(taken.leases.worker, std::time::Duration::from_secs(136));
        // Without an upstream, or without workers here, no claim waits on one.
        assert!(settings(&["compactd", "--claim-timeout-secs", "5"]).is_ok());
        assert!(with(&["--background", "false", "--claim-timeout-secs", "5"]).is_ok());
        assert!(settings(&["compactd"]).is_ok(), "the defaults hold");
        assert!(with(&[]).is_ok(), "the defaults hold with an upstream");
    }

    #[test]
    fn a_requests_claim_must_outlast_the_longest_request() {
        let settings = |args: &[&str]| {
            let cli = Cli::try_parse_from(args).unwrap();
            Settings::try_from(&cli.serve)
        };
        let refused = settings(&[
            "compactd",
            "--llm-deadline-secs",
            "600",
            "--request-claim-timeout-secs",
            "615",
        ]);
        let refused = refused.unwrap_err();
        assert!(
            refused.contains("COMPACTD_REQUEST_CLAIM_TIMEOUT_SECS") && refused.contains("615 s"),
            "{refused}"
        );
        let slow = [
            "compactd",
            "--request-timeout-secs",
            "900",
            "--request-claim-timeout-secs",
            "900",
        ];
        assert!(
            settings(&slow).unwrap_err().contains("900 s"),
            "the request timeout counts too"
        );
        let taken = settings(&[
            "compactd",
            "--llm-deadline-secs",
            "600",
            "--request-claim-timeout-secs",
            "616",
        ]);
        assert_eq!(taken.unwrap().leases.request, std::time::Duration::from_secs(616));
        assert_eq!(
            settings(&["compactd"]).unwrap().leases,
            crate::config::Leases::default(),
            "the defaults are the service's own"
        );
    }

    #[test]
    fn a_provider_needs_a_summary_model() {
        let cli = Cli::try_parse_from(["compactd", "--llm-provider", "openai"]).unwrap();
        assert!(cli.serve.llm.upstream().unwrap_err().contains("COMPACTD_SUMMARY_MODEL"));
        let cli = Cli::try_parse_from(["compactd", "--llm-provider", "anthropic", "--summary-model", "m"]).unwrap();
        let settings = cli.serve.llm.upstream().unwrap().unwrap();
        assert_eq!(settings.llm.base_url, "https://api.anthropic.com");
        let none = Cli::try_parse_from(["compactd"]).unwrap();
        assert!(none.serve.llm.upstream().unwrap().is_none());
    }

    #[test]
    fn the_upstream_key_is_never_printed() {
        let cli = Cli::try_parse_from(["compactd", "--llm-api-key", "sk-secret"]).unwrap();
        assert!(!format!("{cli:?}").contains("sk-secret"));
    }

    #[test]
    fn the_database_url_is_never_printed() {
        let args = DatabaseArgs {
            database_url: Some("postgres://u:secret@h/db".into()),
            data_dir: "d".into(),
            database_pooler: Pooler::Transaction,
            direct_database_url: Some("postgres://u:direct-secret@h/db".into()),
        };
        assert!(!format!("{args:?}").contains("secret"));
        let cli = Cli::try_parse_from([
            "compactd",
            "--read-database-url",
            "postgres://u:standby-secret@h/db",
            "--direct-database-url",
            "postgres://u:direct-secret@h/db",
        ])
        .unwrap();
        let settings = Settings::try_from(&cli.serve).unwrap();
        assert!(!format!("{cli:?}{settings:?}").contains("secret"));
    }

    #[test]
    fn a_transaction_pooler_needs_a_direct_url() {
        let pooled = ["compactd", "--database-pooler", "transaction"];
        let cli = Cli::try_parse_from(pooled).unwrap();
        let refused = Settings::try_from(&cli.serve).unwrap_err();
        assert!(refused.contains("COMPACTD_DIRECT_DATABASE_URL"), "{refused}");
        let direct =
            Cli::try_parse_from([&pooled[..], &["--direct-database-url", "postgres://h/db"]].concat()).unwrap();
        let settings = Settings::try_from(&direct.serve).unwrap();
        assert_eq!(settings.database.direct_url.as_deref(), Some("postgres://h/db"));
    }

    #[test]
    fn a_standby_is_measured_ten_times_within_the_lag_it_may_have() {
        let cli = Cli::try_parse_from([
            "compactd",
            "--read-database-url",
            "postgres://s/db",
            "--read-max-lag-ms",
            "500",
        ])
        .unwrap();
        let standby = Settings::try_from(&cli.serve).unwrap().database.standby.unwrap();
        assert_eq!(
            (standby.max_lag, standby.probe_every),
            (
                std::time::Duration::from_millis(500),
                std::time::Duration::from_millis(50)
            )
        );
        let slow = Standby::new("postgres://s/db".into(), std::time::Duration::from_secs(60));
        assert_eq!(
            slow.probe_every,
            std::time::Duration::from_secs(1),
            "at least once a second"
        );
    }
}
