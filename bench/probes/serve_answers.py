#!/usr/bin/env python3
"""A stand-in upstream for the LLM path: an OpenAI-compatible server that
answers each summary request with a text written beforehand for exactly that
prompt (by a strong model, or a person, following compactd's own prompt).

    bench/probes/serve_answers.py DIR [PORT]

A request is known by the SHA-256 of its user message (its first 16 hex
digits: KEY). With DIR/answers/KEY.md present, that text is the answer. With
none, the prompt is written to DIR/prompts/KEY.system.md and KEY.user.md
(with KEY.json: the model and max_tokens asked for) and the request is
refused with a 400, which compactd does not retry: the compaction fails, and
once the answer is written a second replay gets it.

Prints `answers upstream listening on http://127.0.0.1:PORT` when ready.
"""
import hashlib
import json
import os
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ROOT = sys.argv[1]
PORT = int(sys.argv[2]) if len(sys.argv) > 2 else 0
os.makedirs(os.path.join(ROOT, "answers"), exist_ok=True)
os.makedirs(os.path.join(ROOT, "prompts"), exist_ok=True)


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def answer(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        request = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
        messages = request.get("messages", [])
        system = next((m["content"] for m in messages if m["role"] == "system"), "")
        user = next((m["content"] for m in messages if m["role"] == "user"), "")
        key = hashlib.sha256(user.encode()).hexdigest()[:16]
        answer = os.path.join(ROOT, "answers", key + ".md")
        if os.path.exists(answer):
            text = open(answer, encoding="utf-8").read()
            self.answer(200, {
                "model": "strong-writer",
                "choices": [{"message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": len(user) // 4, "completion_tokens": len(text) // 4},
            })
            print(f"answered {key}", flush=True)
            return
        prompts = os.path.join(ROOT, "prompts")
        open(os.path.join(prompts, key + ".system.md"), "w", encoding="utf-8").write(system)
        open(os.path.join(prompts, key + ".user.md"), "w", encoding="utf-8").write(user)
        meta = {"model": request.get("model"),
                "max_tokens": request.get("max_tokens") or request.get("max_completion_tokens")}
        json.dump(meta, open(os.path.join(prompts, key + ".json"), "w"))
        print(f"no answer yet for {key}: prompt written", flush=True)
        self.answer(400, {"error": {"message": f"no answer written for {key}", "type": "invalid_request_error"}})


server = ThreadingHTTPServer(("127.0.0.1", PORT), Handler)
print(f"answers upstream listening on http://127.0.0.1:{server.server_address[1]}", flush=True)
server.serve_forever()
