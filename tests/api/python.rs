//! Python packages the tests drive, each pinned in a virtualenv of its own
//! under the target folder, installed once (and again when the pin moves).

use std::path::{Path, PathBuf};
use std::process::Command;

use nix::fcntl::{Flock, FlockArg};

/// The virtualenv `name` holding `requirements` (pinned, `pkg==x.y.z`);
/// answers its folder. A lock keeps tests that share it from installing at once.
pub fn venv(name: &str, requirements: &[&str]) -> PathBuf {
    built_with(name, requirements, &[])
}

/// [`venv`], its packages built from source with `build_env` set (which the
/// stamp records too: another build environment is another venv).
pub fn built_with(name: &str, requirements: &[&str], build_env: &[(&str, &str)]) -> PathBuf {
    let root = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let venv = root.join(format!("{name}-venv"));
    let lock = std::fs::File::create(root.join(format!("{name}-venv.lock"))).unwrap();
    let _held = Flock::lock(lock, FlockArg::LockExclusive)
        .map_err(|(_, err)| err)
        .unwrap();
    let mut pins = requirements.join("\n");
    for (name, value) in build_env {
        pins.push_str(&format!("\n# {name}={value}"));
    }
    let stamp = venv.join("installed-requirements.txt");
    if std::fs::read_to_string(&stamp).is_ok_and(|installed| installed == pins) {
        return venv;
    }
    let _ = std::fs::remove_dir_all(&venv);
    let created = Command::new("python3")
        .args(["-m", "venv"])
        .arg(&venv)
        .status()
        .expect("python3 runs");
    assert!(created.success(), "python3 -m venv failed");
    // A package built from source (llama.cpp) builds on every core.
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let installed = Command::new(venv.join("bin/pip"))
        .env("CMAKE_BUILD_PARALLEL_LEVEL", cores.to_string())
        .envs(build_env.iter().copied())
        // pip's cache keeps a wheel built in another build environment.
        .args(if build_env.is_empty() {
            &[][..]
        } else {
            &["--no-cache-dir"][..]
        })
        .args(["install", "--quiet", "--disable-pip-version-check"])
        .args(requirements)
        .status()
        .unwrap();
    assert!(
        installed.success(),
        "pip install {requirements:?} failed (PyPI must be reachable)"
    );
    std::fs::write(&stamp, pins).unwrap();
    venv
}
