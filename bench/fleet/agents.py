"""Agents behind a balancer (bench/fleet): each thread is one agent with its
own conversation, reporting usage, ending turns and asking what to do, every
write with an Idempotency-Key. A request that fails (the connection broke, or
a 5xx, or 409 while another replica's claim on the key stands) is retried
with the same key until it is answered, as a careful agent does, for at most
GIVE_UP seconds (then it counts as given up, and its conversation stops).
Prints what it sent and saw as JSON.

    python3 agents.py URL AGENTS SECONDS OUT.json [GIVE_UP]
"""

import http.client
import json
import sys
import threading
import time
import urllib.parse

URL, AGENTS, SECONDS, OUT = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
GIVE_UP = float(sys.argv[5]) if len(sys.argv) > 5 else 120.0
HOST = urllib.parse.urlsplit(URL)

lock = threading.Lock()
totals = {"requests": 0, "answered": 0, "failed_attempts": 0, "retried_requests": 0, "replayed": 0, "given_up": 0}
# The longest a request took to be answered, retries included, and what it was.
slowest = {"seconds": 0.0, "request": None}
failures = {}
acknowledged = {}


def count(key, n=1):
    with lock:
        totals[key] += n


def failed(kind):
    with lock:
        failures[kind] = failures.get(kind, 0) + 1
        totals["failed_attempts"] += 1


class GaveUp(Exception):
    pass


class Agent:
    def __init__(self, number):
        self.conversation = f"fleet-agent-{number:03d}"
        self.connection = None

    def post(self, path, body, key):
        """Sends until answered 2xx (same key every time); returns the answer."""
        payload = json.dumps(body)
        headers = {"content-type": "application/json", "idempotency-key": key}
        count("requests")
        tries = 0
        first = time.monotonic()
        while True:
            tries += 1
            if time.monotonic() - first > GIVE_UP:
                count("given_up")
                raise GaveUp(f"{path} {key}")
            try:
                if self.connection is None:
                    self.connection = http.client.HTTPConnection(HOST.hostname, HOST.port, timeout=30)
                self.connection.request("POST", path, payload, headers)
                response = self.connection.getresponse()
                answer = response.read()
                if response.status < 300:
                    count("answered")
                    took = time.monotonic() - first
                    with lock:
                        if took > slowest["seconds"]:
                            slowest.update(seconds=took, request=f"{path} {key} after {tries} tries")
                    if tries > 1:
                        count("retried_requests")
                    if response.getheader("idempotent-replayed") == "true":
                        count("replayed")
                    return json.loads(answer) if answer else None
                failed(f"status {response.status}")
                if response.status < 500 and response.status != 409 and response.status != 429:
                    raise RuntimeError(f"{path} answered {response.status}: {answer[:200]!r}")
            except (OSError, http.client.HTTPException) as err:
                failed(type(err).__name__)
                if self.connection is not None:
                    self.connection.close()
                self.connection = None
            time.sleep(0.05)

    def run(self, until):
        try:
            self.work(until)
        except GaveUp as gave_up:
            print(f"{self.conversation} gave up on {gave_up}", file=sys.stderr)

    def work(self, until):
        turn = 0
        used = 1000
        while time.monotonic() < until:
            turn += 1
            used = used + 1500 if used < 150_000 else 20_000
            conversation = self.conversation
            self.post("/usage", {"conversation_id": conversation, "used": used, "size": 200_000},
                      f"{conversation}-usage-{turn}")
            self.post("/turn-ended",
                      {"conversation_id": conversation,
                       "user": f"Step {turn}: edit src/module_{turn % 17}.rs and keep the parser's identifiers.",
                       "assistant": f"Edited src/module_{turn % 17}.rs (step {turn})."},
                      f"{conversation}-turn-{turn}")
            with lock:
                acknowledged[conversation] = turn
            self.post("/decide", {"conversation_id": conversation}, f"{conversation}-decide-{turn}")


def main():
    until = time.monotonic() + SECONDS
    threads = [threading.Thread(target=Agent(n).run, args=(until,)) for n in range(AGENTS)]
    started = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - started
    with open(OUT, "w") as out:
        json.dump({"seconds": elapsed, "totals": totals, "failures": failures, "acknowledged": acknowledged,
                   "slowest": slowest}, out)
    print(json.dumps({"seconds": round(elapsed, 1), **totals, "failures": failures, "slowest": slowest}))


main()
