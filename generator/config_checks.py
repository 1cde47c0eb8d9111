"""What no one key's type or range can say about data/hub.toml: keys checked against each other and
against the hub's words and its data (``[hub] own_prefix`` against the prefix the hub's own files were
written under: ``own-prefix-changed``), which ``config.load_settings`` checks after ``config_schema.check_table``.
Each problem is an error (code ``bad-value`` unless said) named by its key, which ``load_settings`` turns into
the line of the file: every command refuses the hub until it is fixed, as ``check-config`` does.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .config_schema import did_you_mean, key_problem
from .errors import Problem, SchemaError
from .models import HUB_ORGANIZATION, OWN_MARK, model_from_yaml, own_prefix_problem, team_of
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


def own_prefix_problems(own: Any, marks: Mapping[str, bytes], path: Path) -> list[Problem]:
    """``[hub] own_prefix``: a team id no one else uses (``models.own_prefix_problem``, code ``bad-value``), and
    the one the data holds. ``marks`` holds the bytes of each ``data/models/<X>.always-0.5.yml``
    (``OWN_MARK``) by model id. One that is the hub's own baseline (kind ``baseline``, organization
    ``HUB_ORGANIZATION``: no pull request may register that kind, and ForecastBench's carry its name) under a
    prefix X other than ``own`` means the hub's files were written under X: ``own-prefix-changed``."""
    if not isinstance(own, str):
        return []  # a wrong type was reported by check_table
    why = own_prefix_problem(own)
    if why:
        return [key_problem(path, "hub.own_prefix", "bad-value", f"hub.own_prefix = {own!r}: {why}")]
    written = sorted({team_of(model) for model, data in marks.items() if team_of(model) != own and _is_hub_baseline(model, data)})
    return [
        key_problem(
            path,
            "hub.own_prefix",
            "own-prefix-changed",
            f"hub.own_prefix = {own!r}, but the hub's own forecasters' files are written under {old!r} (data/models/{old}.{OWN_MARK}.yml): "
            f"the prefix is fixed once the hub's first nightly has run; put back own_prefix = {old!r}",
        )
        for old in written
    ]


def _is_hub_baseline(model: str, data: bytes) -> bool:
    try:
        meta = model_from_yaml(model, data, model)
    except SchemaError:
        return False
    return meta.kind == "baseline" and meta.organization == HUB_ORGANIZATION


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
