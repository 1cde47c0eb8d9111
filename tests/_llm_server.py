"""A local OpenAI-compatible chat-completions server for tests: ``http.server`` on 127.0.0.1 in a
thread, never the network. Shared by every test of code that asks an LLM (the LLM forecaster, the
oracle's question maker and answerer, and what comes next).

``FakeLLM(respond)`` serves ``POST /v1/chat/completions``: ``respond(body)`` returns (status, headers,
bytes); every request body is kept in ``requests`` (with its ``Authorization`` header as
``_auth``). ``Recorded(path)`` is a ``respond`` that answers from a file of recorded responses
(``tests/data/llm/``): the first entry whose ``match`` strings all occur in the prompt gives the
answer, each entry's ``replies`` taken in turn (the last one repeats).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

Response = tuple[int, dict, bytes]


def completion(content: str, tokens_in: int = 100, tokens_out: int = 10, finish: str = "stop") -> bytes:
    """A chat-completions response body carrying ``content``."""
    return json.dumps({"id": "fake", "object": "chat.completion",
                       "choices": [{"index": 0, "finish_reason": finish, "message": {"role": "assistant", "content": content}}],
                       "usage": {"prompt_tokens": tokens_in, "completion_tokens": tokens_out,
                                 "total_tokens": tokens_in + tokens_out}}).encode()


def prompt_of(body: dict) -> str:
    return body["messages"][-1]["content"]


class FakeLLM:
    """The server and what it has seen. Use as a context manager (or call ``start``/``stop``)."""

    def __init__(self, respond: Callable[[dict], Response]):
        self.respond = respond
        self.requests: list[dict] = []
        self.lock = threading.Lock()
        self.delay, self.in_flight, self.max_in_flight = 0.0, 0, 0
        self.url = ""

    def start(self) -> FakeLLM:
        state = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 (http.server's naming)
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                body["_auth"], body["_path"] = self.headers.get("Authorization"), self.path
                with state.lock:
                    state.requests.append(body)
                    state.in_flight += 1
                    state.max_in_flight = max(state.max_in_flight, state.in_flight)
                time.sleep(state.delay)
                status, headers, data = (404, {}, b"{}") if self.path != "/v1/chat/completions" else state.respond(body)
                with state.lock:
                    state.in_flight -= 1
                self.send_response(status)
                for key, value in headers.items():
                    self.send_header(key, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self) -> FakeLLM:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def prompts(self) -> list[str]:
        with self.lock:
            return [prompt_of(b) for b in self.requests]


class Recorded:
    """Answers from a JSON file of recorded responses: a list of ``{"match": [...], "replies": [...]}``;
    a reply is ``{"content": "..."}`` (a 200 with token counts ``tokens_in``/``tokens_out``, default
    100/10) or ``{"status": 500}`` / ``{"raw": "..."}`` (a body sent as it is)."""

    def __init__(self, path: Path):
        self.entries = json.loads(path.read_text(encoding="utf-8"))["responses"]
        self.used: dict[int, int] = {}
        self.lock = threading.Lock()

    def __call__(self, body: dict) -> Response:
        prompt = prompt_of(body)
        for i, entry in enumerate(self.entries):
            if all(m in prompt for m in entry["match"]):
                with self.lock:
                    n = self.used[i] = self.used.get(i, -1) + 1
                reply = entry["replies"][min(n, len(entry["replies"]) - 1)]
                if "status" in reply:
                    return reply["status"], {"Retry-After": "0"}, b'{"error": "recorded failure"}'
                if "raw" in reply:
                    return 200, {"Content-Type": "application/json"}, reply["raw"].encode()
                return 200, {"Content-Type": "application/json"}, completion(
                    reply["content"], reply.get("tokens_in", 100), reply.get("tokens_out", 10))
        return 404, {}, json.dumps({"error": "no recorded response matches this prompt", "prompt": prompt[:300]}).encode()
