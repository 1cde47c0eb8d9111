"""Run every check over a set of changed files and gather one Report.

Two entry points share the same per-file checks:
- ``validate_files``: files in a working tree (what a forecaster runs before opening a PR);
- ``validate_pr``: the files a pull request changed between ``base`` and ``head``, read from git.
  Rounds and existing metadata (who may submit) are read at ``base``; the submitted files at
  ``head``. ``at`` is the time the PR is judged at: the workflow passes the creation time GitHub
  reports for its own run, the same time the receipts ledger records for this head, so a re-run
  gives the same verdict. Files are judged one by one: a forecast or bet file whose exact bytes a
  receipt attests earlier (``attested``, from ``store.receipts``) counts at that earlier time, so a
  later push that leaves it unchanged ("Update branch", a rebase, a file added for the next round)
  does not make it late, while a file changed after the due time is judged at the new push.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Protocol

import pandas as pd
import yaml

from ..arena.cohorts import Books
from ..arena.gather import books_for
from ..codes import problem
from ..config import ScoringSettings
from ..errors import ConfigError, Problem
from ..models import DEFAULT_OWN
from ..store import files, git, receipts
from ..store.files import load_settings, own_prefix_of
from ..store.forecast_file import MAX_FORECAST_BYTES, parse_forecast
from ..store.hub import Hub
from ..timeutil import format_ts, is_iso_date, parse_ts
from . import bets as bet_checks
from . import commit_hash, commitment, deadline, maintainer, paths, policy, reveals
from .content import RoundSet, check_content, check_question_set, describe_missing, missing_units, round_set
from .oracle import check_oracle_forecast
from .report import LATE, Report

MAX_FILES = 100  # files a pull request may change; more are refused unread (a local run has no cap)


class Tree(Protocol):
    def entry(self, path: str) -> tuple[str, int] | None: ...
    def read(self, path: str) -> bytes: ...
    def names(self, folder: str, kind: str = "file") -> list[str]: ...


class DiskTree:
    """Files in a working tree, addressed by their path relative to ``root``."""

    def __init__(self, root: Path):
        self.root = root

    def entry(self, path: str) -> tuple[str, int] | None:
        full = self.root / path
        if any((self.root / part).is_symlink() for part in _prefixes(path)[2:]):  # the file, or its round folder
            return "link", 0
        if full.is_file():
            return "file", full.stat().st_size
        return ("dir", 0) if full.exists() else None

    def read(self, path: str) -> bytes:
        return files.read_bytes(self.root / path)

    def names(self, folder: str, kind: str = "file") -> list[str]:
        """The plain files (``kind="dir"``: the folders) directly in ``folder``, symbolic links left out."""
        full = self.root / folder
        if not full.is_dir() or full.is_symlink():
            return []
        test = Path.is_dir if kind == "dir" else Path.is_file
        return sorted(c.name for c in full.iterdir() if not c.is_symlink() and test(c))


def _prefixes(path: str) -> list[str]:
    """``a/b/c`` → ``a``, ``a/b``, ``a/b/c``."""
    parts = path.split("/")
    return ["/".join(parts[:i]) for i in range(1, len(parts) + 1)]


def _read(tree: Tree, path: str) -> bytes | None:
    entry = tree.entry(path)
    return tree.read(path) if entry and entry[0] == "file" else None


class _Run:
    """The state of one validation: the trees, the time, and the rounds read so far."""

    def __init__(
        self, head: Tree, base: Tree, at: datetime, receipts: pd.DataFrame | None = None, line: Callable[[str], float | None] = lambda _model: None
    ):
        self.head, self.base, self.at, self.receipts = head, base, at, receipts
        self.line = line  # model → the hub's imputation line (``missing_line``); None: not applied (the hub's own files)
        self.rounds: dict[str, RoundSet | None] = {}
        self.hub_maintainers: tuple[str, ...] = ()
        self.author = ""
        self.problems: list[Problem] = []
        self.notes: set[str] = set()
        self.books_of: Callable[[str, str], Books] | None = None  # what a model carries into a round of its cohort
        self.hubs: list[str] = [""]  # the hub identities a commitment may name (``reveals.hub_ids``)
        self.blobs: reveals.BlobReader | None = None  # the repository's blobs, for the commitment that counts
        self.own = DEFAULT_OWN  # the hub's [hub] own_prefix: its own forecasters' team prefix (``store.files.own_prefix_of``)

    def books(self, target: paths.Target) -> Books | None:
        if target.kind != paths.BETS or self.books_of is None or target.due is None or target.model is None:
            return None
        return self.books_of(target.due, target.model)

    def round(self, due: str) -> RoundSet | None:
        """The round due on ``due`` as published at base (None when it is not), noted in the report."""
        rnd = self.published(due)
        if rnd is not None:
            self.notes.add(policy.round_note(rnd, self.at))
        return rnd

    def published(self, due: str) -> RoundSet | None:
        if due not in self.rounds:
            data = _read(self.base, paths.round_path(due))
            sets = paths.round_path(due).replace("questions.csv", "question_sets.csv")
            self.rounds[due] = round_set(data, due, paths.round_path(due), _read(self.base, sets), sets) if data is not None else None
        return self.rounds[due]

    def open_rounds(self) -> list[str]:
        """The due dates of the rounds open at ``at`` (published at base), for a file naming another."""
        later = [d for d in self.base.names(paths.ROUNDS_DIR, "dir") if is_iso_date(d) and d >= format_ts(self.at)[:10]]
        return [d for d in later if (rnd := self.published(d)) is not None and self.at < parse_ts(rnd.due_ts)]

    def forecast(self, target: paths.Target, status: str) -> None:
        """A round's file (forecast, bets, commitment or salt): open rounds as they are, past ones by their seal."""
        assert target.due is not None  # callers pass only well-formed targets, and classify sets their due
        rnd = self.round(target.due)
        base = lambda path: _read(self.base, path)  # noqa: E731
        reveal_by = deadline.reveal_deadline(base, target.due)
        if rnd is None or self.at < parse_ts(rnd.due_ts):
            self.problems.extend(policy.check_timing(target, status, rnd, self.at, lambda: self.open_rounds()))
            self.problems.extend(deadline.before_due(target, reveal_by is not None, self.own) if rnd is not None else [])
            self.problems.extend(self._copied(target) if status not in ("D", "R") else [])
        elif reveal_by is not None and deadline.is_reveal(target, self.own):
            self.problems.extend(self._reveal(target, status, reveal_by, rnd.due_ts))
        else:
            data = _read(self.head, target.path) if status not in ("D", "R") else None
            self.problems.extend(
                deadline.after_due(
                    target,
                    status,
                    git.blob_id(data) if data is not None else None,
                    rnd.due_ts,
                    self.at,
                    deadline.seal_rows(base, target.due),
                    self.receipts,
                )
            )
        if status not in ("D", "R"):
            self.problems.extend(self._forecast_file(target, rnd))

    def _reveal(self, target: paths.Target, status: str, reveal_by: str, due_ts: str) -> list[Problem]:
        """A commit–reveal round's forecast file or salt after the due time, against the commitment the seal counts."""
        assert target.due is not None and target.model is not None  # a well-formed path
        closed = deadline.window_closed(target, reveal_by, self.at)
        if target.kind == paths.COMMITMENT or closed:  # the salt: its format is checked as a file, the hash with its forecast
            return closed
        data = _read(self.head, target.path) if status not in ("D", "R") else None
        if data is None:
            return [problem("past-round-changed", target.path, None, None, "a revealed file cannot be deleted or renamed")]
        base = lambda path: _read(self.base, path)  # noqa: E731
        sealed = deadline.seal_rows(base, target.due)
        committed, missing = reveals.counted_commitment(base, self.blobs, target.due, target.model, due_ts, sealed, self.receipts)
        bindings = [commit_hash.Binding(hub, target.due, target.model) for hub in self.hubs]
        salt = _read(self.head, paths.commitment_path(target.due, target.model, "salt"))
        return reveals.check_reveal(salt, data, committed, missing, bindings, target.path)

    def _copied(self, target: paths.Target) -> list[Problem]:
        """A commitment that is another model's of the round, as the default branch holds them."""
        if target.kind != paths.COMMITMENT or target.fmt != "sha256" or target.due is None:
            return []
        folder, own = f"data/commitments/{target.due}", target.path.rpartition("/")[2]
        names = [n for n in self.base.names(folder) if n.endswith(".sha256") and n != own]
        return reveals.copied(_read(self.head, target.path), target.path, {n: _read(self.base, f"{folder}/{n}") for n in names})

    def _forecast_file(self, target: paths.Target, rnd: RoundSet | None) -> list[Problem]:
        entry = self.head.entry(target.path)
        if entry is None:
            return [problem("file-not-found", target.path, None, None, "the file does not exist")]
        if entry[0] != "file":
            return [problem("not-a-regular-file", target.path, None, None, f"the path is a {entry[0]}, not a plain file")]
        if entry[1] > MAX_FORECAST_BYTES:
            return [problem("file-too-large", target.path, None, None, f"the file has {entry[1]:,} bytes; the cap is {MAX_FORECAST_BYTES:,}")]
        if target.kind == paths.ORACLE:
            assert target.question_set is not None  # classify sets it on every well-formed oracle path
            questions = paths.oracle_questions_path(target.question_set)
            return check_oracle_forecast(self.head.read(target.path), target.path, _read(self.base, questions), questions)
        return dated_file_problems(
            target, self.head.read(target.path), rnd, self.notes.add, self._twin(target), self.books(target), self.line(target.model or "")
        )

    def _twin(self, target: paths.Target) -> list[Problem]:
        if target.kind != paths.FORECAST:
            return []
        assert target.due is not None and target.model is not None  # a well-formed forecast path
        other = "json" if target.fmt == "csv" else "csv"
        if self.head.entry(paths.forecast_path(target.due, target.model, other)) is None:
            return []
        return [
            problem("duplicate-submission", target.path, None, None, f"{target.model} also has a .{other} file for round {target.due}; keep only one")
        ]

    def oracle(self, target: paths.Target, status: str) -> None:
        """An oracle forecast file: no deadline (its questions have resolved); checked against its set at base."""
        if status != "D":
            self.problems.extend(self._forecast_file(target, None))

    def metadata(self, model: str) -> tuple[str, ...] | None:
        path = paths.model_path(model)
        entry = self.head.entry(path)
        if entry and entry[0] == "file" and entry[1] > policy.MAX_METADATA_BYTES:  # never read a huge YAML
            self.problems.append(
                problem("file-too-large", path, None, None, f"the file has {entry[1]:,} bytes; the cap is {policy.MAX_METADATA_BYTES:,}")
            )
            return None
        maintainers, found = policy.check_metadata(model, path, _read(self.head, path))
        self.problems.extend(found)
        return maintainers


