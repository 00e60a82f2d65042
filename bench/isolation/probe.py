"""Issue 37's findings, reproduced against one build (see ./run): what one
caller's request, or one upstream answer, does to every other caller.

Each scenario gets a fresh database and a fresh service process, and prints
one JSON line of figures:

  window    an upstream that counts only the prompt tokens it had not cached
            (a prompt it saw whole before is read as 1 token, as llama.cpp
            answers), then one whose usage is always 12: four summaries of
            four conversations each; who wrote each (llm or extractive) and
            what /metrics says of the window.
  exports   one tenant's conversation of 20 turns of 3.9 MB; 16 exports of it
            whose readers read nothing, then 25 /usage of another tenant: the
            statuses; Postgres sessions in a transaction 5 s and 40 s later;
            the process's RSS before, with the stalled readers, and 5 s after
            they closed; six tenants exporting such a conversation at once:
            RSS at the peak and 5 s after; then SIGTERM with one stalled
            reader: seconds until the process exits.
  checks    one key looping 8 keep checks at once (20,000 items, the longest
            summary the build reads) for 20 s, beside another tenant's /usage
            one at a time: that /usage's p50 and p99, the checks' statuses,
            and the CPU seconds the process used.
  refused   the connection cap at 8, held by 8 idle sockets; 93 fresh clients
            at once, each holding its socket until all have an answer: how
            many read the 503 and how many were reset.
  gone      a keyed /turn-ended answered, the conversation deleted, the same
            request retried: its status, and whether the conversation came
            back.

  python3 bench/isolation/probe.py BIN ADMIN_URL [scenario ...]
"""

import http.client
import http.server
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time

BIN, ADMIN_URL = sys.argv[1], sys.argv[2]
SCENARIOS = sys.argv[3:] or ["window", "exports", "checks", "refused", "gone"]


PREFIX = "isolation"
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import probes  # noqa: E402  (bench/support/probes.py)

at_once, free_port, sql = probes.at_once, probes.free_port, probes.sql


def Service(name, env=None, keys=()):  # noqa: N802  (a class to its callers)
    return probes.Service(BIN, ADMIN_URL, f"{PREFIX}_{name}", env, keys)


def counts(values):
    tally = {}
    for value in values:
        tally[str(value)] = tally.get(str(value), 0) + 1
    return tally


# --- window ---------------------------------------------------------------


class Upstream(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, usage):
        self.usage = usage
        self.seen = []
        self.lock = threading.Lock()
        super().__init__(("127.0.0.1", 0), UpstreamHandler)


class UpstreamHandler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *_):
        pass

    def do_GET(self):
        self.send_response(404)
        self.send_header("content-length", "0")
        self.end_headers()

    def do_POST(self):
        request = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
        prompt = "".join(m.get("content") or "" for m in request["messages"])
        with self.server.lock:
            shared = max((len(os.path.commonprefix([earlier, prompt])) for earlier in self.server.seen), default=0)
            self.server.seen.append(prompt)
        if self.server.usage == "uncached":
            # About four characters a token; a prompt held whole reads 1.
            read = max(1, (len(prompt) - shared) // 4)
        else:
            read = 12
        answer = {
            "model": "fake",
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "We kept the retry cap as it was."}}],
            "usage": {"prompt_tokens": read, "completion_tokens": 10},
        }
        body = json.dumps(answer).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def window_once(usage):
    upstream = Upstream(usage)
    threading.Thread(target=upstream.serve_forever, daemon=True).start()
    service = Service(
        f"window_{usage}",
        {
            "COMPACTD_LLM_PROVIDER": "openai",
            "COMPACTD_LLM_BASE_URL": f"http://127.0.0.1:{upstream.server_address[1]}/v1",
            "COMPACTD_SUMMARY_MODEL": "fake",
            "COMPACTD_BACKGROUND": "false",
        },
    )
    filler = "the retry queue drains the billing events in order and logs each one " * 20
    conversations = {
        "first": [{"role": "user" if n % 2 == 0 else "assistant", "content": f"step {n}: {filler}"} for n in range(8)],
        "two-messages": [{"role": "user", "content": "Keep the cap at 774 ms."}, {"role": "assistant", "content": "Kept."}],
        "fourth": [{"role": "user" if n % 2 == 0 else "assistant", "content": f"part {n}: {filler}"} for n in range(12)],
    }
    conversations = {"first": conversations["first"], "forked": conversations["first"], **{k: v for k, v in conversations.items() if k != "first"}}
    writers = {}
    for name, messages in conversations.items():
        service.request("POST", "/usage", {"conversation_id": name, "used": 20_000, "size": 200_000})
        status, body = service.request("POST", "/summarize", {"conversation_id": name, "messages": messages})
        compaction = json.loads(body).get("compaction") or {}
        writers[name] = compaction.get("summarizer", status)
    status, metrics = service.request("GET", "/metrics")
    window = [line for line in metrics.decode().splitlines() if line.startswith("compactd_summary_window")]
    service.stop()
    upstream.shutdown()
    return {"writers": writers, "metrics": window}


