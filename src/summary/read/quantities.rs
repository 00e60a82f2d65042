//! Quantities (SPEC §4, kind `quantity`): a number with a unit (`774ms`,
//! `1.5 GB`, `48,987 nodes`, `95%`) or a named setting (`timeout=30s`,
//! `max_tokens: 1000`, `port 5433`). A bare number is none.

use std::sync::LazyLock;

use regex::Regex;

const MEASURE_UNITS: &str = "ms|µs|us|ns|sec|secs|seconds|second|mins?|minutes?|hrs?|hours?|days?|weeks?|months?|KB|MB|GB|TB|PB|KiB|MiB|GiB|TiB|kB|bytes|bits?|Kbps|Mbps|Gbps|px|pt|em|rem|vh|vw|dpi|fps|Hz|kHz|MHz|GHz|°C|°F|kW|mAh|rps|qps|tps|req/s|ops/s|tok/s|tokens/s";
/// One-letter units are glued to their number (`30s`, `48k`, `3x`).
const LETTER_UNITS: &str = "[smhdkKMBGx]";
const COUNT_UNITS: &str = "nodes|tokens|lines|files|rows|records|items|requests|users|tests|errors|warnings|commits|cores|threads|connections|workers|replicas|pods|retries|attempts|steps|epochs|iterations|samples|chars|characters|words|pages|entries|messages|turns|calls|queries|keys|documents|docs|vectors|dimensions|params|parameters|layers|instances|servers|containers|services|packages|dependencies|issues|bugs|failures";

/// `774ms`, `1.5 GB`, `48,987 nodes`, `95%`, `3x`.
static QUANTITY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(
        r"(?:\b\d{{1,3}}(?:,\d{{3}})+(?:\.\d+)?|\b\d+(?:\.\d+)?)(?:[ \t]?(?:{MEASURE_UNITS}|{COUNT_UNITS})\b|{LETTER_UNITS}\b|[ \t]?%)"
    ))
    .expect("a valid pattern")
});
/// `timeout=30s`, `max_tokens: 1000`, `port 5433`, `exit code 137`.
static SETTING: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(
        r"(?i)\b[A-Za-z_][A-Za-z0-9_.\-]{{2,40}}[ \t]?[=:][ \t]?\d[\d,._]*(?:[ \t]?(?:{MEASURE_UNITS})\b|{LETTER_UNITS}\b|%)?|\b(?:port|pid|build|run|job|pr|pull request|issue|ticket|order|invoice|exit code|status code|http|error|uid|gid|version)[ \t]+#?\d+\b"
    ))
    .expect("a valid pattern")
});

/// Where quantities may stand in `text`, widest first where two start together.
pub(in crate::summary) fn candidates(text: &str) -> Vec<(usize, usize)> {
    let mut found: Vec<(usize, usize)> = SETTING
        .find_iter(text)
        .chain(QUANTITY.find_iter(text))
        .map(|m| (m.start(), m.end()))
        .collect();
    found.sort_by_key(|(start, end)| (*start, std::cmp::Reverse(*end)));
    found
}

/// A count of something (`48,987 nodes`) needs two digits to say more than
/// a figure of speech (`3 tests`); measures (`5s`, `2 GB`, `95%`) and named
/// settings always do.
pub(in crate::summary) fn counts_something(quantity: &str) -> bool {
    let digits: String = quantity
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == ',' || *c == '.')
        .collect();
    if digits.is_empty() {
        return true;
    }
    let unit = quantity[digits.len()..].trim();
    let is_count = COUNT_UNITS.split('|').any(|u| u == unit);
    !is_count || digits.chars().filter(char::is_ascii_digit).count() >= 2
}

/// A percentage or a count (`95%`, `48,987 nodes`): in tool output, a
/// figure out of its table, not an item.
pub(in crate::summary) fn is_lifted_figure(quantity: &str) -> bool {
    let quantity = quantity.trim();
    quantity.ends_with('%') || is_count(quantity)
}

/// A number of things (`84 tests`, `48,987 nodes`), not a measure.
pub(in crate::summary) fn is_count(quantity: &str) -> bool {
    let unit = quantity
        .trim()
        .trim_start_matches(|c: char| c.is_ascii_digit() || c == ',' || c == '.')
        .trim();
    !unit.is_empty() && COUNT_UNITS.split('|').any(|u| u == unit)
}
