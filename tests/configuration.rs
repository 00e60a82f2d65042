//! docs/reference.md's configuration table is the settings `compactd serve`
//! takes: every flag with its environment variable, and nothing else.

use std::collections::BTreeSet;
use std::path::Path;

use clap::CommandFactory;
use compactd::config::Cli;

/// (variable, flag) of every row of the table under `## Configuration`.
fn documented() -> BTreeSet<(String, String)> {
    let reference = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/reference.md")).unwrap();
    let section = reference
        .split("## Configuration")
        .nth(1)
        .expect("docs/reference.md has a Configuration section");
    let section = section.split("\n## ").next().unwrap_or_default();
    section
        .lines()
        .filter(|line| line.starts_with("| `"))
        .map(|line| {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            let strip = |cell: &str| cell.trim_matches('`').to_owned();
            (strip(cells[1]), strip(cells[2]))
        })
        .collect()
}

/// (variable, flag) of every argument of `compactd serve`, its own and
/// those every command takes (`--log-format`).
fn taken() -> BTreeSet<(String, String)> {
    let cli = Cli::command();
    let serve = cli.find_subcommand("serve").expect("compactd has a serve command");
    let global = cli.get_arguments().filter(|arg| arg.is_global_set());
    serve
        .get_arguments()
        .chain(global)
        .filter_map(|arg| {
            let env = arg.get_env()?.to_str()?.to_owned();
            let flag = arg.get_long().map(|long| format!("--{long}")).unwrap_or_default();
            Some((env, flag))
        })
        .collect()
}

#[test]
fn the_configuration_reference_lists_every_setting_serve_takes_and_no_other() {
    let documented = documented();
    let taken = taken();
    assert!(taken.len() > 40, "serve's settings were read: {taken:?}");
    // RUST_LOG is read by the log filter, not by clap.
    let documented: BTreeSet<_> = documented.into_iter().filter(|(env, _)| env != "RUST_LOG").collect();
    let missing: Vec<_> = taken.difference(&documented).collect();
    let stale: Vec<_> = documented.difference(&taken).collect();
    assert!(
        missing.is_empty() && stale.is_empty(),
        "docs/reference.md's configuration table and `compactd serve --help` differ:\n\
         taken but not documented: {missing:?}\ndocumented but not taken: {stale:?}"
    );
}