def window():
    return {"scenario": "window", "uncached": window_once("uncached"), "constant_12": window_once("constant")}


# --- exports --------------------------------------------------------------

TURN_BYTES = 3_900_000


def long_conversation(service, tenant, turns=20):
    service.request("POST", "/usage", {"conversation_id": "big", "used": 5}, tenant=tenant)
    sql(
        service.url,
        "INSERT INTO turns (tenant, conversation_id, seq, at, user_messages, user_text, assistant_text) "
        f"SELECT '{tenant}', 'big', n, now(), 1, repeat('the billing retry queue ', {TURN_BYTES // 24}), 'done' "
        f"FROM generate_series(1, {turns}) n",
    )


def stalled_export(service, tenant):
    """Asks for an export and reads only its status line."""
    stream = socket.create_connection(("127.0.0.1", service.port))
    stream.sendall(
        f"GET /conversations/big/export HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {service.keys[tenant]}\r\n\r\n".encode()
    )
    status = stream.recv(12)
    return int(status[9:12]) if len(status) == 12 else 0, stream


def in_transaction(service):
    return int(
        sql(
            service.url,
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
            "AND xact_start IS NOT NULL AND pid <> pg_backend_pid()",
        )
    )


def exports():
    tenants = [f"reader{n}" for n in range(6)]
    service = Service(
        "exports",
        {"COMPACTD_MAX_BODY_BYTES": str(8 * 1024 * 1024), "COMPACTD_BACKGROUND": "false"},
        keys=[(t, "agent") for t in tenants] + [("other", "agent")],
    )
    for tenant in tenants:
        long_conversation(service, tenant)
    rss_before = service.rss_mib()
    stalled = [stalled_export(service, "reader0") for _ in range(16)]
    usage = [
        service.request("POST", "/usage", {"conversation_id": "steady", "used": 1_000 + n}, tenant="other", timeout=30)[0]
        for n in range(25)
    ]
    time.sleep(5)
    open_at_5_s = in_transaction(service)
    rss_stalled = service.rss_mib()
    time.sleep(35)
    open_at_40_s = in_transaction(service)
    for _, stream in stalled:
        stream.close()
    time.sleep(5)
    rss_after_stalled = service.rss_mib()

    peak = [service.rss_mib()]
    done = threading.Event()

    def sample():
        while not done.is_set():
            peak.append(service.rss_mib())
            time.sleep(0.05)

    sampler = threading.Thread(target=sample)
    sampler.start()
    fast = at_once(6, lambda n: service.request("GET", "/conversations/big/export", tenant=tenants[n], timeout=300))
    done.set()
    sampler.join()
    time.sleep(5)
    rss_after_fast = service.rss_mib()

    status, held = stalled_export(service, "reader1")
    time.sleep(1)
    started = time.monotonic()
    service.process.send_signal(signal.SIGTERM)
    try:
        service.process.wait(timeout=120)
        stopped_s = round(time.monotonic() - started, 1)
    except subprocess.TimeoutExpired:
        service.process.kill()
        service.process.wait()
        stopped_s = "over 120"
    held.close()
    return {
        "scenario": "exports",
        "stalled_export_statuses": counts(s for s, _ in stalled),
        "other_tenants_usage_statuses": counts(usage),
        "sessions_in_a_transaction_5_s_after": open_at_5_s,
        "sessions_in_a_transaction_40_s_after": open_at_40_s,
        "rss_mib_before": round(rss_before),
        "rss_mib_with_16_stalled_readers": round(rss_stalled),
        "rss_mib_5_s_after_they_closed": round(rss_after_stalled),
        "six_fast_exports_statuses": counts(a[0] for a in fast),
        "six_fast_exports_mib_each": sorted({round(len(a[1]) / 2**20, 1) for a in fast if isinstance(a[1], bytes)}),
        "rss_mib_peak_of_six_fast_exports": round(max(peak)),
        "rss_mib_5_s_after_six_fast_exports": round(rss_after_fast),
        "sigterm_with_a_stalled_reader_status": status,
        "sigterm_to_exit_s": stopped_s,
    }


