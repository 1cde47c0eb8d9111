"""The seal: once a round's due time has passed, fix which exact bytes count for each model, for good.

``seal_stage`` runs in every nightly run before anything reads a past round's files (the hub's
after-due forecasters, the manifest, the scores):

1. each round past its due time that has no seal yet is sealed: for every model with a forecast,
   bet or commitment file, or a receipt of one, the last version attested before the due time
   (``submissions.sealing``) is checked as a pull request's file would be and recorded in
   ``data/seals/<YYYY>.csv`` with its evidence, then put in place: the file in ``data/`` becomes
   exactly the sealed bytes, and a file that does not count (an older or later version, an invalid
   last version, a file with no record before the due time) is removed. A round is sealed whole
   or not at all: its rows and its marker row are written in one atomic write, *before* its files,
   so a run stopped in between leaves a sealed round whose files step 3 of the next run puts right
   (the same rows, the same files as a run that was not stopped);
2. a commit–reveal round whose reveal window has closed gets its reveal rows: the revealed forecast
   counts when a version attested before the window's end (a receipt of its push, not its merge),
   with a salt, opens the sealed commitment; a sealed commitment nobody opens is scored as a missing
   forecast (a forecast file of no rows, every unit imputed, put in place by the hub);
3. every sealed round is held to its seal (``seal-enforced``): a file changed since is put back.

A round is left for the next run (``seal-deferred``) when the receipts could not be completed
(``receipts_complete`` false: GitHub's API did not answer) or when a sealed version's bytes are not in
the repository yet, in both cases only while the round is less than ``SEAL_GRACE`` past its due time:
after that it is sealed with the receipts recorded, and a version whose bytes are missing as
``unavailable``, nothing earlier counting in its place. No pull request can defer a seal: a run whose
head cannot be judged counts for nothing (``pipeline.receipts``).

Everything a seal reads was fixed by the due time: the receipts (each judged against the default branch
as it stood when its run was created), the round's question set, and, for the runs whose heads could
not be read, the model's maintainers as the default branch listed them at the due time.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pandas as pd

from ..arena.gather import books_for
from ..codes import OTHER_CODES
from ..config import HUB_FILE
from ..errors import PrescientError, Problem
from ..forecasters.baselines import after_due
from ..models import is_own
from ..schemas import FORECASTS, ROUND_REVEAL
from ..store import files, git, manifest, readers, receipts, seals
from ..store.atomic import put_bytes
from ..store.cache import Slot, signatures
from ..store.csvio import encode
from ..store.hub import Hub
from ..store.layout import Layout
from ..submissions import commit_hash, paths, policy, reveals
from ..submissions.content import RoundSet, published_round
from ..submissions.sealing import Target, Version, hidden_after, last_before, marker, receipt_versions, row, target_of, unreadable_runs
from ..submissions.sealing import frame as rows_frame
from ..submissions.validate import dated_file_problems
from ..timeutil import days, format_date, format_ts, parse_ts

SEAL_GRACE = days(2)  # how long a round waits for GitHub's API, or a sealed version's bytes, before it is sealed anyway
_SEVERITY = {code: c.severity for group in OTHER_CODES.values() for code, c in group.items()}


@dataclass
class SealReport:
    rounds: list[str] = field(default_factory=list)  # sealed in this run
    reveals: list[str] = field(default_factory=list)  # reveal windows closed in this run
    written: list[str] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)


def _problem(code: str, file: str, message: str) -> Problem:
    return Problem(file, None, None, code, message, _SEVERITY[code])


def reveal_by(hub: Hub, due: datetime) -> str | None:
    """The end of a commit–reveal round's reveal window (ISO UTC); None for an open round."""
    path = hub.layout.round_reveal(due)
    if not path.is_file():
        return None
    frame = hub.cache.read_table(path, ROUND_REVEAL, hub.layout.relative(path))
    return str(frame["reveal_by"].iloc[0]) if len(frame) else None


def due_time(hub: Hub, due: datetime) -> str:
    """A round's due time as its question set states it (ISO UTC)."""
    questions = readers.load_round(hub, due)
    return str(questions["due"].iloc[0]) if len(questions) else format_ts(due)


