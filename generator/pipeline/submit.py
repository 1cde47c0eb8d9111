"""``prescient submit``: a team's forecast files to the hub, by pull request, in one command.

1. **Checked here first** (``check_locally``): the files, and the model's metadata when this folder
   holds it, through the validator the pull request's check runs (``validate_files``); an error stops
   everything before anything is sent.
2. **The model's metadata**, on its first submission, written from the flags (``MetadataFlags``) into
   ``data/models/<team>.<model>.yml`` with the token's login as maintainer, and checked as above.
3. **One branch per (round, model)** in the token's fork (made, or reused), ``prescient/<due>/<model>``:
   a new version is a new commit on it (``store.gitpush``), never a second pull request; the same bytes
   again push nothing.
4. **One pull request per branch**, opened or updated (reopened if it was closed unmerged), whose body
   names the round, the model and each file's sha256.
5. **The verdict** (``wait``): the hub's validation run for that exact head commit, polled until it
   completes: passed or refused (with the report it uploaded), its creation time (the time the receipts
   and the seal attest for these bytes) and its link.

Network through ``sources.github_submit`` (the one HTTP client), git through ``store.gitpush``.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path

from ..codes import problem
from ..errors import ConfigError, PrescientError, Problem, SchemaError, SubmissionInvalid
from ..models import ModelMeta
from ..sources.github_submit import PullRequest, Repo, Submitter, ValidationRun
from ..store.atomic import write_bytes_atomic
from ..store.files import load_model
from ..store.gitpush import Identity, Scratch
from ..submissions import Report, validate_files
from ..submissions import paths as submission_paths

PASSED, REFUSED, NO_VERDICT = "passed", "refused", "no verdict"
BRANCH_PREFIX = "prescient/"
FORK_WAIT_TRIES = 10  # a fork GitHub has just made takes a moment to answer git


@dataclass(frozen=True)
class MetadataFlags:
    """``--name --organization --kind --release-date``: the model's metadata on its first submission."""

    name: str = ""
    organization: str = ""
    kind: str = ""
    release_date: str = ""

    def given(self) -> bool:
        return any((self.name, self.organization, self.kind, self.release_date))

    def meta(self, model: str, login: str) -> ModelMeta:
        return ModelMeta(model, self.name, self.organization, self.kind, release_date=self.release_date, maintainers=(login,))


@dataclass(frozen=True)
class Planned:
    """One pull request's worth: a model's files for one round."""

    due: str
    model: str
    paths: tuple[str, ...]  # the forecast files, relative to the hub's root

    @property
    def branch(self) -> str:
        return f"{BRANCH_PREFIX}{self.due}/{self.model}"


@dataclass
class Outcome:
    planned: Planned
    sha256: dict[str, str]
    head: str = ""
    pushed: bool = False
    pull: PullRequest | None = None
    opened: bool = False  # a new pull request (else: the one of this branch, updated)
    run: ValidationRun | None = None
    verdict: str = ""
    report: str = ""
    notes: list[str] = field(default_factory=list)


def plan(root: Path, files: list[Path], model: str | None) -> list[Planned]:
    """The files grouped by (round, model); a file that is not a round's forecast file of the hub at
    ``root`` (or of another model than ``--model``) is refused here, with the validator's codes."""
    groups: dict[tuple[str, str], list[str]] = {}
    found: list[Problem] = []
    for file in files:
        try:
            rel = file.resolve().relative_to(root.resolve()).as_posix()
        except ValueError:
            found.append(problem("outside-submission-area", str(file), None, None, f"the file is not inside the hub at {root}"))
            continue
        target, problems = submission_paths.classify(rel)
        found += problems
        if target.kind != submission_paths.FORECAST or not (target.model and target.due):
            if not problems:
                found.append(
                    problem("outside-submission-area", rel, None, None, "submit sends forecast files: data/forecasts/<due>/<team>.<model>.csv")
                )
            continue
        if model and target.model != model:
            raise ConfigError(f"{rel} is {target.model}'s forecast file, not --model {model}'s; nothing was sent")
        groups.setdefault((target.due, target.model), []).append(rel)
    if found:
        raise SubmissionInvalid("nothing was sent: the files are not where a submission's files go", found)
    return [Planned(due, name, tuple(sorted(paths))) for (due, name), paths in sorted(groups.items())]


