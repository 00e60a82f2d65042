//! Things a conversation names (SPEC §4): paths, URLs, ids and quantities
//! (read by [`quantities`]), found in text. Junk is not an identifier: markup (`/div`), SVG path data,
//! bare numbers with no unit, fragments of fewer than 7 hex digits, dates,
//! fractions and words joined by a slash (`and/or`, `TCP/IP`).

use std::sync::LazyLock;

use regex::Regex;

use super::quantities;
use crate::summary::kinds::KeepKind;

/// An item's text is kept verbatim up to this many characters.
pub(crate) const MAX_CHARS: usize = 300;

static URL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(?i)\b(?:https?|ftp|wss?|ssh|git|file)://[^\s<>"'`\]\[{}|\\^]+"#).expect("a valid pattern")
});
/// `/abs/path`, `~/x`, `./x`, `../x`, `rel/a/b`, `C:\x\y`, `C:\x/y`, `C:/x`.
static PATH: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?:~|\.{1,2})?/[\w.@+\-]+(?:/[\w.@+\-]+)*/?|\b[\w@+\-][\w.@+\-]*(?:/[\w.@+\-]+)+/?|\b[A-Za-z]:[\\/][\w.@+\-\\/]+",
    )
    .expect("a valid pattern")
});
/// A file named without a folder: `parser.py`, `Cargo.toml`, `Dockerfile`, `.env`.
static FILE_NAME: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?:\b[\w\-][\w.\-]*\.(?:",
        "rs|py|pyi|ts|tsx|js|jsx|mjs|cjs|go|java|kt|kts|scala|rb|php|c|h|cc|cpp|cxx|hpp|hh|cs|fs|swift|mm|dart|lua|jl|ex|exs|erl|hrl|hs|ml|mli|clj|cljs|elm|zig|nim|sol|",
        "sh|bash|zsh|fish|ps1|bat|sql|md|mdx|rst|txt|adoc|json|jsonl|yaml|yml|toml|ini|cfg|conf|env|xml|html|htm|css|scss|sass|less|vue|svelte|astro|",
        "proto|graphql|gql|tf|tfvars|hcl|lock|csv|tsv|ipynb|pdf|png|jpg|jpeg|gif|svg|webp|ico|wasm|so|dll|dylib|log|gradle|properties|plist|pem|crt|db|sqlite|",
        "parquet|tar|gz|tgz|zip|patch|diff|mod|sum|nix|service|ejs|hbs|njk|j2|tmpl|tpl|prisma|http",
        r")\b|\b(?:Dockerfile|Makefile|Justfile|Gemfile|Rakefile|Procfile|Brewfile|Vagrantfile|Jenkinsfile|Caddyfile|Containerfile)\b",
        r"|(?:^|[\s(`'])\.(?:gitignore|dockerignore|env(?:\.[\w]+)?|editorconfig|npmrc|nvmrc|bashrc|zshrc|profile|prettierrc|eslintrc(?:\.\w+)?)\b)",
    ))
    .expect("a valid pattern")
});
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

/// Folders that start relative paths people name (`src/policy`, `tests/api`).
pub(in crate::summary) const COMMON_FOLDERS: &[&str] = &[
    "src",
    "lib",
    "test",
    "tests",
    "app",
    "apps",
    "docs",
    "bin",
    "pkg",
    "cmd",
    "internal",
    "packages",
    "crates",
    "scripts",
    "config",
    "public",
    "assets",
    "include",
    "examples",
    "bench",
    "benches",
    "migrations",
    "components",
    "pages",
    "tools",
    "vendor",
    "deploy",
    "infra",
    ".github",
    ".claude",
    ".vscode",
    ".codex",
    "node_modules",
    "target",
    "build",
    "dist",
];

/// Framework names that look like file names.
const NOT_FILES: &[&str] = &[
    "node.js",
    "vue.js",
    "next.js",
    "nuxt.js",
    "express.js",
    "three.js",
    "d3.js",
    "chart.js",
    "react.js",
    "ember.js",
    "alpine.js",
    "p5.js",
    "backbone.js",
    "angular.js",
    "solid.js",
    "socket.io",
    "nest.js",
    "hono.js",
];

/// Ticket-shaped names that are standards, not tickets.
const NOT_TICKETS: &[&str] = &[
    "UTF", "SHA", "AES", "ISO", "MD", "GPT", "ES", "ECMA", "ANSI", "RSA", "HS", "RS", "PS", "X", "TLS", "SSL",
];

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
fn page_of(url: &str) -> String {
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

fn trim_trailing(text: &str) -> &str {
    text.trim_end_matches(['.', ',', ';', ':', '!', '?', ')', ']', '}', '\'', '"', '`'])
}

fn is_numeric(segment: &str) -> bool {
    !segment.is_empty()
        && segment
            .chars()
            .all(|c| c.is_ascii_digit() || c == '.' || c == '-' || c == '_')
}

/// Whether a path candidate names a file or folder rather than markup,
/// a date, a fraction or a pair of words.
fn is_path(text: &str, before: Option<char>, after: Option<char>) -> bool {
    if matches!(before, Some('<' | '\\')) || after == Some('>') {
        return false;
    }
    if before.is_some_and(|c| c.is_alphanumeric() || c == '_') && text.starts_with('/') {
        return false;
    }
    let body = text.trim_start_matches('~').trim_start_matches('.');
    let segments: Vec<&str> = body.split(['/', '\\']).filter(|s| !s.is_empty()).collect();
    if segments.is_empty() || segments.iter().all(|s| is_numeric(s)) {
        return false;
    }
    if !segments.iter().any(|s| s.chars().any(char::is_alphabetic)) {
        return false;
    }
    let last = segments[segments.len() - 1];
    let has_extension = last.rsplit_once('.').is_some_and(|(stem, ext)| {
        !stem.is_empty() && (1..=10).contains(&ext.len()) && ext.chars().any(char::is_alphabetic)
    });
    let rooted = text.starts_with(['/', '~', '.']) || text.contains('\\');
    if rooted {
        // `/div`, `/span`, `/tmp`: one bare segment under the root is markup
        // or too vague to keep.
        return segments.len() >= 2
            || has_extension
            || text.starts_with("~/")
            || text.starts_with("./")
            || text.starts_with("../");
    }
    // `fetched/stored/failed` is a list of words; `app/api/v1`, `a/b/c/d` are folders.
    let word_list = segments.iter().all(|s| s.chars().all(char::is_alphabetic));
    has_extension
        || text.ends_with('/')
        || COMMON_FOLDERS.contains(&segments[0])
        || segments.len() >= 4
        || (segments.len() >= 3 && !word_list)
}

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
                    request req_8f3a2, build_4711, bumped to v2.3.1 and 1.80.0, error E0382 and TS2345.";
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
                "TS2345"
            ]
        );
    }

    #[test]
    fn junk_is_not_an_id() {
        let text = "d=\"M12 2C6.48 2 2 6.48 2 12s4.48 10 10 10 10-4.48 10-10S17.52 2 12 2z\" class=\"grid-cols-3 text-gray-500\" \
                    abc12 deadbee 1018 42 UTF-8 SHA-256 SHA256 HMAC-SHA256 ISO8601 snake_case_name gpt-4o";
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
