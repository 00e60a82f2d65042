//! Entry points for the fuzz targets in `fuzz/`: everything a request body or
//! query string goes through before the database, with no database.

use super::compactions::{ConversationCompactionsQuery, FleetQuery};
use super::conversations::EventsQuery;
use super::decide::{self, DecideRequest};
use super::due::DueQuery;
use super::extract::parse_json;
use super::handoff::{self, HandoffRequest};
use super::keep::KeepQuery;
use super::summarize::{self, SummarizeRequest};
use super::turn_ended::{self, TurnEndedRequest};
use super::turns::TurnsQuery;
use super::usage::{self, UsageRequest};
use crate::auth::Caller;
use crate::domain::TenantId;

/// Parses `body` as every endpoint's request and checks it as the endpoint
/// would. Any outcome is fine but a panic.
pub fn request_body(body: &[u8]) {
    let tenant = TenantId::open();
    if let Ok(request) = parse_json::<UsageRequest>(body) {
        let _ = usage::parse(tenant.clone(), request);
    }
    if let Ok(request) = parse_json::<TurnEndedRequest>(body) {
        let _ = turn_ended::parse(tenant.clone(), request);
    }
    if let Ok(request) = parse_json::<DecideRequest>(body) {
        let _ = decide::parse(tenant.clone(), request);
    }
    if let Ok(request) = parse_json::<SummarizeRequest>(body) {
        let _ = summarize::parse(&Caller::open(), request);
    }
    if let Ok(request) = parse_json::<HandoffRequest>(body) {
        let _ = handoff::parse(tenant, request);
    }
}

/// Parses `query` as every read's query string.
pub fn query_string(query: &str) {
    fn parse<T: serde::de::DeserializeOwned>(query: &str) -> Option<T> {
        serde_urlencoded::from_str(query).ok()
    }
    let _ = parse::<EventsQuery>(query);
    let _ = parse::<DueQuery>(query);
    let _ = parse::<FleetQuery>(query);
    let _ = parse::<ConversationCompactionsQuery>(query);
    let _ = parse::<TurnsQuery>(query);
    let _ = parse::<KeepQuery>(query);
}