def dated_file_problems(
    target: paths.Target,
    data: bytes,
    rnd: RoundSet | None,
    note=lambda _text: None,
    extra: list[Problem] | None = None,
    carried: Books | None = None,
    line: float | None = None,
) -> list[Problem]:
    """Every problem of a round's submitted file (forecast, bets, commitment or salt) from its bytes:
    what the pull-request check reports and what the seal checks the sealed bytes with. ``note``
    takes a line about coverage; ``extra``: problems found elsewhere to keep with the file's;
    ``carried``: what a bet file's model carries into the round (``arena.gather.books_for``); ``line``:
    the hub's imputation line, applied by the pull-request check only (the seal scores a file beyond
    it, unranked, as the leaderboard's rule says)."""
    if target.kind == paths.BETS:
        return bet_checks.check_bet_file(data, target.path, rnd, carried)
    if target.kind == paths.COMMITMENT:
        return (commitment.check_salt if target.fmt == "salt" else commitment.check_commitment)(data, target.path)
    assert target.fmt is not None and target.due is not None  # classify sets them on every well-formed forecast path
    parsed = parse_forecast(data, target.path, target.fmt)
    found = parsed.problems + (check_content(parsed, rnd, line) if parsed.columns else [])
    missing = missing_units(parsed, rnd)
    warned = any(p.code in ("low-coverage", "too-many-missing") for p in found)  # the problem names them
    if missing and parsed.rows and rnd is not None and not warned:  # below 100%: a note names them
        total = len(rnd.units_of(parsed.question_set))
        note(f"{target.path} has no row for {len(missing)} of the round's {total} questions × resolution dates: {describe_missing(missing)}")
    return found + parsed.keep(check_question_set(parsed, rnd, target.due) + (extra or [])) + parsed.summary()


