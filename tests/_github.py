"""A local fake of the GitHub REST API the hub reads: workflow runs and pull requests.

The same handler answers through ``httpx.MockTransport`` (library tests) and from a real HTTP server
on 127.0.0.1 (tests that run the ``prescient`` executable, with ``GITHUB_API_URL`` pointing at it).
Only what GitHub itself sets is served: a run's id, head commit, creation time, event, conclusion,
pull requests, head repository and actor (whose push created it); a pull request's number, head and author.
"""

from __future__ import annotations

import json
import threading
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

import httpx

REPO = "acme/hub"
TOKEN = "t0ken"


class FakeGitHub:
    """The runs and pull requests a test creates, and the answers GitHub would give about them."""

    def __init__(self):
        self.runs: dict[int, dict] = {}
        self.pulls: dict[int, dict] = {}
        self.requests: list[str] = []
        self.fail: set[str] = set()  # paths answered with a 502 (an outage)

    def run(
        self,
        pr: int,
        head: str,
        created_at: str,
        *,
        author: str = "alice",
        fork: bool = False,
        conclusion: str | None = "success",
        branch: str | None = None,
        actor: str | None = None,
        owner: str | None = None,
    ) -> int:
        """GitHub creates a validation run for a push of ``head`` to pull request ``pr`` (opened by ``author``
        from ``owner``'s branch, by default the author's own): the push was ``actor``'s (by default the author's)."""
        run_id = 9000 + len(self.runs)
        branch, owner = branch or f"pr-{pr}", owner or author
        self.runs[run_id] = {
            "id": run_id,
            "head_sha": head,
            "created_at": created_at,
            "event": "pull_request",
            "status": "completed",
            "conclusion": conclusion,
            "head_branch": branch,
            "head_repository": {"full_name": f"{owner}/hub", "owner": {"login": owner}},
            "actor": {"login": actor or author},
            "triggering_actor": {"login": actor or author},
            "pull_requests": [] if fork else [{"number": pr, "head": {"sha": head}}],
        }
        self.pulls[pr] = {
            "number": pr,
            "state": "open",
            "head": {"sha": head, "ref": branch, "label": f"{owner}:{branch}"},
            "user": {"login": author},
        }
        return run_id

    def answer(self, method: str, path: str, params: dict[str, str], auth: str | None, body: object = None) -> tuple[int, object]:
        """The status and body GitHub would answer with (a body of bytes is sent as it is, else as JSON);
        ``body``: a POST's or PATCH's JSON (``tests/_github_forks.py`` answers those)."""
        self.requests.append(path + ("?" + "&".join(f"{k}={v}" for k, v in sorted(params.items())) if params else ""))
        if auth != f"Bearer {TOKEN}":
            return 401, {"message": "Bad credentials"}
        path = path.removeprefix(f"/repos/{REPO}/")
        if path in self.fail:
            return 502, {"message": "Server Error"}
        if path.startswith("actions/runs/"):
            run = self.runs.get(int(path.rsplit("/", 1)[1]))
            return (200, run) if run else (404, {"message": "Not Found"})
        if path == "actions/workflows/validate.yml/runs":
            since = params.get("created", ">=0000-00-00").removeprefix(">=")
            found = sorted((r for r in self.runs.values() if r["created_at"][:10] >= since), key=lambda r: -r["id"])
            page, per = int(params.get("page", "1")), int(params.get("per_page", "30"))
            return 200, {"total_count": len(found), "workflow_runs": found[(page - 1) * per : page * per]}
        if path == "actions/runs":
            found = sorted((r for r in self.runs.values() if r["head_sha"] == params.get("head_sha")), key=lambda r: -r["id"])
            return 200, {"total_count": len(found), "workflow_runs": found}
        if path.startswith("pulls/"):
            pull = self.pulls.get(int(path.rsplit("/", 1)[1]))
            return (200, pull) if pull else (404, {"message": "Not Found"})
        if path == "pulls":
            pulls = [p for _, p in sorted(self.pulls.items(), reverse=True)]  # GitHub lists the newest first
            if "head" in params:
                pulls = [p for p in pulls if p["head"]["label"] == params["head"]]
            return 200, pulls if params.get("page", "1") == "1" else []
        return 404, {"message": "Not Found"}

    def handler(self, request: httpx.Request) -> httpx.Response:
        sent = json.loads(request.content) if request.content else None
        status, body = self.answer(request.method, request.url.path, dict(request.url.params), request.headers.get("Authorization"), sent)
        return httpx.Response(status, content=body) if isinstance(body, bytes) else httpx.Response(status, json=body)

    def client(self):
        """The hub's ``GitHub`` over a mock transport."""
        from generator.sources.github import GitHub
        from generator.sources.http import http_for

        http = http_for(httpx.Client(transport=httpx.MockTransport(self.handler)), {"retries": 0}, headers={"Authorization": f"Bearer {TOKEN}"})
        return GitHub(http, REPO, "https://api.github.test")

    @contextmanager
    def serve(self):
        """A real HTTP server on 127.0.0.1 answering as ``answer`` does; yields the environment for the CLI."""
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 - the stdlib's name
                url = urlsplit(self.path)
                params = {k: v[-1] for k, v in parse_qs(url.query).items()}
                length = int(self.headers.get("Content-Length") or 0)
                sent = json.loads(self.rfile.read(length)) if length else None
                status, body = fake.answer(self.command, url.path, params, self.headers.get("Authorization"), sent)
                data = body if isinstance(body, bytes) else json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/zip" if isinstance(body, bytes) else "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_POST = do_PATCH = do_GET  # noqa: N815 - the stdlib's names; ``answer`` tells the methods apart

            def log_message(self, *args):  # quiet
                pass

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        try:
            yield {"GITHUB_API_URL": f"http://127.0.0.1:{server.server_address[1]}", "GITHUB_REPOSITORY": REPO, "GITHUB_TOKEN": TOKEN}
        finally:
            server.shutdown()
            server.server_close()
