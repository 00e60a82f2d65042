//! What names a thing by a code: hashes, UUIDs, versions, tickets, issues,
//! error codes and words joined to a code, told from the names of standards.

use std::sync::LazyLock;

use regex::Regex;

static UUID: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b")
        .expect("a valid pattern")
});
static HEX: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b(?:[0-9a-f]{7,64}|[0-9A-F]{7,64})\b").expect("a valid pattern"));
static VERSION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\bv?\d+\.\d+\.\d+(?:-[0-9A-Za-z.\-]+)?(?:\+[0-9A-Za-z.\-]+)?\b|\bv\d+(?:\.\d+)+\b")
        .expect("a valid pattern")
});
static TICKET: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b([A-Z][A-Z0-9]{1,9})-\d+\b").expect("a valid pattern"));
static ISSUE: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"(?:^|[\s(\[,])(#\d{2,})\b").expect("a valid pattern"));
static ERROR_CODE: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\b[A-Z]{1,4}\d{3,6}\b").expect("a valid pattern"));
/// `req_8f3a2`, `job-77aa1`, `build_4711`: a word joined to a code.
static JOINED_ID: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b[A-Za-z][A-Za-z0-9]*(?:[_\-][A-Za-z0-9]+)+\b").expect("a valid pattern"));

/// Ticket-shaped names that are standards, not tickets.
const NOT_TICKETS: &[&str] = &[
    "UTF", "SHA", "AES", "ISO", "MD", "GPT", "ES", "ECMA", "ANSI", "RSA", "HS", "RS", "PS", "X", "TLS", "SSL",
];

/// Whether a word joined to a code names something (`req_8f3a2`,
/// `build_4711`) rather than a CSS class or a word list (`grid-cols-3`).
fn is_joined_id(token: &str) -> bool {
    let segments: Vec<&str> = token.split(['_', '-']).collect();
    segments.iter().any(|segment| {
        let digits = segment.chars().filter(char::is_ascii_digit).count();
        let letters = segment.chars().filter(char::is_ascii_alphabetic).count();
        (digits >= 2 && letters >= 1 && segment.len() >= 4) || (letters == 0 && digits >= 4)
    })
}

/// Names of standards and algorithms (`SHA256`, `HMAC-SHA256`, `ISO8601`):
/// well known, nothing this conversation named.
fn is_standard(token: &str) -> bool {
    static STANDARD: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)(?:^|[-_])(?:sha|aes|iso|utf|rsa|crc|http|tls|ssl|base|md|ed|ecdsa|x)\d+$")
            .expect("a valid pattern")
    });
    STANDARD.is_match(token)
}

fn is_hex_id(token: &str) -> bool {
    token.chars().any(|c| c.is_ascii_digit()) && token.chars().any(|c| c.is_ascii_alphabetic())
}

/// Whether `text[start..end]` is part of an IPv4 address (`192.168.133`
/// of `192.168.133.114`): four numbers up to 255, no `v`; a fragment, not a
/// version. A longer version (`v2.3.4.1`, `120.0.6099.109`) keeps its head.
fn inside_an_address(text: &str, start: usize, end: usize) -> bool {
    let bytes = text.as_bytes();
    let is_run = |b: u8| b.is_ascii_digit() || b == b'.';
    let mut from = start;
    while from > 0 && is_run(bytes[from - 1]) {
        from -= 1;
    }
    let mut to = end;
    while to < bytes.len() && is_run(bytes[to]) {
        to += 1;
    }
    let run = text[from..to].trim_matches('.');
    let parts: Vec<&str> = run.split('.').collect();
    let prefixed = from > 0 && matches!(bytes[from - 1], b'v' | b'V');
    !prefixed
        && (from < start || to > end)
        && parts.len() == 4
        && parts.iter().all(|part| part.parse::<u16>().is_ok_and(|n| n <= 255))
}

/// Where ids may stand in `text`, overlapping as found.
pub(super) fn candidates(text: &str) -> Vec<(usize, usize)> {
    let mut ids: Vec<(usize, usize)> = Vec::new();
    for pattern in [&*UUID, &*VERSION, &*HEX, &*TICKET, &*ERROR_CODE] {
        for id in pattern.find_iter(text) {
            let token = id.as_str();
            let keep = match pattern {
                p if std::ptr::eq(p, &*HEX) => is_hex_id(token),
                p if std::ptr::eq(p, &*TICKET) => token
                    .split_once('-')
                    .is_some_and(|(prefix, _)| !NOT_TICKETS.contains(&prefix)),
                p if std::ptr::eq(p, &*ERROR_CODE) => !is_standard(token),
                p if std::ptr::eq(p, &*VERSION) => !inside_an_address(text, id.start(), id.end()),
                _ => true,
            };
            if keep {
                ids.push((id.start(), id.end()));
            }
        }
    }
    for issue in ISSUE.captures_iter(text) {
        if let Some(number) = issue.get(1) {
            ids.push((number.start(), number.end()));
        }
    }
    for id in JOINED_ID.find_iter(text) {
        if is_joined_id(id.as_str()) && !is_standard(id.as_str()) {
            ids.push((id.start(), id.end()));
        }
    }
    ids
}
