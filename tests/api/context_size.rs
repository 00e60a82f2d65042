//! Any context size (SPEC §3, issue 21): a delta longer than the summary
//! model's window is summarized in chunks, a refusal of the context is
//! planned around and never sent again as it was, a prompt the upstream cut
//! silently is caught, and where nothing fits the summary is written
//! extractively and says why — a full agent can always compact.

use std::time::Duration;

use compactd::llm::tokens;
use serde_json::{Value, json};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

use crate::helpers::{TestApp, completions, spawn, upstream_settings};

/// Sixty steps of about 300 tokens each, numbered so a chunk's place shows.
fn long_delta() -> Vec<Value> {
    (0..60)
        .map(|n| {
            let role = if n % 2 == 0 { "user" } else { "assistant" };
            let filler = "the retry queue drains the billing events in order and logs each one ".repeat(20);
            json!({"role": role, "content": format!("step-{n:03}: {filler}")})
        })
        .collect()
}

/// The steps a prompt's transcript holds, in order.
fn steps_in(text: &str) -> Vec<u32> {
    let transcript = text.split("TRANSCRIPT").nth(1).unwrap_or("");
    transcript
        .match_indices("step-")
        .filter_map(|(at, _)| transcript.get(at + 5..at + 8)?.parse().ok())
        .collect()
}

fn user_prompt(request: &Request) -> String {
    let body: Value = serde_json::from_slice(&request.body).unwrap();
    body["messages"][1]["content"].as_str().unwrap().to_owned()
}

fn max_tokens(request: &Request) -> u64 {
    let body: Value = serde_json::from_slice(&request.body).unwrap();
    body["max_tokens"].as_u64().unwrap()
}

/// Our count of a request's prompt: what an honest upstream reads.
fn prompt_tokens(request: &Request) -> u64 {
    let body: Value = serde_json::from_slice(&request.body).unwrap();
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| tokens::count(m["content"].as_str().unwrap_or("")))
        .sum()
}

/// `text`, answered as read from a prompt of `read` tokens.
fn answer(text: &str, read: u64) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_json(json!({
        "model": "local", "choices": [{"message": {"role": "assistant", "content": text}}],
        "usage": {"prompt_tokens": read, "completion_tokens": 12}}))
}

/// Answers with the last step it read, so each answer shows where its
/// chunk ended, and the next prompt shows the answer it was given.
struct ThroughLastStep;

impl ThroughLastStep {
    fn text(request: &Request) -> String {
        match steps_in(&user_prompt(request)).last() {
            Some(step) => format!("Worked through step {step} of the billing retry queue."),
            None => "Nothing new.".to_owned(),
        }
    }
}

impl Respond for ThroughLastStep {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        answer(&Self::text(request), prompt_tokens(request))
    }
}

async fn app_with_window(server: &MockServer, window: Option<u64>) -> TestApp {
    let mut settings = upstream_settings(&server.uri(), Duration::from_secs(10));
    if let Some(upstream) = settings.summarizer.as_mut() {
        upstream.context_tokens = window;
    }
    spawn(settings).await
}

async fn summarize(app: &TestApp, id: &str, messages: &[Value]) -> Value {
    app.report("/usage", json!({"conversation_id": id, "used": 20000, "size": 200000}))
        .await;
    let (status, body) = app
        .post_json("/summarize", &json!({"conversation_id": id, "messages": messages}))
        .await;
    assert_eq!(status, 200, "{body}");
    body
}

