"""`fill`: one conversation of TURNS turns through /turn-ended; `measure`:
times searches of it (see ./run)."""

import http.client
import json
import random
import statistics
import sys
import time
import urllib.parse

HOST, PORT, TURNS, REPEAT, PHASE = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
random.seed(7)
VOCABULARY = (
    "the function returns a value when the test passes and the build is green so we commit "
    "error result option struct module crate trait async await future stream request answer "
    "database table index query row column migration schema cursor transaction lock commit"
).split()

connection = http.client.HTTPConnection(HOST, PORT)


def call(method, path, body=None):
    payload = json.dumps(body).encode() if body is not None else None
    headers = {"Content-Type": "application/json"} if payload else {}
    connection.request(method, path, body=payload, headers=headers)
    answer = connection.getresponse()
    data = answer.read()
    return answer.status, data


def turn(n):
    words = random.choices(VOCABULARY, k=300)
    if n % 1000 == 0:
        words.insert(5, "billing")
    user = f"step {n}: look at src/store/turns_{n % 50}.rs and fix the failing test"
    if n % 1000 == 0:
        user += f" (PROJ-{n}), then rotate the key in infra/vault/prod.hcl"
    if n % 2500 == 0:
        user += " 請不要刪除生產環境的資料庫"
    return {"conversation_id": "long", "user": user, "assistant": " ".join(words)}


if PHASE == "fill":
    started = time.monotonic()
    for n in range(1, TURNS + 1):
        status, data = call("POST", "/turn-ended", turn(n))
        assert status == 200, data
    print(f"stored {TURNS} turns in {time.monotonic() - started:.1f} s")
    sys.exit(0)

QUERIES = {
    "a rare word (10 turns)": "billing",
    "a common word (every turn)": "transaction",
    "a phrase": '"database table"',
    "a path": "src/store/turns_7.rs",
    "a file name (200 turns)": "turns_7.rs",
    "a file name (10 turns)": "prod.hcl",
    "a folder (10 turns)": "vault",
    "an id (1 turn)": "PROJ-4000",
    "no spaces (CJK)": "生產環境",
    "a miss": "kubernetes",
}
for label, q in QUERIES.items():
    path = "/conversations/long/turns?" + urllib.parse.urlencode({"q": q, "limit": 20})
    times = []
    for _ in range(REPEAT):
        t0 = time.monotonic()
        status, data = call("GET", path)
        times.append((time.monotonic() - t0) * 1000)
        assert status == 200, data
    found = len(json.loads(data)["turns"])
    times.sort()
    print(f"{label:<28} found {found:>2}  median {statistics.median(times):7.1f} ms  p90 {times[int(0.9 * len(times))]:7.1f} ms")