class _Evidence:
    """What the seals read: the receipts by target, the manifest's first records, the files' bytes,
    and the git repository (when the hub is one) for blobs and commit times."""

    def __init__(self, hub: Hub, blobs: Callable[[str], bytes | None] | None):
        self.hub, self.blobs = hub, blobs
        recorded = receipts.load_receipts(hub)
        self.receipts = receipt_versions(recorded)
        self.salts = reveals.salt_versions(recorded)  # a revealed salt's receipts, by (due, model)
        self.hubs = reveals.hub_ids(hub.root)  # the hub identities a commitment may name
        self.unreadable = unreadable_runs(recorded)
        self.first_seen = manifest.first_recorded(manifest.load_manifest(hub))
        self.git = git.is_work_tree(hub.root)
        self.now = {m: meta.maintainers for m, meta in readers.load_models(hub).items()}
        self.dates = _history(hub.root) if self.git else []
        self.legacy = False  # set while sealing a round the hub scored before it had any seal

    @property
    def layout(self) -> Layout:
        return self.hub.layout

    def maintainers(self, model: str, deadline: str) -> tuple[str, ...]:
        """The model's maintainers as the default branch listed them at ``deadline`` (its first-parent commit
        then; a later change of ``maintainers`` changes no seal), or as listed now where there is no history."""
        if not self.dates:  # no git history (yet): the metadata as it is
            return self.now.get(model, ())
        then = git.held_at(self.dates, int(parse_ts(deadline).timestamp()))
        return policy.maintainers_in(git.GitTree(self.layout.root, then), model) if then else ()

    def hub_ids(self, deadline: str) -> list[str]:
        """The hub identities a commitment of a round due at ``deadline`` may name: ``[hub] repo_url`` now,
        and as the default branch set it at the due time (a change during the round breaks no commitment)."""
        then = git.held_at(self.dates, int(parse_ts(deadline).timestamp())) if self.dates else None
        tree = git.GitTree(self.layout.root, then) if then else None
        earlier = reveals.hub_id_in(tree.read(HUB_FILE) if tree is not None and tree.entry(HUB_FILE) else None)
        return list(dict.fromkeys([*self.hubs, *([earlier] if earlier is not None else [])]))

    def local(self, path: str, deadline: str) -> Version | None:
        """The file now at ``path``, with the earliest record before ``deadline`` of its bytes (manifest, else git)."""
        full = self.layout.root / path
        if not full.is_file() or full.is_symlink():
            return None
        data = files.read_bytes(full)
        blob = git.blob_id(data)
        seen = self.first_seen.get((path, manifest.sha256(data)))
        if seen is not None and seen < deadline:
            return Version(path, blob, seen, "manifest")
        if self.git:
            held = git.first_held(self.layout.root, "HEAD", path, blob)
            when = format_ts(datetime.fromtimestamp(held[1], tz=UTC)) if held is not None else "~"
            if held is not None and when < deadline:
                return Version(path, blob, when, "git", head_sha=held[0])
        if self.legacy:  # a round scored before the hub sealed rounds: its file stands as it was
            return Version(path, blob, "", "legacy")
        return None

    def read(self, version: Version) -> bytes | None:
        """The bytes of ``version``: the file in place when it holds them, else the blob from git."""
        full = self.layout.root / version.path
        if full.is_file() and not full.is_symlink():
            data = files.read_bytes(full)
            if git.blob_id(data) == version.blob:
                return data
        return self.blobs(version.blob) if self.blobs is not None else None


@dataclass
class _Round:
    """One round's seal being made: its rows, and the files to write (bytes) or remove (None)."""

    due: datetime
    deadline: str
    rnd: RoundSet
    rows: list[dict] = field(default_factory=list)
    files: dict[str, bytes | None] = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)  # sealed versions whose bytes are not here yet


def seal_stage(hub: Hub, as_of: datetime, receipts_complete: bool = True) -> SealReport:
    """Seal what is due, close what is revealed, hold every sealed round to its seal."""
    layout, stamp, report = hub.layout, format_ts(as_of), SealReport()
    recorded = seals.load_seals(hub)
    done, revealed = seals.sealed_rounds(recorded), seals.sealed_rounds(recorded, "reveal")
    past = [d for d in readers.round_dues(hub) if d <= as_of]
    todo = [d for d in past if format_date(d) not in done and due_time(hub, d) <= stamp]
    closing = [d for d in past if format_date(d) in done and format_date(d) not in revealed and (reveal_by(hub, d) or "~") <= stamp]
    legacy = _legacy_until(hub, recorded)
    if todo and not receipts_complete:
        waiting = [d for d in todo if stamp < format_ts(parse_ts(due_time(hub, d)) + SEAL_GRACE)]
        report.problems += [
            _problem(
                "seal-deferred",
                f"data/rounds/{format_date(d)}/",
                "not sealed: the receipts of the pull requests could not be completed in this run; sealed with "
                f"the receipts recorded after {format_ts(parse_ts(due_time(hub, d)) + SEAL_GRACE)}",
            )
            for d in waiting
        ]
        todo = [d for d in todo if d not in waiting]
    if not todo and not closing:  # most nights: nothing to seal, only the sealed rounds to hold
        _enforce(hub, recorded, report)
        return report
    ready: list[_Round] = []
    with _blob_reader(layout.root) as blobs:
        evidence = _Evidence(hub, blobs)
        for due in todo:
            evidence.legacy = format_ts(due) <= legacy
            ready += _settle(_seal_round(evidence, due, stamp), as_of, report, report.rounds)
        for due in closing:
            ready += _settle(_reveal_round(evidence, due, recorded, stamp), as_of, report, report.reveals)
    if ready:  # the rows first, in one write; then the files (a run stopped between them: see the module's note)
        report.written += seals.append(hub, rows_frame([r for made in ready for r in made.rows]))
        for made in ready:
            for path, data in sorted(made.files.items()):
                report.written += _put(layout, path, data)
        recorded = seals.load_seals(hub)
    _enforce(hub, recorded, report)
    return report


