//! Shell commands (SPEC §4, kind `command`): the ones a person wrote in text
//! (in backticks, a shell code block, or after a `$` prompt), and what a
//! command line changes on disk (`rm`, `mv`, `cp`, `touch`, `sed -i`, a
//! redirection…): the artifact trail a shell tool call leaves.

use std::sync::LazyLock;

use regex::Regex;

/// A command is kept verbatim up to this many characters.
pub const MAX_CHARS: usize = 300;

/// Programs a command line usually starts with.
const PROGRAMS: &[&str] = &[
    "cargo",
    "rustc",
    "rustup",
    "npm",
    "npx",
    "pnpm",
    "yarn",
    "bun",
    "bunx",
    "deno",
    "node",
    "python",
    "python3",
    "pip",
    "pip3",
    "pipx",
    "uv",
    "uvx",
    "poetry",
    "pytest",
    "ruff",
    "mypy",
    "black",
    "tox",
    "go",
    "gofmt",
    "make",
    "cmake",
    "ninja",
    "gradle",
    "./gradlew",
    "mvn",
    "java",
    "javac",
    "dotnet",
    "git",
    "gh",
    "docker",
    "docker-compose",
    "podman",
    "kubectl",
    "helm",
    "terraform",
    "tofu",
    "ansible",
    "ansible-playbook",
    "aws",
    "gcloud",
    "az",
    "ssh",
    "scp",
    "rsync",
    "curl",
    "wget",
    "ls",
    "cd",
    "cat",
    "rm",
    "mv",
    "cp",
    "mkdir",
    "touch",
    "chmod",
    "chown",
    "grep",
    "rg",
    "find",
    "fd",
    "sed",
    "awk",
    "jq",
    "yq",
    "head",
    "tail",
    "tar",
    "unzip",
    "zip",
    "psql",
    "mysql",
    "sqlite3",
    "redis-cli",
    "systemctl",
    "journalctl",
    "sudo",
    "apt",
    "apt-get",
    "brew",
    "export",
    "source",
    "bash",
    "sh",
    "zsh",
    "just",
    "bazel",
    "nix",
    "flutter",
    "dart",
    "swift",
    "xcodebuild",
    "composer",
    "php",
    "ruby",
    "bundle",
    "rake",
    "rails",
    "mix",
    "iex",
    "stack",
    "cabal",
    "sbt",
    "kill",
    "pkill",
    "lsof",
    "openssl",
    "pm2",
    "vercel",
    "wrangler",
    "alembic",
    "prisma",
    "tsc",
    "eslint",
    "prettier",
    "vitest",
    "jest",
    "playwright",
    "webpack",
    "vite",
    "claude",
    "codex",
    "aider",
    "diff",
    "patch",
    "wc",
    "tee",
    "xargs",
    "env",
    "echo",
    "pg_dump",
    "pg_restore",
    "createdb",
    "dropdb",
];

static BACKTICKED: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"`([^`\n]{2,300})`").expect("a valid pattern"));
static SHELL_BLOCK: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?s)```(?:bash|sh|shell|console|zsh|terminal|shell-session)?[ \t]*\n(.*?)```")
        .expect("a valid pattern")
});
static PROMPTED: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"(?m)^\s*\$ (\S.*)$").expect("a valid pattern"));

/// Whether a line reads as a command: it starts with a known program or runs
/// a script by its path.
pub fn looks_like_command(line: &str) -> bool {
    let first = line.split_whitespace().next().unwrap_or("");
    PROGRAMS.contains(&first) || first.strip_prefix("./").is_some_and(is_script)
}

/// `./deploy.sh`, `./gradlew`: a program; `./notes.md`, `./.claude/x.md`: a file.
fn is_script(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    match name.rsplit_once('.') {
        _ if name.is_empty() || path.starts_with('.') => false,
        Some((_, extension)) => ["sh", "bash", "zsh", "py", "rb", "pl", "js", "mjs", "ts"].contains(&extension),
        None => true,
    }
}

/// `text` cut to [`MAX_CHARS`] characters, on its first line.
pub fn clipped(command: &str) -> String {
    command
        .trim()
        .lines()
        .next()
        .unwrap_or("")
        .trim()
        .chars()
        .take(MAX_CHARS)
        .collect()
}

/// The commands written in `text`, in order.
pub fn written_commands(text: &str) -> Vec<String> {
    let mut found: Vec<(usize, String)> = Vec::new();
    for block in SHELL_BLOCK.captures_iter(text) {
        if let Some(body) = block.get(1) {
            let mut at = body.start();
            for line in body.as_str().lines() {
                let line_start = at;
                at += line.len() + 1;
                let command = line.trim().trim_start_matches("$ ").trim();
                if looks_like_command(command) {
                    found.push((line_start, clipped(command)));
                }
            }
        }
    }
    let outside_blocks = SHELL_BLOCK.replace_all(text, |c: &regex::Captures| " ".repeat(c[0].len()));
    for quoted in BACKTICKED.captures_iter(&outside_blocks) {
        // One quoted word (`make`, `config`) is more often a name than a command.
        if let Some(inner) = quoted.get(1)
            && looks_like_command(inner.as_str().trim())
            && (inner.as_str().trim().contains(' ') || inner.as_str().trim().starts_with("./"))
        {
            found.push((inner.start(), clipped(inner.as_str())));
        }
    }
    for prompted in PROMPTED.captures_iter(&outside_blocks) {
        if let Some(line) = prompted.get(1)
            && looks_like_command(line.as_str())
        {
            found.push((line.start(), clipped(line.as_str())));
        }
    }
    found.sort_by_key(|(at, _)| *at);
    let mut commands: Vec<String> = Vec::new();
    for (_, command) in found {
        if !command.is_empty() && !commands.contains(&command) {
            commands.push(command);
        }
    }
    commands
}

