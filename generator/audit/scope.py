"""What a pull request's ``verify --git`` must recompute when it starts from an audit checkpoint.

The checkpoint (``audit.checkpoint``) names a commit C whose whole hub the nightly's full ``verify --git
--full`` accepted: every round's scores, the latest nights of history.csv, the seals and the forecasts'
timing were recomputed from C's raw inputs by the code whose digest the row records, and found equal.
What can differ at the checked-out hub from that accepted state is exactly the ``data/`` paths that
differ between C and the working tree (``git diff --name-status C``, plus the files git does not
track), so ``plan`` reads that list and keeps from the checkpoint whatever no path on it can affect:

- **scores** of a round D are a function of D's round files (``rounds/D/``), its forecast files
  (``forecasts/D/``), its units' resolutions (``scoring.resolve.resolve_round`` over the ledgers'
  view at the run's time) and the settings. A round is recomputed when one of its files or its score
  file changed, or when its resolutions now differ from those of the checkpoint's recompute time: the
  ledgers are only appended to, so the view at that time over today's ledgers is the view C's full
  recompute read (a ledger of observations or resolutions whose old bytes are not a prefix of the
  new, or a new row recorded at or before that time — backdated —: whole recompute).
- **history**: a night recorded after C is recomputed (the latest one with the scores just checked,
  when it is the run's time); a night C already held is recomputed only when a change could alter
  what was known that night: a round or forecast file of a round with a unit resolved by then, a
  model's file (unless all of that model's forecasts are among the changes and count for nothing
  then), the model log or history.csv other than appended.
- **timing**: the forecast files that changed; all of them when the manifest or the receipts changed
  other than by rows recorded after C's recompute time.
- **seals** and **pages** are checked whole, as without a checkpoint.

Anything the rule cannot prove unaffected falls back to the whole recompute, and says why: no trusted
checkpoint, a row without the code digest or with another code's, ``data/hub.toml`` changed (the
settings, the methodology version), a maintainers' action, a rewritten or backdated ledger of
observations or resolutions, or a path under ``data/`` the rule does not know. What it deliberately
does not re-check is the state at C itself: tampering before the checkpoint is the nightly's full
audit's job, and the checkpoint row is itself audited (``audit.checkpoint``).
Timing warnings about files unchanged since C are not repeated (the full audit reports them).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import pandas as pd

from ..errors import PrescientError
from ..pipeline import recompute
from ..scoring.resolve import resolve_round
from ..store import files, git, readers
from ..store.cache.disk import code_digest
from ..store.hub import Hub
from ..store.lock import LOCK_NAME
from ..timeutil import format_date, format_ts, parse_ts
from .checkpoint import Found
from .ledgers import records

# Paths under data/ that no check of the scoped recompute reads (the site's and the arena's inputs;
# the checkpoints ledger, audited by the git walk); the seals and commitments are checked whole.
UNREAD = (
    f"data/{LOCK_NAME}",
    "data/metadata/checkpoints.csv",
    "data/news/",
    "data/oracle/",
    "data/llm/",
    "data/questions/",
    "data/bets/",
    "data/commitments/",
    "data/seals/",
)
APPENDED_LEDGERS = (
    "data/observations/",
    "data/resolutions/",
    "data/manifest/",
    "data/receipts/",
    "data/metadata/models.csv",
    "data/leaderboard/history.csv",
)


@dataclass
class Scope:
    """What to recompute (``why`` is empty) or why everything is (``why`` says it)."""

    why: str = ""
    checkpoint: str = ""
    recorded_at: str = ""  # the as_of of the checkpoint's full recompute
    rounds: dict[str, str] = field(default_factory=dict)  # due date → why it is recomputed
    new_nights: set[str] = field(default_factory=set)  # history stamps the checkpoint did not hold
    old_nights: str = ""  # why the nights the checkpoint held are recomputed ("": they are not)
    forecasts: set[str] = field(default_factory=set)  # forecast files whose timing is checked
    timing_all: str = ""  # why every forecast file's timing is checked ("": only ``forecasts``)
    ledgers: bool = False  # observations or resolutions were appended since: compare the rounds' resolutions

    @property
    def full(self) -> bool:
        return bool(self.why)


def plan(hub: Hub, found: Found | None, as_of: datetime) -> Scope:
    """The scope of a recompute at ``hub``'s working tree from the checkpoint ``found`` (see the module)."""
    if found is None or found.start is None:
        return Scope(why="no checkpoint to start from" + (f" ({found.why})" if found else ""))
    commit = found.start.commit
    if not found.code:
        return Scope(why=f"checkpoint {commit[:12]} does not record the code that recomputed it (a row older than the column)")
    if found.code != code_digest():
        return Scope(why=f"checkpoint {commit[:12]} was recomputed by other code ({found.code[:12]}; this is {code_digest()[:12]})")
    root = hub.root
    try:
        changed = changed_paths(root, commit)
    except PrescientError as exc:
        return Scope(why=f"the changes since checkpoint {commit[:12]} cannot be listed ({str(exc).splitlines()[0][:120]})")
    scope = Scope(checkpoint=commit, recorded_at=found.recorded_at)
    since = found.recorded_at
    tree = git.GitTree(root, commit)
    for rel, status in sorted(changed.items()):
        parts = rel.split("/")
        if rel == "data/hub.toml":
            return Scope(why="data/hub.toml changed since the checkpoint (the hub's settings and methodology)")
        if rel.startswith("data/maintainer/"):
            return Scope(why=f"{rel} changed since the checkpoint (a maintainers' action can restate any round)")
        if rel.startswith(UNREAD):
            continue
        if parts[1] in ("rounds", "forecasts") and len(parts) >= 4:
            scope.rounds.setdefault(parts[2], f"{rel} {'added' if status == 'A' else 'changed'}")
            if parts[1] == "forecasts":
                scope.forecasts.add(rel)
            if status != "A" and not scope.old_nights:
                scope.old_nights = f"{rel} was {'removed' if status == 'D' else 'modified'}"
            continue
        if parts[1] == "scores" and len(parts) == 3 and rel.endswith(".csv"):
            scope.rounds.setdefault(parts[2].removesuffix(".csv"), f"{rel} changed")
            continue
        if parts[1] == "models" and rel.endswith(".yml"):
            if status != "A" and not scope.old_nights:
                scope.old_nights = f"{rel} was {'removed' if status == 'D' else 'modified'}"
            elif status == "A" and not scope.old_nights:
                model = parts[2].removesuffix(".yml")
                earlier = [p for p in (root / "data" / "forecasts").glob(f"*/{model}.*") if p.relative_to(root).as_posix() not in changed]
                if earlier:
                    scope.old_nights = f"{rel} was added for a model with forecasts before the checkpoint"
            continue
        if rel.startswith(APPENDED_LEDGERS):
            old = tree.read(rel) if tree.entry(rel) else b""
            new_path = root / rel
            new = files.read_bytes(new_path) if new_path.is_file() else b""
            rows = appended_rows(old, new)
            if rows is None:
                why = f"{rel} was rewritten since the checkpoint, not appended to"
                if rel.startswith(("data/observations/", "data/resolutions/")):
                    return Scope(why=why)
                if rel.startswith(("data/manifest/", "data/receipts/")):
                    scope.timing_all = scope.timing_all or why
                else:
                    scope.old_nights = scope.old_nights or why
                continue
            backdated = [r for r in rows if r.get("recorded_at", "~") <= since]
            if backdated and rel.startswith(("data/observations/", "data/resolutions/")):
                return Scope(why=f"{rel} has a row recorded at {backdated[0].get('recorded_at')!s}, not after the checkpoint's recompute at {since}")
            if rel.startswith(("data/manifest/", "data/receipts/")):
                if backdated:
                    scope.timing_all = scope.timing_all or f"{rel} has a row recorded before the checkpoint's recompute"
            elif rel == "data/metadata/models.csv" or rel == "data/leaderboard/history.csv":
                if backdated:
                    scope.old_nights = scope.old_nights or f"{rel} has a row recorded before the checkpoint's recompute"
                if rel.endswith("history.csv"):
                    scope.new_nights |= {r.get("as_of", "") for r in rows}
            else:
                scope.ledgers = True
            continue
        return Scope(why=f"{rel} changed since the checkpoint and the scoped rule does not know what it affects")
    scope.ledgers = scope.ledgers or format_ts(as_of) != since
    return scope


