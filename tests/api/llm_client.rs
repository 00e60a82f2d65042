//! The upstream client against a fake upstream (wiremock).

use std::time::{Duration, Instant};

use compactd::llm::{CompletionRequest, LlmClient, LlmError};
use compactd::llm::{LlmConfig, Provider, RetryPolicy};
use serde_json::json;
use wiremock::matchers::{body_partial_json, header, method, path, query_param};
use wiremock::{Mock, MockServer, ResponseTemplate};

fn client(server: &MockServer, provider: Provider, deadline: Duration) -> LlmClient {
    LlmClient::new(LlmConfig {
        provider,
        base_url: format!("{}/v1", server.uri()),
        api_key: Some("sk-test-secret".into()),
        retry: RetryPolicy {
            deadline,
            base: Duration::from_millis(20),
            cap: Duration::from_millis(100),
            ..RetryPolicy::default()
        },
        max_concurrent: 4,
    })
    .unwrap()
}

fn request() -> CompletionRequest {
    CompletionRequest {
        model: "small".into(),
        system: "sys".into(),
        user: "hi".into(),
        max_tokens: 50,
        temperature: 0.2,
    }
}

pub fn openai_answer(text: &str) -> serde_json::Value {
    json!({"model": "small-2026", "choices": [{"message": {"role": "assistant", "content": text}}],
           "usage": {"prompt_tokens": 40, "completion_tokens": 7}})
}

/// An upstream that answers every summary with `narrative`, keeping nothing
/// the conversation named.
pub async fn upstream_writing(narrative: &str) -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_json(openai_answer(narrative)))
        .mount(&server)
        .await;
    server
}

#[tokio::test]
async fn a_completion_comes_back_with_its_token_counts() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .and(header("authorization", "Bearer sk-test-secret"))
        .respond_with(ResponseTemplate::new(200).set_body_json(openai_answer("  The summary.  ")))
        .expect(1)
        .mount(&server)
        .await;

    let completion = client(&server, Provider::OpenAi, Duration::from_secs(5))
        .complete(&request())
        .await
        .unwrap();

    assert_eq!(completion.text, "The summary.");
    assert_eq!(completion.model, "small-2026");
    assert_eq!((completion.input_tokens, completion.output_tokens), (Some(40), Some(7)));
    let sent: serde_json::Value = server.received_requests().await.unwrap()[0].body_json().unwrap();
    assert_eq!(sent["model"], "small");
    assert_eq!(sent["max_tokens"], 50);
}

#[tokio::test]
async fn a_base_url_with_a_query_keeps_it_after_the_path_as_azure_wants() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/openai/deployments/small/chat/completions"))
        .and(query_param("api-version", "2024-10-21"))
        .respond_with(ResponseTemplate::new(200).set_body_json(openai_answer("Summary.")))
        .expect(1)
        .mount(&server)
        .await;
    let client = LlmClient::new(LlmConfig {
        provider: Provider::OpenAi,
        base_url: format!("{}/openai/deployments/small?api-version=2024-10-21", server.uri()),
        api_key: Some("sk-test-secret".into()),
        retry: RetryPolicy::default(),
        max_concurrent: 1,
    })
    .unwrap();

    let completion = client.complete(&request()).await.unwrap();

    assert_eq!(completion.text, "Summary.");
}

#[tokio::test]
async fn anthropic_gets_its_own_headers_and_shape() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/messages"))
        .and(header("x-api-key", "sk-test-secret"))
        .and(header("anthropic-version", "2023-06-01"))
        .respond_with(ResponseTemplate::new(200).set_body_json(
            json!({"content": [{"type": "text", "text": "Summary."}], "usage": {"input_tokens": 3, "output_tokens": 1}}),
        ))
        .expect(1)
        .mount(&server)
        .await;

    let completion = client(&server, Provider::Anthropic, Duration::from_secs(5))
        .complete(&request())
        .await
        .unwrap();

    assert_eq!(completion.text, "Summary.");
    let sent: serde_json::Value = server.received_requests().await.unwrap()[0].body_json().unwrap();
    assert_eq!(sent["system"], "sys");
}

#[tokio::test]
async fn a_500_is_retried_within_the_attempt_budget_then_reported() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(500).set_body_string("upstream broke"))
        .expect(4)
        .mount(&server)
        .await;

    let error = client(&server, Provider::OpenAi, Duration::from_secs(5))
        .complete(&request())
        .await
        .unwrap_err();

    assert_eq!(
        error,
        LlmError::Status {
            status: 500,
            body: "upstream broke".into()
        }
    );
}

#[tokio::test]
async fn a_500_then_success_succeeds() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(503))
        .up_to_n_times(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_json(openai_answer("ok")))
        .mount(&server)
        .await;

    let completion = client(&server, Provider::OpenAi, Duration::from_secs(5))
        .complete(&request())
        .await
        .unwrap();

    assert_eq!(completion.text, "ok");
    assert_eq!(server.received_requests().await.unwrap().len(), 2);
}

#[tokio::test]
async fn a_429_with_retry_after_is_honoured() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(429).insert_header("retry-after", "1"))
        .up_to_n_times(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_json(openai_answer("after the wait")))
        .mount(&server)
        .await;
    let started = Instant::now();

    let completion = client(&server, Provider::OpenAi, Duration::from_secs(5))
        .complete(&request())
        .await
        .unwrap();

    assert_eq!(completion.text, "after the wait");
    assert!(
        started.elapsed() >= Duration::from_secs(1),
        "waited {:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn a_retry_after_past_the_deadline_gives_up_at_once() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(429).insert_header("retry-after", "20"))
        .expect(1)
        .mount(&server)
        .await;
    let started = Instant::now();

    let error = client(&server, Provider::OpenAi, Duration::from_secs(3))
        .complete(&request())
        .await
        .unwrap_err();

    assert!(matches!(error, LlmError::Status { status: 429, .. }), "{error}");
    assert!(started.elapsed() < Duration::from_secs(2));
}

