"""``prescient validate FILE...`` on files of the working tree: a submitter's files as a pull request's
check will see them, and the hub's own forecasters' files (``<own>.*``, ``[hub] own_prefix``: baselines, the LLM
forecaster, the Arena agents) by the rules the nightly applies when it writes them
(``validate_files(hub_own=True)``, the check the LLM forecaster and the agents run on what they wrote),
each at the time the hub's manifest first recorded its bytes unless a time is given. So an auditor
can re-check an agent's bet file; the report says which rules it applied.
"""

from __future__ import annotations

import os
from dataclasses import replace
from datetime import datetime
from pathlib import Path

from ..models import DEFAULT_OWN, is_own
from ..store import manifest
from ..store.files import own_prefix_of, read_bytes
from ..store.hub import Hub
from ..timeutil import format_ts, parse_ts
from .paths import classify
from .report import Report
from .validate import validate_files


def is_hub_own(rel: str, own: str = DEFAULT_OWN) -> bool:
    """A file of the hub's own forecasters (its model id has the hub's team prefix ``own``)."""
    target, _ = classify(rel)
    return target.model is not None and is_own(target.model, own)


def validate_local(root: Path, files: list[Path], at: datetime, at_given: bool) -> Report:
    """Every file checked (see the module); ``at_given``: ``at`` was asked for, so the hub's own files are
    checked at it too, not at the times the manifest recorded them."""
    rels, prefix = {f: _relative(root, f) for f in files}, own_prefix_of(root)
    own = [f for f in files if is_hub_own(rels[f], prefix)]
    theirs = [f for f in files if f not in own]
    reports = [validate_files(root, theirs, at)] if theirs or not own else []
    recorded = {} if at_given or not own else manifest.first_recorded(manifest.load_manifest(Hub(root)))
    groups: dict[tuple[datetime, str], list[Path]] = {}
    for file in own:
        first = recorded.get((rels[file], manifest.sha256(read_bytes(file)))) if file.is_file() else None
        if first:
            key = (parse_ts(first), "when the hub's manifest first recorded these bytes")
        else:
            key = (at, "the time given" if at_given else "the command's time: no manifest row records these bytes")
        groups.setdefault(key, []).append(file)
    for (when, why), group in sorted(groups.items()):
        note = (
            f"{', '.join(rels[f] for f in group)}: the hub's own forecasters' files ({prefix}.*), checked by the rules the "
            f"nightly applies when it writes them, at {format_ts(when)} ({why}); only the hub's nightly writes them, and a "
            "pull request that adds or changes one is refused (reserved-prefix)"
        )
        checked = validate_files(root, group, when, hub_own=True)
        reports.append(replace(checked, notes=(*checked.notes, note)))
    if len(reports) == 1:
        return reports[0]
    return Report(
        format_ts(at),
        tuple(f for r in reports for f in r.files),
        tuple(p for r in reports for p in r.problems),
        tuple(n for r in reports for n in r.notes),
        tuple(sorted({o for r in reports for o in r.open_rounds})),
    )


def _relative(root: Path, file: Path) -> str:
    full = Path(os.path.abspath(file))
    try:
        return full.relative_to(Path(os.path.abspath(root))).as_posix()
    except ValueError:
        return str(file)