def changed_paths(root: Path, commit: str) -> dict[str, str]:
    """The paths under data/ whose content differs between ``commit`` and the working tree, with git's
    status letter (A, M, D, …), and the files under data/ git does not track (as added)."""
    out = git.run_git(root, "diff", "--name-status", "-z", "--no-renames", "--no-ext-diff", "--no-textconv", commit, "--", "data/")
    cells = out.decode("utf-8", "surrogateescape").split("\0")
    changed = {cells[i + 1]: cells[i][:1] for i in range(0, len(cells) - 1, 2) if cells[i]}
    others = git.run_git(root, "ls-files", "-z", "--others", "--", "data/").decode("utf-8", "surrogateescape")
    changed.update({p: "A" for p in others.split("\0") if p})
    return changed


def appended_rows(old: bytes, new: bytes) -> list[dict[str, str]] | None:
    """The rows ``new`` adds after ``old``'s bytes, as dicts of cell text; None when ``new`` does not
    start with ``old`` (rows edited, removed or reordered) or its header changed."""
    if not old:
        return _rows(new)
    if not new.startswith(old):
        return None
    header = old.split(b"\n", 1)[0]
    tail = new[len(old) :]
    if not old.endswith(b"\n"):
        return None if tail and not tail.startswith(b"\n") else _rows(header + tail)
    return _rows(header + b"\n" + tail)