def books_reader(root: Path, at: datetime) -> Callable[[str, str], Books]:
    """What a model carries into a round of its cohort, from the hub at ``root`` as it stood at ``at``."""

    def books(due: str, model: str) -> Books:
        return books_for(root, at, parse_ts(due), model)[0]

    return books


def _classify_all(run: _Run, rel_paths: list[str]) -> list[paths.Target]:
    targets = []
    for rel in rel_paths:
        target, found = paths.classify(rel)
        run.problems.extend(found)
        targets.append(target)
    return targets


def too_many_files(rel_paths: list[str]) -> list[Problem]:
    """One error when a pull request changes more than MAX_FILES files: none of them is then read."""
    if len(rel_paths) <= MAX_FILES:
        return []
    return [
        problem(
            "too-many-files",
            rel_paths[MAX_FILES],
            None,
            None,
            f"{len(rel_paths):,} files are changed; the cap is {MAX_FILES}, so none was checked (a submission changes one model's files: split it)",
        )
    ]


def _report(run: _Run, files: list[str]) -> Report:
    late = any(p.code in LATE for p in run.problems)  # then the report names the rounds still open
    return Report(format_ts(run.at), tuple(files), tuple(run.problems), tuple(run.notes), tuple(run.open_rounds()) if late else ())


