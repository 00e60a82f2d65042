//! The Vercel AI SDK middleware (issue 13) in `generateText` and
//! `streamText` calls on the SDK's own mock language model (`ai` 6, from the
//! TypeScript package's lock file), against the real binary: the caller
//! sends its whole history every call, and the model is given it compacted,
//! then rolled over, where compactd says. It fails open (issue 37): with
//! compactd down, refusing or silent, the call answers all the same, with
//! the prompt as it stands. A summary a model upstream takes seconds to
//! write is waited for (`/summarize` and `/handoff` have a timeout of their
//! own), and a rollover the middleware never heard answered is carried on
//! in its successor.
//!
//! [`Driven`], [`Impostor`], [`Relay`] and [`compactd_summarizing_slowly`]
//! serve `langchain.rs` too.

use std::process::Stdio;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::net::{TcpListener, TcpStream};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

use wiremock::matchers::method;
use wiremock::{Mock, MockServer, ResponseTemplate};

use crate::binary;
use crate::helpers::{Database, completions, encode};
use crate::llm_client::openai_answer;

async fn get(client: &reqwest::Client, url: String) -> Value {
    client.get(url).send().await.unwrap().json().await.unwrap()
}

fn texts(prompt: &Value) -> Vec<(String, String)> {
    prompt
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["role"].as_str().unwrap().to_owned(),
                m["text"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// One agent's six calls through the middleware, against `service`: one
/// instance for all of them, or (`per_request`) a new one for each call.
async fn run_agent(service: &binary::Service, conversation: &str, per_request: bool) -> Value {
    let run = tokio::process::Command::new("bash")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "-c",
            ". clients/tools.sh && cd clients/typescript && npx --no-install tsc && node dist/examples/ai_sdk_agent.js",
        ])
        .env("COMPACTD_URL", &service.address)
        .env("CONVERSATION", conversation)
        .env("PER_REQUEST", if per_request { "1" } else { "0" })
        .output()
        .await
        .expect("bash runs");
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "the AI SDK run failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
    serde_json::from_str(stdout.lines().last().unwrap_or("")).expect("it prints JSON last")
}

#[tokio::test(flavor = "multi_thread")]
async fn ai_sdk_calls_are_compacted_and_rolled_over_where_compactd_says() {
    let database = Database::create().await;
    let url = database.url();
    // The SDK's mock model's id, and no `*`: a call that did not name its
    // model would save tokens but no dollars.
    let prices = ("COMPACTD_PRICES", "mock-model-id=3/0.3/15");
    let service = binary::start(&[("DATABASE_URL", url.as_str()), ("RUST_LOG", "warn"), prices], &[]).await;
    let long_lived = run_agent(&service, "ai-sdk-agent-1", false).await;
    let per_request = run_agent(&service, "ai-sdk-agent-2", true).await;

    // A summary may name its conversation ("parked for conversation …").
    let prompts = |seen: &Value| -> Vec<Vec<(String, String)>> {
        let shown = seen["prompts"].to_string().replace("ai-sdk-agent-2", "ai-sdk-agent-1");
        let shown: Value = serde_json::from_str(&shown).unwrap();
        shown.as_array().unwrap().iter().map(texts).collect()
    };
    assert_eq!(
        prompts(&per_request),
        prompts(&long_lived),
        "a middleware made per request shows the model what a long-lived one does"
    );
    let client = reqwest::Client::new();
    for (conversation, seen) in [("ai-sdk-agent-1", &long_lived), ("ai-sdk-agent-2", &per_request)] {
        the_model_saw_the_history_compacted_then_rolled_over(seen);
        the_ledger_and_the_lineage_say_so(&client, &service.address, conversation, seen).await;
    }
    crate::observability::every_report_was_answered_minimal(&service.address).await;
    let logged = service.stop().await;
    assert!(logged.iter().all(|line| !line.contains("panicked")), "{logged:#?}");
}

