"""What no one key's type or range can say about data/hub.toml: keys checked against each other and
against the hub's words (``config.load_settings`` calls these after ``config_schema.check_table``).
Each problem is an error (code ``bad-value``) named by its key, which ``load_settings`` turns into
the line of the file: every command refuses the hub until it is fixed, as ``check-config`` does.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .config_schema import did_you_mean, key_problem
from .errors import Problem
from .vocabulary import parse_view, view_sources


def cross_key_problems(tables: dict[str, dict[str, Any]], path: Path) -> list[Problem]:
    """Keys whose values are each in range but do not go together, and the views (one naming no source too)."""
    return [*_rounds(tables["rounds"], path), *_view_sources(tables["leaderboard"], path)]


def _rounds(table: dict[str, Any], path: Path) -> list[Problem]:
    opened, cadence = table.get("open_days_before_due"), table.get("cadence_days")
    if not isinstance(opened, int) or not isinstance(cadence, int) or opened <= cadence:
        return []  # a wrong type or range was reported by check_table
    return [
        key_problem(
            path,
            "rounds.open_days_before_due",
            "bad-value",
            f"rounds.open_days_before_due = {opened} is more than rounds.cadence_days = {cadence}: each round's question set "
            "would be frozen before the round before it is due, so two rounds would be open at once and a team would have "
            f"to forecast both; give at most {cadence} (or a longer cadence_days)",
        )
    ]


def _view_sources(table: dict[str, Any], path: Path) -> list[Problem]:
    """The views of [leaderboard]: each a view's name, a ``source:`` one naming a question source (types,
    boards, replicates and the difficulty rule: ``check_table``)."""
    problems = []
    known = view_sources()
    for view in table.get("views") or ():
        try:
            kind, name = parse_view(view)
        except ValueError as exc:
            problems.append(key_problem(path, "leaderboard.views", "bad-value", f"leaderboard.views: {exc}"))
            continue
        if kind == "source" and name not in known:
            problems.append(
                key_problem(
                    path,
                    "leaderboard.views",
                    "bad-value",
                    f"leaderboard.views: {view!r} names no question source (one of {', '.join(known)}){did_you_mean(name, known)}",
                )
            )
    return problems