def validate_files(root: Path, files: list[Path], at: datetime, hub_own: bool = False) -> Report:
    """Check files of the working tree at ``root`` as if they were being submitted at ``at``; with
    ``hub_own``, files the hub's own forecasters wrote (the names only they may use are theirs)."""
    tree = DiskTree(root)
    run = _Run(tree, tree, at, receipts.load_receipts(Hub(root)))
    run.own = own_prefix_of(root)
    if not hub_own:
        run.line = missing_line(root)
    run.books_of = books_reader(root, at)
    run.hubs, run.blobs = reveals.hub_ids(root), reveals.blob_reader(root)
    rel_paths = [_relative(root, f) for f in files]
    outside = [p for p in rel_paths if Path(p).is_absolute()]
    run.problems.extend(problem("outside-submission-area", p, None, None, f"the file is not inside the hub at {root}") for p in outside)
    targets = _classify_all(run, [p for p in rel_paths if p not in outside])
    for target in targets:
        if target.kind in paths.DATED and target.model:
            run.forecast(target, "A")
        elif target.kind == paths.ORACLE and target.model:
            run.oracle(target, "A")
        if not hub_own:  # what the pull-request check refuses in any submission
            run.problems.extend(policy.check_reserved_prefix(target, run.own))
            if target.kind == paths.MODEL and target.model:
                run.problems.extend(policy.check_reserved_kind(target, None, _capped_yaml(tree, target.path)))
    for model in sorted({t.model for t in targets if t.model}):
        run.metadata(model)
    if any(t.model for t in targets) and not hub_own:  # what only the pull request can tell, said, not passed silently
        run.problems.append(
            problem(
                "author-unchecked",
                min(t.path for t in targets if t.model),
                None,
                None,
                "files on disk name no author: the pull request's check also requires that you are in the "
                "model's maintainers and, for a new model, that its team prefix is free or yours",
            )
        )
    return _report(run, rel_paths)


def missing_line(root: Path) -> Callable[[str], float | None]:
    """model → the hub's imputation line (``[scoring] max_imputed_share``; None for a model of
    ``imputation_exempt``): a submitted file leaving more of its round without a probability is refused.
    A hub.toml that does not load gives the defaults (``prescient check-config`` reports it)."""
    try:
        scoring = load_settings(root).scoring
    except ConfigError:
        scoring = ScoringSettings()
    exempt = set(scoring.imputation_exempt)
    return lambda model: None if model in exempt or model.partition(".")[0] in exempt else scoring.max_imputed_share


def _relative(root: Path, file: Path) -> str:
    full = Path(os.path.abspath(file))
    try:
        return full.relative_to(Path(os.path.abspath(root))).as_posix()
    except ValueError:
        return str(file)