fn the_model_saw_the_history_compacted_then_rolled_over(seen: &Value) {
    let prompts = seen["prompts"].as_array().unwrap();
    assert_eq!(prompts.len(), 6, "{seen}");
    // The first three calls see the history as the caller sent it.
    assert_eq!(texts(&prompts[2]).len(), 6);
    // The fourth, after compactd said `compact`: the system prompt, the
    // summary, the newest messages whole, the new request.
    let compacted = texts(&prompts[3]);
    assert_eq!(
        compacted[0],
        ("system".to_owned(), "You are a release agent.".to_owned())
    );
    assert!(
        compacted[1]
            .1
            .starts_with("Here is a summary of the conversation to date:"),
        "{compacted:?}"
    );
    assert!(compacted[1].1.contains("Never deploy on Fridays."), "{compacted:?}");
    assert!(
        !compacted[2..]
            .iter()
            .any(|(_, text)| text.contains("Never deploy on Fridays."))
    );
    assert!(
        !compacted.iter().any(|(role, _)| role == "tool"),
        "no result without its call: {compacted:?}"
    );
    assert_eq!(
        compacted.last().unwrap().1,
        "Check the CI run https://ci.example.com/runs/88231."
    );
    // The fifth (streamed), after `rollover`: the handoff and the new request.
    let rolled = texts(&prompts[4]);
    assert_eq!(rolled.len(), 3, "{rolled:?}");
    assert!(rolled[1].1.starts_with("<handoff>\n"));
    assert_eq!(rolled[2].1, "Thanks, carry on.");

    // The sixth, in the successor: still the handoff in front.
    let successor = texts(&prompts[5]);
    assert_eq!(successor.len(), 5, "{successor:?}");
    assert!(successor[1].1.starts_with("<handoff>\n"));
    assert_eq!(successor[2].1, "Thanks, carry on.");
    assert_eq!(successor[4].1, "And the changelog?");
}

async fn the_ledger_and_the_lineage_say_so(client: &reqwest::Client, base: &str, conversation: &str, seen: &Value) {
    let ledger = get(
        client,
        format!("{base}/conversations/{}/compactions", encode(conversation)),
    )
    .await;
    assert_eq!(ledger["compactions"].as_array().unwrap().len(), 1, "{ledger}");
    assert_eq!(ledger["compactions"][0]["tokens_before"], 16_500);
    assert!(ledger["compactions"][0]["kept_from"].as_u64().is_some());
    // The calls after it named their model: what they spared is priced.
    let savings = &ledger["compactions"][0]["savings"];
    assert!(savings["calls"].as_u64().unwrap() > 0, "{savings}");
    assert_eq!(savings["unpriced_calls"], 0, "{savings}");
    assert!(savings["usd"].as_f64().unwrap() > 0.0, "{savings}");
    let before = get(client, format!("{base}/conversations/{}", encode(conversation))).await;
    assert_eq!(before["turn_count"], 3, "a tool-calls step does not end the turn");
    let successor = seen["conversations"][1]
        .as_str()
        .expect("onRollover told the successor");
    assert_eq!(before["successor_id"], successor);
    let after = get(client, format!("{base}/conversations/{}", encode(successor))).await;
    assert_eq!(after["predecessor_id"], conversation);
    assert_eq!(after["used"], 4_500, "the last call's usage");
    assert_eq!(after["turn_count"], 2);
    assert_eq!(
        seen["conversations"].as_array().unwrap().len(),
        2,
        "one rollover, told once: {seen}"
    );
}

/// A client's process driven a call at a time: a line of JSON in on its
/// stdin, a line of JSON out on its stdout, after a first `{"ready": true}`.
pub struct Driven {
    _child: Child,
    stdin: ChildStdin,
    stdout: Lines<BufReader<ChildStdout>>,
    stderr: Arc<Mutex<String>>,
}

impl Driven {
    /// Starts `command` and waits (as long as installing and compiling the
    /// client takes) until it says it is ready.
    pub async fn start(mut command: Command) -> Driven {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("the driver starts");
        let stderr = Arc::new(Mutex::new(String::new()));
        let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
        let kept = stderr.clone();
        tokio::spawn(async move {
            while let Ok(Some(line)) = lines.next_line().await {
                let mut kept = kept.lock().unwrap();
                kept.push_str(&line);
                kept.push('\n');
            }
        });
        let mut driven = Driven {
            stdin: child.stdin.take().unwrap(),
            stdout: BufReader::new(child.stdout.take().unwrap()).lines(),
            _child: child,
            stderr,
        };
        let ready = driven.answer(Duration::from_secs(600), "starting").await;
        assert_eq!(ready["ready"], true, "{ready}");
        driven
    }