#[tokio::test]
async fn a_delta_several_times_the_window_is_folded_in_chunk_by_chunk_in_order() {
    let server = MockServer::start().await;
    Mock::given(wiremock::matchers::method("POST"))
        .respond_with(ThroughLastStep)
        .mount(&server)
        .await;
    let app = app_with_window(&server, Some(4_000)).await;
    let delta = long_delta();

    let first = summarize(&app, "a", &delta).await;

    let requests = completions(&server).await;
    assert!(
        requests.len() >= 5,
        "{} calls for a delta about 5× the window",
        requests.len()
    );
    assert_eq!(first["compaction"]["upstream_calls"], requests.len(), "{first}");
    assert_eq!(first["compaction"]["summarizer"], "llm");
    let mut read = Vec::new();
    for (n, request) in requests.iter().enumerate() {
        let prompt = user_prompt(request);
        let steps = steps_in(&prompt);
        if n > 0 {
            let previous = *read.last().unwrap();
            assert!(
                prompt.contains(&format!("Worked through step {previous} of")),
                "call {n} is anchored on the answer before it"
            );
        }
        assert!(max_tokens(request) <= 4_000 / 5, "the answer leaves the window room");
        read.extend(steps);
    }
    assert_eq!(read, (0..60).collect::<Vec<u32>>(), "every step, once, in order");
    assert!(first["summary"].as_str().unwrap().contains("Worked through step 59"));

    let calls = requests.len();
    let again = summarize(&app, "b", &delta).await;
    assert_eq!(again["summary"], first["summary"], "the same input, the same summary");
    let requests = completions(&server).await;
    assert_eq!(requests.len(), 2 * calls, "the same chunks");
    for (a, b) in requests[..calls].iter().zip(&requests[calls..]) {
        assert_eq!(steps_in(&user_prompt(a)), steps_in(&user_prompt(b)));
    }
    let metrics = app.get("/metrics").send().await.unwrap().text().await.unwrap();
    assert!(
        metrics.contains("compactd_chunked_summaries_total"),
        "counted in /metrics"
    );
}

/// Refuses any prompt past `window` of our tokens, as OpenAI and llama.cpp
/// word it.
struct Window(u64);

impl Respond for Window {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let prompt = prompt_tokens(request);
        let asked = max_tokens(request);
        if prompt + asked > self.0 {
            return ResponseTemplate::new(400).set_body_json(json!({"error": {
                "message": format!("This model's maximum context length is {} tokens. However, you requested {} tokens ({prompt} in the messages, {asked} in the completion).", self.0, prompt + asked),
                "type": "invalid_request_error", "code": "context_length_exceeded"}}));
        }
        ThroughLastStep.respond(request)
    }
}

#[tokio::test]
async fn a_refusal_of_the_context_is_learned_from_and_never_sent_again_as_it_was() {
    let server = MockServer::start().await;
    Mock::given(wiremock::matchers::method("POST"))
        .respond_with(Window(6_000))
        .mount(&server)
        .await;
    let app = app_with_window(&server, None).await;

    let answer = summarize(&app, "c", &long_delta()).await;

    assert_eq!(answer["success"], true, "{answer}");
    assert_eq!(answer["compaction"]["summarizer"], "llm");
    let requests = completions(&server).await;
    let bodies: Vec<&[u8]> = requests.iter().map(|r| r.body.as_slice()).collect();
    for (n, body) in bodies.iter().enumerate() {
        assert!(!bodies[..n].contains(body), "call {n} repeats a refused prompt");
    }
    assert!(requests.len() > 2, "refused once, then chunked");
    assert_eq!(answer["compaction"]["upstream_calls"], requests.len());
    for request in &requests[1..] {
        assert!(max_tokens(request) <= 6_000 / 5);
    }
    assert!(answer["summary"].as_str().unwrap().contains("Worked through step 59"));

    // Learned: the next compaction is planned to fit from its first call.
    let before = requests.len();
    summarize(&app, "d", &long_delta()).await;
    let requests = completions(&server).await;
    for request in &requests[before..] {
        let prompt: u64 = tokens::count(&user_prompt(request));
        assert!(prompt + max_tokens(request) <= 6_000, "the window is remembered");
    }
}

/// Answers every prompt as if it had read no more than `read` tokens of it,
/// as Ollama does past its `num_ctx`.
struct Truncating {
    read: u64,
}

