//! Logs and metrics: the tracing subscriber (text or JSON, to stderr) and the
//! process's Prometheus recorder, installed once and shared by every app in
//! the process.

use std::sync::OnceLock;
use std::time::Duration;

use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};
use tracing_subscriber::EnvFilter;

/// Seconds: from a fast request to a slow upstream call.
const BUCKETS: &[f64] = &[
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0,
];

/// Logs go to stderr: stdout carries what a command answers (a new key, the
/// OpenAPI document, the address it listens on). `json`: one JSON object a line.
pub fn init_logs(json: bool) {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    let logs = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    if json {
        logs.json().with_current_span(true).with_span_list(false).init();
    } else {
        logs.init();
    }
}

/// How often histogram samples are folded into their buckets (the exporter's
/// own default when it runs its listener, which we do not use).
const UPKEEP_EVERY: Duration = Duration::from_secs(5);

/// The exporter queues every histogram sample until an upkeep folds them into
/// buckets, and only a scrape of /metrics ran one: with nobody scraping, the
/// queue grew by a sample (8 bytes) a request for ever, some 700 MB a day at
/// 1,000 requests a second. Runs the upkeep every few seconds instead.
pub(crate) async fn keep_metrics_bounded() {
    let mut every = tokio::time::interval(UPKEEP_EVERY);
    loop {
        every.tick().await;
        metrics().run_upkeep();
    }
}

/// The process's metrics, recorded from here on.
pub(crate) fn metrics() -> &'static PrometheusHandle {
    static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();
    HANDLE.get_or_init(|| {
        let builder = PrometheusBuilder::new()
            .set_buckets_for_metric(Matcher::Suffix("_seconds".to_owned()), BUCKETS)
            .unwrap_or_else(|_| PrometheusBuilder::new());
        match builder.install_recorder() {
            Ok(handle) => handle,
            // Another recorder owns the process (an embedding program's):
            // keep one of our own so /metrics still answers.
            Err(_) => PrometheusBuilder::new().build_recorder().handle(),
        }
    })
}
