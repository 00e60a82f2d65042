//! The tenant a request acts for: from its API key, `default` in open mode.

use std::fmt;

use super::InvalidValue;

/// The most characters a tenant's name may have.
pub(crate) const MAX_CHARS: usize = 64;

#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TenantId(String);

impl TenantId {
    /// The tenant of a service running open, with no keys.
    pub fn open() -> Self {
        Self("default".to_owned())
    }

    /// 1–64 letters, digits, `.`, `_` or `-`: a name that is safe in logs,
    /// URLs and dashboards.
    pub(crate) fn parse(field: &str, raw: &str) -> Result<Self, InvalidValue> {
        let fits = (1..=MAX_CHARS).contains(&raw.len());
        if !fits
            || !raw
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
        {
            return Err(InvalidValue::new(
                field,
                format!("must be 1 to {MAX_CHARS} letters, digits, '.', '_' or '-'"),
            ));
        }
        Ok(Self(raw.to_owned()))
    }

    pub(crate) fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for TenantId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tenant_names_are_plain() {
        assert!(TenantId::parse("tenant", "acme-prod_2").is_ok());
        for bad in ["", "a b", "ümlaut", "x/y", &"t".repeat(65)] {
            assert!(TenantId::parse("tenant", bad).is_err(), "{bad}");
        }
    }
}