impl Respond for Truncating {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        answer(&ThroughLastStep::text(request), prompt_tokens(request).min(self.read))
    }
}

/// The `compactd_summary_window_*` lines of the app's `/metrics`.
async fn window_metrics(app: &TestApp) -> Vec<String> {
    let metrics = app.get("/metrics").send().await.unwrap().text().await.unwrap();
    metrics
        .lines()
        .filter(|line| line.starts_with("compactd_summary_window_"))
        .map(str::to_owned)
        .collect()
}

#[tokio::test]
async fn prompts_of_different_sizes_read_at_the_same_count_are_believed_cut_and_sent_in_chunks() {
    let server = MockServer::start().await;
    Mock::given(wiremock::matchers::method("POST"))
        .respond_with(Truncating { read: 5_000 })
        .mount(&server)
        .await;
    let app = app_with_window(&server, None).await;

    // One prompt read at a fraction of its size is only a suspicion: a
    // cache or a count of something else could say as much.
    let first = summarize(&app, "e", &long_delta()).await;

    let requests = completions(&server).await;
    assert_eq!(requests.len(), 1, "its answer stands: {first}");
    assert!(tokens::count(&user_prompt(&requests[0])) > 15_000);
    assert_eq!(first["compaction"]["summarizer"], "llm");
    let metrics = window_metrics(&app).await;
    assert!(
        metrics.contains(&"compactd_summary_window_suspected_cuts{model=\"summary-model\"} 1".to_owned()),
        "{metrics:?}"
    );
    assert!(
        !metrics
            .iter()
            .any(|line| line.starts_with("compactd_summary_window_tokens")),
        "nothing learned: {metrics:?}"
    );

    // Another prompt, of another size, read at the same count: a cut.
    let mut longer = long_delta();
    longer.extend(long_delta().into_iter().take(20));
    let second = summarize(&app, "e2", &longer).await;

    let requests = completions(&server).await;
    assert!(tokens::count(&user_prompt(&requests[1])) > 20_000, "sent whole first");
    assert!(requests.len() > 3, "then in chunks: {} calls", requests.len());
    for request in &requests[2..] {
        assert!(prompt_tokens(request) <= 5_000, "each within what it reads");
    }
    assert_eq!(second["compaction"]["summarizer"], "llm", "{second}");
    assert!(
        second["summary"]
            .as_str()
            .unwrap()
            .contains("Worked through step 19 of"),
        "the end, not the cut answer: {second}"
    );
    let metrics = window_metrics(&app).await;
    assert!(
        metrics.contains(&"compactd_summary_window_tokens{model=\"summary-model\",evidence=\"cuts\"} 5000".to_owned()),
        "{metrics:?}"
    );
}

/// Counts only the prompt it had to read, as llama.cpp's `prompt_n` and
/// Ollama's `prompt_eval_count` do: what a prompt shares with one it was sent
/// before is cached, and not counted.
#[derive(Default, Clone)]
struct CountingOnlyUncached {
    seen: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
    /// Each prompt's tokens and what was answered as read of them.
    reads: std::sync::Arc<std::sync::Mutex<Vec<(u64, u64)>>>,
}

impl CountingOnlyUncached {
    fn whole_prompt(request: &Request) -> String {
        let body: Value = serde_json::from_slice(&request.body).unwrap();
        let messages = body["messages"].as_array().unwrap();
        messages.iter().map(|m| m["content"].as_str().unwrap_or("")).collect()
    }
}

impl Respond for CountingOnlyUncached {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let prompt = Self::whole_prompt(request);
        let mut seen = self.seen.lock().unwrap();
        let cached = seen
            .iter()
            .map(|earlier| {
                let shared = earlier.bytes().zip(prompt.bytes()).take_while(|(a, b)| a == b).count();
                (0..=shared).rev().find(|at| prompt.is_char_boundary(*at)).unwrap_or(0)
            })
            .max()
            .unwrap_or(0);
        seen.push(prompt.clone());
        // llama.cpp evaluates the last token of a prompt it holds whole.
        let read = tokens::count(&prompt[cached..]).max(1);
        self.reads.lock().unwrap().push((tokens::count(&prompt), read));
        answer("We kept the retry cap and the billing queue as they were.", read)
    }
}

