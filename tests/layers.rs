//! The layers docs/architecture.md draws, kept true: a
//! module of `src/` may name (by `use crate::…` or a `crate::…` path) only
//! the layers its row allows. `bench/layout/measure.py` reads this table too.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Each top-level module of `src/` and the layers it may import. Its own
/// is always allowed.
const LAYERS: &[(&str, &[&str])] = &[
    // Values: they import nothing of the crate.
    ("names", &[]),
    ("domain", &[]),
    ("telemetry", &[]),
    // What a summary keeps and how it is written: read by every layer that
    // stores, shows or checks a summary. The model it may be written with is
    // the one layer below it.
    ("summary", &["domain", "llm"]),
    // The rules, over values (the transcript's shape is one); scoring and
    // the audit read a turn with the summary's readers.
    ("policy", &["domain", "summary"]),
    // The upstream client owns its settings: it needs nothing but values.
    ("llm", &["domain"]),
    ("config", &["domain", "llm", "policy", "summary"]),
    ("sessions", &["domain", "policy", "summary"]),
    // What the store keeps, as plain values: read by the use cases and the edge.
    ("records", &["domain", "policy", "summary"]),
    ("store", &["domain", "policy", "records", "summary"]),
    // The in-memory copy of the keys is filled through the store.
    ("auth", &["domain", "store"]),
    (
        "app",
        &[
            "auth", "config", "domain", "llm", "policy", "records", "store", "summary",
        ],
    ),
    // The edge reaches the store only through the use cases.
    (
        "http",
        &[
            "app",
            "auth",
            "config",
            "domain",
            "policy",
            "records",
            "summary",
            "telemetry",
        ],
    ),
    ("background", &["app", "config"]),
    ("hook", &["domain", "llm", "policy", "sessions", "summary"]),
    (
        "replay",
        &[
            "app", "config", "domain", "llm", "policy", "sessions", "startup", "store", "summary",
        ],
    ),
    ("serve", &["config", "http"]),
    (
        "startup",
        &[
            "app",
            "auth",
            "background",
            "config",
            "http",
            "llm",
            "serve",
            "store",
            "telemetry",
        ],
    ),
    (
        "commands",
        &["app", "config", "hook", "http", "replay", "startup", "store"],
    ),
];

/// The layers `code` (one file of `layer`) names that its row forbids, with
/// the line that names each. Comments and the file's tests are not read.
fn forbidden_in(layer: &str, code: &str) -> Vec<String> {
    let allowed = LAYERS
        .iter()
        .find(|(name, _)| *name == layer)
        .unwrap_or_else(|| panic!("`src/{layer}` has no row in LAYERS: say what it may import"))
        .1;
    let code = code_lines(code).join("\n");
    let mut found = Vec::new();
    for (at, _) in code.match_indices("crate::") {
        let preceded = code[..at].chars().next_back();
        if preceded.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
            continue;
        }
        let rest = &code[at + "crate::".len()..];
        for named in first_segments(rest) {
            if named != layer && !allowed.contains(&named.as_str()) {
                let line = code[..at].rsplit('\n').next().unwrap_or_default().to_owned()
                    + "crate::"
                    + rest.lines().next().unwrap_or_default();
                found.push(format!("{layer} -> {named}: {}", line.trim()));
            }
        }
    }
    found
}

/// The lines of `code` a layer check reads: not its tests, not comments.
fn code_lines(code: &str) -> Vec<&str> {
    let code = code.split("#[cfg(test)]").next().unwrap_or_default();
    code.lines()
        .filter(|line| !line.trim_start().starts_with("//"))
        .collect()
}

/// The first segment of the path `rest` begins with, or of each path in the
/// braces it opens (`{domain::TenantId, http}`: `domain` and `http`).
fn first_segments(rest: &str) -> Vec<String> {
    let ident = |text: &str| -> String {
        text.trim_start()
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    let Some(inside) = rest.strip_prefix('{') else {
        return vec![ident(rest)].into_iter().filter(|name| !name.is_empty()).collect();
    };
    let (mut depth, mut start, mut names) = (0, 0, Vec::new());
    for (i, c) in inside.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => {
                names.push(ident(&inside[start..i]));
                break;
            }
            '}' => depth -= 1,
            ',' if depth == 0 => {
                names.push(ident(&inside[start..i]));
                start = i + 1;
            }
            _ => {}
        }
    }
    names
        .into_iter()
        .filter(|name| !name.is_empty() && name != "self")
        .collect()
}

fn rust_files(dir: &Path, found: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, found);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            found.push(path);
        }
    }
}

