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

use crate::domain::{ConversationId, HarnessName, TenantId};
use crate::policy::CompactionTrigger;
use crate::policy::prepare::{Reason, Status};
use crate::summary::Writer;
use crate::summary::keep::{KeepKind, Source};

/// A type stored as text: `decode` reads it back (an error is a corrupt
/// row), `as_str` writes it.
macro_rules! text_column {
    ($ty:ty, $decode:expr) => {
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
                $decode(raw)
            }
        }

        impl Encode<'_, Postgres> for $ty {
            fn encode_by_ref(&self, buf: &mut PgArgumentBuffer) -> Result<IsNull, BoxDynError> {
                <&str as Encode<Postgres>>::encode(self.as_str(), buf)
            }
        }
    };
}

/// A policy name: one this version does not know is a corrupt row.
macro_rules! stored_name {
    ($ty:ty) => {
        text_column!($ty, |name: &str| -> Result<$ty, BoxDynError> {
            <$ty>::parse(name).ok_or_else(|| format!("unknown {} {name:?}", stringify!($ty)).into())
        });
    };
}

// An id checked as it is read, as the edge checks it: a row holding one
// the edge would refuse is corrupt.
text_column!(TenantId, |raw: &str| -> Result<TenantId, BoxDynError> {
    Ok(TenantId::parse("stored tenant", raw)?)
});
text_column!(ConversationId, |raw: &str| -> Result<ConversationId, BoxDynError> {
    Ok(ConversationId::parse("stored conversation_id", raw.to_owned())?)
});
text_column!(HarnessName, |raw: &str| -> Result<HarnessName, BoxDynError> {
    Ok(HarnessName::parse("stored harness", raw.to_owned())?)
});

stored_name!(CompactionTrigger);
stored_name!(Writer);
stored_name!(KeepKind);
stored_name!(Source);
stored_name!(Status);
stored_name!(Reason);
