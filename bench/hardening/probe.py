"""The red team's reproductions of issue 23, against one build (see ./run).

Each scenario gets a fresh database and a fresh service process, and prints
one JSON line of figures:

  check     8 keep checks at once on a 20,000-item keep set with the longest
            summary the build reads, answered 503 at the 10 s deadline: the
            process's CPU seconds after the last answer, and how long it
            stayed busy.
            check_abandoned: the same with a 2 s request timeout.
  reads     20 turns of 3.9 MB, then 6 reads of a page of turns at once: the
            bytes each answer held and the process's RSS before, at its peak
            and 5 s after; what storing one such turn costs, how long the
            background took to write their search pieces, and searches.
  context   6 turns of 3.9 MB, then GET /context?recent=200: its size.
  budget    16 summaries at once against a 10,000-token daily budget, each
            upstream call 5,000 tokens (answered after 1 s): calls made and
            tokens spent; then the same with an upstream that reports no usage:
            tokens the service counted.
  rebind    a request naming another host (DNS rebinding: Host
            rebind.evil.example on 127.0.0.1): its status, and whether a write
            so sent changed anything.

  python3 bench/hardening/probe.py BIN ADMIN_URL [scenario ...]
"""

import http.client
import http.server
import json
import os
import statistics
import sys
import threading
import time

BIN, ADMIN_URL = sys.argv[1], sys.argv[2]
SCENARIOS = sys.argv[3:] or ["check", "check_abandoned", "reads", "context", "budget", "rebind"]


PREFIX = "hardening"
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import probes  # noqa: E402  (bench/support/probes.py)

at_once, free_port, sql = probes.at_once, probes.free_port, probes.sql


def Service(name, env=None, keys=()):  # noqa: N802  (a class to its callers)
    return probes.Service(BIN, ADMIN_URL, f"{PREFIX}_{name}", env, keys)