#[test]
fn no_module_imports_a_layer_its_row_forbids() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut forbidden = Vec::new();
    let mut layers = BTreeSet::new();
    for file in &files {
        let relative = file.strip_prefix(&src).unwrap();
        let first = relative.components().next().unwrap().as_os_str().to_str().unwrap();
        let layer = first.strip_suffix(".rs").unwrap_or(first);
        if matches!(layer, "lib" | "main") {
            continue;
        }
        layers.insert(layer.to_owned());
        let code = std::fs::read_to_string(file).unwrap();
        for what in forbidden_in(layer, &code) {
            forbidden.push(format!("{}: {what}", relative.display()));
        }
    }
    assert!(layers.len() > 10, "the walk found the layers: {layers:?}");
    assert!(
        forbidden.is_empty(),
        "imports the layers forbid:\n{}",
        forbidden.join("\n")
    );
}

#[test]
fn a_forbidden_import_is_found_however_it_is_written() {
    let policy = "use crate::summary::keep::KeepSet;\nuse crate::store::turns::{self, Turn};\n";
    assert_eq!(forbidden_in("policy", policy).len(), 1, "a `use`");
    let inline = "fn f() { let x = crate::llm::tokens::count(\"a\"); }";
    assert_eq!(forbidden_in("store", inline).len(), 1, "a path written inline");
    let nested = "use crate::{\n    domain::TenantId,\n    http::{router, views},\n};";
    assert_eq!(forbidden_in("app", nested).len(), 1, "a path in braces");
    assert_eq!(
        forbidden_in("http", nested).len(),
        0,
        "its own layer and one it may import"
    );
    assert_eq!(forbidden_in("domain", "// crate::store in a comment\n").len(), 0);
    let test_only = "fn f() {}\n#[cfg(test)]\nmod tests { use crate::store::Turn; }\n";
    assert_eq!(forbidden_in("policy", test_only).len(), 0, "tests may import anything");
}

/// `summary/`'s three parts and what each may not name: reading knows
/// nothing of the keep set or of writing, the keep set nothing of writing,
/// and none of them the summarizer that puts them together.
const SUMMARY_PARTS: &[(&str, &[&str])] = &[
    ("read", &["keep", "write", "summarizer"]),
    ("keep", &["write", "summarizer"]),
    ("write", &["summarizer"]),
];

/// The parts of `summary/` that `code` (one file of `part`) names though its
/// row forbids them. Comments and the file's tests are not read.
fn summary_parts_forbidden_in(part: &str, code: &str) -> Vec<String> {
    let forbidden = SUMMARY_PARTS
        .iter()
        .find(|(name, _)| *name == part)
        .unwrap_or_else(|| panic!("`src/summary/{part}` has no row in SUMMARY_PARTS"))
        .1;
    code_lines(code)
        .into_iter()
        .filter(|line| {
            forbidden.iter().any(|name| {
                [format!("summary::{name}"), format!("super::super::{name}")]
                    .iter()
                    .any(|path| {
                        line.match_indices(path.as_str())
                            .any(|(at, _)| !ident_char(line[at + path.len()..].chars().next()))
                    })
            })
        })
        .map(|line| format!("{part}: {}", line.trim()))
        .collect()
}

fn ident_char(c: Option<char>) -> bool {
    c.is_some_and(|c| c.is_alphanumeric() || c == '_')
}

#[test]
fn reading_keeping_and_writing_a_summary_import_only_downward() {
    let summary = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/summary");
    let mut forbidden = Vec::new();
    for (part, _) in SUMMARY_PARTS {
        let mut files = Vec::new();
        rust_files(&summary.join(part), &mut files);
        assert!(files.len() > 3, "src/summary/{part} holds its files");
        for file in &files {
            let code = std::fs::read_to_string(file).unwrap();
            forbidden.extend(summary_parts_forbidden_in(part, &code));
        }
    }
    assert!(
        forbidden.is_empty(),
        "imports summary's parts forbid:\n{}",
        forbidden.join("\n")
    );
}

#[test]
fn a_summary_part_naming_one_above_it_is_found() {
    let reading = "use crate::summary::keep::set::KeepSet;\nuse crate::summary::kinds::KeepKind;\n";
    assert_eq!(summary_parts_forbidden_in("read", reading).len(), 1);
    assert!(summary_parts_forbidden_in("write", reading).is_empty());
    let inline = "fn f() { crate::summary::write::narrative::merged(a, b) }";
    assert_eq!(summary_parts_forbidden_in("keep", inline).len(), 1);
    let longer_name = "use crate::summary::keeper::X;";
    assert!(summary_parts_forbidden_in("read", longer_name).is_empty());
}
