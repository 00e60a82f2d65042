//! The policy's names as column values: stored as their stable text, and
//! decoded into the policy's own types as a row is read, so a name this
//! version does not know is the store's error (a corrupt row), not a string
//! every caller parses again; so are the tenant and conversation ids, checked
//! as the edge checks them. The policy stays free of sqlx: the impls live
//! here.

use sqlx::encode::IsNull;
use sqlx::error::BoxDynError;
use sqlx::postgres::{PgArgumentBuffer, PgTypeInfo, PgValueRef};
use sqlx::{Decode, Encode, Postgres, Type};

use crate::domain::{ConversationId, TenantId};
use crate::llm::Writer;
use crate::policy::CompactionTrigger;
use crate::policy::keep::{KeepKind, Source};

macro_rules! stored_name {
    ($ty:ty) => {
        impl Type<Postgres> for $ty {
            fn type_info() -> PgTypeInfo {
                <&str as Type<Postgres>>::type_info()
            }

            fn compatible(ty: &PgTypeInfo) -> bool {
                <&str as Type<Postgres>>::compatible(ty)
            }
        }

        impl<'r> Decode<'r, Postgres> for $ty {
            fn decode(value: PgValueRef<'r>) -> Result<Self, BoxDynError> {
                let name = <&str as Decode<Postgres>>::decode(value)?;
                <$ty>::parse(name).ok_or_else(|| format!("unknown {} {name:?}", stringify!($ty)).into())
            }
        }

        impl Encode<'_, Postgres> for $ty {
            fn encode_by_ref(&self, buf: &mut PgArgumentBuffer) -> Result<IsNull, BoxDynError> {
                <&str as Encode<Postgres>>::encode(self.as_str(), buf)
            }
        }
    };
}

/// An id checked as it is read: a row that holds one the edge would refuse
/// is corrupt.
macro_rules! stored_id {
    ($ty:ty, $parse:expr) => {
        impl Type<Postgres> for $ty {
            fn type_info() -> PgTypeInfo {
                <&str as Type<Postgres>>::type_info()
            }

            fn compatible(ty: &PgTypeInfo) -> bool {
                <&str as Type<Postgres>>::compatible(ty)
            }
        }

        impl<'r> Decode<'r, Postgres> for $ty {
            fn decode(value: PgValueRef<'r>) -> Result<Self, BoxDynError> {
                let raw = <&str as Decode<Postgres>>::decode(value)?;
                Ok($parse(raw)?)
            }
        }

        impl Encode<'_, Postgres> for $ty {
            fn encode_by_ref(&self, buf: &mut PgArgumentBuffer) -> Result<IsNull, BoxDynError> {
                <&str as Encode<Postgres>>::encode(self.as_str(), buf)
            }
        }
    };
}

stored_id!(TenantId, |raw| TenantId::parse("stored tenant", raw));
stored_id!(ConversationId, |raw: &str| ConversationId::parse(
    "stored conversation_id",
    raw.to_owned()
));

stored_name!(CompactionTrigger);
stored_name!(Writer);
stored_name!(KeepKind);
stored_name!(Source);