def check(timeout_s=10):
    service = Service("check", {"COMPACTD_REQUEST_TIMEOUT_SECS": str(timeout_s)})
    for turn in range(100):
        paths = ", ".join(f"src/m{turn}/f{n}.rs" for n in range(200))
        service.request("POST", "/turn-ended", {"conversation_id": "big", "user": f"Look at {paths}.", "assistant": "Looked."})
    items = json.loads(service.request("GET", "/conversations/big/keep?limit=1")[1]).get("total")
    sentence = "the work went on as planned and "
    # The longest summary the build reads: 4,000,000 characters, else 262,144.
    longest = 4_000_000
    status, _ = service.request("POST", "/conversations/nobody/keep/check", {"text": "x" * longest})
    if status == 422:
        longest = 262_144
    text = (sentence * (longest // len(sentence) + 1))[:longest]
    before = service.cpu_seconds()
    started = time.monotonic()
    statuses = at_once(8, lambda _: service.request("POST", "/conversations/big/keep/check", {"text": text, "max_tokens": 100_000})[0])
    answered = time.monotonic() - started
    at_answer = service.cpu_seconds()
    # Busy until a second passes with under 5% of a core used, or 180 s.
    last, busy_until = at_answer, 0.0
    while time.monotonic() - started - answered < 180:
        time.sleep(1)
        now = service.cpu_seconds()
        if now - last < 0.05:
            break
        last, busy_until = now, time.monotonic() - started - answered
    after = service.cpu_seconds() - at_answer
    service.stop()
    return {
        "scenario": "check",
        "request_timeout_s": timeout_s,
        "keep_items": items,
        "summary_chars": longest,
        "statuses": sorted(statuses, key=str),
        "answered_s": round(answered, 1),
        "cpu_s_while_answering": round(at_answer - before, 1),
        "cpu_s_after_last_answer": round(after, 1),
        "busy_s_after_last_answer": round(busy_until, 1),
    }


def check_abandoned():
    """The same checks with a 2 s request timeout: every one abandoned."""
    return check(2)


def reads():
    service = Service("reads", {"COMPACTD_MAX_BODY_BYTES": str(8 * 1024 * 1024), "COMPACTD_REQUEST_TIMEOUT_SECS": "60"})
    words = " ".join(f"word{n} src/billing/part{n % 97}.rs" for n in range(150_000))
    paste = (words * 2)[:3_900_000]
    stored = []
    for n in range(20):
        tail = f" closing{n} ledger settlement"
        started = time.monotonic()
        status, _ = service.request(
            "POST", "/turn-ended", {"conversation_id": "r", "user": f"paste {n}", "assistant": paste[: 3_900_000 - len(tail)] + tail}
        )
        stored.append((status, time.monotonic() - started))
    # Whether the service answers while its background reads what was stored:
    # the slowest /healthz of one every 200 ms for 30 s.
    health = []

    def probe_health():
        until = time.monotonic() + 30
        while time.monotonic() < until:
            started = time.monotonic()
            try:
                service.request("GET", "/healthz", timeout=120)
            except OSError:
                pass
            health.append(time.monotonic() - started)
            time.sleep(0.2)

    prober = threading.Thread(target=probe_health)
    prober.start()
    # The background writes long turns' search pieces (builds since issue 23).
    pieces_started, pieces_s = time.monotonic(), None
    if sql(service.url, "SELECT to_regclass('turn_pieces_due') IS NOT NULL") == "t":
        while int(sql(service.url, "SELECT count(*) FROM turn_pieces_due")) > 0 and time.monotonic() - pieces_started < 600:
            time.sleep(0.5)
        pieces_s = round(time.monotonic() - pieces_started, 1)
    prober.join()
    baseline = service.rss_mib()
    peak = [baseline]
    done = threading.Event()

    def sample():
        while not done.is_set():
            peak.append(service.rss_mib())
            time.sleep(0.05)

    sampler = threading.Thread(target=sample)
    sampler.start()
    started = time.monotonic()
    answers = at_once(6, lambda _: service.request("GET", "/conversations/r/turns?limit=200"))
    elapsed = time.monotonic() - started
    done.set()
    sampler.join()
    time.sleep(5)
    settled = service.rss_mib()
    searches = []
    for query in ["closing7 settlement", "settlement closing7", "part42.rs"]:
        for _ in range(3):
            started = time.monotonic()
            status, body = service.request("GET", f"/conversations/r/turns?q={query.replace(' ', '+')}&limit=20")
            searches.append((query, status, round((time.monotonic() - started) * 1000), len(json.loads(body).get("turns", []))))
    service.stop()
    by_query = {}
    for query, status, ms, found in searches:
        by_query.setdefault(query, {"status": status, "found": found, "ms": []})["ms"].append(ms)
    return {
        "scenario": "reads",
        "turns_stored": sum(1 for status, _ in stored if status == 200),
        "store_one_3_9_mb_turn_ms_median": round(statistics.median(s for _, s in stored) * 1000),
        "background_wrote_search_pieces_of_20_turns_s": pieces_s,
        "healthz_slowest_ms_in_30_s_after_storing": round(max(health) * 1000),
        "read_statuses": [a[0] if isinstance(a, tuple) and isinstance(a[0], int) else a for a in answers],
        "read_mib_each": [round(len(a[1]) / 2**20, 2) for a in answers if isinstance(a[1], bytes)],
        "reads_s": round(elapsed, 2),
        "rss_mib_before": round(baseline),
        "rss_mib_peak": round(max(peak)),
        "rss_mib_5_s_after": round(settled),
        "search": {q: {"status": v["status"], "found": v["found"], "ms_median": statistics.median(v["ms"])} for q, v in by_query.items()},
    }


def context():
    service = Service("context", {"COMPACTD_BACKGROUND": "false", "COMPACTD_MAX_BODY_BYTES": str(8 * 1024 * 1024)})
    paste = ("the build log went on and on " * 140_000)[:3_900_000]
    for n in range(6):
        service.request("POST", "/turn-ended", {"conversation_id": "c", "user": f"paste {n}", "assistant": paste})
    started = time.monotonic()
    status, body = service.request("GET", "/conversations/c/context?recent=200")
    elapsed = time.monotonic() - started
    rss = service.rss_mib()
    service.stop()
    return {
        "scenario": "context",
        "status": status,
        "context_mib": round(len(body) / 2**20, 2),
        "seconds": round(elapsed, 2),
        "rss_mib_after": round(rss),
    }


class Upstream(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, with_usage):
        self.with_usage = with_usage
        self.calls = 0
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
        self.rfile.read(int(self.headers.get("content-length", 0)))
        with self.server.lock:
            self.server.calls += 1
        time.sleep(1)
        answer = {
            "id": "x",
            "object": "chat.completion",
            "model": "fake",
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "The user is hardening billing retries."}}],
        }
        if self.server.with_usage:
            answer["usage"] = {"prompt_tokens": 4_000, "completion_tokens": 1_000, "total_tokens": 5_000}
        body = json.dumps(answer).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def budget_once(with_usage):
    upstream = Upstream(with_usage)
    threading.Thread(target=upstream.serve_forever, daemon=True).start()
    name = "budget" if with_usage else "budget_no_usage"
    service = Service(
        name,
        {
            "COMPACTD_LLM_PROVIDER": "openai",
            "COMPACTD_LLM_BASE_URL": f"http://127.0.0.1:{upstream.server_address[1]}/v1",
            "COMPACTD_SUMMARY_MODEL": "fake",
            "COMPACTD_SUMMARY_MODEL_CONTEXT_TOKENS": "128000",
            "COMPACTD_TENANT_DAILY_TOKEN_BUDGET": "10000",
            "COMPACTD_BACKGROUND": "false",
        },
    )
    for n in range(16):
        for turn in range(3):
            service.request(
                "POST",
                "/turn-ended",
                {"conversation_id": f"b{n}", "user": f"Step {turn}: harden the retries in src/billing/retry{n}.rs.", "assistant": "Done."},
            )
        service.request("POST", "/usage", {"conversation_id": f"b{n}", "used": 160_000, "size": 200_000})
    answers = at_once(16, lambda n: json.loads(service.request("POST", "/summarize", {"conversation_id": f"b{n}"})[1]))
    writers = {}
    for answer in answers:
        writer = (answer.get("compaction") or {}).get("summarizer", "error")
        writers[writer] = writers.get(writer, 0) + 1
    counted = sql(service.url, "SELECT coalesce(sum(input_tokens + output_tokens), 0) FROM upstream_usage")
    service.stop()
    upstream.shutdown()
    return {
        "upstream_calls": upstream.calls,
        "upstream_tokens_spent": upstream.calls * 5_000,
        "tokens_the_service_counted": int(counted or 0),
        "summaries_by_writer": writers,
    }


def budget():
    return {"scenario": "budget", "budget": 10_000, "with_usage": budget_once(True), "without_usage": budget_once(False)}


def rebind():
    service = Service("rebind")
    evil = {"host": "rebind.evil.example"}
    read, _ = service.request("GET", "/conversations", headers=evil)
    write, _ = service.request("POST", "/usage", {"conversation_id": "rebound", "used": 1000}, headers=evil)
    created = service.request("GET", "/conversations/rebound")[0] == 200
    mcp, _ = service.request(
        "POST",
        "/mcp",
        {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        headers={**evil, "accept": "application/json, text/event-stream"},
    )
    loopback, _ = service.request("GET", "/conversations", headers={"host": f"localhost:{service.port}"})
    service.stop()
    return {
        "scenario": "rebind",
        "read_status": read,
        "write_status": write,
        "write_created_the_conversation": created,
        "mcp_status": mcp,
        "loopback_name_status": loopback,
    }


for scenario in SCENARIOS:
    print(json.dumps(globals()[scenario]()), flush=True)
