"""The GitHub REST API as a team's submission uses it: who the token is, the team's fork, the pull
request of one (round, model), and the hub's validation run for one head commit with its report.

Each call goes through ``Http`` (the one client: retries, deadline, size cap); writes are JSON POST
or PATCH. Nothing here prints, and the token is only ever in ``Http``'s headers, never in a URL.

- ``GET /user``; ``GET /repos/<repo>``; ``POST /repos/<repo>/forks`` (GitHub answers with the fork,
  the existing one if there is one); ``POST /repos/<fork>/merge-upstream``;
- ``GET /repos/<repo>/pulls?state=all&head=<owner>:<branch>``, ``POST /repos/<repo>/pulls``,
  ``PATCH /repos/<repo>/pulls/<number>``;
- ``GET /repos/<repo>/actions/workflows/validate.yml/runs?head_sha=<sha>&event=pull_request``: the
  validation runs of one head commit; ``GET /repos/<repo>/actions/runs/<id>/artifacts`` and the
  artifact's zip: the run's report (``validation-report``, the Markdown the check wrote);
- ``GET /repos/<repo>/pages``: where the hub's site is published.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..timeutil import format_ts, parse_ts
from ._util import ParseError, require
from .github import PER_PAGE, VALIDATE_WORKFLOW, GitHub
from .http import FetchError, get_bytes, post_json

REPORT_ARTIFACT = "validation-report"  # validate.yml's upload-artifact name
REPORT_FILE = "report.md"
MAX_REPORT_BYTES = 2 * 2**20


@dataclass(frozen=True)
class Repo:
    full_name: str
    owner: str
    default_branch: str
    clone_url: str
    html_url: str = ""


@dataclass(frozen=True)
class PullRequest:
    number: int
    state: str  # open or closed
    merged: bool
    head_sha: str
    html_url: str


@dataclass(frozen=True)
class ValidationRun:
    id: int
    head_sha: str
    created_at: str  # ISO UTC with Z: the time GitHub attests for this push
    status: str  # queued, in_progress, completed, waiting, action_required...
    conclusion: str  # success, failure... ("" while the run has none)
    html_url: str


def _text(item: Mapping[str, Any], key: str) -> str:
    value = require(item, key)
    if not isinstance(value, str):
        raise ParseError(f"{key} is not text: {value!r}")
    return value


def parse_repo(item: Any) -> Repo:
    if not isinstance(item, Mapping):
        raise ParseError("a repository is not a JSON object")
    owner = item.get("owner")
    return Repo(
        full_name=_text(item, "full_name"),
        owner=str(owner.get("login") or "") if isinstance(owner, Mapping) else "",
        default_branch=_text(item, "default_branch"),
        clone_url=_text(item, "clone_url"),
        html_url=str(item.get("html_url") or ""),
    )


def parse_pull_request(item: Any) -> PullRequest:
    if not isinstance(item, Mapping) or not isinstance(item.get("head"), Mapping):
        raise ParseError("a pull request is not a JSON object with a head")
    number = require(item, "number")
    if isinstance(number, bool) or not isinstance(number, int):
        raise ParseError(f"number is not an integer: {number!r}")
    return PullRequest(
        number=number,
        state=str(item.get("state") or ""),
        merged=bool(item.get("merged_at")),
        head_sha=str(item["head"].get("sha") or ""),
        html_url=str(item.get("html_url") or ""),
    )


def parse_validation_runs(payload: Any) -> list[ValidationRun]:
    runs = payload.get("workflow_runs") if isinstance(payload, Mapping) else None
    if not isinstance(runs, list):
        raise ParseError("missing workflow_runs")
    out = []
    for item in runs:
        if not isinstance(item, Mapping):
            raise ParseError("a workflow run is not a JSON object")
        run_id = require(item, "id")
        if isinstance(run_id, bool) or not isinstance(run_id, int):
            raise ParseError(f"id is not an integer: {run_id!r}")
        out.append(
            ValidationRun(
                id=run_id,
                head_sha=_text(item, "head_sha"),
                created_at=format_ts(parse_ts(_text(item, "created_at"))),
                status=str(item.get("status") or ""),
                conclusion=str(item.get("conclusion") or ""),
                html_url=str(item.get("html_url") or ""),
            )
        )
    return out


def report_from_zip(data: bytes) -> str:
    """The Markdown report inside an artifact's zip (empty when it holds none)."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            info = next((i for i in archive.infolist() if i.filename.rsplit("/", 1)[-1] == REPORT_FILE), None)
            if info is None or info.file_size > MAX_REPORT_BYTES:
                return ""
            return archive.read(info).decode("utf-8", "replace")
    except (zipfile.BadZipFile, OSError):
        return ""


