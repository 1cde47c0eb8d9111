"""A local OpenAI-compatible chat-completions server for tests: ``http.server`` on 127.0.0.1 in a
thread, never the network. Shared by every test of code that asks an LLM (the LLM forecaster, the
oracle's question maker and answerer, and what comes next); ``LocalServer`` under it serves any
other local fixture (the oracle's news feeds).

``FakeLLM(respond)`` serves ``POST /v1/chat/completions``: ``respond(body)`` returns (status, headers,
bytes); every request body is kept in ``requests`` (with its ``Authorization`` header as
``_auth``). ``Recorded(path)`` is a ``respond`` that answers from a file of recorded responses
(``tests/data/llm/``): the first entry whose ``match`` strings all occur in the prompt gives the
answer (and whose ``model``, when it names one, is the request's), each entry's ``replies`` taken in
turn (the last one repeats).
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
    return json.dumps(
        {
            "id": "fake",
            "object": "chat.completion",
            "choices": [{"index": 0, "finish_reason": finish, "message": {"role": "assistant", "content": content}}],
            "usage": {"prompt_tokens": tokens_in, "completion_tokens": tokens_out, "total_tokens": tokens_in + tokens_out},
        }
    ).encode()


def prompt_of(body: dict) -> str:
    return body["messages"][-1]["content"]


class LocalServer:
    """``http.server`` on 127.0.0.1 in a thread, as a context manager (or ``start``/``stop``):
    ``handle(method, path, headers, body)`` answers each GET and POST with (status, headers, bytes)."""

    url = ""

    def handle(self, method: str, path: str, headers, body: bytes) -> Response:
        return 404, {}, b"{}"

    def start(self):
        state = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self, method: str) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                status, headers, data = state.handle(method, self.path, self.headers, body)
                self.send_response(status)
                for key, value in headers.items():
                    self.send_header(key, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                try:
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):  # the client stopped reading (a size cap)
                    pass

            def do_GET(self):  # noqa: N802 (http.server's naming)
                self._answer("GET")

            def do_POST(self):  # noqa: N802
                self._answer("POST")

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


class FakeLLM(LocalServer):
    """The chat-completions endpoint (``url`` ends in /v1) and the requests it has seen."""

    def __init__(self, respond: Callable[[dict], Response]):
        self.respond = respond
        self.requests: list[dict] = []
        self.lock = threading.Lock()
        self.delay, self.in_flight, self.max_in_flight = 0.0, 0, 0

    def start(self) -> FakeLLM:
        super().start()
        self.url += "/v1"
        return self

    def handle(self, method: str, path: str, headers, raw: bytes) -> Response:
        if method != "POST" or path != "/v1/chat/completions":
            return 404, {}, b"{}"
        body = json.loads(raw)
        body["_auth"], body["_path"] = headers.get("Authorization"), path
        with self.lock:
            self.requests.append(body)
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        time.sleep(self.delay)
        try:
            return self.respond(body)
        finally:
            with self.lock:
                self.in_flight -= 1

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
            if entry.get("model", body.get("model")) == body.get("model") and all(m in prompt for m in entry["match"]):
                with self.lock:
                    n = self.used[i] = self.used.get(i, -1) + 1
                reply = entry["replies"][min(n, len(entry["replies"]) - 1)]
                if "status" in reply:
                    return reply["status"], {"Retry-After": "0"}, b'{"error": "recorded failure"}'
                if "raw" in reply:
                    return 200, {"Content-Type": "application/json"}, reply["raw"].encode()
                return (
                    200,
                    {"Content-Type": "application/json"},
                    completion(reply["content"], reply.get("tokens_in", 100), reply.get("tokens_out", 10)),
                )
        return 404, {}, json.dumps({"error": "no recorded response matches this prompt", "prompt": prompt[:300]}).encode()
