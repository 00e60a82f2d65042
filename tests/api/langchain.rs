//! CompactdMiddleware (issue 13) in a real LangChain 1.x agent loop
//! (`create_agent`, LangChain's fake chat model reporting token usage, a
//! checkpointed thread), against the real binary: a turn that stays, one
//! that compacts (the older messages replaced by compactd's summary, the
//! newest kept whole, no tool call split from its result), one that rolls
//! over (the thread carries on from the handoff, as the successor). It
//! fails open (issue 37): with compactd down, refusing or silent, the agent
//! answers all the same and its thread stays as it is. A summary a model
//! upstream takes seconds to write is waited for (`/summarize` and
//! `/handoff` have a timeout of their own), and a thread whose rollover's
//! answer was lost carries on in the successor.

use serde_json::{Value, json};

use crate::ai_sdk::{
    Driven, Impostor, Relay, SLOW_SUMMARY, compactd_comes_up_at, compactd_summarizing_slowly, free_port, refusals,
};
use crate::binary;
use crate::helpers::{Database, completions, encode};
use crate::python;

/// The pins `clients/run-examples` installs too.
fn langchain_pins() -> Vec<&'static str> {
    include_str!("../../clients/python/examples-requirements.txt")
        .lines()
        .filter(|line| !line.trim().is_empty())
        .collect()
}

async fn get(client: &reqwest::Client, url: String) -> Value {
    client.get(url).send().await.unwrap().json().await.unwrap()
}

/// Every tool result answers a call made before it in the same messages.
fn no_call_split_from_its_result(messages: &[Value]) -> bool {
    messages
        .iter()
        .enumerate()
        .all(|(at, message)| match message["answers"].as_str() {
            Some(call) => messages[..at]
                .iter()
                .any(|m| m["calls"].as_array().unwrap().iter().any(|c| c == call)),
            None => true,
        })
}

