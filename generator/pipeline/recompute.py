"""Scores and leaderboard history recomputed from the ledgers as recorded at a time.

The nightly writes what these return; ``prescient verify`` (``audit.verify``) compares the files with them.
"""

from __future__ import annotations

from datetime import datetime

import pandas as pd

from ..config import Settings
from ..errors import Problem
from ..leaderboard.fb_board import crowd_from_rounds
from ..leaderboard.fb_rules import orphan_problem
from ..leaderboard.hub_boards import KeptBoards, boards_for, history_rows
from ..schemas import SCORES
from ..scoring.brier import resolved_units, score_round
from ..scoring.resolve import LedgerView, ledger_view, resolve_round
from ..store import readers
from ..store.csvio import write_table
from ..store.hub import Hub
from ..store.layout import Layout
from ..timeutil import format_date, format_ts
from .forked import forked_map


def headline_rows(settings: Settings, layout: Layout, scores: pd.DataFrame, as_of: datetime,
                  kept: KeptBoards | None = None) -> pd.DataFrame:
    """Tonight's history rows: each configured board × view, as ``prescient leaderboard`` prints it
    with ``--as-of`` and ``--view`` (point estimates; the bootstrap is not needed for them).
    ``kept``: the boards of an earlier night, each taken again while nothing it reads changed."""
    lb = settings.leaderboard
    boards = boards_for(scores, readers.load_models(layout, as_of), as_of, settings,
                        [(b, v) for b in lb.boards for v in lb.views], replicates=0, kept=kept)
    return history_rows(boards, as_of, settings.scoring.methodology_version)


def board_warnings(hub: Hub, as_of: datetime) -> list[Problem]:
    """What the configured boards (overall view, point estimates) would print as warnings as of
    ``as_of``: ``orphan-units`` for a board that scores units no estimation-sample forecaster answered
    (issue 34: an import of a few forecast sets must not shrink or skew a board unsaid)."""
    layout, settings = hub.layout, hub.settings
    boards = boards_for(readers.load_scores(layout), readers.load_models(layout, as_of), as_of, settings,
                        [(b, "overall") for b in settings.leaderboard.boards], replicates=0, crowd=hub_crowd(hub))
    return [orphan_problem(board.attrs["orphans"], name) for (name, _), board in boards.items() if board.attrs.get("orphans")]


def hub_crowd(hub: Hub) -> pd.DataFrame | None:
    """The crowd value of every round's markets (``crowd_from_rounds``) when the hub takes market
    difficulty from the crowd (``[leaderboard] market_difficulty = "crowd"``), else None."""
    dues = readers.round_dues(hub.layout)
    if hub.settings.leaderboard.market_difficulty != "crowd" or not dues:
        return None
    return crowd_from_rounds(pd.concat([readers.load_round(hub.layout, d) for d in dues]), readers.load_observations(hub.layout))


def hub_view(hub: Hub, obs: pd.DataFrame, as_of: datetime) -> LedgerView:
    """What the ledgers (observations and stated resolutions) said at ``as_of``, under the hub's
    policy for open markets past their round's due time (``[scoring] unresolved_markets``)."""
    policy = hub.settings.scoring.unresolved_markets
    return ledger_view(obs, format_ts(as_of), readers.load_resolutions(hub.layout), policy)


def score_rounds(layout: Layout, view: LedgerView, impute_value: float,
                 quarantine: list[Problem] | None = None) -> tuple[pd.DataFrame, list[str]]:
    """Score every round with what ``view`` says. Returns all scores and the score files that changed."""
    frames, written = [], []
    for due, scores in round_scores(layout, view, impute_value, quarantine).items():
        if write_table(layout.scores(due), scores, SCORES, cache=layout.cache):
            written.append(layout.relative(layout.scores(due)))
        frames.append(scores)
    return _all_scores(frames), written


def score_counts(layout: Layout, view: LedgerView, impute_value: float, processes: int = 1) -> tuple[int, list[str]]:
    """``score_rounds`` for a command that needs only how many forecasts were scored and the score
    files that changed (the FB import): with ``processes`` > 1 the rounds are shared among that many
    forked processes (``forked.forked_map``), each scoring and writing its rounds' files as
    ``score_rounds`` would."""
    def one(due: datetime) -> tuple[int, str | None]:
        scores = scored_round(layout, due, view, impute_value, [])[2]
        changed = write_table(layout.scores(due), scores, SCORES, cache=layout.cache)
        return len(scores), layout.relative(layout.scores(due)) if changed else None

    done = forked_map(one, readers.round_dues(layout), processes, layout.cache)
    if done is None:
        scores, written = score_rounds(layout, view, impute_value)
        return len(scores), written
    return sum(n for n, _ in done), [path for _, path in done if path is not None]


def round_scores(layout: Layout, view: LedgerView, impute_value: float,
                 quarantine: list[Problem] | None = None) -> dict[datetime, pd.DataFrame]:
    """Every round's scores under ``view``, by due time; nothing is written (``prescient verify`` uses it).

    A forecast file that cannot be read is never scored, so every caller (the nightly, verify, the
    leaderboard) leaves it out alike; ``quarantine`` collects those files when the caller reports them."""
    quarantine = [] if quarantine is None else quarantine
    return {due: scored_round(layout, due, view, impute_value, quarantine)[2] for due in readers.round_dues(layout)}


def scored_round(layout: Layout, due: datetime, view: LedgerView, impute_value: float,
                 quarantine: list[Problem]) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """One round under ``view``: its questions, their resolutions and its scores (the one place a
    round's scores are composed: ``round_scores`` and the nightly's incremental derive both call it)."""
    questions = readers.load_round(layout, due)
    resolutions = resolve_round(questions, view)
    scores = score_round(format_date(due), resolved_units(questions, resolutions),
                         readers.load_forecasts(layout, due, quarantine), impute_value, readers.load_round_sets(layout, due))
    return questions, resolutions, scores


def _all_scores(frames: list[pd.DataFrame]) -> pd.DataFrame:
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=list(SCORES.names))


def history_for(hub: Hub, as_of: datetime, scores: pd.DataFrame | None = None,
                kept: KeptBoards | None = None) -> pd.DataFrame:
    """The leaderboard history rows of a nightly run at ``as_of`` (what the nightly appends).

    The nightly passes the scores it has just computed, and the boards it keeps from night to night
    (``kept``); without scores they are recomputed from the ledgers as recorded by ``as_of`` (how
    ``prescient verify`` checks a past night's rows).
    """
    return headline_rows(hub.settings, hub.layout, scores_as_of(hub, as_of) if scores is None else scores, as_of, kept)


def scores_as_of(hub: Hub, as_of: datetime) -> pd.DataFrame:
    """Every round's scores from the ledgers as recorded by ``as_of`` (nothing is written)."""
    view = hub_view(hub, readers.load_observations(hub.layout), as_of)
    return _all_scores(list(round_scores(hub.layout, view, hub.settings.scoring.impute_value).values()))
