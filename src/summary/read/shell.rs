//! What a shell command line changes on disk (SPEC §4, kind `file_changed`):
//! `rm`, `mv`, `cp`, `touch`, `mkdir`, `sed -i`, `git rm`/`git mv`, a
//! redirection… — the artifact trail a shell tool call leaves. Only
//! path-shaped words (*Precision*: never `2>&1`, git's `:(literal)` pathspec
//! magic or a plain word), and a moved file at its final place.

use std::sync::LazyLock;

use regex::Regex;

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
        && !word.starts_with(['-', '$', ':', '(', '!'])
        && !word.contains(['*', '?', '{', '`', '>', '<', '&', '|', '='])
        && word != "/dev/null"
}

/// A word that names a file or folder: with a folder in it, or a name with
/// an extension (`notes.txt`, `.env`); `build`, `2>&1` and `:(literal)x`
/// are not.
fn is_path_shaped(word: &str) -> bool {
    let name = word.trim_end_matches('/');
    is_file_argument(word)
        && name.chars().any(char::is_alphanumeric)
        && (word.contains('/')
            || name.contains('\\')
            || name
                .rsplit_once('.')
                .is_some_and(|(_, ext)| !ext.is_empty() && ext.chars().all(|c| c.is_ascii_alphanumeric())))
}

/// Where `source` ends up when moved to `destination`: inside it when it
/// is a folder (`mv a.txt docs/`), else at it.
fn moved_to(source: &str, destination: &str, into_folder: bool) -> String {
    if into_folder || destination.ends_with('/') {
        let name = source.trim_end_matches('/').rsplit('/').next().unwrap_or(source);
        format!("{}/{name}", destination.trim_end_matches('/'))
    } else {
        destination.to_owned()
    }
}

/// What a shell command line changed on disk.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Changes {
    /// Paths created, written, moved to or deleted, in order, once each.
    pub files: Vec<String>,
    /// (from, to) of every move.
    pub moves: Vec<(String, String)>,
    /// Paths deleted (`rm`, `git rm`, `rmdir`, `unlink`), in order.
    pub removed: Vec<String>,
}

/// The paths a shell command line creates, writes, moves or deletes.
#[cfg(test)]
fn files_changed_by(command_line: &str) -> Vec<String> {
    changes_by(command_line).files
}

/// What a shell command line creates, writes, moves or deletes.
pub(crate) fn changes_by(command_line: &str) -> Changes {
    let mut changed: Vec<String> = Vec::new();
    let mut moves: Vec<(String, String)> = Vec::new();
    let mut removed: Vec<String> = Vec::new();
    // What the line writes (all it changes but what it deletes).
    let mut written: Vec<String> = Vec::new();
    let mut change = |path: &str, writes: bool| {
        let path = path.trim_end_matches(';');
        if is_path_shaped(path) && !changed.iter().any(|p| p == path) {
            changed.push(path.to_owned());
        }
        if writes && is_path_shaped(path) {
            written.push(path.to_owned());
        }
    };
    // A heredoc's body is data, not commands.
    let script = command_line.split("<<").next().unwrap_or(command_line);
    for target in REDIRECT.captures_iter(command_line.lines().next().unwrap_or("")) {
        if let Some(path) = target.get(1) {
            change(path.as_str(), true);
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
            "mv" if redirect_free.len() >= 2 => {
                let (destination, sources) = redirect_free
                    .split_last()
                    .map(|(d, s)| (d.as_str(), s))
                    .unwrap_or_default();
                for source in sources {
                    let to = moved_to(source, destination, sources.len() > 1);
                    if is_path_shaped(source) && is_path_shaped(&to) {
                        moves.push(((*source).clone(), to.clone()));
                    }
                    change(&to, true);
                }
            }
            "rm" | "rmdir" | "unlink" => {
                // `git rm --cached` untracks a file, it does not delete it.
                let untracks = words.iter().any(|w| w == "--cached");
                for word in &redirect_free {
                    change(word, false);
                    let path = word.trim_end_matches(';');
                    if !untracks && is_path_shaped(path) && !removed.iter().any(|p| p == path) {
                        removed.push(path.to_owned());
                    }
                }
            }
            "touch" | "mkdir" | "tee" | "truncate" => {
                redirect_free.iter().for_each(|w| change(w, true));
            }
            "cp" | "ln" | "install" => {
                if let Some(destination) = redirect_free.last() {
                    change(destination, true);
                }
            }
            "sed" | "perl" if words.iter().any(|w| w == "-i" || w.starts_with("-i")) => {
                // The script is the first free argument; the files follow it.
                redirect_free.iter().skip(1).for_each(|w| change(w, true));
            }
            _ => {}
        }
    }
    // A file removed and written again on the same line (`rm -f a && touch
    // a`) is there: what it wrote is not told apart by order here.
    removed.retain(|path| !written.contains(path));
    Changes {
        files: changed,
        moves,
        removed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_command_line_names_what_it_changes() {
        assert_eq!(files_changed_by("rm -rf build/ dist/"), ["build/", "dist/"]);
        assert_eq!(files_changed_by("mv src/old.rs src/new.rs"), ["src/new.rs"]);
        assert_eq!(files_changed_by("cp a.txt 'b dir/c.txt'"), ["b dir/c.txt"]);
        assert_eq!(
            files_changed_by("git rm -r --cached target/ && git mv a.md b.md"),
            ["target/", "b.md"]
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
    fn a_moved_file_is_at_its_final_place() {
        assert_eq!(
            changes_by("mv notes/draft.md docs/ && mv a.txt b.txt c/"),
            Changes {
                files: vec!["docs/draft.md".into(), "c/a.txt".into(), "c/b.txt".into()],
                moves: vec![
                    ("notes/draft.md".into(), "docs/draft.md".into()),
                    ("a.txt".into(), "c/a.txt".into()),
                    ("b.txt".into(), "c/b.txt".into()),
                ],
                removed: vec![],
            }
        );
    }

    #[test]
    fn what_a_command_line_deletes_is_told_apart() {
        assert_eq!(
            changes_by("rm -f a.txt 'b dir/c.md' && git rm -r old/ && touch d.txt").removed,
            ["a.txt", "b dir/c.md", "old/"]
        );
        assert!(changes_by("mv a.txt b.txt && touch c.txt").removed.is_empty());
        assert!(
            changes_by("git rm --cached secrets.env").removed.is_empty(),
            "untracked, not deleted"
        );
        for rewritten in ["rm -f a.txt && touch a.txt", "rm a.txt; echo x > a.txt"] {
            assert!(changes_by(rewritten).removed.is_empty(), "{rewritten}");
        }
    }

    #[test]
    fn only_path_shaped_words_are_files() {
        for command in [
            "git add -- ':(literal)!/DAILYNOTES/x.md' && git rm ':(literal)old.md'",
            "rm -rf build dist",
            "touch 2>&1",
            "mkdir -p $OUT/logs",
        ] {
            assert!(
                files_changed_by(command).is_empty(),
                "{command}: {:?}",
                files_changed_by(command)
            );
        }
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
