//! API keys: `cpk_<id>_<secret>`, 64 bits of visible id and 256 bits of
//! secret, random from the operating system. The id names the key in lists
//! and logs; the secret is shown once and kept only as its SHA-256.

use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use crate::domain::text::hex;

pub(crate) const PREFIX: &str = "cpk_";
const ID_BYTES: usize = 8;
const SECRET_BYTES: usize = 32;

/// A key as it is handed out once.
pub(crate) struct NewKey {
    pub id: String,
    pub secret_hash: Vec<u8>,
    /// The whole key; print it once and drop it.
    pub key: String,
}

pub(crate) fn generate() -> Result<NewKey, getrandom::Error> {
    let mut id = [0_u8; ID_BYTES];
    let mut secret = [0_u8; SECRET_BYTES];
    getrandom::fill(&mut id)?;
    getrandom::fill(&mut secret)?;
    let (id, secret) = (hex(&id), hex(&secret));
    Ok(NewKey {
        key: format!("{PREFIX}{id}_{secret}"),
        secret_hash: hash(&secret),
        id,
    })
}

pub(crate) fn hash(secret: &str) -> Vec<u8> {
    Sha256::digest(secret.as_bytes()).to_vec()
}

/// The id and secret of a well-formed key.
pub(crate) fn parse(key: &str) -> Option<(&str, &str)> {
    let rest = key.strip_prefix(PREFIX)?;
    let (id, secret) = rest.split_once('_')?;
    let hex_of = |text: &str, bytes: usize| text.len() == bytes * 2 && text.bytes().all(|b| b.is_ascii_hexdigit());
    (hex_of(id, ID_BYTES) && hex_of(secret, SECRET_BYTES)).then_some((id, secret))
}

/// Whether `secret` is the one whose hash is stored, in time that does not
/// depend on where they differ.
pub(crate) fn matches(secret: &str, stored_hash: &[u8]) -> bool {
    hash(secret).ct_eq(stored_hash).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_key_parses_back_and_matches_its_hash() {
        let new = generate().unwrap();
        assert!(new.key.starts_with("cpk_"));
        assert_eq!(new.key.len(), 4 + 16 + 1 + 64);
        let (id, secret) = parse(&new.key).unwrap();
        assert_eq!(id, new.id);
        assert!(matches(secret, &new.secret_hash));
        assert!(!matches(&"0".repeat(64), &new.secret_hash));
    }

    #[test]
    fn keys_are_random() {
        assert_ne!(generate().unwrap().key, generate().unwrap().key);
    }

    #[test]
    fn malformed_keys_do_not_parse() {
        let good = generate().unwrap().key;
        for bad in [
            "",
            "cpk_",
            "Bearer x",
            &good[..good.len() - 1],
            &good.replace("cpk_", "cpx_"),
            &format!("{good}0"),
        ] {
            assert!(parse(bad).is_none(), "{bad}");
        }
    }
}