    /// What the process wrote on stderr so far (its warnings among it).
    pub fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    /// The answer to `call`, which must come within a minute.
    pub async fn call(&mut self, call: Value) -> Value {
        let line = format!("{call}\n");
        if self.stdin.write_all(line.as_bytes()).await.is_err() {
            panic!("the driver is gone before {call}:\n{}", self.stderr());
        }
        self.answer(Duration::from_secs(60), &call.to_string()).await
    }

    async fn answer(&mut self, within: Duration, what: &str) -> Value {
        match tokio::time::timeout(within, self.stdout.next_line()).await {
            Ok(Ok(Some(line))) => {
                serde_json::from_str(&line).unwrap_or_else(|_| panic!("not JSON: {line}\n{}", self.stderr()))
            }
            Ok(_) => panic!("the driver ended without answering {what}:\n{}", self.stderr()),
            Err(_) => panic!("no answer to {what} within {within:?}:\n{}", self.stderr()),
        }
    }
}

/// A stand-in for compactd on a port of its own: it reads each request and
/// answers it with one response, or (silent) takes the connection and never
/// answers.
pub struct Impostor {
    pub address: String,
    task: tokio::task::JoinHandle<()>,
}

impl Impostor {
    /// Answers every request with `status` (e.g. `401 Unauthorized`), `headers` (lines ending `\r\n`) and `body`.
    pub async fn answering(status: &str, headers: &str, body: &str) -> Impostor {
        let response = format!(
            "HTTP/1.1 {status}\r\n{headers}content-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        );
        Impostor::start(Some(response)).await
    }

    /// A problem+json refusal, as compactd words one.
    pub async fn refusing(status: u16, reason: &str, headers: &str) -> Impostor {
        let body = json!({"type": "about:blank", "title": reason, "status": status, "detail": "refused"});
        let headers = format!("content-type: application/problem+json\r\n{headers}");
        Impostor::answering(&format!("{status} {reason}"), &headers, &body.to_string()).await
    }

    /// Accepts connections, reads nothing and answers nothing.
    pub async fn silent() -> Impostor {
        Impostor::start(None).await
    }

    async fn start(response: Option<String>) -> Impostor {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = format!("http://{}", listener.local_addr().unwrap());
        let task = tokio::spawn(async move {
            let mut held = Vec::new();
            while let Ok((socket, _)) = listener.accept().await {
                match &response {
                    None => held.push(socket),
                    Some(response) => {
                        tokio::spawn(answer(socket, response.clone()));
                    }
                }
            }
        });
        Impostor { address, task }
    }
}

impl Drop for Impostor {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Reads one request (its head, then as much body as it declares) and answers it.
async fn answer(mut socket: TcpStream, response: String) {
    if read_request(&mut socket).await.is_none() {
        return;
    }
    let _ = socket.write_all(response.as_bytes()).await;
    let _ = socket.shutdown().await;
}

/// One request off `socket`: its head (up to the blank line) and its body
/// (as much as it declares); `None` when the connection ends first.
async fn read_request(socket: &mut TcpStream) -> Option<(String, Vec<u8>)> {
    let mut read = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        match socket.read(&mut chunk).await {
            Ok(0) | Err(_) => return None,
            Ok(n) => read.extend_from_slice(&chunk[..n]),
        }
        if let Some(at) = read.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
    };
    let head = String::from_utf8_lossy(&read[..head_end]).into_owned();
    let length: usize = head
        .to_lowercase()
        .lines()
        .find_map(|line| line.strip_prefix("content-length:"))
        .map_or(0, |n| n.trim().parse().unwrap_or(0));
    while read.len() < head_end + length {
        match socket.read(&mut chunk).await {
            Ok(0) | Err(_) => return None,
            Ok(n) => read.extend_from_slice(&chunk[..n]),
        }
    }
    Some((head, read[head_end..].to_vec()))
}

/// compactd at `to`, reached through a relay of its own that loses the
/// answer to the first request for `lost` (a path): the request reaches
/// compactd and is done there, its answer never comes back (the connection
/// closes), as when a timeout or a cut connection ends a call that compactd
/// carried out. Later ones are answered. One request a connection
/// (`connection: close` both ways).
pub struct Relay {
    pub address: String,
    task: tokio::task::JoinHandle<()>,
}

impl Relay {
    pub async fn losing_the_first_answer_to(to: &str, lost: &'static str) -> Relay {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = format!("http://{}", listener.local_addr().unwrap());
        let to = to.trim_start_matches("http://").to_owned();
        let losing = Arc::new(AtomicBool::new(true));
        let task = tokio::spawn(async move {
            while let Ok((socket, _)) = listener.accept().await {
                tokio::spawn(relay(socket, to.clone(), lost, losing.clone()));
            }
        });
        Relay { address, task }
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// One request from `client` to compactd at `to`, and its answer back, but
/// for `lost`'s while `losing`.
async fn relay(mut client: TcpStream, to: String, lost: &str, losing: Arc<AtomicBool>) {
    let Some((head, body)) = read_request(&mut client).await else {
        return;
    };
    let path = head.split_whitespace().nth(1).unwrap_or("").to_owned();
    let mut forwarded: String = head
        .trim_end()
        .lines()
        .filter(|line| !line.to_lowercase().starts_with("connection:"))
        .map(|line| format!("{line}\r\n"))
        .collect();
    forwarded.push_str("connection: close\r\n\r\n");
    let Ok(mut compactd) = TcpStream::connect(&to).await else {
        return;
    };
    let mut sent = forwarded.into_bytes();
    sent.extend_from_slice(&body);
    if compactd.write_all(&sent).await.is_err() {
        return;
    }
    let mut answered = Vec::new();
    let _ = compactd.read_to_end(&mut answered).await;
    if path != lost || !losing.swap(false, Ordering::SeqCst) {
        let _ = client.write_all(&answered).await;
    }
    let _ = client.shutdown().await;
}

/// A port nobody listens on (for now).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// The refusals and the answers it cannot read that a middleware meets, each
/// from an impostor of its own.
pub async fn refusals() -> Vec<(&'static str, Impostor)> {
    vec![
        ("401", Impostor::refusing(401, "Unauthorized", "").await),
        (
            "429",
            Impostor::refusing(429, "Too Many Requests", "retry-after: 1\r\n").await,
        ),
        (
            "503",
            Impostor::refusing(503, "Service Unavailable", "retry-after: 1\r\n").await,
        ),
        (
            "200 with HTML",
            Impostor::answering("200 OK", "content-type: text/html\r\n", "<html>a proxy's page</html>").await,
        ),
    ]
}

/// `clients/typescript/examples/ai_sdk_fail_open.ts` against `url`, for
/// `conversation`; compiled under clients/tools.sh's lock, which it lets go
/// once loaded.
async fn ai_sdk_driver(url: &str, conversation: &str) -> Driven {
    let mut command = Command::new("bash");
    command
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "-c",
            ". clients/tools.sh && cd clients/typescript && npx --no-install tsc \
             && LOCK_FD=9 exec node dist/examples/ai_sdk_fail_open.js",
        ])
        .env("COMPACTD_URL", url)
        .env("CONVERSATION", conversation);
    Driven::start(command).await
}

/// The call answered with the model's reply, having given the model the
/// caller's whole history (`turns` requests, each answered but the last),
/// as it stands.
fn answered_as_it_stands(answer: &Value, request: &str, turns: usize) {
    assert_eq!(answer["error"], Value::Null, "the call answered: {answer}");
    assert_eq!(answer["reply"], format!("Answered: {request}"), "{answer}");
    let prompt = texts(&answer["prompt"]);
    assert_eq!(
        prompt.len(),
        2 * turns,
        "the system prompt and the whole history: {prompt:?}"
    );
    assert!(
        prompt
            .iter()
            .all(|(_, text)| !text.starts_with("Here is a summary") && !text.starts_with("<handoff>")),
        "{prompt:?}"
    );
    assert_eq!(prompt.last().unwrap(), &("user".to_owned(), request.to_owned()));
}

async fn state(url: &str, conversation: &str) -> Value {
    let client = reqwest::Client::new();
    get(&client, format!("{url}/conversations/{}", encode(conversation))).await
}

#[tokio::test(flavor = "multi_thread")]
async fn ai_sdk_calls_answer_while_compactd_is_down_and_report_again_once_it_is_back() {
    let port = free_port();
    let url = format!("http://127.0.0.1:{port}");
    let conversation = "ai-sdk-outage-1";
    let mut driver = ai_sdk_driver(&url, conversation).await;
    let down = [
        json!({"request": "Deploy build 4711 to staging.", "fresh": true}),
        json!({"request": "Now tag it v2.3.1.", "fresh": false}),
        json!({"request": "Check the CI run.", "fresh": true, "stream": true}),
        json!({"request": "Any news?", "fresh": false, "stream": true}),
    ];
    for (turn, call) in down.iter().enumerate() {
        let answer = driver.call(call.clone()).await;
        answered_as_it_stands(&answer, call["request"].as_str().unwrap(), turn + 1);
        assert_eq!(answer["warnings"], 1, "one outage, logged once:\n{}", driver.stderr());
    }
    assert!(driver.stderr().contains("ECONNREFUSED"), "{}", driver.stderr());

    // compactd comes up where it was looked for: the next calls report.
    let (_database, service) = compactd_comes_up_at(port).await;
    assert_eq!(service.address, url);
    let answer = driver.call(json!({"request": "Carry on.", "used": 6_000})).await;
    answered_as_it_stands(&answer, "Carry on.", 5);
    let reported = state(&url, conversation).await;
    assert_eq!(reported["used"], 6_000, "{reported}");
    assert_eq!(reported["turn_count"], 1, "{reported}");
    let answer = driver
        .call(json!({"request": "And the changelog?", "used": 7_000, "fresh": true}))
        .await;
    answered_as_it_stands(&answer, "And the changelog?", 6);
    let reported = state(&url, conversation).await;
    assert_eq!(reported["used"], 7_000, "{reported}");
    assert_eq!(reported["turn_count"], 2, "{reported}");
    assert_eq!(answer["warnings"], 1);

    // Down again: a new outage, logged once more.
    service.stop().await;
    for (turn, call) in [
        json!({"request": "Still there?", "fresh": false}),
        json!({"request": "Hello?", "fresh": true}),
    ]
    .iter()
    .enumerate()
    {
        let answer = driver.call(call.clone()).await;
        answered_as_it_stands(&answer, call["request"].as_str().unwrap(), 7 + turn);
        assert_eq!(answer["warnings"], 2, "{}", driver.stderr());
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn ai_sdk_calls_answer_when_compactd_refuses_them_or_answers_what_they_cannot_read() {
    let refusals = refusals().await;
    let mut driver = ai_sdk_driver(&refusals[0].1.address, "ai-sdk-refused-1").await;
    let mut turns = 0;
    for (outage, (what, impostor)) in refusals.iter().enumerate() {
        for call in [
            json!({"request": format!("Deploy ({what}, fresh)."), "fresh": true}),
            json!({"request": format!("Deploy ({what}, shared)."), "fresh": false}),
            json!({"request": format!("Deploy ({what}, streamed)."), "fresh": true, "stream": true}),
        ] {
            let mut call = call;
            call["url"] = json!(impostor.address);
            turns += 1;
            let answer = driver.call(call.clone()).await;
            answered_as_it_stands(&answer, call["request"].as_str().unwrap(), turns);
            assert_eq!(
                answer["warnings"],
                outage + 1,
                "each compactd's outage logged once:\n{}",
                driver.stderr()
            );
        }
    }
    // The model's own failure is the caller's, as without the middleware.
    for fresh in [true, false] {
        let failed = driver
            .call(json!({"request": "Deploy again.", "fails": true, "fresh": fresh}))
            .await;
        assert!(
            failed["error"]
                .as_str()
                .is_some_and(|e| e.contains("the model is overloaded")),
            "{failed}"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn ai_sdk_calls_outlast_a_compactd_that_never_answers_by_about_its_timeout() {
    let silent = Impostor::silent().await;
    let mut driver = ai_sdk_driver(&silent.address, "ai-sdk-silent-1").await;
    let calls = [
        json!({"request": "Deploy build 4711.", "fresh": true}),
        json!({"request": "Now tag it.", "fresh": false}),
        json!({"request": "Check the CI run.", "fresh": true, "stream": true}),
    ];
    for (turn, call) in calls.iter().enumerate() {
        let answer = driver.call(call.clone()).await;
        answered_as_it_stands(&answer, call["request"].as_str().unwrap(), turn + 1);
        // The default timeout is 2 s: well within this.
        assert!(answer["ms"].as_u64().unwrap() < 15_000, "{answer}");
        assert_eq!(answer["warnings"], 1, "{}", driver.stderr());
    }
    assert!(
        driver.stderr().contains("no answer within 2000 ms"),
        "{}",
        driver.stderr()
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn on_rollover_is_told_once_however_many_fresh_instances_follow_the_rollover() {
    let database = Database::create().await;
    let url = database.url();
    let service = binary::start(&[("DATABASE_URL", url.as_str()), ("RUST_LOG", "warn")], &[]).await;
    let conversation = "ai-sdk-told-once-1";
    let mut driver = ai_sdk_driver(&service.address, conversation).await;
    // Past the trigger (three quarters of 20,000): compact; past it still
    // right after compacting: roll over, which the third call does.
    for (request, used) in [
        ("Deploy build 4711 to staging. Never deploy on Fridays.", 16_500),
        ("Now tag it v2.3.1 and update docs/release.md.", 16_500),
        ("Thanks, carry on.", 4_000),
    ] {
        let answer = driver
            .call(json!({"request": request, "used": used, "fresh": true}))
            .await;
        assert_eq!(answer["reply"], format!("Answered: {request}"), "{answer}");
    }
    let rolled = state(&service.address, conversation).await;
    let successor = rolled["successor_id"].as_str().expect("it rolled over").to_owned();
    for request in ["And the changelog?", "Publish it.", "Close the ticket."] {
        let answer = driver
            .call(json!({"request": request, "used": 4_500, "fresh": true}))
            .await;
        assert_eq!(answer["reply"], format!("Answered: {request}"), "{answer}");
        assert!(texts(&answer["prompt"])[1].1.starts_with("<handoff>\n"), "{answer}");
        assert_eq!(
            answer["told"],
            json!([successor]),
            "told once, by the instance that rolled over"
        );
    }
    let carried_on = state(&service.address, &successor).await;
    assert_eq!(carried_on["turn_count"], 4, "{carried_on}");
    service.stop().await;
}

/// compactd on `database`, writing its summaries through a model upstream
/// (OpenAI-compatible) that answers each call `after` it was asked; nothing
/// is prepared ahead (no background work), so a compaction waits for it.
pub async fn compactd_summarizing_slowly(database: &Database, after: Duration) -> (binary::Service, MockServer) {
    let upstream = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_json(openai_answer("- Build 4711 went to staging. Never deploy on Fridays."))
                .set_delay(after),
        )
        .mount(&upstream)
        .await;
    let (url, base) = (database.url(), format!("{}/v1", upstream.uri()));
    let service = binary::start(
        &[
            ("DATABASE_URL", url.as_str()),
            ("RUST_LOG", "warn"),
            ("COMPACTD_BACKGROUND", "false"),
            ("COMPACTD_LLM_PROVIDER", "openai"),
            ("COMPACTD_LLM_BASE_URL", base.as_str()),
            ("COMPACTD_SUMMARY_MODEL", "summary-model"),
            ("COMPACTD_SUMMARY_MODEL_CONTEXT_TOKENS", "8192"),
        ],
        &[],
    )
    .await;
    (service, upstream)
}

/// How long the model upstream takes to write a summary: past the reports'
/// 2 s timeout, well within the summaries' own.
pub const SLOW_SUMMARY: Duration = Duration::from_secs(3);

#[tokio::test(flavor = "multi_thread")]
async fn ai_sdk_compactions_a_model_upstream_takes_seconds_to_write_still_land() {
    let database = Database::create().await;
    let (service, upstream) = compactd_summarizing_slowly(&database, SLOW_SUMMARY).await;
    let conversation = "ai-sdk-slow-summary-1";
    let mut driver = ai_sdk_driver(&service.address, conversation).await;
    // Past the trigger (three quarters of 20,000): compactd says `compact`.
    let rule = "Deploy build 4711 to staging. Never deploy on Fridays. ".repeat(12);
    let asked = driver
        .call(json!({"request": rule.trim_end(), "used": 16_500, "fresh": true}))
        .await;
    assert_eq!(asked["error"], Value::Null, "{asked}");
    let request = "Now tag it v2.3.1.";
    let answer = driver
        .call(json!({"request": request, "used": 5_000, "fresh": true}))
        .await;

    assert_eq!(answer["error"], Value::Null, "{answer}");
    let prompt = texts(&answer["prompt"]);
    assert!(
        prompt[1]
            .1
            .starts_with("Here is a summary of the conversation to date:"),
        "the model was given the summary: {prompt:?}\n{}",
        driver.stderr()
    );
    assert_eq!(prompt.last().unwrap().1, request, "{prompt:?}");
    assert!(
        answer["ms"].as_u64().unwrap() >= SLOW_SUMMARY.as_millis() as u64,
        "the call waited for the summary: {answer}"
    );
    assert_eq!(answer["warnings"], 0, "nothing failed:\n{}", driver.stderr());
    let compacted = state(&service.address, conversation).await;
    assert_eq!(compacted["compactions"], 1, "{compacted}");
    let client = reqwest::Client::new();
    let ledger = get(
        &client,
        format!("{}/conversations/{}/compactions", service.address, encode(conversation)),
    )
    .await;
    assert_eq!(ledger["compactions"][0]["summarizer"], "llm", "{ledger}");
    assert!(!completions(&upstream).await.is_empty());
    service.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn ai_sdk_instances_carry_on_in_the_successor_of_a_rollover_they_never_heard_answered() {
    let database = Database::create().await;
    let url = database.url();
    let service = binary::start(&[("DATABASE_URL", url.as_str()), ("RUST_LOG", "warn")], &[]).await;
    let direct = service.address.clone();
    let relay = Relay::losing_the_first_answer_to(&service.address, "/handoff").await;
    let conversation = "ai-sdk-lost-handoff-1";
    let mut driver = ai_sdk_driver(&direct, conversation).await;
    // One instance reaches compactd directly and reads its state once, now.
    let first = driver.call(json!({"request": "Hello.", "used": 5_000})).await;
    assert_eq!(first["error"], Value::Null, "{first}");
    // Another, through the relay: past the trigger, compact; past it still
    // right after compacting, roll over, whose answer is lost.
    for (request, used) in [
        ("Deploy build 4711 to staging. Never deploy on Fridays.", 16_500),
        ("Now tag it v2.3.1 and update docs/release.md.", 16_500),
    ] {
        let answer = driver
            .call(json!({"request": request, "used": used, "url": relay.address}))
            .await;
        assert_eq!(answer["error"], Value::Null, "{answer}");
    }
    let lost = driver
        .call(json!({"request": "Thanks, carry on.", "used": 4_000, "url": relay.address}))
        .await;
    assert_eq!(lost["error"], Value::Null, "the call answered: {lost}");
    assert_eq!(lost["warnings"], 1, "{}", driver.stderr());
    assert_eq!(lost["told"], json!([]), "{lost}");
    let rolled = state(&direct, conversation).await;
    let successor = rolled["successor_id"]
        .as_str()
        .expect("compactd rolled over")
        .to_owned();

    // The instance that asked finds the rollover on its next call, and tells it.
    let found = driver
        .call(json!({"request": "And the changelog?", "used": 4_000, "url": relay.address}))
        .await;
    assert!(texts(&found["prompt"])[1].1.starts_with("<handoff>\n"), "{found}");
    assert_eq!(found["told"], json!([successor]), "{found}");

    // The first instance still takes the conversation for current: its
    // report is the old one's, whose `/decide` names the successor; its next
    // call carries on there.
    let stale = driver.call(json!({"request": "Publish it.", "used": 4_000})).await;
    assert_eq!(stale["error"], Value::Null, "{stale}");
    let carried = driver
        .call(json!({"request": "Close the ticket.", "used": 4_500}))
        .await;
    let prompt = texts(&carried["prompt"]);
    assert!(prompt[1].1.starts_with("<handoff>\n"), "{prompt:?}");
    assert_eq!(prompt.last().unwrap().1, "Close the ticket.", "{prompt:?}");
    assert_eq!(carried["told"], json!([successor]), "told once: {carried}");
    assert_eq!(carried["warnings"], 1, "{}", driver.stderr());
    let carried_on = state(&direct, &successor).await;
    assert_eq!(carried_on["used"], 4_500, "{carried_on}");
    assert_eq!(carried_on["turn_count"], 2, "{carried_on}");
    service.stop().await;
}

/// compactd started on `port` (where a client already looks for it), on a
/// database of its own.
pub async fn compactd_comes_up_at(port: u16) -> (Database, binary::Service) {
    let database = Database::create().await;
    let database_url = database.url();
    let listen = format!("127.0.0.1:{port}");
    let service = binary::start(
        &[
            ("DATABASE_URL", database_url.as_str()),
            ("RUST_LOG", "warn"),
            ("COMPACTD_ADDR", listen.as_str()),
        ],
        &[],
    )
    .await;
    (database, service)
}
