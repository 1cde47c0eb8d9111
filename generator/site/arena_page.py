"""The Arena page (``generated/arena/index.md``): every bettor's portfolio value over time on one chart,
every cohort apart, each forecaster's bets in it (the hub's own agents marked) beside its proper score
(the leaderboard's Brier Index), the bet Brier per round and across rounds with Forecaster Arena's
skill score, and each forecaster's decisions with their reasoning. A secondary view: rows are
ordered by name, never by P/L or Brier."""

from __future__ import annotations

import json

import jinja2
import pandas as pd

from ..arena.portfolio import BRIER_REFERENCE
from ..models import DEFAULT_OWN, is_own
from . import charts
from .questions import question_slug

AGENT_SUFFIX = "-arena"  # forecasters.agents.agent_id: the hub's Arena agents are <own>.<model>-arena
PROPER = ("overall", "overall_ci_low", "overall_ci_high", "rank")  # the board's columns shown beside P/L


def is_hub_agent(model: str, own: str = DEFAULT_OWN) -> bool:
    """One of the hub's own Arena agents: ``<own>.<model>-arena``, ``own`` its ``[hub] own_prefix``."""
    return is_own(model, own) and model.endswith(AGENT_SUFFIX)


def _proper(board: pd.DataFrame | None) -> dict[str, dict]:
    """Per model on the board: its Brier Index, CI and rank (the proper score beside the P/L)."""
    if board is None or not len(board):
        return {}
    return {r["model"]: {k: r[k] for k in PROPER} for r in board.to_dict("records")}


def decision_groups(decisions: pd.DataFrame | None, names: dict[str, str], own: str = DEFAULT_OWN) -> list[dict]:
    """Each model's decisions (``arena.decisions.DECISIONS``), in time order, with its question page."""
    if decisions is None or not len(decisions):
        return []
    return [
        {
            "model": model,
            "name": names.get(model, model),
            "agent": is_hub_agent(model, own),
            "rows": [{**r, "slug": question_slug(r["question_id"])} for r in rows.to_dict("records")],
            "src": f"decisions/{model}.json",
        }
        for model, rows in decisions.groupby("model", sort=True)
    ]


def _number_cell(value: float, digits: int) -> dict:
    """A number cell: its text as the page prints it, and its value for sorting (absent when missing)."""
    return {"t": "–"} if pd.isna(value) else {"t": f"{value:.{digits}f}", "v": float(value)}


def decision_cells(row: dict) -> list[dict]:
    """One decision as the cells of its table row (``arena_index.md.j2``'s columns), each ``{"t": text}``
    with ``"v"`` (sort value), ``"href"`` (a link from the Arena page) or ``"c"`` (a class) where one is
    needed. The page's script writes them as text, never as markup."""
    return [
        {"t": str(row["round"])},
        {"t": str(row["placed_at"])[:16].replace("T", " "), "c": "prescient-nowrap"},
        {"t": str(row["question_id"]), "href": f"../questions/{row['slug']}/"},
        {"t": str(row["action"])},
        {"t": str(row["side"])},
        _number_cell(row["amount"], 2),
        _number_cell(row["price"], 3),
        _number_cell(row["f_yes"], 2),
        {"t": str(row["status"] or "–")},
        _number_cell(row["payout"], 2),
        {"t": str(row["reasoning"]), "c": "prescient-reasoning"},
    ]


def decision_files(groups: list[dict]) -> dict[str, str]:
    """Each model's decisions as a file the Arena page fetches when a reader opens them (its reasoning
    is most of the page's weight), by path under generated/."""
    return {
        f"arena/{g['src']}": json.dumps(
            {"model": g["model"], "rows": [decision_cells(r) for r in g["rows"]]}, ensure_ascii=True, separators=(",", ":"), allow_nan=False
        )
        for g in groups
    }


def arena_pages(
    env: jinja2.Environment,
    arena: pd.DataFrame,
    brier: pd.DataFrame,
    common: dict,
    curves: pd.DataFrame | None = None,
    decisions: pd.DataFrame | None = None,
    board: pd.DataFrame | None = None,
    names: dict[str, str] | None = None,
    own: str = DEFAULT_OWN,
) -> dict[str, str]:
    names = names or {}
    proper = _proper(board)
    bets = arena[arena["view"] == "bets"] if len(arena) else arena
    cohorts = (
        [
            {
                "name": name,
                "rows": [
                    {**r, "agent": is_hub_agent(r["model"], own), "proper": proper.get(r["model"]), "bss": 1.0 - r["bet_brier"] / BRIER_REFERENCE}
                    for r in rows.to_dict("records")
                ],
            }
            for name, rows in sorted(bets.groupby("cohort"), key=lambda item: str(item[0]), reverse=True)
        ]
        if len(bets)
        else []
    )
    rows = [{**r, "agent": is_hub_agent(r["model"], own)} for r in brier.to_dict("records")] if len(brier) else []
    bet_curves = curves[curves["view"] == "bets"] if curves is not None and len(curves) else None
    chart = charts.to_json(charts.arena_portfolios(bet_curves, names)) if bet_curves is not None and len(bet_curves) else ""
    groups = decision_groups(decisions, names, own)
    return {
        "arena/index.md": env.get_template("arena_index.md.j2").render(**common, cohorts=cohorts, brier=rows, chart=chart, decisions=groups),
        **decision_files(groups),
    }