def _legacy_until(hub: Hub, recorded: pd.DataFrame) -> str:
    """The latest night a hub scored before it sealed any round (ISO UTC; "" when it seals from its
    start): rounds due by then were scored from their files as they were, so a file of theirs with no
    record before its due time (an import's, say) is sealed as it stands (``legacy``) rather than removed."""
    if len(recorded):
        return ""
    history = readers.load_history(hub)
    return str(history["as_of"].max()) if len(history) else ""


def _history(root: Path) -> list[tuple[str, int]]:
    """The first-parent line of the work tree's HEAD, newest first (none before the first commit)."""
    try:
        return git.first_parent_dates(root, "HEAD")
    except PrescientError:
        return []


class _blob_reader:
    """``git.BlobReader`` over the hub when it is a git work tree (``read`` or None), else None."""

    def __init__(self, root: Path):
        self.reader = git.BlobReader(root) if git.is_work_tree(root) else None

    def __enter__(self) -> Callable[[str], bytes | None] | None:
        return self.reader.__enter__().read if self.reader is not None else None

    def __exit__(self, *exc) -> None:
        if self.reader is not None:
            self.reader.__exit__(*exc)


def _settle(made: _Round, as_of: datetime, report: SealReport, done: list[str]) -> list[_Round]:
    """The round, ready to be written, or nothing while a sealed version's bytes are missing (deferred)."""
    label = f"data/rounds/{format_date(made.due)}/"
    if made.missing and as_of < made.due + SEAL_GRACE:
        report.problems.append(
            _problem(
                "seal-deferred",
                label,
                f"not sealed yet: the bytes of {', '.join(made.missing[:3])} "
                f"are not in this repository (fetch the pull requests' heads); sealed as unavailable "
                f"after {format_ts(made.due + SEAL_GRACE)}",
            )
        )
        return []
    done.append(format_date(made.due))
    report.problems += [
        _problem(
            "seal-not-counted", r["path"] or f"{label}{r['model']}", f"{r['model']}'s {r['kind']} file does not count ({r['status']}): {r['detail']}"
        )
        for r in made.rows
        if r["model"] != seals.MARKER and r["status"] not in seals.COUNTED
    ]
    return [made]


def _put(layout: Layout, path: str, data: bytes | None) -> list[str]:
    """Make the file at ``path`` hold ``data`` (None: remove it); the path when something changed."""
    return [path] if put_bytes(layout.root / path, data) else []


def _paths_of(target: Target) -> list[str]:
    """The paths a target's file may have."""
    if target.kind == "forecast":
        return [paths.forecast_path(target.due, target.model, fmt) for fmt in paths.FORECAST_FORMATS]
    if target.kind == "bets":
        return [f"data/bets/{target.due}/{target.model}.csv"]
    return [paths.commitment_path(target.due, target.model)]


def _targets(evidence: _Evidence, due: datetime, commit_reveal: bool) -> list[Target]:
    """Every (model, kind) with a file in the round's folders or a receipt for one."""
    day, layout = format_date(due), evidence.layout
    found = {t for t in evidence.receipts if t.due == day}
    for folder in (layout.forecast_dir(due), layout.data / "bets" / day, layout.data / "commitments" / day):
        found.update(t for p in (sorted(folder.iterdir()) if folder.is_dir() else []) if (t := target_of(layout.relative(p))))
    own = evidence.hub.settings.own_prefix
    keep = [t for t in found if t.model not in after_due(own)]
    if commit_reveal:  # a team's forecast is revealed after the due time, against its sealed commitment
        keep = [t for t in keep if t.kind != "forecast" or is_own(t.model, own)]
    return sorted(keep, key=lambda t: (t.kind, t.model))


