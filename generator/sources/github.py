"""The GitHub REST API, for the times GitHub itself attests: when a pull request's workflow run was
created for its head commit (the receipts; see ``store.receipts``).

Reads, each a ``fetch_*`` through ``Http`` and a pure ``parse_*``:
- ``GET /repos/<repo>/actions/runs/<id>``: one run (its head commit, creation time, event,
  conclusion and the pull requests it was for; for a fork's pull request that list is empty);
- ``GET /repos/<repo>/actions/workflows/validate.yml/runs?event=pull_request&created=>=<date>``:
  every validation run created since a date, page by page: what the nightly's walk records;
- ``GET /repos/<repo>/pulls/<number>`` and ``GET /repos/<repo>/pulls?state=all&head=<owner>:<branch>``:
  a pull request's author (whose right to submit a file is checked), also for a fork's run;
- ``GET /repos/<repo>/pulls?state=open``: the open pull requests, page by page;
- ``GET /repos/<repo>/actions/runs?head_sha=<sha>&event=pull_request``: the runs created for one
  head commit, whose earliest creation time attests it.

Only fields GitHub sets are used: ``created_at`` is the run's creation time, stamped by GitHub when
the push (or the pull request's opening) triggered it, and ``actor`` the account whose push (or opening)
that was; nothing a submitter writes reaches either. A run is attributed to its ``actor``, never to a
pull request found by its branch's name (anyone may open a pull request from anyone's public branch).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..timeutil import format_ts, parse_ts
from ._util import ParseError, require
from .http import Http

API_URL = "https://api.github.com"
PER_PAGE = 100
MAX_PAGES = 50  # 5,000 open pull requests: far beyond any hub; the catch-up stops there
PENDING = "pending"
VALIDATE_WORKFLOW = "validate.yml"  # the workflow whose pull-request runs attest a push


@dataclass(frozen=True)
class Run:
    id: int
    head_sha: str
    created_at: str  # ISO UTC with Z
    event: str
    verdict: str  # the conclusion, or "pending" while the run has none
    pulls: tuple[int, ...]  # the pull requests GitHub links the run to (empty for a fork's)
    head_owner: str = ""  # the login owning the head repository (a fork's owner), and its branch
    head_branch: str = ""
    actor: str = ""  # the account whose push (or opening of the pull request) made GitHub create the run


@dataclass(frozen=True)
class Pull:
    number: int
    head_sha: str
    author: str = ""


def _int(item: Mapping[str, Any], key: str) -> int:
    value = require(item, key)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ParseError(f"{key} is not an integer: {value!r}")
    return value


def _sha(value: Any, what: str) -> str:
    if not isinstance(value, str) or len(value) not in (40, 64) or any(c not in "0123456789abcdef" for c in value):
        raise ParseError(f"{what} is not a commit sha: {value!r}")
    return value


def parse_run(item: Any) -> Run:
    if not isinstance(item, Mapping):
        raise ParseError("a workflow run is not a JSON object")
    pulls = item.get("pull_requests") or []
    repo = item.get("head_repository")
    owner = repo.get("owner") if isinstance(repo, Mapping) else None
    actor = item.get("actor")
    return Run(
        id=_int(item, "id"),
        head_sha=_sha(item.get("head_sha"), "head_sha"),
        created_at=format_ts(parse_ts(str(require(item, "created_at")))),
        event=str(item.get("event") or ""),
        verdict=str(item.get("conclusion") or PENDING),
        pulls=tuple(_int(p, "number") for p in pulls if isinstance(p, Mapping)),
        head_owner=str(owner.get("login") or "") if isinstance(owner, Mapping) else "",
        head_branch=str(item.get("head_branch") or ""),
        actor=str(actor.get("login") or "") if isinstance(actor, Mapping) else "",
    )


def parse_runs(payload: Any) -> list[Run]:
    runs = payload.get("workflow_runs") if isinstance(payload, Mapping) else None
    if not isinstance(runs, list):
        raise ParseError("missing workflow_runs")
    return [parse_run(item) for item in runs]


def parse_pulls(payload: Any) -> list[Pull]:
    if not isinstance(payload, list):
        raise ParseError("the pull-request list is not a JSON array")
    out = []
    for item in payload:
        out.append(parse_pull(item))
    return out


def parse_pull(item: Any) -> Pull:
    head = item.get("head") if isinstance(item, Mapping) else None
    if not isinstance(head, Mapping):
        raise ParseError("a pull request has no head")
    user = item.get("user")
    author = user.get("login") if isinstance(user, Mapping) else ""
    return Pull(_int(item, "number"), _sha(head.get("sha"), "head.sha"), str(author or ""))


class GitHub:
    """One repository's API, through ``http`` (whose headers carry the token)."""

    def __init__(self, http: Http, repo: str, api_url: str = API_URL):
        self.http, self.repo, self.api_url = http, repo, api_url.rstrip("/")

    def _url(self, tail: str) -> str:
        return f"{self.api_url}/repos/{self.repo}/{tail}"

    def fetch_run(self, run_id: int) -> Run:
        payload, _raw = self.http.get(self._url(f"actions/runs/{run_id}"))
        return parse_run(payload)

    def fetch_open_pulls(self) -> list[Pull]:
        pulls: list[Pull] = []
        for page in range(1, MAX_PAGES + 1):
            payload, _raw = self.http.get(self._url("pulls"), {"state": "open", "per_page": PER_PAGE, "page": page})
            found = parse_pulls(payload)
            pulls += found
            if len(found) < PER_PAGE:
                break
        return pulls

    def fetch_validation_runs(self, since: str, workflow: str = VALIDATE_WORKFLOW) -> tuple[list[Run], bool]:
        """Every pull-request run of ``workflow`` created on or after the date ``since`` (YYYY-MM-DD),
        and whether that is all of them (False when the page cap stopped the listing)."""
        runs: list[Run] = []
        for page in range(1, MAX_PAGES + 1):
            payload, _raw = self.http.get(
                self._url(f"actions/workflows/{workflow}/runs"),
                {"event": "pull_request", "created": f">={since}", "per_page": PER_PAGE, "page": page},
            )
            found = parse_runs(payload)
            runs += found
            if len(found) < PER_PAGE:
                return runs, True
        return runs, False

    def fetch_pull(self, number: int) -> Pull:
        payload, _raw = self.http.get(self._url(f"pulls/{number}"))
        return parse_pull(payload)

    def fetch_pulls_from(self, owner: str, branch: str) -> list[Pull]:
        """The pull requests (open or closed) whose head is ``owner:branch``: a fork's run names none."""
        payload, _raw = self.http.get(self._url("pulls"), {"state": "all", "head": f"{owner}:{branch}", "per_page": PER_PAGE})
        return parse_pulls(payload)

    def fetch_runs_for(self, head_sha: str) -> list[Run]:
        """The pull-request runs created for ``head_sha`` (the first page, newest first, is enough:
        a head commit rarely has more than a handful, and the oldest one is what counts)."""
        payload, _raw = self.http.get(self._url("actions/runs"), {"head_sha": head_sha, "event": "pull_request", "per_page": PER_PAGE})
        return [r for r in parse_runs(payload) if r.head_sha == head_sha]


def headers(token: str | None) -> dict[str, str]:
    """The API's recommended headers, with the token when there is one."""
    out = {"Accept": "application/vnd.github+json", "X-GitHub-Api-Version": "2022-11-28"}
    if token:
        out["Authorization"] = f"Bearer {token}"
    return out