# --- checks ---------------------------------------------------------------


def checks():
    service = Service("checks", {"COMPACTD_BACKGROUND": "false"}, keys=[("loud", "agent"), ("quiet", "agent")])
    for turn in range(100):
        paths = ", ".join(f"src/m{turn}/f{n}.rs" for n in range(200))
        service.request("POST", "/turn-ended", {"conversation_id": "big", "user": f"Look at {paths}.", "assistant": "Looked."}, tenant="loud")
    longest = 262_144
    sentence = "the work went on as planned and "
    text = (sentence * (longest // len(sentence) + 1))[:longest]
    until = time.monotonic() + 20
    statuses = []
    lock = threading.Lock()

    def loop(_):
        while time.monotonic() < until:
            status, _ = service.request("POST", "/conversations/big/keep/check", {"text": text, "max_tokens": 100_000}, tenant="loud", timeout=60)
            with lock:
                statuses.append(status)

    before = service.cpu_seconds()
    loopers = [threading.Thread(target=loop, args=(n,)) for n in range(8)]
    for looper in loopers:
        looper.start()
    latencies = []
    n = 0
    while time.monotonic() < until:
        started = time.monotonic()
        service.request("POST", "/usage", {"conversation_id": "steady", "used": 1_000 + n}, tenant="quiet")
        latencies.append((time.monotonic() - started) * 1000)
        n += 1
        time.sleep(0.02)
    for looper in loopers:
        looper.join()
    cpu = service.cpu_seconds() - before
    service.stop()
    latencies.sort()
    return {
        "scenario": "checks",
        "check_statuses": counts(statuses),
        "cpu_s": round(cpu, 1),
        "other_tenants_usage_calls": len(latencies),
        "other_tenants_usage_p50_ms": round(statistics.median(latencies), 1),
        "other_tenants_usage_p99_ms": round(latencies[int(len(latencies) * 0.99) - 1], 1),
    }


# --- refused --------------------------------------------------------------


def refused():
    service = Service("refused", {"COMPACTD_CLIENT_CONNECTIONS": "8", "COMPACTD_BACKGROUND": "false"})
    idle = [socket.create_connection(("127.0.0.1", service.port)) for _ in range(8)]
    time.sleep(0.5)
    clients = 93
    barrier = threading.Barrier(clients)

    def client(_):
        try:
            stream = socket.create_connection(("127.0.0.1", service.port))
            stream.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            received = b""
            while True:
                chunk = stream.recv(4096)
                if not chunk:
                    break
                received += chunk
            outcome = "503" if received.startswith(b"HTTP/1.1 503") else f"other:{received[:12]!r}"
        except (ConnectionResetError, BrokenPipeError) as err:
            outcome, stream = type(err).__name__, None
        try:
            barrier.wait(timeout=30)
        except threading.BrokenBarrierError:
            pass
        if stream is not None:
            stream.close()
        return outcome

    outcomes = at_once(clients, client)
    for stream in idle:
        stream.close()
    service.stop()
    return {"scenario": "refused", "fresh_clients": clients, "outcomes": counts(outcomes)}


# --- gone -----------------------------------------------------------------


def gone():
    service = Service("gone", {"COMPACTD_BACKGROUND": "false"})
    turn = {"conversation_id": "doomed", "user": "Deploy build 4711.", "assistant": "Deployed."}
    first, _ = service.request("POST", "/turn-ended", turn, headers={"idempotency-key": "turn-1"})
    deleted, _ = service.request("DELETE", "/conversations/doomed")
    retried, body = service.request("POST", "/turn-ended", turn, headers={"idempotency-key": "turn-1"})
    back = service.request("GET", "/conversations/doomed")[0] == 200
    service.stop()
    return {
        "scenario": "gone",
        "first": first,
        "delete": deleted,
        "retry_after_delete": retried,
        "retry_problem_type": json.loads(body).get("type") if body else None,
        "conversation_came_back": back,
    }


for scenario in SCENARIOS:
    print(json.dumps(globals()[scenario]()), flush=True)