def _seal_round(evidence: _Evidence, due: datetime, stamp: str) -> _Round:
    layout = evidence.layout
    made = _Round(due, due_time(evidence.hub, due), published_round(layout, due))
    commit_reveal = reveal_by(evidence.hub, due) is not None
    for target in _targets(evidence, due, commit_reveal):
        _seal_target(evidence, made, target, stamp)
    made.rows.append(marker(format_date(due), "forecast", stamp, f"{len(made.rows)} file(s) sealed or ruled out"))
    return made


def _seal_target(evidence: _Evidence, made: _Round, target: Target, stamp: str) -> None:
    here = [p for p in _paths_of(target) if (evidence.layout.root / p).is_file() or (evidence.layout.root / p).is_symlink()]
    chosen, count = last_before(evidence.receipts.get(target, []), made.deadline)
    if chosen is None:
        chosen, count = last_before([v for p in here if (v := evidence.local(p, made.deadline))], made.deadline)
    hidden = hidden_after(chosen, evidence.unreadable, evidence.maintainers(target.model, made.deadline), made.deadline)
    remove = dict.fromkeys(here)
    if hidden is not None:
        made.rows.append(
            row(
                target,
                "unavailable",
                chosen,
                versions=count,
                sealed_at=stamp,
                detail=f"run {hidden.run_id} of a pull request by @{hidden.author}, before the due time, could not be read",
            )
        )
    elif chosen is None:
        if here:
            made.rows.append(
                row(target, "unproven", None, versions=0, sealed_at=stamp, detail=f"no record shows {here[0]} before the due time {made.deadline}")
            )
    else:
        _seal_version(evidence, made, target, chosen, count, stamp, remove)
    made.files.update({p: d for p, d in remove.items() if p not in made.files})


def _seal_version(
    evidence: _Evidence, made: _Round, target: Target, chosen: Version, count: int, stamp: str, remove: dict[str, bytes | None]
) -> None:
    data = evidence.read(chosen)
    if data is None:
        made.missing.append(chosen.path)
        made.rows.append(
            row(target, "unavailable", chosen, versions=count, sealed_at=stamp, detail=f"the bytes of blob {chosen.blob} are not in the repository")
        )
        return
    classified, _ = paths.classify(chosen.path)
    carried = books_for(evidence.layout.root, parse_ts(stamp), made.due, target.model)[0] if target.kind == "bets" else None
    errors = [p for p in dated_file_problems(classified, data, made.rnd, carried=carried) if p.severity == "error"]
    if errors:
        made.rows.append(
            row(
                target,
                "invalid",
                chosen,
                versions=count,
                sealed_at=stamp,
                sha256=manifest.sha256(data),
                detail=f"the last version fails validation: [{errors[0].code}] {errors[0].message}"[:300],
            )
        )
        return
    made.rows.append(row(target, "sealed", chosen, versions=count, sealed_at=stamp, sha256=manifest.sha256(data)))
    remove[chosen.path] = data


def _reveal_round(evidence: _Evidence, due: datetime, recorded: pd.DataFrame, stamp: str) -> _Round:
    layout, day = evidence.layout, format_date(due)
    deadline = reveal_by(evidence.hub, due) or stamp
    made = _Round(due, deadline, published_round(layout, due))
    commitments = recorded[(recorded["due"].astype(str) == day) & (recorded["kind"] == "commitment")]
    for model, status, blob in zip(commitments["model"], commitments["status"], commitments["blob"], strict=True):
        committed = evidence.read(Version(paths.commitment_path(day, model), str(blob), "", "receipt")) if status == "sealed" else None
        _reveal_target(evidence, made, Target(day, str(model), "reveal"), committed, stamp)
    made.rows.append(marker(day, "reveal", stamp, f"reveal window closed at {deadline}"))
    return made