/// A conversation of `steps` steps, each about `words` words long.
fn conversation(steps: usize, words: usize) -> Vec<Value> {
    (0..steps)
        .map(|n| {
            let role = if n % 2 == 0 { "user" } else { "assistant" };
            let filler = "the retry queue drains the billing events ".repeat(words / 7 + 1);
            json!({"role": role, "content": format!("step-{n:03}: {filler}")})
        })
        .collect()
}

#[tokio::test]
async fn an_upstream_that_counts_only_what_it_had_not_cached_writes_every_summary() {
    let server = MockServer::start().await;
    listing(&server, 8_192).await;
    let upstream = CountingOnlyUncached::default();
    Mock::given(wiremock::matchers::method("POST"))
        .respond_with(upstream.clone())
        .mount(&server)
        .await;
    let app = app_with_window(&server, None).await;
    // The second is the first's transcript again (a session replayed, an
    // agent forked): its whole prompt is cached.
    let conversations = [
        ("first", conversation(8, 120)),
        ("forked", conversation(8, 120)),
        ("two-messages", conversation(2, 20)),
        ("fourth", conversation(11, 90)),
    ];

    for (id, messages) in &conversations {
        let answer = summarize(&app, id, messages).await;
        assert_eq!(answer["compaction"]["summarizer"], "llm", "{id}: {answer}");
        assert_eq!(answer["compaction"]["upstream_calls"], 1, "{id}: {answer}");
    }

    let reads = upstream.reads.lock().unwrap().clone();
    assert_eq!(reads.len(), 4);
    let at_a_fraction = reads
        .iter()
        .filter(|(sent, read)| *sent >= 1_024 && read * 2 < *sent)
        .count();
    assert!(
        at_a_fraction >= 1,
        "the premise: prompts answered as read at under half their size: {reads:?}"
    );
    let metrics = window_metrics(&app).await;
    assert!(
        metrics
            .contains(&"compactd_summary_window_tokens{model=\"summary-model\",evidence=\"listing\"} 8192".to_owned()),
        "what was learned, for which model, from what: {metrics:?}"
    );
}

/// Answers every prompt with the same usage, as many fakes and proxies do.
struct ConstantUsage(u64);

impl Respond for ConstantUsage {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        answer(&ThroughLastStep::text(request), self.0)
    }
}

#[tokio::test]
async fn an_upstream_whose_usage_is_a_constant_writes_every_summary_in_one_call() {
    let server = MockServer::start().await;
    Mock::given(wiremock::matchers::method("POST"))
        .respond_with(ConstantUsage(12))
        .mount(&server)
        .await;
    let app = app_with_window(&server, None).await;

    for (id, steps) in [("k1", 20), ("k2", 40), ("k3", 2), ("k4", 60)] {
        let delta: Vec<Value> = long_delta().into_iter().take(steps).collect();
        let answer = summarize(&app, id, &delta).await;
        assert_eq!(answer["compaction"]["summarizer"], "llm", "{id}: {answer}");
        assert_eq!(answer["compaction"]["upstream_calls"], 1, "{id}: {answer}");
        assert!(
            answer["summary"]
                .as_str()
                .unwrap()
                .contains(&format!("Worked through step {} of", steps - 1)),
            "{id}: {answer}"
        );
    }
    let metrics = window_metrics(&app).await;
    assert!(
        !metrics
            .iter()
            .any(|line| line.starts_with("compactd_summary_window_tokens")),
        "nothing learned: {metrics:?}"
    );
}