class Submitter(GitHub):
    """``GitHub`` with the calls a submission makes; ``repo`` is the hub's repository."""

    def _api(self, tail: str) -> str:
        return f"{self.api_url}/{tail}"

    def _send(self, method: str, url: str, body: Any) -> Any:
        http = self.http
        payload, _raw = post_json(
            http.client, url, body, headers=http.headers, method=method, retries=http.retries, backoff=http.backoff, sleep=http.sleep
        )
        return payload

    def login(self) -> str:
        payload, _raw = self.http.get(self._api("user"))
        if not isinstance(payload, Mapping):
            raise ParseError("GET /user did not answer with an object")
        return _text(payload, "login")

    def repository(self, full_name: str | None = None) -> Repo:
        payload, _raw = self.http.get(self._api(f"repos/{full_name or self.repo}"))
        return parse_repo(payload)

    def fork(self) -> Repo:
        """The token's fork of the hub: made now, or the one it already has."""
        return parse_repo(self._send("POST", self._url("forks"), {"default_branch_only": True}))

    def sync_fork(self, fork: Repo, branch: str) -> bool:
        """Bring the fork's ``branch`` up to the hub's (GitHub's "Sync fork"); False when GitHub would not."""
        try:
            self._send("POST", self._api(f"repos/{fork.full_name}/merge-upstream"), {"branch": branch})
        except FetchError as exc:
            if exc.status in (409, 422):  # the fork's branch has commits of its own, or conflicts
                return False
            raise
        return True

    def pulls_from(self, owner: str, branch: str) -> list[PullRequest]:
        """The hub's pull requests (open or closed) whose head is ``owner:branch``, newest first."""
        payload, _raw = self.http.get(self._url("pulls"), {"state": "all", "head": f"{owner}:{branch}", "per_page": PER_PAGE})
        if not isinstance(payload, list):
            raise ParseError("the pull-request list is not a JSON array")
        return sorted((parse_pull_request(p) for p in payload), key=lambda p: -p.number)

    def open_pull(self, owner: str, branch: str, base: str, title: str, body: str) -> PullRequest:
        payload = self._send("POST", self._url("pulls"), {"title": title, "head": f"{owner}:{branch}", "base": base, "body": body})
        return parse_pull_request(payload)

    def update_pull(self, number: int, body: str, reopen: bool = False) -> PullRequest:
        change = {"body": body, **({"state": "open"} if reopen else {})}
        return parse_pull_request(self._send("PATCH", self._url(f"pulls/{number}"), change))

    def validation_runs(self, head_sha: str, workflow: str = VALIDATE_WORKFLOW) -> list[ValidationRun]:
        """The hub's pull-request runs of ``workflow`` for ``head_sha``, oldest first."""
        payload, _raw = self.http.get(
            self._url(f"actions/workflows/{workflow}/runs"), {"head_sha": head_sha, "event": "pull_request", "per_page": PER_PAGE}
        )
        return sorted((r for r in parse_validation_runs(payload) if r.head_sha == head_sha), key=lambda r: (r.created_at, r.id))

    def run_report(self, run_id: int) -> str:
        """The Markdown report a validation run uploaded (empty when it uploaded none)."""
        payload, _raw = self.http.get(self._url(f"actions/runs/{run_id}/artifacts"), {"per_page": PER_PAGE})
        artifacts = payload.get("artifacts") if isinstance(payload, Mapping) else None
        found = [a for a in artifacts or [] if isinstance(a, Mapping) and a.get("name") == REPORT_ARTIFACT and not a.get("expired")]
        url = str(found[0].get("archive_download_url") or "") if found else ""
        if not url:
            return ""
        http = self.http
        _type, data = get_bytes(http.client, url, headers=http.headers, retries=http.retries, backoff=http.backoff, sleep=http.sleep)
        return report_from_zip(data)

    def pages_url(self) -> str:
        """Where the hub's site is published (GitHub Pages), else its repository's homepage."""
        try:
            payload, _raw = self.http.get(self._url("pages"))
            url = payload.get("html_url") if isinstance(payload, Mapping) else None
        except FetchError as exc:
            if exc.status != 404:
                raise
            url = None
        if not url:
            payload, _raw = self.http.get(self._api(f"repos/{self.repo}"))
            url = payload.get("homepage") if isinstance(payload, Mapping) else None
        if not isinstance(url, str) or not url.startswith(("https://", "http://")):
            raise ParseError(f"{self.repo} publishes no site (no GitHub Pages, no homepage): give --site URL")
        return url
