//! Free text from callers (transcripts, summaries, plans), and bytes shown
//! as text.

/// Postgres text cannot hold NUL; text that has one keeps its place with
/// U+FFFD rather than losing the whole request.
pub(crate) fn storable(text: String) -> String {
    if text.contains('\0') {
        text.replace('\0', "\u{FFFD}")
    } else {
        text
    }
}

/// Lower-case hex, two digits a byte (key ids, secrets, checksums).
pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_nul_keeps_its_place() {
        assert_eq!(storable("a\0b".to_owned()), "a\u{FFFD}b");
        assert_eq!(storable("plain".to_owned()), "plain");
    }
}