def _reveal_target(evidence: _Evidence, made: _Round, target: Target, committed: bytes | None, stamp: str) -> None:
    """The revealed forecast of one model: a version attested before the window's end that, with a salt
    attested by then too, opens the sealed commitment (``reveals.matching``). A sealed commitment nobody
    opens is scored as a missing forecast: the hub puts a forecast file of no rows in its place, so every
    unit is imputed, as for any forecaster who sent nothing."""
    forecast = Target(target.due, target.model, "forecast")
    here = [p for p in _paths_of(forecast) if (evidence.layout.root / p).is_file()]
    versions = evidence.receipts.get(forecast, []) + [v for p in here if (v := evidence.local(p, made.deadline))]
    versions = [v for v in versions if v.at < made.deadline]
    salt_path = paths.commitment_path(target.due, target.model, "salt")
    salts = [v for v in evidence.salts.get((target.due, target.model), []) if v.at < made.deadline]
    salts += [v for v in [evidence.local(salt_path, made.deadline)] if v]
    remove: dict[str, bytes | None] = dict.fromkeys(here)
    bindings = [commit_hash.Binding(hub, target.due, target.model) for hub in evidence.hub_ids(due_time(evidence.hub, made.due))]
    match = reveals.matching(versions, salts, evidence.read, committed, bindings)
    count = len({(v.path, v.blob) for v in versions})
    if match is None:
        detail = "no forecast attested before the window's end opens, with its salt, the sealed commitment"
        imputed, path = None, paths.forecast_path(target.due, target.model, "csv")
        if committed is not None:  # committed and not revealed: scored as a missing forecast
            imputed = missing_forecast()
            detail += ": scored as a missing forecast, every unit imputed"
        version = Version(path, git.blob_id(imputed), "", "none") if imputed is not None else None
        sha = manifest.sha256(imputed) if imputed is not None else ""
        made.rows.append(row(target, "not-revealed", version, versions=count, sealed_at=stamp, sha256=sha, detail=detail, evidence="none"))
        if imputed is not None:
            remove[path] = imputed
    else:
        version, data, salt = match
        made.rows.append(
            row(target, "revealed", version, versions=count, sealed_at=stamp, sha256=manifest.sha256(data), detail=f"salt blob {git.blob_id(salt)}")
        )
        remove[version.path] = data
        remove[salt_path] = salt
    made.files.update(remove)


def missing_forecast() -> bytes:
    """The forecast file the hub puts in place of a commitment not revealed: the columns, no row."""
    return encode(FORECASTS.names, [np.array([], dtype=object) for _ in FORECASTS.names])


def _enforce(hub: Hub, recorded: pd.DataFrame, report: SealReport) -> None:
    """Hold every sealed round's files to its seal: a sealed file differing or missing is put back, a file that
    does not count is removed (each reported as ``seal-enforced``). Files are compared by sha256 through
    the manifest's hashes, which the command's cache keeps while the files are unchanged."""
    done = seals.sealed_rounds(recorded)
    if not done:
        return
    layout, hashes = hub.layout, manifest.current_hashes(hub)
    # what this reads: the seals, the sealed rounds' reveal windows and every submitted file's bytes;
    # when they are as they were after a pass of this command that changed nothing, the pass would
    # change nothing again (most nights)
    windows = [p for p in (layout.round_reveal(parse_ts(due)) for due in sorted(done)) if p.is_file()]
    held = (signatures(layout.seal_files()), signatures(windows), tuple(sorted(hashes.items())))
    if hub.cache.state(HELD) == held:
        return
    revealed = seals.sealed_rounds(recorded, "reveal")
    rows = seals.held_rows(recorded)
    counted = dict(zip(rows["path"].astype(str), zip(rows["sha256"].astype(str), rows["blob"].astype(str), strict=True), strict=True))
    changed, own = False, hub.settings.own_prefix
    for path in sorted(hashes.keys() | counted.keys()):  # a counted file deleted is put back like one changed
        digest, target = hashes.get(path), target_of(path)
        if target is None or target.due not in done or target.model in after_due(own):
            continue
        if (
            target.kind == "forecast"
            and not is_own(target.model, own)
            and target.due not in revealed
            and reveal_by(hub, parse_ts(target.due)) is not None
        ):
            continue  # a commit–reveal round's forecast, still in its reveal window
        want = counted.get(path)
        if want is not None and want[0] == digest:
            continue
        data = _sealed_bytes(layout, want[1]) if want is not None else None
        if want is not None and data is None:
            changed = True  # not held, and git may hold the bytes by the next pass: not kept as held
            continue  # the sealed bytes are not here to put back; verify reports the difference
        report.written += _put(layout, path, data)
        changed = True
        what = "the sealed bytes were put back" if data is not None else "it does not count (not a sealed version) and was removed"
        how = "was missing" if digest is None else "differed from its round's seal"
        report.problems.append(_problem("seal-enforced", path, f"the file {how}: {what}"))
    hub.cache.put(HELD, None if changed else held)


# The seals and files an ``_enforce`` pass of this command found held to their seals, nothing to do
# (None: not known, or a pass did something or could not).
HELD: Slot[tuple | None] = Slot("sealed files held", lambda cache: None)


def _sealed_bytes(layout: Layout, blob: str) -> bytes | None:
    if not git.is_work_tree(layout.root):
        return None
    with git.BlobReader(layout.root) as reader:
        return reader.read(blob)