#[tokio::test(flavor = "multi_thread")]
async fn a_langchain_agent_compacts_and_rolls_over_where_compactd_says() {
    run_the_agent(false).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn an_async_langchain_agent_does_the_same() {
    run_the_agent(true).await;
}

async fn run_the_agent(asynchronously: bool) {
    let venv = tokio::task::spawn_blocking(|| python::venv("langchain", &langchain_pins()))
        .await
        .unwrap();
    let database = Database::create().await;
    let url = database.url();
    // The example's model, and no `*`: a call that did not name its model
    // would save tokens but no dollars.
    let prices = ("COMPACTD_PRICES", "fake-gpt=3/0.3/15");
    let service = binary::start(&[("DATABASE_URL", url.as_str()), ("RUST_LOG", "warn"), prices], &[]).await;
    let thread = "langchain-thread-1";
    let manifest = env!("CARGO_MANIFEST_DIR");
    let run = tokio::process::Command::new(venv.join("bin/python"))
        .arg(format!("{manifest}/clients/python/langchain_agent.py"))
        // The committed packages, as they are in the tree.
        .env(
            "PYTHONPATH",
            format!("{manifest}/clients/python/compactd-client:{manifest}/clients/python/compactd-langchain"),
        )
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .env("COMPACTD_URL", &service.address)
        .env("THREAD", thread)
        .env("ASYNC", if asynchronously { "1" } else { "0" })
        .output()
        .await
        .expect("python runs");
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "the agent failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let seen: Value = serde_json::from_str(stdout.lines().last().unwrap_or("")).expect("the agent prints JSON last");
    assert_eq!(seen["compactions"], 1, "{}", seen["conversations"]);
    assert_eq!(seen["rollovers"], 1);
    let turns = seen["turns"].as_array().unwrap();
    let messages = |turn: usize| turns[turn]["messages"].as_array().unwrap().clone();

    // Turn 1 stays as it was.
    assert!(messages(0).iter().all(|m| m["source"].is_null()), "{}", turns[0]);
    assert_eq!(messages(0).len(), 4);

    // Turn 2 compacts: compactd's summary, then the newest messages whole.
    let compacted = messages(1);
    assert_eq!(compacted[0]["source"], "compactd");
    let summary = compacted[0]["text"].as_str().unwrap();
    assert!(
        summary.starts_with("Here is a summary of the conversation to date:"),
        "{summary}"
    );
    assert!(
        summary.contains("Never deploy on Fridays."),
        "the rule is kept: {summary}"
    );
    assert!(compacted.len() > 1 && compacted.len() < 1 + 4 + 4, "{compacted:#?}");
    assert_eq!(
        compacted.last().unwrap()["text"],
        "Tagged v2.3.1 and updated docs/release.md."
    );
    assert!(no_call_split_from_its_result(&compacted), "{compacted:#?}");
    assert!(
        !compacted[1..]
            .iter()
            .any(|m| m["text"] == "Deploy build 4711 to staging. Never deploy on Fridays.")
    );
    let client = reqwest::Client::new();
    let base = &service.address;
    let ledger = get(&client, format!("{base}/conversations/{}/compactions", encode(thread))).await;
    let compaction = &ledger["compactions"][0];
    assert_eq!(ledger["compactions"].as_array().unwrap().len(), 1, "{ledger}");
    assert!(compaction["kept_from"].as_u64().is_some(), "{compaction}");
    assert_eq!(compaction["tokens_before"], 16_500, "the usage the model answered");
    // The calls after it named their model: what they spared is priced.
    let savings = &compaction["savings"];
    assert!(savings["calls"].as_u64().unwrap() > 0, "{savings}");
    assert_eq!(savings["unpriced_calls"], 0, "{savings}");
    assert!(savings["usd"].as_f64().unwrap() > 0.0, "{savings}");

    // Turn 3 rolls over: the thread carries on from the handoff alone.
    let rolled = messages(2);
    assert_eq!(rolled.len(), 1, "{rolled:#?}");
    assert!(rolled[0]["text"].as_str().unwrap().starts_with("<handoff>\n"));
    let successor = turns[2]["conversation"]
        .as_str()
        .expect("the successor's id is in the state");
    let before = get(&client, format!("{base}/conversations/{}", encode(thread))).await;
    assert_eq!(before["successor_id"], successor);
    assert_eq!(before["turn_count"], 3);

    // Turn 4 is the successor's.
    assert_eq!(turns[3]["conversation"], successor);
    let after = get(&client, format!("{base}/conversations/{}", encode(successor))).await;
    assert_eq!(after["predecessor_id"], thread);
    assert_eq!(after["turn_count"], 1);
    assert_eq!(after["used"], 4_000);
    crate::observability::every_report_was_answered_minimal(base).await;
    let logged = service.stop().await;
    assert!(logged.iter().all(|line| !line.contains("panicked")), "{logged:#?}");
}

/// A LangChain agent with CompactdMiddleware (defaults but the window, and
/// KEEP_RECENT_TOKENS when set), on a fake chat model, driven a request at a time: each line on stdin
/// (`{"request", "used"?, "url"?, "async"?, "fails"?}`) is a run on THREAD's
/// checkpointed thread, through an agent of its own for each compactd URL;
/// each answer a line: the reply (or the error the run raised), how long it
/// took, the warnings logged so far, the thread's messages.
const LANGCHAIN_DRIVER: &str = r#"
import asyncio, json, logging, os, sys, time

from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langgraph.checkpoint.memory import InMemorySaver

from compactd_langchain import CompactdMiddleware


class Counted(logging.Handler):
    count = 0

    def emit(self, record):
        Counted.count += 1
        print(self.format(record), file=sys.stderr, flush=True)


logging.getLogger("compactd_langchain").addHandler(Counted(logging.WARNING))
answers = []


class Replies:
    """The answers queued, in order; an exception queued is raised (and the next call answers again)."""

    def __iter__(self):
        return self

    def __next__(self):
        answer = answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer


class FakeModel(GenericFakeChatModel):
    def bind_tools(self, tools, **kwargs):
        return self


model = FakeModel(messages=Replies())
agents = {}


def agent_for(url):
    if url not in agents:
        keep = int(os.environ.get("KEEP_RECENT_TOKENS", "2000"))
        middleware = CompactdMiddleware(url=url, window=20_000, keep_recent_tokens=keep)
        agents[url] = create_agent(model, tools=[], middleware=[middleware], checkpointer=InMemorySaver())
    return agents[url]


def run(call):
    if call.get("fails"):
        answers.append(RuntimeError("the model is overloaded"))
    else:
        used = call.get("used", 5_000)
        usage = {"input_tokens": used - 200, "output_tokens": 200, "total_tokens": used}
        answers.append(AIMessage(content=f"Answered: {call['request']}", usage_metadata=usage))
    agent = agent_for(call.get("url") or os.environ["COMPACTD_URL"])
    config = {"configurable": {"thread_id": os.environ["THREAD"]}}
    request = {"messages": [{"role": "user", "content": call["request"]}]}
    started = time.monotonic()
    try:
        if call.get("async"):
            state = asyncio.run(agent.ainvoke(request, config))
        else:
            state = agent.invoke(request, config)
    except Exception as err:
        answers.clear()
        return {"error": f"{type(err).__name__}: {err}", "warnings": Counted.count}
    messages = [m.content if isinstance(m.content, str) else str(m.content) for m in state["messages"]]
    return {
        "reply": messages[-1],
        "ms": int((time.monotonic() - started) * 1000),
        "warnings": Counted.count,
        "messages": messages,
        "conversation": state.get("compactd_conversation_id"),
    }


print(json.dumps({"ready": True}), flush=True)
for line in sys.stdin:
    if line.strip():
        print(json.dumps(run(json.loads(line))), flush=True)
"#;

async fn langchain_driver(url: &str, thread: &str) -> Driven {
    langchain_driver_with(url, thread, &[]).await
}

/// [`langchain_driver`] with `env` set too.
async fn langchain_driver_with(url: &str, thread: &str, env: &[(&str, &str)]) -> Driven {
    let venv = tokio::task::spawn_blocking(|| python::venv("langchain", &langchain_pins()))
        .await
        .unwrap();
    let manifest = env!("CARGO_MANIFEST_DIR");
    let mut command = tokio::process::Command::new(venv.join("bin/python"));
    command
        .args(["-c", LANGCHAIN_DRIVER])
        .env(
            "PYTHONPATH",
            format!("{manifest}/clients/python/compactd-client:{manifest}/clients/python/compactd-langchain"),
        )
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .env("COMPACTD_URL", url)
        .env("THREAD", thread)
        .envs(env.iter().copied());
    Driven::start(command).await
}

/// The run answered with the model's reply, and the thread holds every
/// request and reply (`turns` of each) as they were: nothing compacted,
/// nothing rolled over.
fn answered_as_it_stands(answer: &Value, request: &str, turns: usize) {
    assert_eq!(answer["error"], Value::Null, "the agent answered: {answer}");
    assert_eq!(answer["reply"], format!("Answered: {request}"), "{answer}");
    let messages = answer["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 2 * turns, "the whole thread: {answer}");
    assert_eq!(messages[messages.len() - 2], request);
    assert_eq!(answer["conversation"], Value::Null, "no rollover: {answer}");
}

async fn state(url: &str, conversation: &str) -> Value {
    get(
        &reqwest::Client::new(),
        format!("{url}/conversations/{}", encode(conversation)),
    )
    .await
}

#[tokio::test(flavor = "multi_thread")]
async fn a_langchain_agent_answers_while_compactd_is_down_and_reports_again_once_it_is_back() {
    let port = free_port();
    let url = format!("http://127.0.0.1:{port}");
    let thread = "langchain-outage-1";
    let mut driver = langchain_driver(&url, thread).await;
    let down = [
        json!({"request": "Deploy build 4711 to staging."}),
        json!({"request": "Now tag it v2.3.1.", "async": true}),
        json!({"request": "Check the CI run."}),
    ];
    for (turn, call) in down.iter().enumerate() {
        let answer = driver.call(call.clone()).await;
        answered_as_it_stands(&answer, call["request"].as_str().unwrap(), turn + 1);
        assert_eq!(answer["warnings"], 1, "one outage, logged once:\n{}", driver.stderr());
    }
    assert!(driver.stderr().contains("ConnectError"), "{}", driver.stderr());

    // compactd comes up where it was looked for: the next runs report.
    let (_database, service) = compactd_comes_up_at(port).await;
    assert_eq!(service.address, url);
    let answer = driver.call(json!({"request": "Carry on.", "used": 6_000})).await;
    answered_as_it_stands(&answer, "Carry on.", 4);
    let reported = state(&url, thread).await;
    assert_eq!(reported["used"], 6_000, "{reported}");
    assert_eq!(reported["turn_count"], 1, "{reported}");
    let answer = driver
        .call(json!({"request": "And the changelog?", "used": 7_000, "async": true}))
        .await;
    answered_as_it_stands(&answer, "And the changelog?", 5);
    let reported = state(&url, thread).await;
    assert_eq!(reported["used"], 7_000, "{reported}");
    assert_eq!(reported["turn_count"], 2, "{reported}");
    assert_eq!(answer["warnings"], 1);

    // Down again: a new outage, logged once more.
    service.stop().await;
    for (turn, call) in [
        json!({"request": "Still there?"}),
        json!({"request": "Hello?", "async": true}),
    ]
    .iter()
    .enumerate()
    {
        let answer = driver.call(call.clone()).await;
        answered_as_it_stands(&answer, call["request"].as_str().unwrap(), 6 + turn);
        assert_eq!(answer["warnings"], 2, "{}", driver.stderr());
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_langchain_agent_answers_when_compactd_refuses_it_or_answers_what_it_cannot_read() {
    let refusals = refusals().await;
    let thread = "langchain-refused-1";
    let mut driver = langchain_driver(&refusals[0].1.address, thread).await;
    for (outage, (what, impostor)) in refusals.iter().enumerate() {
        // An agent of its own for each impostor: a thread of its own too.
        for (turn, asynchronously) in [false, true].into_iter().enumerate() {
            let request = format!("Deploy ({what}, run {turn}).");
            let answer = driver
                .call(json!({"request": request, "url": impostor.address, "async": asynchronously}))
                .await;
            answered_as_it_stands(&answer, &request, turn + 1);
            assert_eq!(
                answer["warnings"],
                outage + 1,
                "each compactd's outage logged once:\n{}",
                driver.stderr()
            );
        }
    }
    // The model's own failure is the agent's, as without the middleware.
    for asynchronously in [false, true] {
        let failed = driver
            .call(json!({"request": "Deploy again.", "fails": true, "async": asynchronously}))
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
async fn a_langchain_agent_outlasts_a_compactd_that_never_answers_by_about_its_timeout() {
    let silent = Impostor::silent().await;
    let mut driver = langchain_driver(&silent.address, "langchain-silent-1").await;
    let calls = [
        json!({"request": "Deploy build 4711."}),
        json!({"request": "Now tag it.", "async": true}),
    ];
    for (turn, call) in calls.iter().enumerate() {
        let answer = driver.call(call.clone()).await;
        answered_as_it_stands(&answer, call["request"].as_str().unwrap(), turn + 1);
        // The default timeout is 2 s, once after the model call and once at the turn's end.
        assert!(answer["ms"].as_u64().unwrap() < 20_000, "{answer}");
        assert_eq!(answer["warnings"], 1, "{}", driver.stderr());
    }
    assert!(driver.stderr().contains("no answer within 2 s"), "{}", driver.stderr());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_langchain_compaction_a_model_upstream_takes_seconds_to_write_still_lands() {
    let database = Database::create().await;
    let (service, upstream) = compactd_summarizing_slowly(&database, SLOW_SUMMARY).await;
    let thread = "langchain-slow-summary-1";
    let mut driver = langchain_driver_with(&service.address, thread, &[("KEEP_RECENT_TOKENS", "20")]).await;
    let request = "Deploy build 4711 to staging. Never deploy on Fridays.";
    // Past the trigger (three quarters of 20,000): compactd says `compact` at the turn's end.
    let answer = driver.call(json!({"request": request, "used": 16_500})).await;

    assert_eq!(answer["error"], Value::Null, "{answer}");
    let messages = answer["messages"].as_array().unwrap();
    assert!(
        messages[0]
            .as_str()
            .unwrap()
            .starts_with("Here is a summary of the conversation to date:"),
        "the thread holds the summary: {answer}\n{}",
        driver.stderr()
    );
    assert_eq!(
        messages.last().unwrap(),
        &json!(format!("Answered: {request}")),
        "{answer}"
    );
    assert!(
        answer["ms"].as_u64().unwrap() >= SLOW_SUMMARY.as_millis() as u64,
        "the run waited for the summary: {answer}"
    );
    assert_eq!(answer["warnings"], 0, "nothing failed:\n{}", driver.stderr());
    let compacted = state(&service.address, thread).await;
    assert_eq!(compacted["compactions"], 1, "{compacted}");
    let ledger = get(
        &reqwest::Client::new(),
        format!("{}/conversations/{}/compactions", service.address, encode(thread)),
    )
    .await;
    assert_eq!(ledger["compactions"][0]["summarizer"], "llm", "{ledger}");
    assert!(!completions(&upstream).await.is_empty());
    service.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_langchain_thread_carries_on_in_the_successor_of_a_rollover_whose_answer_was_lost() {
    let database = Database::create().await;
    let url = database.url();
    let service = binary::start(&[("DATABASE_URL", url.as_str()), ("RUST_LOG", "warn")], &[]).await;
    let relay = Relay::losing_the_first_answer_to(&service.address, "/handoff").await;
    let thread = "langchain-lost-handoff-1";
    let mut driver = langchain_driver_with(&relay.address, thread, &[("KEEP_RECENT_TOKENS", "20")]).await;
    // Past the trigger: compact; past it still right after compacting: roll
    // over, whose answer is lost.
    let compacted = driver
        .call(json!({"request": "Deploy build 4711 to staging. Never deploy on Fridays.", "used": 16_500}))
        .await;
    assert_eq!(compacted["error"], Value::Null, "{compacted}");
    let lost = driver
        .call(json!({"request": "Now tag it v2.3.1.", "used": 19_400}))
        .await;
    assert_eq!(lost["error"], Value::Null, "the agent answered: {lost}");
    assert_eq!(lost["warnings"], 1, "{}", driver.stderr());
    assert_eq!(lost["conversation"], Value::Null, "{lost}");
    let rolled = state(&service.address, thread).await;
    let successor = rolled["successor_id"]
        .as_str()
        .expect("compactd rolled over")
        .to_owned();

    // The next turn reports to the old conversation, whose `/decide` names
    // the successor: the thread carries on there, from the handoff.
    let request = "Check the CI run.";
    let found = driver
        .call(json!({"request": request, "used": 4_000, "async": true}))
        .await;
    assert_eq!(found["error"], Value::Null, "{found}");
    assert_eq!(found["conversation"], successor, "{found}\n{}", driver.stderr());
    let messages = found["messages"].as_array().unwrap();
    assert!(messages[0].as_str().unwrap().starts_with("<handoff>\n"), "{found}");
    assert_eq!(
        messages[1..],
        [json!(request), json!(format!("Answered: {request}"))],
        "this turn after the handoff: {found}"
    );
    let answer = driver.call(json!({"request": "Publish it.", "used": 4_500})).await;
    assert_eq!(answer["conversation"], successor, "{answer}");
    assert_eq!(answer["messages"].as_array().unwrap().len(), 5, "{answer}");
    let carried_on = state(&service.address, &successor).await;
    assert_eq!(carried_on["used"], 4_500, "{carried_on}");
    assert_eq!(carried_on["turn_count"], 1, "{carried_on}");
    assert_eq!(answer["warnings"], 1, "{}", driver.stderr());
    service.stop().await;
}