def validate_pr(
    repo: Path, base: str, head: str, author: str, at: datetime, receipts_frame: pd.DataFrame | None = None, hub_maintainers: tuple[str, ...] = ()
) -> Report:
    """Check the changes of a pull request from ``base`` to ``head`` pushed by ``author`` at ``at``.
    ``receipts_frame``: the receipts ledger, from which a past round's version that counts is known
    before its seal; ``hub_maintainers``: who may change a model's scoring-relevant metadata."""
    base_sha, head_sha = git.resolve_commit(repo, base), git.resolve_commit(repo, head)
    head_tree, base_tree = git.GitTree(repo, head_sha), git.GitTree(repo, base_sha)
    run = _Run(head_tree, base_tree, at, receipts_frame, missing_line(repo))
    run.hub_maintainers, run.author, run.own = hub_maintainers, author, own_prefix_of(repo)
    run.books_of = books_reader(repo, at)  # the hub's ledgers as checked out (the workflow checks out the base)
    run.hubs, run.blobs = reveals.hub_ids(repo), reveals.blob_reader(repo)
    changes = git.changed_files(repo, base_sha, head_sha)
    steps = [(c.status if c.status != "R" else "A", c.path) for c in changes]
    steps += [("R", c.old_path) for c in changes if c.status == "R" and c.old_path]
    run.problems.extend(too_many_files([p for _, p in steps]))
    if run.problems:
        return _report(run, [p for _, p in steps[:MAX_FILES]])
    targets = _classify_all(run, [p for _, p in steps])
    for (status, _), target in zip(steps, targets, strict=True):
        _pr_target(run, target, status)
    run.problems.extend(policy.check_one_model(targets))
    metadata_only = {t.model for t in targets if t.kind == paths.MODEL} - {t.model for t in targets if t.kind != paths.MODEL}
    for model in sorted({t.model for t in targets if t.model}):
        if model in metadata_only and policy.is_maintainer(author, hub_maintainers):
            run.metadata(model)  # a hub maintainer may edit any model's metadata (kind, saw_crowd, ...), nothing else
            continue
        _pr_author(run, model, author)
    run.problems.extend(_pr_names(run, base_tree, [s for s, _ in steps], targets, author))
    return _report(run, [p for _, p in steps])


def _pr_target(run: _Run, target: paths.Target, status: str) -> None:
    if target.kind in paths.DATED and target.model:
        run.forecast(target, status)
    elif target.kind == paths.ORACLE and target.model:
        run.oracle(target, status)
    elif target.kind == paths.MAINTAINER:
        run.problems.extend(
            maintainer.check_change(
                _read(run.base, target.path),
                _read(run.head, target.path) if status != "D" else None,
                maintainer.known_in(run.base, run.hub_maintainers),
                run.author,
            )
        )
    elif target.kind == paths.MODEL and target.model:
        run.problems.extend(policy.check_metadata_change(target, status))
        if status == "M":
            run.problems.extend(
                policy.check_scoring_fields(
                    target, _capped_yaml(run.base, target.path), _capped_yaml(run.head, target.path), run.author, run.hub_maintainers
                )
            )


def _pr_author(run: _Run, model: str, author: str) -> None:
    """Who may submit is decided by the metadata at base; a new model's by its metadata at head."""
    path = paths.model_path(model)
    current = run.metadata(model)
    base_data = _read(run.base, path)
    maintainers = policy.maintainers_of(_safe_yaml(base_data)) if base_data is not None else current
    if maintainers is not None:
        run.problems.extend(policy.check_author(model, path, maintainers, author, new=base_data is None))


def _pr_names(run: _Run, base: git.GitTree, statuses: list[str], targets: list[paths.Target], author: str) -> list[Problem]:
    """Names no pull request may take: the hub's prefix and kinds, and another team's prefix."""
    found: list[Problem] = []
    for status, target in zip(statuses, targets, strict=True):
        found += policy.check_reserved_prefix(target, run.own)
        if target.kind == paths.MODEL and target.model and status in ("A", "M"):
            found += policy.check_reserved_kind(target, _capped_yaml(run.base, target.path), _capped_yaml(run.head, target.path))
        if target.kind == paths.MODEL and target.model and status == "A":
            found += policy.check_team_prefix(target, author, _team_models(base, target.model), run.own)
    return found


def _team_models(base: git.GitTree, model: str) -> dict[str, tuple[str, ...]]:
    """Each model of ``model``'s team at base, with its maintainers."""
    team = model.partition(".")[0]
    stems = [name.removesuffix(".yml") for name in base.names(paths.MODELS_DIR) if name.endswith(".yml")]
    return {
        stem: policy.maintainers_of(_capped_yaml(base, paths.model_path(stem))) for stem in stems if stem.partition(".")[0] == team and stem != model
    }


def _capped_yaml(tree: Tree, path: str) -> object:
    """The metadata at ``path`` as plain data, or None (absent, too large, or not YAML)."""
    entry = tree.entry(path)
    if not entry or entry[0] != "file" or entry[1] > policy.MAX_METADATA_BYTES:
        return None
    return _safe_yaml(tree.read(path))


def _safe_yaml(data: bytes) -> object:
    try:
        return policy.load_metadata(data)
    except (yaml.YAMLError, UnicodeDecodeError, RecursionError):
        return None
