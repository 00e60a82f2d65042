//! Things a conversation names (SPEC §4): paths, URLs, ids and quantities
//! (read by [`quantities`]), found in text. Junk is not an identifier: markup (`/div`), SVG path data,
//! bare numbers with no unit, fragments of fewer than 7 hex digits, dates,
//! fractions and words joined by a slash (`and/or`, `TCP/IP`). What names a
//! file is [`paths`], a page [`urls`], a thing by its code [`ids`]; here they
//! are found in order, each span once.

mod ids;
mod paths;
mod urls;

use paths::{FILE_NAME, NOT_FILES, PATH, is_path};
use urls::{URL, page_of};

use super::quantities;
use crate::summary::kinds::KeepKind;

pub(in crate::summary) use paths::COMMON_FOLDERS;

/// An item's text is kept verbatim up to this many characters.
pub(crate) const MAX_CHARS: usize = 300;

fn trim_trailing(text: &str) -> &str {
    text.trim_end_matches(['.', ',', ';', ':', '!', '?', ')', ']', '}', '\'', '"', '`'])
}

/// Paths, URLs, ids and quantities in `text`, in order of appearance, each
/// once and at most [`MAX_CHARS`] characters.
pub(crate) fn identifiers(text: &str) -> Vec<(KeepKind, String)> {
    let mut found = Found::default();
    let char_before = |at: usize| text[..at].chars().next_back();
    let char_after = |at: usize| text[at..].chars().next();
    for url in URL.find_iter(text) {
        let kept = page_of(trim_trailing(url.as_str()));
        found.push(url.start(), url.end(), KeepKind::Url, kept);
    }
    let named_files = FILE_NAME.find_iter(text).map(|m| (m, true));
    for (path, is_file_name) in PATH.find_iter(text).map(|m| (m, false)).chain(named_files) {
        let raw = path.as_str().trim_start_matches([' ', '\t', '\n', '(', '`', '\'']);
        let start = path.end() - raw.len();
        let kept = trim_trailing(raw);
        let end = start + kept.len();
        if kept.is_empty() || found.taken(start, end) || NOT_FILES.contains(&kept.to_ascii_lowercase().as_str()) {
            continue;
        }
        let (before, after) = (char_before(start), char_after(end));
        let named = if is_file_name {
            !matches!(before, Some('<' | '/' | '\\')) && after != Some('>')
        } else {
            is_path(kept, before, after)
        };
        if named {
            found.push(start, end, KeepKind::Path, kept.to_owned());
        }
    }
    let mut ids = ids::candidates(text);
    // The widest id wins where two overlap (`build_4711` over `4711`).
    ids.sort_by_key(|(start, end)| (*start, std::cmp::Reverse(*end)));
    for (start, end) in ids {
        if !found.taken(start, end) {
            found.push(start, end, KeepKind::Id, text[start..end].to_owned());
        }
    }
    for (start, end) in quantities::candidates(text) {
        let quantity = trim_trailing(text[start..end].trim());
        if !found.taken(start, end) && quantities::counts_something(quantity) {
            found.push(start, start + quantity.len(), KeepKind::Quantity, quantity.to_owned());
        }
    }
    let mut seen = std::collections::HashSet::new();
    let mut items: Vec<(KeepKind, String)> = Vec::new();
    for (kind, text) in found.spans.into_values() {
        let text: String = text.chars().take(MAX_CHARS).collect();
        if seen.insert((kind, text.clone())) {
            items.push((kind, text));
        }
    }
    items
}

/// What `identifiers` found, by where it starts: the spans never overlap,
/// so whether a new one would is one look at its nearest neighbour (a text
/// of 3.9 MB names hundreds of thousands of paths; looking at every one
/// found so far, for each, took minutes).
#[derive(Default)]
struct Found {
    spans: std::collections::BTreeMap<usize, (KeepKind, String)>,
    ends: std::collections::BTreeMap<usize, usize>,
}

impl Found {
    /// Whether `start..end` overlaps a span found already.
    fn taken(&self, start: usize, end: usize) -> bool {
        self.ends
            .range(..end)
            .next_back()
            .is_some_and(|(_, found_end)| *found_end > start)
    }