def _rows(data: bytes) -> list[dict[str, str]] | None:
    """The rows of CSV bytes as dicts of cell text, read as the git audit reads a ledger's version
    (``audit.ledgers.records``); None when they do not parse (judged as rewritten)."""
    try:
        header, rows = records(data)
    except ValueError:
        return None
    return [dict(zip(header, row, strict=True)) for row in rows]


def resolutions_moved(hub: Hub, scope: Scope, obs: pd.DataFrame, as_of: datetime) -> None:
    """Add to ``scope.rounds`` each round whose units resolve now otherwise than at the checkpoint's
    recompute time (``Scope.ledgers``: only when the ledgers or the time moved)."""
    if not scope.ledgers:
        return
    now, then = (recompute.hub_view(hub, obs, when) for when in (as_of, parse_ts(scope.recorded_at)))
    for due in readers.round_dues(hub):
        name = format_date(due)
        if name in scope.rounds:
            continue
        questions = readers.load_round(hub, due)
        a, b = resolve_round(questions, now), resolve_round(questions, then)
        if not a.reset_index(drop=True).equals(b.reset_index(drop=True)):
            a, b = a.reset_index(drop=True), b.reset_index(drop=True)
            moved = len(a) if len(a) != len(b) else int((~((a == b) | (a.isna() & b.isna()))).any(axis=1).sum())
            scope.rounds[name] = f"{moved} unit(s) resolve otherwise than at {scope.recorded_at}"


def old_night_hit(hub: Hub, scope: Scope, stamps: list[str], obs: pd.DataFrame) -> str:
    """Why a night the checkpoint held must be recomputed ("" when none must): a changed round or
    forecast file of a round with a unit resolved at one of ``stamps`` (the ledgers' view then, read
    from ``obs``' rows of that round's questions only)."""
    if scope.old_nights:
        return scope.old_nights
    touched = sorted({rel.split("/")[2] for rel in scope.forecasts} | {d for d, why in scope.rounds.items() if why.startswith("data/rounds/")})
    for stamp in stamps:
        for name in touched:
            due = parse_ts(f"{name}T00:00:00Z")
            if not hub.layout.round_questions(due).is_file():
                continue
            questions = readers.load_round(hub, due)
            view = recompute.hub_view(hub, obs[obs["question_id"].isin(set(questions["question_id"]))], parse_ts(stamp))
            resolved = resolve_round(questions, view)
            if (resolved["status"] != "open").any():
                return f"round {name} changed and had a unit resolved by the night of {stamp}"
    return ""
