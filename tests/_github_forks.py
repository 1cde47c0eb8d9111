"""A local fake of GitHub for a team's submission (``prescient submit``), on top of ``_github.FakeGitHub``:
the token's user, the hub's repository and its fork (bare repositories on disk, which git reaches by
their ``file://`` clone URLs, as GitHub's own by https), pull requests opened and updated from the
fork's branches, and the hub's validation run of each head commit.

Each request first looks at the fork's branches, as GitHub does on a push: a pull request whose branch
moved gets a new validation run for its new head, created at ``clock`` and run then, as
``validate.yml`` runs it (``prescient validate --base --head --author --at <the run's creation time>``
in a checkout of the hub's base commit), its Markdown report kept as the run's artifact.
"""

from __future__ import annotations

import io
import subprocess
import zipfile
from pathlib import Path

from _github import REPO, TOKEN, FakeGitHub

from helpers import PRESCIENT

SITE = "https://github.test"
LOGIN = "alice"


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True)
    return done.stdout.strip()


def head_of(bare: Path, branch: str) -> str | None:
    done = subprocess.run(["git", "-C", str(bare), "rev-parse", "-q", "--verify", f"refs/heads/{branch}"], capture_output=True, text=True)
    return done.stdout.strip() or None


class ForkingGitHub(FakeGitHub):
    """The hub ``acme/hub`` at ``upstream`` (a bare repository); forks are made under ``root``."""

    def __init__(self, root: Path, upstream: Path, token: str, clock: str = "2026-01-20T12:00:00Z", site: str = ""):
        super().__init__()
        self.root, self.upstream, self.token, self.clock, self.site = root, upstream, token, clock, site
        self.forks: dict[str, Path] = {}
        self.reports: dict[int, bytes] = {}
        self.writes: list[str] = []  # every POST and PATCH: "METHOD path"
        self.checkout = root / "validator"  # the validate workflow's checkout of the hub
        subprocess.run(["git", "clone", "-q", str(upstream), str(self.checkout)], check=True, capture_output=True)

    # -- the repositories ---------------------------------------------------------------------
    def repo_json(self, full_name: str, path: Path) -> dict:
        owner = full_name.split("/")[0]
        return {
            "full_name": full_name,
            "owner": {"login": owner},
            "default_branch": "main",
            "clone_url": path.resolve().as_uri(),
            "html_url": f"{SITE}/{full_name}",
        }

    def fork_of(self, login: str) -> Path:
        if login not in self.forks:
            path = self.root / "forks" / f"{login}-hub.git"
            subprocess.run(["git", "clone", "-q", "--bare", str(self.upstream), str(path)], check=True, capture_output=True)
            git(path, "config", "uploadpack.allowFilter", "true")
            self.forks[login] = path
        return self.forks[login]

    # -- pushes: a moved branch is a new head, and GitHub runs the check on it ------------------
    def sync(self) -> None:
        for pull in self.pulls.values():
            owner, branch = pull["head"]["label"].split(":", 1)
            head = head_of(self.forks[owner], branch)
            if pull["state"] == "open" and head and head != pull["head"]["sha"]:
                pull["head"]["sha"] = head
                self.validate(pull)

    def validate(self, pull: dict) -> int:
        owner, branch = pull["head"]["label"].split(":", 1)
        head = pull["head"]["sha"]
        run_id = self.run(pull["number"], head, self.clock, author=pull["user"]["login"], fork=True, conclusion=None, branch=branch, owner=owner)
        self.runs[run_id].update(
            {"html_url": f"{SITE}/{REPO}/actions/runs/{run_id}", "path": ".github/workflows/validate.yml", "status": "completed"}
        )
        self.pulls[pull["number"]] = pull  # ``run`` rewrote it; keep the fake's own record
        git(self.checkout, "fetch", "-q", str(self.forks[owner]), f"+refs/heads/{branch}:refs/prescient/pull-head")
        report = self.root / f"report-{run_id}.md"
        done = subprocess.run(
            [PRESCIENT, "validate", "--hub", str(self.checkout), "--base", pull["base"]["sha"], "--head", head, "--author", pull["user"]["login"]]
            + ["--at", self.clock, "--format", "markdown", "--output", str(report)],
            capture_output=True,
            text=True,
            check=False,
        )
        self.runs[run_id]["conclusion"] = "success" if done.returncode == 0 else "failure"
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w") as archive:
            archive.writestr("report.md", report.read_bytes() if report.is_file() else b"")
        self.reports[run_id] = buffer.getvalue()
        return run_id

    # -- the API --------------------------------------------------------------------------------
    def answer(self, method: str, path: str, params: dict[str, str], auth: str | None, body: object = None) -> tuple[int, object]:
        if auth != f"Bearer {self.token}":
            self.requests.append(path)
            return 401, {"message": "Bad credentials"}
        if method != "GET":
            self.writes.append(f"{method} {path}")
        self.sync()
        mine = self.own(method, path, params, body or {})
        if mine is not None:
            self.requests.append(path)
            return mine
        return super().answer(method, path, params, f"Bearer {TOKEN}")

    def own(self, method: str, path: str, params: dict[str, str], body: dict) -> tuple[int, object] | None:
        hub = f"/repos/{REPO}"
        if path == "/user":
            return 200, {"login": LOGIN}
        if path == hub:
            return 200, self.repo_json(REPO, self.upstream)
        if path == f"{hub}/pages":
            return (200, {"html_url": self.site}) if self.site else (404, {"message": "Not Found"})
        if path == f"{hub}/forks" and method == "POST":
            return 202, self.repo_json(f"{LOGIN}/hub", self.fork_of(LOGIN))
        if path == f"/repos/{LOGIN}/hub/merge-upstream" and method == "POST":
            git(self.fork_of(LOGIN), "fetch", "-q", str(self.upstream), f"refs/heads/{body['branch']}:refs/heads/{body['branch']}")
            return 200, {"merge_type": "fast-forward"}
        if path == f"{hub}/pulls" and method == "POST":
            return self.open_pull(body)
        if path.startswith(f"{hub}/pulls/") and method == "PATCH":
            pull = self.pulls.get(int(path.rsplit("/", 1)[1]))
            if pull is None:
                return 404, {"message": "Not Found"}
            pull.update({k: v for k, v in body.items() if k in ("body", "state", "title")})
            self.sync()
            return 200, pull
        if path == f"{hub}/actions/workflows/validate.yml/runs" and "head_sha" in params:
            found = sorted((r for r in self.runs.values() if r["head_sha"] == params["head_sha"]), key=lambda r: -r["id"])
            return 200, {"total_count": len(found), "workflow_runs": found}
        if path.startswith(f"{hub}/actions/runs/") and path.endswith("/artifacts"):
            run_id = int(path.split("/")[-2])
            url = f"/download/{run_id}.zip"
            return 200, {"artifacts": [{"name": "validation-report", "expired": False, "archive_download_url": self.base_url + url}]}
        if path.startswith("/download/"):
            return 200, self.reports[int(path.rsplit("/", 1)[1].removesuffix(".zip"))]
        return None

    base_url = "http://127.0.0.1"  # set by the test to the served address, for the artifacts' links

    def open_pull(self, body: dict) -> tuple[int, object]:
        owner, branch = body["head"].split(":", 1)
        head = head_of(self.forks[owner], branch) if owner in self.forks else None
        if head is None:
            return 422, {"message": "Validation Failed", "errors": [{"field": "head", "code": "invalid"}]}
        if any(p["head"]["label"] == body["head"] and p["state"] == "open" for p in self.pulls.values()):
            return 422, {"message": "A pull request already exists for " + body["head"]}
        number = len(self.pulls) + 1
        pull = {
            "number": number,
            "state": "open",
            "title": body["title"],
            "body": body["body"],
            "merged_at": None,
            "html_url": f"{SITE}/{REPO}/pull/{number}",
            "head": {"sha": head, "ref": branch, "label": body["head"]},
            "base": {"ref": body["base"], "sha": head_of(self.upstream, body["base"])},
            "user": {"login": owner},
        }
        self.pulls[number] = pull
        self.validate(pull)
        return 201, pull
