//! The service as a replay calls it: its requests, with the replay's key,
//! and the reads a report measures by (the summary the agent has, the keep
//! set as the service lists it, or as the replay's own database holds it).

use serde_json::{Value, json};

use super::clock;
use super::report::Figures;
use super::{Replay, ReplayError};
use crate::app::keep_set;
use crate::domain::ConversationId;
use crate::domain::transcript::Message;
use crate::summary::keep::{KeepKind, KeepSet, Place, Sighting, Source};

/// A message as `/summarize` takes it.
pub(super) fn wire(message: &Message) -> Value {
    json!({
        "role": message.role.as_str(),
        "content": message.content,
        "name": message.name,
        "tool_calls": message.tool_calls.iter().map(|call| json!({
            "id": call.id, "name": call.name, "arguments": call.arguments,
        })).collect::<Vec<_>>(),
        "tool_call_id": message.tool_call_id,
    })
}

impl Replay {
    fn authorized(&self, request: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        match &self.bearer {
            Some(key) => request.bearer_auth(key),
            None => request,
        }
    }

    pub(super) async fn call(&self, path: &str, body: Value) -> Result<Value, ReplayError> {
        let request = self.client.post(format!("{}{path}", self.base)).json(&body);
        match self.send(path, request).await? {
            (status, answer) if status.is_success() => Ok(answer),
            (status, answer) => Err(ReplayError::Service(format!("{path} answered {status}: {answer}"))),
        }
    }

    /// A read of the service's, with its status.
    pub(super) async fn read(&self, path: &str) -> Result<(reqwest::StatusCode, Value), ReplayError> {
        self.send(path, self.client.get(format!("{}{path}", self.base))).await
    }

    async fn send(
        &self,
        path: &str,
        request: reqwest::RequestBuilder,
    ) -> Result<(reqwest::StatusCode, Value), ReplayError> {
        let response = self
            .authorized(request)
            .send()
            .await
            .map_err(|err| ReplayError::Service(format!("{path}: {err}")))?;
        let status = response.status();
        Ok((status, response.json().await.unwrap_or(Value::Null)))
    }

    pub(super) async fn summary_of(&self, id: &str) -> Result<Option<String>, ReplayError> {
        let (_, state) = self.read(&format!("/conversations/{id}")).await?;
        Ok(state["summary"]["text"].as_str().map(str::to_owned))
    }

    /// What the agent has of the conversation now, measured against its keep set.
    pub(super) async fn measure(&self, id: &str, text: &str) -> Result<Figures, ReplayError> {
        let Some(own) = &self.own else {
            return Ok(Figures::measure(self.keep_set_read(id).await?.items(), text));
        };
        let conversation = ConversationId::parse("conversation_id", id.to_owned())
            .map_err(|err| ReplayError::Service(err.to_string()))?;
        let mut conn = own
            .pool
            .acquire()
            .await
            .map_err(|err| ReplayError::Service(err.to_string()))?;
        let current = keep_set::current(&mut conn, &own.tenant, &conversation, &self.summaries.harness)
            .await
            .map_err(|err| ReplayError::Service(err.to_string()))?;
        Ok(Figures::measure(current.set.items(), text))
    }

    /// The keep set as a running service lists it (`get_keep_set`): each
    /// item seen again from every source it lists, first source first.
    async fn keep_set_read(&self, id: &str) -> Result<KeepSet, ReplayError> {
        // A replay names its conversations in letters, digits and dashes.
        let path = format!("/conversations/{id}/keep?limit=5000");
        let (status, listed) = self.read(&path).await?;
        // Not made yet (a session that opens with its harness's summary):
        // nothing kept, as a replay's own database answers.
        if status == reqwest::StatusCode::NOT_FOUND {
            return Ok(KeepSet::default());
        }
        if !status.is_success() {
            return Err(ReplayError::Service(format!("{path} answered {status}: {listed}")));
        }
        if listed["truncated"] == true {
            tracing::warn!(
                conversation = id,
                total = listed["total"].as_u64(),
                "the keep set is larger than one read lists: measured on its first 5,000 items"
            );
        }
        let mut set = KeepSet::default();
        let place = Place {
            conversation_id: id.to_owned(),
            turn_id: None,
            compaction_seq: None,
            message: None,
            at: clock::fixed_start(),
        };
        for item in listed["items"].as_array().into_iter().flatten() {
            let Some(kind) = item["kind"].as_str().and_then(KeepKind::parse) else {
                continue;
            };
            let text = item["text"].as_str().unwrap_or_default();
            let first = item["source"].as_str().and_then(Source::parse);
            let others = item["sources"].as_array().into_iter().flatten();
            let others = others.filter_map(|source| source.as_str().and_then(Source::parse));
            for source in first.into_iter().chain(others.filter(|source| Some(*source) != first)) {
                set.observe(&[Sighting::new(kind, text, source)], &place);
            }
        }
        Ok(set)
    }
}
