"""``prescient verify``: recompute every derived file from the raw ledgers and compare byte for byte.

Checks, each returning located problems (file, first differing row, stable code):
- scores: every ``data/scores/<due>.csv`` against ``pipeline.recompute.scores_by_round`` over the ledgers;
- history: the rows of ``data/leaderboard/history.csv`` of the latest nights (all with
  ``all_nights``) against ``pipeline.recompute.history_for`` at each night's as_of, the function the nightly
  uses, so only what was recorded by then counts; rows of another methodology version are skipped;
- pages: ``site_src/docs/generated`` against the pages ``site.build.gather`` and ``site.render`` make
  now (skipped when the folder is absent: it is git-ignored and exists only after a build);
- timing: every forecast file of a round past its due time was recorded in the manifest by a run
  before the due time, or (with git) first committed with these bytes before it; files for which
  neither holds are listed as warnings (the hub's after-due forecasters are exempt);
- git (optional): the history checks of ``audit.git``, and ``audit.maintainers``' of the maintainers' ledger,
  from the newest checkpoint that checks against the history (``audit.checkpoint``), or from the first commit;
- anchor (with git, optional): a commit a reader kept is an ancestor and its rows are unchanged
  (``audit.anchor``); the git walk then starts from it.

The report leads with causes (``audit.report``).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd

from ..errors import Problem
from ..forecasters.baselines import after_due
from ..leaderboard.hub_boards import RECORDED_BEFORE_VIEWS
from ..pipeline import recompute
from ..pipeline.seal import due_time
from ..schemas import HISTORY, SCORES
from ..site.api import site_files
from ..site.build import gather, strip_generated
from ..site.render import GENERATED
from ..store import checkpoints, files, manifest, readers, receipts, seals
from ..store.csvio import to_csv_bytes
from ..store.git import BlobReader, first_held, resolve_commit
from ..store.hub import Hub, as_hub
from ..store.lock import hub_lock
from ..timeutil import format_date, format_ts, parse_ts
from . import anchor as anchors
from . import checkpoint, git, scope
from .bot import hub_bot, hub_own, own_prefix_problems
from .changes import FileChange
from .maintainers import maintainer_problems
from .report import difference, differing_line, render_causes
from .report import to_json as causes_json
from .seals import receipt_problems, seal_problems

DEFAULT_NIGHTS = 7
OK, FAILED, SKIPPED = "ok", "failed", "skipped"


@dataclass(frozen=True)
class Check:
    name: str
    status: str
    note: str


@dataclass
class VerifyReport:
    as_of: str
    checks: list[Check] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    start: checkpoint.Found | None = None  # where the git walk started (with --git)
    scope: scope.Scope | None = None  # what the recompute took from the checkpoint (with --git)
    walked: tuple[int, int] = (0, 0)  # the git walk's commits touching data/, and its warnings

    @property
    def ok(self) -> bool:
        return not any(p.severity == "error" for p in self.problems)

    def add(self, name: str, problems: list[Problem], note: str, skipped: bool = False) -> None:
        failed = any(p.severity == "error" for p in problems)
        self.checks.append(Check(name, SKIPPED if skipped else FAILED if failed else OK, note))
        self.problems += sorted(problems, key=Problem.sort_key)


EPOCH = "1970-01-01T00:00:00Z"  # the as_of of a hub whose ledgers are still empty


def verify(
    hub: Hub | Path,
    as_of: datetime | None = None,
    *,
    git_rev: str | None = None,
    all_nights: bool = False,
    nights: int = DEFAULT_NIGHTS,
    full: bool = False,
    start: checkpoint.Found | None = None,
    anchor: str | None = None,
) -> VerifyReport:
    """Run every check on ``hub`` (a Hub, or its folder). ``as_of`` defaults to the latest time the ledgers
    record. ``git_rev``: also audit that commit's history, from the newest checkpoint that can be trusted
    (``audit.checkpoint``), or from the first commit when ``full`` or when none can; ``start``: where to
    start, decided by the caller instead (the tests' proof that both walks find the same); ``anchor``: a commit a
    reader kept (``audit.anchor``): proved an ancestor with its rows unchanged, and the walk starts there."""
    hub = as_hub(hub)
    root = hub.root
    as_of = as_of or latest_run(hub)
    report = VerifyReport(format_ts(as_of))
    found, bot, own = None, "", hub.settings.own_prefix
    if git_rev:
        commit = resolve_commit(root, git_rev)
        bot, own = hub_bot(root, commit), hub_own(root, commit)  # never the ones the audited commit's own hub.toml names (audit.bot)
        found = start or (checkpoint.Found(None, "--full: from the first commit") if full else checkpoint.find(root, commit, bot))
    plan = None if not git_rev else scope.Scope(why="--full") if full else scope.plan(hub, found, as_of)
    report.scope = plan
    score_problems, score_note, recomputed = check_scores(hub, as_of, plan)
    report.add("scores", score_problems, score_note)
    report.add("history", *check_history(hub, None if all_nights else nights, plan, as_of, recomputed))
    report.add("pages", *check_pages(hub, as_of), skipped=not (root / "site_src" / "docs" / GENERATED).is_dir())
    report.add("seals", *check_seals(hub))
    if git_rev and anchor:
        anchored = anchors.check(root, anchor, commit)
        report.add("anchor", anchored.problems, anchored.note)
        if anchored.start is not None and not full:
            found = anchored.start  # the walk from the anchor; the recompute keeps the checkpoint's scope
    changes, attested, by_git = None, receipts.attested(receipts.load_receipts(hub)), None
    if git_rev and found is not None:
        report.start = found
        ledger = receipts.load_receipts_at(root, commit)
        attested = receipts.attested(ledger)
        authors = dict(zip(ledger["head_sha"].astype(str), ledger["author"].astype(str), strict=True))  # GitHub's, per pull-request head
        changes, problems = git.audit_history(
            root, git_rev, {key: format_ts(when) for key, when in attested.items()}, sealed_at(root, commit), bot, found.start, own
        )
        problems += own_prefix_problems(root, commit, own)
        if found.start is not None:  # the receipts in the start commit were checked by the walk that made it
            ledger = new_rows(ledger, receipts.load_receipts_at(root, found.start.commit))
            by_git = held_before(root, commit, changes)
        problems += receipt_problems(root, ledger, seals.load_seals_at(root, commit))
        with BlobReader(root) as blobs:
            problems += maintainer_problems(root, changes, blobs.read, authors)
        report.walked = len({c.commit for c in changes}), sum(p.severity == "warning" for p in problems)
        label = "the anchor" if found.why.endswith("(--anchor)") else "checkpoint"
        since = f"since {label} {found.start.commit[:12]}" if found.start is not None else "from the first commit"
        report.add(
            "git",
            problems,
            f"{len({c.commit for c in changes})} commit(s) touching data/ on {git_rev} {since}; {len(attested)} file version(s) attested by receipts",
        )
    report.add("timing", *check_timing(hub, as_of, changes, attested, by_git, plan))
    if not hub.settings.maintainers:
        report.add(
            "maintainers",
            [
                Problem(
                    "data/hub.toml",
                    None,
                    "hub.maintainers",
                    "no-maintainers",
                    "[hub] maintainers is empty: CODEOWNERS has no owner, so no review is required for a change of code, workflows or ledgers",
                    "warning",
                )
            ],
            "none listed",
        )
    return report


def new_rows(ledger: pd.DataFrame, before: pd.DataFrame) -> pd.DataFrame:
    """The rows of ``ledger`` that ``before`` does not hold (compared as text)."""
    if before.empty:
        return ledger
    seen = set(before.astype(str).itertuples(index=False, name=None))
    keep = [row not in seen for row in ledger.astype(str).itertuples(index=False, name=None)]
    return ledger[keep]


def held_before(root: Path, head: str, changes: list[FileChange]):
    """Whether a commit of ``head``'s first-parent line put these bytes at this path before a time: from
    ``changes`` (the walk's), else by asking git for that one path (the commits before a checkpoint)."""

    def proven(rel: str, data: bytes, stamp: str) -> bool:
        if git.committed_before(changes, rel, data, stamp):
            return True
        held = first_held(root, head, rel, git.blob_id(data))
        return held is not None and format_ts(datetime.fromtimestamp(held[1], tz=UTC)) < stamp

    return proven


def record_checkpoint(hub: Hub, report: VerifyReport, git_rev: str) -> list[str]:
    """After a full walk of ``git_rev`` that found no error (the report's git check), append its checkpoint
    (``audit.checkpoint``); the files written (none when the walk failed or nothing new needs one)."""
    done = next((c for c in report.checks if c.name == "git"), None)
    start = report.start
    if done is None or done.status != OK or start is None or start.start is not None or stale_pages(report):
        return []  # pages that differ from their recompute: the audit is not clean, so nothing is vouched for
    commit = resolve_commit(hub.root, git_rev)
    if not checkpoint.needed(hub.root, commit, checkpoints.load_checkpoints(hub)):
        return []
    row = checkpoint.row_for(hub.root, commit, report.as_of, *report.walked)  # the time the recompute was made at
    with hub_lock(hub.layout.data, f"prescient verify --record-checkpoint {commit[:12]}"):
        return checkpoints.append(hub, row)


PAGE_CODES = ("page-differs", "page-missing", "page-extra")


def stale_pages(report: VerifyReport) -> int:
    """How many generated pages differ from a build as of the report's time (a local build that is stale)."""
    return sum(p.code in PAGE_CODES for p in report.problems)


def check_seals(hub: Hub) -> tuple[list[Problem], str]:
    """The seals against their rule and the files in place (``audit.seals``)."""
    recorded = seals.load_seals(hub)
    dues = {format_date(d): due_time(hub, d) for d in readers.round_dues(hub)}
    problems = seal_problems(hub, recorded, receipts.load_receipts(hub), dues)
    return problems, f"{len(seals.sealed_rounds(recorded))} sealed round(s) checked against their receipts and files"


def sealed_at(root: Path, commit: str) -> git.Seal:
    """The seals as stored in ``commit``: the sealed rounds and the blob of every file that counts."""
    recorded = seals.load_seals_at(root, commit)
    return git.Seal(frozenset(seals.sealed_rounds(recorded)), seals.counted(recorded))


def latest_run(hub: Hub) -> datetime:
    """The latest time recorded in the ledgers (observations, resolutions, history, manifest)."""
    stamps = [
        readers.load_observations(hub)["recorded_at"],
        readers.load_resolutions(hub)["recorded_at"],
        readers.load_history(hub)["as_of"],
        manifest.load_manifest(hub)["recorded_at"],
    ]
    known = [s.max() for s in stamps if len(s)]
    return parse_ts(max(known)) if known else parse_ts(EPOCH)


def first_difference(expected: bytes, actual: bytes) -> tuple[int, str, str] | None:
    """(1-based line, expected line, actual line) of the first difference; None when equal."""
    if expected == actual:
        return None
    want, have = expected.split(b"\n"), actual.split(b"\n")
    line = differing_line(want, have)
    pick = lambda lines: lines[line].decode("utf-8", "replace")[:160] if line < len(lines) else "(end of file)"  # noqa: E731
    return line + 1, pick(want), pick(have)


def _differs(label: str, code: str, row: int | None, want: str, have: str) -> Problem:
    return Problem(label, row, None, code, f"recomputed: {want!r}; on disk: {have!r}")


def check_scores(hub: Hub, as_of: datetime, plan: scope.Scope | None = None) -> tuple[list[Problem], str, dict]:
    """Every round's score file against its recompute (only the rounds ``plan`` names when it starts
    from a checkpoint); also returns the rounds' scores as checked (recomputed, or the file kept)."""
    layout = hub.layout
    obs = readers.load_observations(hub)
    view = recompute.hub_view(hub, obs, as_of)
    problems = []
    partial = plan if plan is not None and not plan.full else None  # what is taken from the checkpoint
    if partial is not None:
        scope.resolutions_moved(hub, partial, obs, as_of)
    dues = readers.round_dues(hub)
    chosen = [d for d in dues if format_date(d) in partial.rounds] if partial is not None else dues
    recomputed = {due: recompute.score_one_round(hub, due, view, hub.settings.scoring.impute_value, [])[2] for due in chosen}
    for due, frame in recomputed.items():
        path, expected = layout.scores(due), to_csv_bytes(frame, SCORES)
        label = layout.relative(path)
        if not path.is_file():
            if len(frame):
                problems.append(Problem(label, None, None, "derived-missing", f"{len(frame)} score row(s) recomputed; no file"))
            continue
        diff = first_difference(expected, files.read_bytes(path))
        if diff:
            problems.append(_differs(label, "derived-differs", *diff))
    note = f"{len(recomputed)} round(s) rescored as of {format_ts(as_of)}"
    if partial is not None:
        kept = len(dues) - len(chosen)
        named = "; ".join(f"round {d}: {partial.rounds[d]}" for d in sorted(format_date(x) for x in chosen)[:6])
        more = f" (+{len(chosen) - 6} more)" if len(chosen) > 6 else ""
        note = f"scores of {kept} round(s) unchanged since checkpoint {partial.checkpoint[:12]} (recomputed at {partial.recorded_at}); {note}" + (
            f": {named}{more}" if chosen else ""
        )
    elif plan is not None and plan.why and plan.why != "--full":
        note += f" (whole recompute: {plan.why})"
    return problems, note, recomputed


def checked_scores(hub: Hub, recomputed: dict) -> pd.DataFrame:
    """Every round's scores as the check left them: the recomputed frames, and the files of the rounds
    kept from the checkpoint (equal to their recompute, or the check reported them)."""
    frames = []
    for due in readers.round_dues(hub):
        if due in recomputed:
            frames.append(recomputed[due])
        elif (path := hub.layout.scores(due)).is_file():
            frames.append(hub.cache.read_table(path, SCORES, hub.layout.relative(path)))
    return recompute.concat_scores(frames)


def check_history(
    hub: Hub, nights: int | None, plan: scope.Scope | None = None, as_of: datetime | None = None, recomputed: dict | None = None
) -> tuple[list[Problem], str]:
    """Recompute the history rows of the latest ``nights`` nights (all when None); from a checkpoint
    (``plan``), only the nights it did not hold, unless a change could alter an older one."""
    history, version = readers.load_history(hub), hub.settings.scoring.methodology_version
    current = history[history["methodology_version"] == version]
    stamps = sorted(current["as_of"].unique())
    chosen = stamps if nights is None else stamps[-nights:]
    kept_note = ""
    if plan is not None and not plan.full and nights is None:
        kept_note = "; --all: the nights the checkpoint held recomputed too (its audit recomputed the latest only)"
    elif plan is not None and not plan.full:
        old = [s for s in chosen if s not in plan.new_nights]
        why = scope.old_night_hit(hub, plan, old, readers.load_observations(hub))
        if not why:
            chosen = [s for s in chosen if s in plan.new_nights]
            kept_note = f"; {len(old)} night(s) kept from checkpoint {plan.checkpoint[:12]}"
        else:
            kept_note = f"; the nights the checkpoint held recomputed too: {why}"
    scores = None
    if plan is not None and not plan.full and as_of is not None and recomputed is not None and format_ts(as_of) in chosen:
        scores = checked_scores(hub, recomputed)  # the latest night's: the scores just checked
    problems = [
        p
        for stamp in chosen
        for p in _night(hub, history[history["as_of"] == stamp], stamp, scores if stamp == format_ts(as_of or parse_ts(EPOCH)) else None)
    ]
    older = history["as_of"].nunique() - len(stamps)
    note = (
        f"{len(chosen)} of {len(stamps)} night(s) recomputed"
        + kept_note
        + (f"; {older} night(s) of another methodology version skipped" if older else "")
    )
    return problems, note


def _night(hub: Hub, stored: pd.DataFrame, stamp: str, scores: pd.DataFrame | None = None) -> list[Problem]:
    # The digest is an anchor of what the ledgers were that night, not derived from them: verify
    # --git checks it against the commit that recorded it (audit.digests.digest_problems).
    expected = recompute.history_for(hub, parse_ts(stamp), scores).assign(ledger_digest="")
    if len(stored) and (stored["view"] == RECORDED_BEFORE_VIEWS).all():  # a night from before the view column: overall only
        expected = expected[expected["view"] == "overall"].assign(view=RECORDED_BEFORE_VIEWS)
    expected = to_csv_bytes(expected, HISTORY)
    diff = first_difference(expected, to_csv_bytes(stored.assign(ledger_digest=""), HISTORY))
    if diff is None:
        return []
    line, want, have = diff
    rows = list(stored.sort_values(list(HISTORY.sort), kind="mergesort").index)
    row = rows[min(line - 2, len(rows) - 1)] + 2 if rows and line > 1 else None
    return [_differs(hub.layout.relative(hub.layout.history), "history-differs", row, want, have)]


def check_pages(hub: Hub, as_of: datetime) -> tuple[list[Problem], str]:
    root = hub.root
    folder = root / "site_src" / "docs" / GENERATED
    if not folder.is_dir():
        return [], f"{folder.relative_to(root).as_posix()} is absent (git-ignored; run `prescient build` first)"
    expected = strip_generated(site_files(gather(hub, as_of)))
    actual = {p.relative_to(folder).as_posix(): p for p in sorted(folder.rglob("*")) if p.is_file()}
    label = lambda rel: f"site_src/docs/{GENERATED}/{rel}"  # noqa: E731
    problems = [
        Problem(label(rel), None, None, "page-extra", "not generated by a build as of " + format_ts(as_of))
        for rel in sorted(set(actual) - set(expected))
    ]
    for rel, data in sorted(expected.items()):
        if rel not in actual:
            problems.append(Problem(label(rel), None, None, "page-missing", "a build as of " + format_ts(as_of) + " writes it"))
        elif diff := difference(data, files.read_bytes(actual[rel])):
            problems.append(Problem(label(rel), diff[0], None, "page-differs", diff[1]))
    return problems, f"{len(expected)} page(s) regenerated as of {format_ts(as_of)}"


def check_timing(
    hub: Hub,
    as_of: datetime,
    changes: list[FileChange] | None,
    attested: dict[tuple[str, str], datetime] | None = None,
    by_git=None,
    plan: scope.Scope | None = None,
) -> tuple[list[Problem], str]:
    """Forecast files of rounds past due whose timing neither the manifest, a receipt nor git proves.
    ``by_git(path, bytes, due)``: whether git proves it (default: a change of ``changes`` does).
    ``plan``: from a checkpoint, only the forecast files changed since it (unless it says all)."""
    only = plan.forecasts if plan is not None and not plan.full and not plan.timing_all else None
    by_git = by_git or (lambda rel, data, stamp: git.committed_before(changes or [], rel, data, stamp))
    attested = attested or {}
    layout, later = hub.layout, after_due(hub.settings.own_prefix)  # written after the due time by design
    seen, problems, checked = manifest.first_recorded(manifest.load_manifest(hub)), [], 0
    for due in (d for d in readers.round_dues(hub) if d <= as_of):
        stamp = format_ts(due)
        for path in layout.forecast_files(due):
            if path.stem in later:
                continue
            rel = layout.relative(path)
            if only is not None and rel not in only:
                continue
            checked += 1
            data = files.read_bytes(path)
            if seen.get((rel, manifest.sha256(data)), "~") < stamp:
                continue
            if attested.get((rel, git.blob_id(data)), due) < due:
                continue
            if changes is not None and by_git(rel, data, stamp):
                continue
            evidence = (
                "the manifest, the receipts or the git history"
                if changes is not None
                else "the manifest or the receipts (add --git to use the history)"
            )
            problems.append(
                Problem(rel, None, None, "timing-unproven", f"no record in {evidence} shows these bytes before the due time {stamp}", "warning")
            )
    note = f"{checked} forecast file(s) of rounds due by {format_ts(as_of)} checked"
    if only is not None and plan is not None:
        note += f" (those changed since checkpoint {plan.checkpoint[:12]}; the others' timing was checked by its full audit)"
    if plan is not None and plan.timing_all and not plan.full:
        note += f" (all: {plan.timing_all})"
    return problems, note


def git_start(report: VerifyReport) -> str:
    """Where the git walk started, for the report's first line ("" without --git)."""
    found = report.start
    if found is None:
        return ""
    if found.start is not None:
        before = f"; {found.warnings} warning(s) before it, reported by the full audit" if found.warnings else ""
        return f"; git history {found.why}{before} (--full walks from the first commit)"
    return f"; git history walked in full ({found.why})"


def to_json(report: VerifyReport) -> dict:
    """The report as JSON: every problem, and the causes they group into (``audit.report``)."""
    start, plan = report.start, report.scope if report.start else None
    return {
        "as_of": report.as_of,
        "ok": report.ok,
        "checks": [asdict(c) for c in report.checks],
        "problems": [asdict(p) for p in report.problems],
        "causes": causes_json(report.problems),
        **({"git_start": _git_start_json(start)} if start else {}),
        **({"recompute": {"checkpoint": plan.checkpoint or None, "why": plan.why, "rounds": plan.rounds}} if plan else {}),
    }


def _git_start_json(start: checkpoint.Found) -> dict:
    """Where the walk started: a checkpoint's commit, or the anchor's (``--anchor``), or neither (the first commit)."""
    commit = start.start.commit if start.start else None
    anchored = start.why.endswith("(--anchor)")
    return {"checkpoint": None if anchored else commit, "anchor": commit if anchored else None, "why": start.why}


def render_text(report: VerifyReport, details: bool = False) -> str:
    """The report as text: the checks, then the problems by cause (``details``: every page that follows)."""
    empty = report.as_of == EPOCH
    lines = [f"prescient verify as of {report.as_of}" + (" (the ledgers record nothing yet)" if empty else "") + git_start(report)]
    lines += [f"  {c.status:<7} {c.name}: {c.note}" for c in report.checks]
    lines += render_causes(report.problems, details)
    errors = sum(p.severity == "error" for p in report.problems)
    lines.append("verified: every check passed" if report.ok else f"FAILED: {errors} problem(s)")
    return "\n".join(lines) + "\n"
