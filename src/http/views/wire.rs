//! How the policy's names travel: as their stable strings, in JSON, in query
//! strings and in the OpenAPI document. The schema's enum is built from the
//! same list the parser reads, so the two cannot drift apart.

use std::borrow::Cow;

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::{ObjectBuilder, Schema, Type};

use crate::domain::transcript::Role;
use crate::policy::prepare::Reason;
use crate::policy::{CacheLife, CompactionTrigger, DecisionKind, Guard, Moment, Trigger};
use crate::summary::Writer;
use crate::summary::keep::{KeepKind, Source};

macro_rules! wire_name {
    ($ty:ident, $description:literal) => {
        impl Serialize for $ty {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let name = Cow::<str>::deserialize(deserializer)?;
                $ty::parse(&name).ok_or_else(|| {
                    let names: Vec<_> = $ty::names().collect();
                    D::Error::custom(format!(
                        "unknown value `{name}`, expected one of: {}",
                        names.join(", ")
                    ))
                })
            }
        }

        impl utoipa::PartialSchema for $ty {
            fn schema() -> RefOr<Schema> {
                ObjectBuilder::new()
                    .schema_type(Type::String)
                    .description(Some($description))
                    .enum_values(Some($ty::names()))
                    .build()
                    .into()
            }
        }

        impl utoipa::ToSchema for $ty {
            fn name() -> Cow<'static, str> {
                Cow::Borrowed(stringify!($ty))
            }
        }
    };
}

wire_name!(
    Trigger,
    "Why a compaction or rollover is due. Stable: the ledger stores these. `cache_cold` and `long_away` only explain a `next_message` rollover."
);
wire_name!(
    CompactionTrigger,
    "What a compaction is recorded as (the ledger's trigger names)."
);
wire_name!(Guard, "The loop guard that holds: compacting again would not help.");
wire_name!(
    DecisionKind,
    "What to do: keep going, compact in place, or roll over into a new conversation."
);
wire_name!(
    Moment,
    "When the caller asks: at a turn's end, while idle, or before the next user message."
);
wire_name!(CacheLife, "How long the provider keeps the prompt cached.");
wire_name!(Role, "Who a transcript message is from.");
wire_name!(
    KeepKind,
    "What a must-keep item is: the latest request, a prohibition, a path, URL, id, command or quantity, or a file the agent changed."
);
wire_name!(
    Source,
    "Where a must-keep item was seen: the user, the assistant, a tool call, or tool output (and harness text)."
);
wire_name!(
    Reason,
    "Why a summary prepared ahead was wasted (written, never used) or dropped (never written)."
);
wire_name!(
    Writer,
    "Who wrote a summary: the upstream LLM, compactd's extractive summarizer, or the caller's harness."
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_travel_as_their_stable_strings() {
        assert_eq!(
            serde_json::to_string(&Trigger::Compaction(CompactionTrigger::IdleCacheExpiry)).unwrap(),
            "\"idle_cache_expiry\""
        );
        let moment: Moment = serde_json::from_str("\"next_message\"").unwrap();
        assert_eq!(moment, Moment::NextMessage);
    }

    #[test]
    fn an_unknown_name_lists_the_known_ones() {
        let err = serde_json::from_str::<CacheLife>("\"forever\"")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("unknown value `forever`, expected one of: five_minutes, one_hour"),
            "{err}"
        );
    }
}