#[tokio::test]
async fn a_hanging_upstream_is_cut_off_at_the_deadline() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_json(openai_answer("late"))
                .set_delay(Duration::from_secs(30)),
        )
        .mount(&server)
        .await;
    let started = Instant::now();

    let error = client(&server, Provider::OpenAi, Duration::from_millis(800))
        .complete(&request())
        .await
        .unwrap_err();

    assert!(matches!(error, LlmError::Deadline { .. }), "{error}");
    assert!(
        started.elapsed() < Duration::from_millis(1500),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn empty_content_is_an_error_and_not_retried() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_json(openai_answer("   ")))
        .expect(1)
        .mount(&server)
        .await;

    let error = client(&server, Provider::OpenAi, Duration::from_secs(5))
        .complete(&request())
        .await
        .unwrap_err();

    assert_eq!(error, LlmError::Empty);
}

#[tokio::test]
async fn malformed_json_is_an_error() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_string("{\"choices\": [oops"))
        .expect(1)
        .mount(&server)
        .await;

    let error = client(&server, Provider::OpenAi, Duration::from_secs(5))
        .complete(&request())
        .await
        .unwrap_err();

    assert!(matches!(error, LlmError::Malformed(_)), "{error}");
}

#[tokio::test]
async fn calls_in_flight_are_bounded() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_json(openai_answer("ok"))
                .set_delay(Duration::from_millis(300)),
        )
        .mount(&server)
        .await;
    let client = std::sync::Arc::new(client(&server, Provider::OpenAi, Duration::from_secs(10)));
    let started = Instant::now();

    let calls: Vec<_> = (0..8)
        .map(|_| {
            let client = client.clone();
            tokio::spawn(async move { client.complete(&request()).await })
        })
        .collect();
    for call in calls {
        call.await.unwrap().unwrap();
    }

    // Four at a time: two rounds of 300 ms, not one.
    assert!(
        started.elapsed() >= Duration::from_millis(600),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn the_key_never_appears_in_an_error() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(401).set_body_string("bad key"))
        .mount(&server)
        .await;

    let error = client(&server, Provider::OpenAi, Duration::from_secs(5))
        .complete(&request())
        .await
        .unwrap_err();

    assert!(!error.to_string().contains("sk-test-secret"));
    assert_eq!(
        server.received_requests().await.unwrap().len(),
        1,
        "a 401 is not retried"
    );
}

/// A fake OpenAI reasoning model: it refuses `max_tokens` and any
/// temperature, as OpenAI's API answers them, and answers the form it wants.
async fn reasoning_model() -> MockServer {
    let server = MockServer::start().await;
    let refuse = |param: &str, message: &str| {
        ResponseTemplate::new(400).set_body_json(json!({"error": {
            "message": message, "type": "invalid_request_error", "param": param,
            "code": "unsupported_parameter"}}))
    };
    Mock::given(method("POST"))
        .and(body_partial_json(json!({"max_tokens": 50})))
        .respond_with(refuse(
            "max_tokens",
            "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
        ))
        .mount(&server)
        .await;
    let sends_a_temperature = |request: &wiremock::Request| {
        request
            .body_json::<serde_json::Value>()
            .is_ok_and(|body| body.get("temperature").is_some())
    };
    Mock::given(method("POST"))
        .and(sends_a_temperature)
        .respond_with(refuse(
            "temperature",
            "Unsupported value: 'temperature' does not support 0.2 with this model. Only the default (1) value is supported.",
        ))
        .with_priority(10)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .and(body_partial_json(json!({"max_completion_tokens": 50})))
        .respond_with(ResponseTemplate::new(200).set_body_json(openai_answer("Reasoned summary.")))
        .with_priority(20)
        .mount(&server)
        .await;
    server
}

#[tokio::test]
async fn a_model_that_refuses_max_tokens_and_temperature_is_asked_again_as_it_wants_and_remembered() {
    let server = reasoning_model().await;
    let llm = client(&server, Provider::OpenAi, Duration::from_secs(5));

    let first = llm.complete(&request()).await.unwrap();
    let second = llm.complete(&request()).await.unwrap();

    assert_eq!(
        (first.text.as_str(), second.text.as_str()),
        ("Reasoned summary.", "Reasoned summary.")
    );
    let sent: Vec<serde_json::Value> = server
        .received_requests()
        .await
        .unwrap()
        .iter()
        .map(|request| request.body_json().unwrap())
        .collect();
    // Refused twice, once for each parameter; the second completion goes
    // straight to the form the model accepts.
    assert_eq!(sent.len(), 4, "{sent:#?}");
    for accepted in &sent[2..] {
        assert_eq!(accepted["max_completion_tokens"], 50);
        assert!(accepted.get("max_tokens").is_none() && accepted.get("temperature").is_none());
    }
}

#[tokio::test]
async fn a_refusal_of_both_forms_is_an_error_not_a_loop() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(400).set_body_json(json!({"error": {
            "message": "Unsupported parameter: 'max_tokens' is not supported.", "param": "max_tokens"}})))
        .mount(&server)
        .await;

    let outcome = client(&server, Provider::OpenAi, Duration::from_secs(5))
        .complete(&request())
        .await;

    assert!(
        matches!(outcome, Err(LlmError::Status { status: 400, .. })),
        "{outcome:?}"
    );
    assert_eq!(server.received_requests().await.unwrap().len(), 2);
}