#[tokio::test]
async fn a_window_that_cannot_hold_one_chunk_gets_the_extractive_summary_and_says_why() {
    let server = MockServer::start().await;
    Mock::given(wiremock::matchers::method("POST"))
        .respond_with(Window(600))
        .mount(&server)
        .await;
    let app = app_with_window(&server, None).await;
    let mut delta = long_delta();
    delta.push(json!({"role": "user", "content": "Keep the retry cap at 774 ms in src/billing/retry.rs."}));

    let answer = summarize(&app, "f", &delta).await;

    assert_eq!(
        answer["success"], true,
        "an agent whose context is full can always compact: {answer}"
    );
    assert_eq!(answer["compaction"]["summarizer"], "extractive");
    let fallback = answer["compaction"]["fallback"].as_str().unwrap();
    assert!(fallback.contains("context"), "{fallback}");
    let summary = answer["summary"].as_str().unwrap();
    assert!(
        summary.contains("src/billing/retry.rs") && summary.contains("774 ms"),
        "{summary}"
    );
    let (_, ledger) = app.get_json("/conversations/f/compactions").await;
    assert_eq!(ledger["compactions"][0]["fallback"], fallback, "{ledger}");
    let row: (Option<String>, String) =
        sqlx::query_as("SELECT fallback, summarizer::text FROM compactd_ledger WHERE conversation_id = 'f'")
            .fetch_one(&app.pool)
            .await
            .unwrap();
    assert_eq!(row, (Some(fallback.to_owned()), "extractive".to_owned()));
}

#[tokio::test]
async fn the_answer_asked_for_never_exceeds_what_the_window_leaves() {
    let server = MockServer::start().await;
    Mock::given(wiremock::matchers::method("POST"))
        .respond_with(|request: &Request| answer("We set the cap.", prompt_tokens(request)))
        .mount(&server)
        .await;
    let app = app_with_window(&server, Some(4_096)).await;
    let filler = "the retry queue drains the billing events in order ".repeat(150);
    let messages = [json!({"role": "user", "content": format!("Set the cap. {filler}")})];

    summarize(&app, "g", &messages).await;

    let requests = completions(&server).await;
    assert_eq!(requests.len(), 1, "it fits in one call");
    let prompt = prompt_tokens(&requests[0]);
    let asked = max_tokens(&requests[0]);
    assert!(asked < 4_000, "less than the summary budget: {asked}");
    assert!(prompt + asked <= 4_096, "{prompt} + {asked} within the window");
}

#[tokio::test]
async fn chunks_that_cannot_all_be_folded_within_the_deadline_give_the_extractive_summary() {
    let server = MockServer::start().await;
    Mock::given(wiremock::matchers::method("POST"))
        .respond_with(|request: &Request| ThroughLastStep.respond(request).set_delay(Duration::from_millis(400)))
        .mount(&server)
        .await;
    let mut settings = upstream_settings(&server.uri(), Duration::from_secs(2));
    if let Some(upstream) = settings.summarizer.as_mut() {
        upstream.context_tokens = Some(4_000);
    }
    let app = spawn(settings).await;

    let answer = summarize(&app, "h", &long_delta()).await;

    assert_eq!(answer["success"], true, "never a failed compaction: {answer}");
    assert_eq!(answer["compaction"]["summarizer"], "extractive");
    assert!(
        answer["compaction"]["fallback"].as_str().unwrap().contains("deadline"),
        "{answer}"
    );
    let calls = completions(&server).await.len();
    assert!((1..20).contains(&calls), "stopped before every chunk: {calls} calls");
    assert_eq!(answer["compaction"]["upstream_calls"], calls, "the calls it made count");
}

/// Lists the summary model served at `window` tokens beside another, as
/// vLLM does.
async fn listing(server: &MockServer, window: u64) {
    Mock::given(wiremock::matchers::method("GET"))
        .and(wiremock::matchers::path("/v1/models"))
        .respond_with(
            ResponseTemplate::new(200).set_body_json(json!({"object": "list", "data": [
                {"id": "served-elsewhere", "object": "model", "max_model_len": 131_072},
                {"id": "summary-model", "object": "model", "max_model_len": window}
            ]})),
        )
        .mount(server)
        .await;
}

