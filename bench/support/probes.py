"""What the bench probes share (bench/hardening, bench/isolation): a fresh
database, a release binary serving it, requests to it, its CPU and memory
as the kernel counts them, and work done by many threads at once."""

import http.client
import json
import os
import re
import shutil
import socket
import subprocess
import threading
import time

TICKS = os.sysconf("SC_CLK_TCK")


def need(tool, package=None):
    """The tool on PATH, installed from Debian's packages when we are root
    (a fresh machine has no wrk), or a plain exit saying how to get it."""
    if shutil.which(tool):
        return
    package = package or tool
    if os.getuid() == 0:
        subprocess.run(["apt-get", "install", "-y", "-q", package], check=True, stdout=subprocess.DEVNULL)
    else:
        raise SystemExit(f"this probe needs {tool} (Debian: apt-get install {package})")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def database(admin_url, name):
    subprocess.run(
        ["psql", "-q", admin_url, "-c", f"DROP DATABASE IF EXISTS {name} WITH (FORCE)", "-c", f"CREATE DATABASE {name}"],
        check=True,
        env={**os.environ, "PGOPTIONS": "-c client_min_messages=warning"},
    )
    return re.sub(r"/[^/?]*(\?.*)?$", f"/{name}", admin_url)


def sql(url, query):
    out = subprocess.run(["psql", "-qAt", url, "-c", query], check=True, capture_output=True, text=True)
    return out.stdout.strip()


class Service:
    """A release binary on a fresh database of its own, with `keys` (tenant,
    role) made before it starts; its log in /tmp/compactd-NAME.log."""

    def __init__(self, binary, admin_url, name, env=None, keys=()):
        self.name = name
        self.url = database(admin_url, f"compactd_{name}")
        self.port = free_port()
        self.log = open(f"/tmp/compactd-{name}.log", "w")
        environment = {k: v for k, v in os.environ.items() if not k.startswith("COMPACTD_")}
        environment.update({"RUST_LOG": "warn", "COMPACTD_IDLE_SWEEP_SECS": "0"})
        environment.update(env or {})
        self.environment = environment
        subprocess.run([binary, "migrate", "--database-url", self.url], env=environment, check=True, capture_output=True)
        self.keys = {}
        for tenant, role in keys:
            made = subprocess.run(
                [binary, "keys", "create", "--tenant", tenant, "--role", role],
                env={**environment, "DATABASE_URL": self.url},
                check=True,
                capture_output=True,
                text=True,
            )
            self.keys[tenant] = made.stdout.strip().split()[-1]
        self.process = subprocess.Popen(
            [binary, "serve", "--database-url", self.url, "--addr", f"127.0.0.1:{self.port}"],
            env=environment,
            stdout=self.log,
            stderr=self.log,
        )
        for _ in range(600):
            try:
                if self.request("GET", "/readyz")[0] == 200:
                    return
            except OSError:
                pass
            time.sleep(0.1)
        raise SystemExit(f"{name}: the service did not come up (see {self.log.name})")

    def request(self, method, path, body=None, headers=None, timeout=600, tenant=None):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        payload = None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
        head = {"content-type": "application/json"} if payload is not None else {}
        if tenant is not None:
            head["authorization"] = f"Bearer {self.keys[tenant]}"
        head.update(headers or {})
        conn.request(method, path, body=payload, headers=head)
        response = conn.getresponse()
        data = response.read()
        conn.close()
        return response.status, data

    def cpu_seconds(self):
        fields = open(f"/proc/{self.process.pid}/stat").read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / TICKS

    def rss_mib(self):
        for line in open(f"/proc/{self.process.pid}/status"):
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return 0.0

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=120)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        return self


def at_once(count, work):
    results = [None] * count

    def run(n):
        try:
            results[n] = work(n)
        except Exception as err:  # noqa: BLE001 - a figure, not a failure
            results[n] = ("error", type(err).__name__)

    threads = [threading.Thread(target=run, args=(n,)) for n in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results
