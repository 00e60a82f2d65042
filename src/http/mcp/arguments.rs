//! A tool's arguments, decoded as the REST API decodes a body (issue 23):
//! arguments of the wrong shape are the same 422 problem naming the field,
//! as a tool error the model can read and correct, where rmcp's own
//! `Parameters` answers a line of plain text ("failed to deserialize
//! parameters: …"). MCP counts input validation among tool execution
//! errors (2025-11-25), so this is a result, not a protocol error.

use std::sync::Arc;

use rmcp::handler::server::common::{FromContextPart, schema_for_input};
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::model::JsonObject;
use rmcp::schemars::JsonSchema;
use serde::de::DeserializeOwned;

use crate::http::error::ApiError;
use crate::http::extract::decode_value;

/// The arguments as `T`, or the problem that says why not.
pub(crate) struct Arguments<T>(pub Result<T, ApiError>);

impl<S, T: DeserializeOwned> FromContextPart<ToolCallContext<'_, S>> for Arguments<T> {
    fn from_context_part(context: &mut ToolCallContext<'_, S>) -> Result<Self, rmcp::ErrorData> {
        let arguments = context.arguments.take().unwrap_or_default();
        Ok(Self(decode_value(serde_json::Value::Object(arguments))))
    }
}

/// The input schema a tool taking `Arguments<T>` declares: `T`'s.
pub(crate) fn schema_of<T: JsonSchema + 'static>() -> Arc<JsonObject> {
    schema_for_input::<T>().unwrap_or_else(|err| panic!("{} has no input schema: {err}", std::any::type_name::<T>()))
}