def check_locally(root: Path, planned: list[Planned], at: datetime, extra: tuple[str, ...] = ()) -> Report:
    """The validator's report on the files (and ``extra`` paths, the metadata written here). Metadata
    this folder does not hold is left to the hub's copy (``missing-model-metadata`` is checked once the
    hub's tree is known)."""
    paths = [root / p for item in planned for p in item.paths] + [root / p for p in extra]
    report = validate_files(root, paths, at)
    local = {item.model for item in planned if (root / submission_paths.model_path(item.model)).is_file()}
    kept = [p for p in report.problems if not (p.code == "missing-model-metadata" and _model_of(p.file) not in local)]
    return replace(report, problems=tuple(kept))


def _model_of(path: str) -> str:
    return Path(path).name.removesuffix(".yml")


def write_metadata(root: Path, planned: list[Planned], flags: MetadataFlags, login: str) -> tuple[list[str], list[str]]:
    """``data/models/<model>.yml`` from the flags, for each model whose file this folder lacks: (paths written, notes)."""
    written, notes = [], []
    for model in sorted({p.model for p in planned}):
        path = submission_paths.model_path(model)
        if (root / path).is_file():
            notes.append(f"{path} is here: it is used as it is, and the metadata flags are not")
            continue
        write_bytes_atomic(root / path, flags.meta(model, login).to_yaml())
        written.append(path)
    return written, notes


def claim_metadata(root: Path, models: list[str], login: str) -> tuple[list[str], list[Problem]]:
    """The metadata of each model new to the hub, here in ``data/models/``, as the token's user sends it:
    one that lists no maintainer (``forecast llm`` writes it so) gets ``login`` as its maintainer, written
    back; one that lists others but not ``login`` is refused here, as the hub's check would refuse it."""
    written, found = [], []
    for model in models:
        path = submission_paths.model_path(model)
        try:
            meta = load_model(root / path, path)
        except SchemaError as exc:
            found += exc.problems
            continue
        if not meta.maintainers:
            write_bytes_atomic(root / path, replace(meta, maintainers=(login,)).to_yaml())
            written.append(path)
        elif login.lower() not in (m.lower() for m in meta.maintainers):
            found.append(
                problem(
                    "not-a-maintainer",
                    path,
                    None,
                    "maintainers",
                    f"{login} (the token's account, the pull request's author) is not among its maintainers ({', '.join(meta.maintainers)}): "
                    "the hub's check would refuse it",
                )
            )
    return written, found


def sha256_of(root: Path, planned: Planned) -> dict[str, str]:
    return {p: hashlib.sha256((root / p).read_bytes()).hexdigest() for p in planned.paths}


def pull_title(planned: Planned) -> str:
    return f"Forecasts of {planned.model} for the round due {planned.due}"


def pull_body(planned: Planned, sha256: dict[str, str], metadata: str | None) -> str:
    lines = [
        f"Forecasts of **{planned.model}** for the round due **{planned.due}** ({planned.due}T00:00:00Z), sent with `prescient submit`.",
        "",
        f"- round: `{planned.due}`",
        f"- model: `{planned.model}`",
        *(f"- file: `{path}` sha256 `{digest}`" for path, digest in sorted(sha256.items())),
        *([f"- model metadata: `{metadata}` (this model's first submission)"] if metadata else []),
        "",
        "A new version is a new commit on this branch: the validation run of the head commit is the check that counts.",
    ]
    return "\n".join(lines) + "\n"