#[tokio::test]
async fn the_window_a_model_listing_gives_is_planned_for_before_any_refusal() {
    let server = MockServer::start().await;
    listing(&server, 6_000).await;
    Mock::given(wiremock::matchers::method("POST"))
        .respond_with(Window(6_000))
        .mount(&server)
        .await;
    let app = app_with_window(&server, None).await;

    let first = summarize(&app, "listed", &long_delta()).await;
    let second = summarize(&app, "listed-again", &long_delta()).await;

    assert_eq!(first["compaction"]["summarizer"], "llm", "{first}");
    assert_eq!(first["summary"], second["summary"]);
    let requests = completions(&server).await;
    assert!(requests.len() > 2, "chunked");
    for request in &requests {
        assert!(
            prompt_tokens(request) + max_tokens(request) <= 6_000,
            "no call is refused: the first already fits"
        );
    }
    assert_eq!(
        listings_asked(&server).await,
        ["/v1/models"],
        "listed once, for every summary after"
    );
}

#[tokio::test]
async fn a_window_set_by_the_operator_is_not_asked_for() {
    let server = MockServer::start().await;
    listing(&server, 2_000).await;
    Mock::given(wiremock::matchers::method("POST"))
        .respond_with(ThroughLastStep)
        .mount(&server)
        .await;
    let app = app_with_window(&server, Some(8_000)).await;

    summarize(&app, "set", &long_delta()).await;

    assert!(listings_asked(&server).await.is_empty(), "no listing read");
    let requests = completions(&server).await;
    assert!(
        requests.iter().any(|r| prompt_tokens(r) > 2_000),
        "planned for the 8,000 set"
    );
}

/// The paths of the listings a fake upstream was asked for.
async fn listings_asked(server: &MockServer) -> Vec<String> {
    let received = server.received_requests().await.unwrap();
    received
        .iter()
        .filter(|request| request.method == wiremock::http::Method::GET)
        .map(|request| request.url.path().to_owned())
        .collect()
}

#[tokio::test]
async fn a_listing_that_fails_is_asked_again_three_times_in_all_and_never_stops_a_summary() {
    let server = MockServer::start().await;
    Mock::given(wiremock::matchers::method("GET"))
        .respond_with(ResponseTemplate::new(503))
        .mount(&server)
        .await;
    Mock::given(wiremock::matchers::method("POST"))
        .respond_with(ThroughLastStep)
        .mount(&server)
        .await;
    let app = app_with_window(&server, None).await;
    let short = [json!({"role": "user", "content": "step-000: set the retry cap"})];

    for id in ["l1", "l2", "l3", "l4", "l5"] {
        let answer = summarize(&app, id, &short).await;
        assert_eq!(answer["compaction"]["summarizer"], "llm", "{answer}");
    }

    assert_eq!(listings_asked(&server).await.len(), 3);
}

#[tokio::test]
async fn a_listing_that_never_answers_takes_a_quarter_of_the_time_left_at_most() {
    let server = MockServer::start().await;
    Mock::given(wiremock::matchers::method("GET"))
        .respond_with(ResponseTemplate::new(200).set_delay(Duration::from_secs(60)))
        .mount(&server)
        .await;
    Mock::given(wiremock::matchers::method("POST"))
        .respond_with(ThroughLastStep)
        .mount(&server)
        .await;
    let settings = upstream_settings(&server.uri(), Duration::from_secs(4));
    let app = spawn(settings).await;
    let short = [json!({"role": "user", "content": "step-000: set the retry cap"})];

    let (first, second) = tokio::join!(summarize(&app, "slow-1", &short), summarize(&app, "slow-2", &short));

    for answer in [first, second] {
        assert_eq!(
            answer["compaction"]["summarizer"], "llm",
            "written within its deadline: {answer}"
        );
    }
}
