//! Entry points for the fuzz targets in `fuzz/`: everything a request body or
//! query string goes through before the database, with no database.

use crate::auth::Caller;
use crate::domain::TenantId;
use crate::http::extract::parse_json;
use crate::http::routes::compactions::{ConversationCompactionsQuery, FleetQuery};
use crate::http::routes::conversations::EventsQuery;
use crate::http::routes::decide::{self, DecideRequest};
use crate::http::routes::due::DueQuery;
use crate::http::routes::handoff::{self, HandoffRequest};
use crate::http::routes::keep::KeepQuery;
use crate::http::routes::summarize::{self, SummarizeRequest};
use crate::http::routes::turn_ended::{self, TurnEndedRequest};
use crate::http::routes::turns::TurnsQuery;
use crate::http::routes::usage::{self, UsageRequest};

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