/// The words of one simple command, quotes removed (a small, forgiving
/// subset of shell quoting: enough to read file names).
fn words(command: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quote: Option<char> = None;
    let mut in_word = false;
    for c in command.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                in_word = true;
            }
            (None, c) if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            (None, c) => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        words.push(word);
    }
    words
}

static SEGMENT_BREAK: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"&&|\|\||[;|\n]").expect("a valid pattern"));
static REDIRECT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"(?:^|[^0-9&<>])>{1,2}\s*([^\s&|;<>'"]+)"#).expect("a valid pattern"));

fn is_file_argument(word: &str) -> bool {
    !word.is_empty()
        && !word.starts_with('-')
        && !word.starts_with('$')
        && !word.contains(['*', '?', '{', '`'])
        && word != "/dev/null"
}

/// The paths a shell command line creates, writes, moves or deletes.
pub fn files_changed_by(command_line: &str) -> Vec<String> {
    let mut changed: Vec<String> = Vec::new();
    let mut add = |path: &str| {
        let path = path.trim_end_matches(';');
        if is_file_argument(path) && !changed.iter().any(|p| p == path) {
            changed.push(path.to_owned());
        }
    };
    // A heredoc's body is data, not commands.
    let script = command_line.split("<<").next().unwrap_or(command_line);
    for target in REDIRECT.captures_iter(command_line.lines().next().unwrap_or("")) {
        if let Some(path) = target.get(1) {
            add(path.as_str());
        }
    }
    for segment in SEGMENT_BREAK.split(script) {
        let mut words = words(segment);
        while words
            .first()
            .is_some_and(|w| w == "sudo" || w.contains('=') && !w.starts_with('-'))
        {
            words.remove(0);
        }
        if words.first().is_some_and(|w| w == "git") && words.len() > 1 {
            words.remove(0);
        }
        let Some(program) = words.first().cloned() else {
            continue;
        };
        let arguments: Vec<&String> = words[1..].iter().filter(|w| is_file_argument(w)).collect();
        let redirect_free: Vec<&String> = arguments.iter().copied().filter(|w| !w.starts_with('>')).collect();
        match program.as_str() {
            "rm" | "rmdir" | "mv" | "touch" | "mkdir" | "tee" | "truncate" | "unlink" => {
                redirect_free.iter().for_each(|w| add(w));
            }
            "cp" | "ln" | "install" => {
                if let Some(destination) = redirect_free.last() {
                    add(destination);
                }
            }
            "sed" | "perl" if words.iter().any(|w| w == "-i" || w.starts_with("-i")) => {
                // The script is the first free argument; the files follow it.
                redirect_free.iter().skip(1).for_each(|w| add(w));
            }
            _ => {}
        }
    }
    changed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_in_backticks_blocks_and_prompts_are_found() {
        let text = "Run `cargo test --release` first, then:\n```bash\n$ npm ci\nnpm run build\necho hi there\n```\n\
                    and `not a command` and\n$ git push origin feature-x\n`./scripts/deploy.sh staging`";
        assert_eq!(
            written_commands(text),
            [
                "cargo test --release",
                "npm ci",
                "npm run build",
                "echo hi there",
                "git push origin feature-x",
                "./scripts/deploy.sh staging"
            ]
        );
    }

    #[test]
    fn prose_is_not_a_command() {
        assert!(written_commands("Let's `make` it better. The `config` value.").is_empty());
        assert!(written_commands("See `./.claude/reports/a.md` and `./notes.md`.").is_empty());
    }

    #[test]
    fn a_command_line_names_what_it_changes() {
        assert_eq!(files_changed_by("rm -rf build/ dist"), ["build/", "dist"]);
        assert_eq!(
            files_changed_by("mv src/old.rs src/new.rs"),
            ["src/old.rs", "src/new.rs"]
        );
        assert_eq!(files_changed_by("cp a.txt 'b dir/c.txt'"), ["b dir/c.txt"]);
        assert_eq!(
            files_changed_by("git rm -r --cached target && git mv a.md b.md"),
            ["target", "a.md", "b.md"]
        );
        assert_eq!(
            files_changed_by("sed -i 's/a/b/' src/lib.rs src/main.rs"),
            ["src/lib.rs", "src/main.rs"]
        );
        assert_eq!(files_changed_by("echo 'x' > notes.txt 2>/dev/null"), ["notes.txt"]);
        assert_eq!(
            files_changed_by("cat > src/app.py <<'EOF'\nrm -rf /\nEOF"),
            ["src/app.py"]
        );
        assert_eq!(files_changed_by("cargo test 2>&1 | tee out.log"), ["out.log"]);
    }

    #[test]
    fn reading_changes_nothing() {
        for command in [
            "ls -la src",
            "cat src/lib.rs",
            "grep -rn foo .",
            "cargo test > /dev/null",
            "rm -rf $TMP/*",
        ] {
            assert!(
                files_changed_by(command).is_empty(),
                "{command}: {:?}",
                files_changed_by(command)
            );
        }
    }
}