class Sender:
    """What one ``prescient submit`` sends: the hub's repository, the token's fork, the scratch git."""

    def __init__(self, github: Submitter, scratch: Scratch, login: str, sleep: Callable[[float], None] = time.sleep):
        self.github, self.scratch, self.login, self.sleep = github, scratch, login, sleep
        self.hub: Repo | None = None
        self.fork: Repo | None = None
        self._hub_head = ""
        self._synced = False

    def look(self) -> None:
        """The hub's repository and its default branch's tree (read only: nothing is sent yet)."""
        self.hub = self.github.repository()
        self._hub_head = self.scratch.fetch(self.hub.clone_url, self.hub.default_branch)

    def prepare(self) -> None:
        """The token's fork, made or reused, once git can read it."""
        self.fork = self.github.fork()
        for attempt in range(FORK_WAIT_TRIES):
            try:
                if self.scratch.remote_head(self.fork.clone_url, self.fork.default_branch):
                    break
            except PrescientError:
                if attempt == FORK_WAIT_TRIES - 1:
                    raise
            self.sleep(min(2.0 * (attempt + 1), 10.0))

    def hub_has(self, path: str, data: bytes | None = None) -> bool:
        """Whether the hub's default branch holds ``path`` (with these bytes, when given)."""
        blob = self.scratch.entry(self._hub_head, path)
        return blob is not None and (data is None or blob == self.scratch.blob_id(data))

    def send(self, root: Path, planned: Planned, outcome: Outcome) -> None:
        assert self.hub is not None and self.fork is not None
        files = {p: (root / p).read_bytes() for p in planned.paths}
        metadata = submission_paths.model_path(planned.model)
        if not self.hub_has(metadata):
            files[metadata] = (root / metadata).read_bytes()
        parent = self._parent(planned.branch)
        who = Identity(self.login, f"{self.login}@users.noreply.github.com")
        commit = self.scratch.commit(
            parent, files, f"{pull_title(planned)}\n\nsha256 " + ", ".join(f"{p} {d}" for p, d in outcome.sha256.items()), who
        )
        if commit is None:
            outcome.head = parent
            outcome.notes.append(f"the branch {planned.branch} already holds these bytes: nothing pushed")
        else:
            self.scratch.push(self.fork.clone_url, commit, planned.branch)
            outcome.head, outcome.pushed = commit, True
        body = pull_body(planned, outcome.sha256, metadata if metadata in files else None)
        outcome.pull, outcome.opened = self._pull(planned, body)

    def _parent(self, branch: str) -> str:
        """The fork's branch when it exists (a new version goes on top), else the fork's default branch,
        brought up to the hub's first (GitHub's "Sync fork")."""
        assert self.hub is not None and self.fork is not None
        if self.scratch.remote_head(self.fork.clone_url, branch):
            return self.scratch.fetch(self.fork.clone_url, branch)
        if not self._synced:
            self._synced = self.github.sync_fork(self.fork, self.fork.default_branch)
        return self.scratch.fetch(self.fork.clone_url, self.fork.default_branch)

    def _pull(self, planned: Planned, body: str) -> tuple[PullRequest, bool]:
        assert self.hub is not None and self.fork is not None
        pulls = self.github.pulls_from(self.fork.owner, planned.branch)
        current = next((p for p in pulls if p.state == "open"), None) or next((p for p in pulls if not p.merged), None)
        if current is not None:
            return self.github.update_pull(current.number, body, reopen=current.state != "open"), False
        return self.github.open_pull(self.fork.owner, planned.branch, self.hub.default_branch, pull_title(planned), body), True


def wait(
    github: Submitter,
    outcomes: list[Outcome],
    timeout: float,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> None:
    """Poll each outcome's validation run (its head commit's first) until it completes or ``timeout``
    seconds pass; set its verdict and, for a refusal, the report the run uploaded."""
    end, pause = clock() + timeout, 5.0
    for outcome in outcomes:
        while True:
            runs = github.validation_runs(outcome.head)
            run = runs[0] if runs else None
            outcome.run = run
            if run is not None and run.status == "completed":
                outcome.verdict = PASSED if run.conclusion == "success" else REFUSED if run.conclusion == "failure" else NO_VERDICT
                if outcome.verdict == REFUSED:
                    outcome.report = github.run_report(run.id)
                elif outcome.verdict == NO_VERDICT:
                    outcome.notes.append(f"the validation run ended {run.conclusion or 'without a conclusion'}: push again, or ask the maintainers")
                break
            if clock() >= end:
                outcome.verdict = NO_VERDICT
                outcome.notes.append(_unfinished(run, timeout))
                break
            sleep(min(pause, max(0.0, end - clock())))
            pause = min(pause * 1.5, 30.0)


def _unfinished(run: ValidationRun | None, timeout: float) -> str:
    if run is None:
        return f"no validation run for this head commit within {timeout:g} s (GitHub may be slow; `prescient submit --wait` again asks once more)"
    if run.status in ("action_required", "waiting"):
        return f"the validation run {run.id} waits for a maintainer to approve it (a first submission from a fork): {run.html_url}"
    return f"the validation run {run.id} did not finish within {timeout:g} s ({run.status}): {run.html_url}"
