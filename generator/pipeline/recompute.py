"""Scores and leaderboard history recomputed from the ledgers as recorded at a time.

The nightly writes what these return; ``prescient verify`` (``audit.verify``) compares the files with them.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

import pandas as pd

from ..errors import Problem
from ..leaderboard.crowd import crowd_from_rounds
from ..leaderboard.fb_rules import orphan_problem
from ..leaderboard.hub_boards import KeptBoards, history_rows, pair_boards
from ..parallel import forked_map
from ..schemas import SCORES
from ..scoring.brier import RoundForecasts, resolved_units, score_forecasts, score_round
from ..scoring.resolve import LedgerView, ledger_view, resolve_round
from ..store import readers
from ..store.hub import Hub
from ..timeutil import format_date, format_ts


def headline_rows(hub: Hub, scores: pd.DataFrame, as_of: datetime, kept: KeptBoards | None = None) -> pd.DataFrame:
    """Tonight's history rows: each configured board × view, as ``prescient leaderboard`` prints it
    with ``--as-of`` and ``--view`` (point estimates; the bootstrap is not needed for them).
    ``kept``: the boards of an earlier night, each taken again while nothing it reads changed."""
    settings = hub.settings
    lb = settings.leaderboard
    pairs = [(b, v) for b in lb.boards for v in lb.views]
    boards = pair_boards(scores, readers.load_models(hub, as_of), as_of, settings, pairs, replicates=0, kept=kept, headline_only=True)
    return history_rows(boards, as_of, settings.scoring.methodology_version)


def board_warnings(hub: Hub, as_of: datetime) -> list[Problem]:
    """What the configured boards (overall view, point estimates) would print as warnings as of
    ``as_of``: ``orphan-units`` for a board that scores units no estimation-sample forecaster answered
    (an import of a few forecast sets must not shrink or skew a board unsaid)."""
    settings = hub.settings
    boards = pair_boards(
        readers.load_scores(hub),
        readers.load_models(hub, as_of),
        as_of,
        settings,
        [(b, "overall") for b in settings.leaderboard.boards],
        replicates=0,
        crowd=hub_crowd(hub),
    )
    return [orphan_problem(board.attrs["orphans"], name) for (name, _), board in boards.items() if board.attrs.get("orphans")]


def hub_crowd(hub: Hub) -> pd.DataFrame | None:
    """The crowd value of every round's markets (``crowd_from_rounds``) when the hub takes market
    difficulty from the crowd (``[leaderboard] market_difficulty = "crowd"``), else None."""
    dues = readers.round_dues(hub)
    if hub.settings.leaderboard.market_difficulty != "crowd" or not dues:
        return None
    return crowd_from_rounds(pd.concat([readers.load_round(hub, d) for d in dues]), readers.load_observations(hub))


def hub_view(hub: Hub, obs: pd.DataFrame, as_of: datetime) -> LedgerView:
    """What the ledgers (observations and stated resolutions) said at ``as_of``, under the hub's
    policy for open markets past their round's due time (``[scoring] unresolved_markets``)."""
    policy = hub.settings.scoring.unresolved_markets
    return ledger_view(obs, format_ts(as_of), readers.load_statements(hub), policy)


def write_round_scores(hub: Hub, view: LedgerView, impute_value: float, quarantine: list[Problem] | None = None) -> tuple[pd.DataFrame, list[str]]:
    """Score every round with what ``view`` says. Returns all scores and the score files that changed."""
    frames, written = [], []
    for due, scores in scores_by_round(hub, view, impute_value, quarantine).items():
        if hub.cache.write_table(hub.layout.scores(due), scores, SCORES):
            written.append(hub.layout.relative(hub.layout.scores(due)))
        frames.append(scores)
    return concat_scores(frames), written


def write_round_scores_in_parallel(hub: Hub, view: LedgerView, impute_value: float, processes: int = 1) -> tuple[int, list[str]]:
    """``write_round_scores`` for a command that needs only how many forecasts were scored and the score
    files that changed (the FB import): with ``processes`` > 1 the rounds are shared among that many
    forked processes (``parallel.forked_map``), each scoring and writing its rounds' files as
    ``write_round_scores`` would."""

    def one(due: datetime) -> tuple[int, str | None]:
        scores = score_one_round(hub, due, view, impute_value, [])[2]
        changed = hub.cache.write_table(hub.layout.scores(due), scores, SCORES)
        return len(scores), hub.layout.relative(hub.layout.scores(due)) if changed else None

    done = forked_map(one, readers.round_dues(hub), processes, hub.cache.disk)
    if done is None:
        scores, written = write_round_scores(hub, view, impute_value)
        return len(scores), written
    return sum(n for n, _ in done), [path for _, path in done if path is not None]


def scores_by_round(hub: Hub, view: LedgerView, impute_value: float, quarantine: list[Problem] | None = None) -> dict[datetime, pd.DataFrame]:
    """Every round's scores under ``view``, by due time; nothing is written (``prescient verify`` uses it).

    A forecast file that cannot be read is never scored, so every caller (the nightly, verify, the
    leaderboard) leaves it out alike; ``quarantine`` collects those files when the caller reports them."""
    quarantine = [] if quarantine is None else quarantine
    return {due: score_one_round(hub, due, view, impute_value, quarantine)[2] for due in readers.round_dues(hub)}


def score_one_round(
    hub: Hub,
    due: datetime,
    view: LedgerView,
    impute_value: float,
    quarantine: list[Problem],
    forecasts: Callable[[pd.DataFrame], RoundForecasts] | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """One round under ``view``: its questions, their resolutions and its scores (the one place a
    round's scores are composed: ``scores_by_round`` and the nightly's incremental derive both call it).
    ``forecasts(questions)``: the round's forecast files as ``brier.round_forecasts`` gives them, when the
    caller keeps them (the nightly's derive); otherwise the files are read here."""
    questions = readers.load_round(hub, due)
    resolutions = resolve_round(questions, view)
    units, sets = resolved_units(questions, resolutions), readers.load_round_sets(hub, due)
    if forecasts is None:
        scores = score_round(format_date(due), units, readers.load_forecasts(hub, due, quarantine), impute_value, sets)
    else:
        scores = score_forecasts(format_date(due), units, forecasts(questions), impute_value, sets)
    return questions, resolutions, scores


def concat_scores(frames: list[pd.DataFrame]) -> pd.DataFrame:
    """The rounds' score frames as one SCORES frame (an empty one for no round)."""
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=list(SCORES.names))


def history_for(hub: Hub, as_of: datetime, scores: pd.DataFrame | None = None, kept: KeptBoards | None = None) -> pd.DataFrame:
    """The leaderboard history rows of a nightly run at ``as_of`` (what the nightly appends).

    The nightly passes the scores it has just computed, and the boards it keeps from night to night
    (``kept``); without scores they are recomputed from the ledgers as recorded by ``as_of`` (how
    ``prescient verify`` checks a past night's rows).
    """
    return headline_rows(hub, scores_as_of(hub, as_of) if scores is None else scores, as_of, kept)


def scores_as_of(hub: Hub, as_of: datetime) -> pd.DataFrame:
    """Every round's scores from the ledgers as recorded by ``as_of`` (nothing is written)."""
    view = hub_view(hub, readers.load_observations(hub), as_of)
    return concat_scores(list(scores_by_round(hub, view, hub.settings.scoring.impute_value).values()))
