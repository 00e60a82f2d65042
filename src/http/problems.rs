//! The problem answers several routes share, said once for the OpenAPI
//! document (each route lists these beside its own).

use utoipa::IntoResponses;

use super::error::Problem;

/// What a report that takes an `Idempotency-Key` answers for a bad body or
/// a key used before (the in-flight 409 differs by route: each says its own).
#[derive(IntoResponses)]
#[allow(dead_code)]
pub(crate) enum ReportProblems {
    #[response(
        status = 400,
        description = "The body is not JSON.",
        content_type = "application/problem+json"
    )]
    NotJson(Problem),
    #[response(
        status = 410,
        description = "This Idempotency-Key's request was answered, then its conversation was deleted: it is not applied again.",
        content_type = "application/problem+json"
    )]
    KeyOfADeletedConversation(Problem),
    #[response(
        status = 422,
        description = "A value is invalid, or the Idempotency-Key was used for another body.",
        content_type = "application/problem+json"
    )]
    InvalidValue(Problem),
}

/// A route under `/conversations/{id}` answering for an id its tenant does
/// not have.
#[derive(IntoResponses)]
#[response(
    status = 404,
    description = "No such conversation for this tenant.",
    content_type = "application/problem+json"
)]
#[allow(dead_code)]
pub(crate) struct NoSuchConversation(Problem);
