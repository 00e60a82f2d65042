//! Headless Chromium (Debian's `chromium` package; `.ci/run` installs it):
//! loads a page, lets its scripts finish their fetches, and hands back the
//! resulting DOM or a screenshot.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use tokio::process::Command;

/// Where the browser is: `$CHROMIUM`, else the first on PATH.
fn chromium() -> PathBuf {
    if let Some(path) = std::env::var_os("CHROMIUM") {
        return path.into();
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .flat_map(|dir| ["chromium", "chromium-browser", "google-chrome"].map(|name| dir.join(name)))
        .find(|candidate| candidate.is_file())
        .expect("the dashboard's browser test needs Chromium: `apt-get install chromium` (.ci/run does this)")
}

/// Runs Chromium once on `url` with `extra` flags. Virtual time stands
/// still while fetches are pending, so the budget is spent only after the
/// page's requests are answered: no guessing how long they take.
async fn run(url: &str, extra: &[String]) -> Vec<u8> {
    let profile = tempdir();
    let mut command = Command::new(chromium());
    command
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--disable-background-networking",
            "--disable-extensions",
            "--disable-sync",
            "--no-first-run",
            "--no-default-browser-check",
            "--hide-scrollbars",
            "--virtual-time-budget=15000",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(extra)
        .arg(url)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true);
    let output = tokio::time::timeout(Duration::from_secs(120), command.output())
        .await
        .expect("Chromium finishes within two minutes")
        .expect("Chromium starts");
    let _ = std::fs::remove_dir_all(&profile);
    assert!(output.status.success(), "Chromium failed: {}", output.status);
    output.stdout
}

/// The page's DOM once its scripts are done.
pub async fn dom(url: &str) -> String {
    String::from_utf8(run(url, &["--dump-dom".to_owned()]).await).expect("the DOM is UTF-8")
}

/// A PNG of the page at `width`×`height`, saved at `to`.
pub async fn screenshot(url: &str, to: &Path, (width, height): (u32, u32)) {
    if let Some(dir) = to.parent() {
        std::fs::create_dir_all(dir).unwrap();
    }
    run(
        url,
        &[
            format!("--window-size={width},{height}"),
            format!("--screenshot={}", to.display()),
        ],
    )
    .await;
    let png = std::fs::read(to).expect("Chromium wrote the screenshot");
    assert!(png.starts_with(b"\x89PNG"), "{} is a PNG", to.display());
}

fn tempdir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("compactd-chromium-{}", uuid::Uuid::new_v4().simple()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