    /// Keeps a span that overlaps none found.
    fn push(&mut self, start: usize, end: usize, kind: KeepKind, text: String) {
        self.ends.insert(start, end);
        self.spans.insert(start, (kind, text));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_naming_many_paths_keeps_each_once_in_order_and_no_overlap() {
        let text: String = (0..20_000)
            .map(|n| format!("src/m{}/f{n}.rs v1.{n}.0 src/m{}/f{n}.rs ", n % 97, n % 97))
            .collect();
        let found = identifiers(&text);
        assert_eq!(found.len(), 40_000, "each path and version once");
        assert_eq!(found[0], (KeepKind::Path, "src/m0/f0.rs".to_owned()));
        assert_eq!(found[1], (KeepKind::Id, "v1.0.0".to_owned()));
        assert_eq!(found[39_999], (KeepKind::Id, "v1.19999.0".to_owned()));
    }

    fn of(text: &str, kind: KeepKind) -> Vec<String> {
        identifiers(text)
            .into_iter()
            .filter(|(k, _)| *k == kind)
            .map(|(_, t)| t)
            .collect()
    }

    #[test]
    fn paths_in_every_shape_are_found() {
        let text = "Edit /srv/app/releases/v2, ~/notes.md, ./deploy/prod.yaml, ../x/y and src/policy/mod.rs; \
                    see tests/api/ and parser.py, Cargo.toml, Dockerfile, .env and C:\\Users\\me\\a.txt, \
                    D:\\work/app/main.ex and C:/tools/run.bat.";
        assert_eq!(
            of(text, KeepKind::Path),
            [
                "/srv/app/releases/v2",
                "~/notes.md",
                "./deploy/prod.yaml",
                "../x/y",
                "src/policy/mod.rs",
                "tests/api/",
                "parser.py",
                "Cargo.toml",
                "Dockerfile",
                ".env",
                "C:\\Users\\me\\a.txt",
                "D:\\work/app/main.ex",
                "C:/tools/run.bat"
            ]
        );
    }

    #[test]
    fn markup_dates_fractions_and_word_pairs_are_not_paths() {
        let text = "<div class=\"a\"></div></span> and/or TCP/IP read/write 2024/01/15 3/4 1/2/3 /div /tmp Node.js w/o fetched/stored/failed";
        assert!(of(text, KeepKind::Path).is_empty(), "{:?}", of(text, KeepKind::Path));
    }

    #[test]
    fn urls_lose_trailing_punctuation() {
        assert_eq!(
            of(
                "See https://ci.example.com/runs/88231?x=1). And (http://a.io/b).",
                KeepKind::Url
            ),
            ["https://ci.example.com/runs/88231?x=1", "http://a.io/b"]
        );
    }

    #[test]
    fn one_page_is_one_url() {
        let text = "at https://app.example.com/static/app.min.js:1:2345 and https://app.example.com/static/app.min.js:88:12, \
                    https://app.example.com/static/app.min.js?v=1733 https://docs.rs/axum#routing \
                    https://search.example.co/jobs?lang=en&_=1699&size=10 http://localhost:8080";
        assert_eq!(
            of(text, KeepKind::Url),
            [
                "https://app.example.com/static/app.min.js",
                "https://docs.rs/axum",
                "https://search.example.co/jobs?lang=en&size=10",
                "http://localhost:8080"
            ]
        );
    }

    #[test]
    fn ids_are_hashes_uuids_tickets_issues_versions_and_codes() {
        let text = "Commit 9f3c2ab fixes PROJ-118 and #42 (see INC-4471), session 123e4567-e89b-12d3-a456-426614174000, \
                    request req_8f3a2, build_4711, bumped to v2.3.1 and 1.80.0, error E0382 and TS2345, Chrome v2.3.4.1.";
        assert_eq!(
            of(text, KeepKind::Id),
            [
                "9f3c2ab",
                "PROJ-118",
                "#42",
                "INC-4471",
                "123e4567-e89b-12d3-a456-426614174000",
                "req_8f3a2",
                "build_4711",
                "v2.3.1",
                "1.80.0",
                "E0382",
                "TS2345",
                "v2.3.4"
            ]
        );
    }

    #[test]
    fn junk_is_not_an_id() {
        let text = "d=\"M12 2C6.48 2 2 6.48 2 12s4.48 10 10 10 10-4.48 10-10S17.52 2 12 2z\" class=\"grid-cols-3 text-gray-500\" \
                    abc12 deadbee 1018 42 UTF-8 SHA-256 SHA256 HMAC-SHA256 ISO8601 snake_case_name gpt-4o \
                    the database at 192.168.133.114 and 10.0.0.1";
        assert!(of(text, KeepKind::Id).is_empty(), "{:?}", of(text, KeepKind::Id));
        assert!(of(text, KeepKind::Path).is_empty(), "{:?}", of(text, KeepKind::Path));
    }

    #[test]
    fn quantities_carry_their_unit_or_their_name() {
        let text = "It took 774ms over 48,987 nodes at 95% CPU, 1.5 GB, 3x faster; set timeout=30s and max_tokens: 1000, \
                    use port 5433, deploy build 4711; exit code 137. Ran 3 tests, 120 tests passed.";
        assert_eq!(
            of(text, KeepKind::Quantity),
            [
                "774ms",
                "48,987 nodes",
                "95%",
                "1.5 GB",
                "3x",
                "timeout=30s",
                "max_tokens: 1000",
                "port 5433",
                "build 4711",
                "exit code 137",
                "120 tests"
            ]
        );
    }

    #[test]
    fn a_setting_stays_on_its_line() {
        assert!(of("@@ -4,6 +4,7 @@\n add:\n1 file", KeepKind::Quantity).is_empty());
        assert!(of("Phase 1, step 3, round 2", KeepKind::Quantity).is_empty());
    }

    #[test]
    fn bare_numbers_are_not_quantities() {
        assert!(
            identifiers("Yes, 3 or 42 times on 10 servers in 2024; 1018.")
                .iter()
                .all(|(k, _)| *k != KeepKind::Id)
        );
        assert!(of("call 1018 and 42", KeepKind::Quantity).is_empty());
    }

    #[test]
    fn each_item_is_found_once_and_clipped() {
        let long = format!("/srv/{}", "a".repeat(400));
        let found = identifiers(&format!("{long} {long} /srv/b/c /srv/b/c"));
        assert_eq!(found.len(), 2);
        assert_eq!(found[0].1.chars().count(), MAX_CHARS);
    }
}
