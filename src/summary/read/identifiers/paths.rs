//! What names a file or folder: the path and file-name patterns, and what
//! tells a path from markup, a date, a fraction or a pair of words.

use std::sync::LazyLock;

use regex::Regex;

/// `/abs/path`, `~/x`, `./x`, `../x`, `rel/a/b`, `C:\x\y`, `C:\x/y`, `C:/x`.
pub(super) static PATH: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?:~|\.{1,2})?/[\w.@+\-]+(?:/[\w.@+\-]+)*/?|\b[\w@+\-][\w.@+\-]*(?:/[\w.@+\-]+)+/?|\b[A-Za-z]:[\\/][\w.@+\-\\/]+",
    )
    .expect("a valid pattern")
});
/// A file named without a folder: `parser.py`, `Cargo.toml`, `Dockerfile`, `.env`.
pub(super) static FILE_NAME: LazyLock<Regex> = LazyLock::new(|| {
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
pub(super) const NOT_FILES: &[&str] = &[
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

fn is_numeric(segment: &str) -> bool {
    !segment.is_empty()
        && segment
            .chars()
            .all(|c| c.is_ascii_digit() || c == '.' || c == '-' || c == '_')
}

/// Whether a path candidate names a file or folder rather than markup,
/// a date, a fraction or a pair of words.
pub(super) fn is_path(text: &str, before: Option<char>, after: Option<char>) -> bool {
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
