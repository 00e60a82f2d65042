//! What names a web page: a URL, kept once per page whatever its
//! `:line:col`, fragment or cache-busting query says.

use std::sync::LazyLock;

use regex::Regex;

pub(super) static URL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(?i)\b(?:https?|ftp|wss?|ssh|git|file)://[^\s<>"'`\]\[{}|\\^]+"#).expect("a valid pattern")
});

/// Query parameters that only bust a cache: the same page either way.
const CACHE_BUSTERS: &[&str] = &[
    "v",
    "ver",
    "t",
    "ts",
    "_",
    "_t",
    "cb",
    "cachebust",
    "cachebuster",
    "cache",
    "nocache",
    "bust",
    "rev",
    "hash",
    "timestamp",
];

static LINE_AND_COLUMN: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"(?::\d+){1,2}\z").expect("a valid pattern"));

/// One item per page (SPEC §4, *Precision*): a URL without `:line:col`,
/// its fragment, or cache-busting query parameters.
pub(super) fn page_of(url: &str) -> String {
    let url = url.split('#').next().unwrap_or(url);
    let (address, query) = url.split_once('?').unwrap_or((url, ""));
    // `:line:col` after a path, never a port after the host.
    let has_path = address.split_once("://").is_some_and(|(_, rest)| rest.contains('/'));
    let address = if has_path && !query.is_empty() {
        address.to_owned()
    } else if has_path {
        LINE_AND_COLUMN.replace(address, "").into_owned()
    } else {
        address.to_owned()
    };
    let kept: Vec<&str> = query
        .split('&')
        .filter(|pair| !pair.is_empty())
        .filter(|pair| {
            let name = pair.split('=').next().unwrap_or("").to_ascii_lowercase();
            !CACHE_BUSTERS.contains(&name.as_str())
        })
        .collect();
    if kept.is_empty() {
        address
    } else {
        format!("{address}?{}", kept.join("&"))
    }
}
