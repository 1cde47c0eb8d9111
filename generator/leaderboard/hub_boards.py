"""The hub's published boards: every configured board × view, and tonight's headline rows. Pure.

The site, ``prescient leaderboard`` and ``data/leaderboard/history.csv`` all go through here, so a
number on the site, in the CLI and in the history is computed one way (``fb_board`` with the
options ``board_options`` reads from ``hub.toml``).
"""

from __future__ import annotations

from datetime import datetime

import numpy as np
import pandas as pd

from ..config import Settings
from ..models import ModelMeta
from ..schemas import HISTORY
from ..timeutil import format_ts
from .fb_board import AUTO, board_of, board_options, crowd_from_rounds, ranking_score, select, selection_key
from .views import view_rows

# The score each view ranks by: the per-type views by that type's Brier Index, the overall view by
# the overall one (FB's), every other view (a source, a category, a horizon, resolved-only) by the
# overall score when it holds both question types and by the one type it holds otherwise.
HEADLINE = {"overall": "overall", "market": "market", "dataset": "dataset"}
RECORDED_BEFORE_VIEWS = ""  # history.csv's view on nights recorded before the column existed: the overall view
BOOTSTRAP_COLUMNS = (*(f"{s}_ci_{e}" for s in ("dataset", "market", "overall") for e in ("low", "high")),
                     "pct_rank1", "rank_low", "rank_high", "p_value")


def headline_of(view: str, board: pd.DataFrame) -> str:
    """The score column ``board`` (the board of ``view``) is ranked by, as ``fb_board`` chose it."""
    counts = [board[f"n_{t}"].fillna(0).sum() if f"n_{t}" in board else 0 for t in ("dataset", "market")]
    return ranking_score(HEADLINE.get(view, AUTO), counts)


def board_for(scores: pd.DataFrame, models: dict[str, ModelMeta], as_of: datetime, settings: Settings, *,
              board: str, view: str = "overall", replicates: int | None = None, seed: int | None = None,
              crowd: pd.DataFrame | None = None, **options) -> pd.DataFrame:
    """One board × view, as ``fb_board`` computes it with the hub's options (``options`` override
    ``FBOptions`` fields). ``replicates=0``: point estimates and ranks only, bootstrap columns empty."""
    return boards_for(scores, models, as_of, settings, [(board, view)], replicates=replicates, seed=seed, crowd=crowd,
                      **options)[(board, view)]


def boards_for(scores: pd.DataFrame, models: dict[str, ModelMeta], as_of: datetime, settings: Settings,
               pairs: list[tuple[str, str]], *, replicates: int | None = None, seed: int | None = None,
               crowd: pd.DataFrame | None = None, **options) -> dict[tuple[str, str], pd.DataFrame]:
    """Each (board, view) of ``pairs`` as ``board_for`` computes it, in the order given. The boards of
    one view share one row selection (``fb_board.select``): the baseline board's rows are the
    tournament's rows of the models that saw no crowd value, so step 1 runs once per view."""
    out: dict[tuple[str, str], pd.DataFrame] = {}
    for view in dict.fromkeys(v for _, v in pairs):
        rows, shared = view_rows(scores, view), {}
        for board in (b for b, v in pairs if v == view):
            fb_options = board_options(settings.scoring, settings.leaderboard, board=board, score=HEADLINE.get(view, AUTO),
                                       replicates=replicates, **options)
            key = selection_key(fb_options)
            if key not in shared:
                shared[key] = select(rows, models, as_of, fb_options)
            rng = np.random.default_rng(settings.leaderboard.seed if seed is None else seed)
            board_crowd = crowd if fb_options.market_difficulty == "crowd" else None
            out[(board, view)] = _point_only(board_of(shared[key], models, as_of, rng, fb_options, board_crowd), replicates)
    return {pair: out[pair] for pair in pairs}


def _point_only(board: pd.DataFrame, replicates: int | None) -> pd.DataFrame:
    """A board of ``replicates=0`` with its bootstrap columns empty: ``fb_board`` leaves them so
    (no bootstrap); its empty board, of no rows, takes their types here."""
    if replicates == 0 and board.empty:
        board[list(BOOTSTRAP_COLUMNS)] = np.nan
        board[["p_display", "p_label"]] = ""
    return board


def all_boards(scores: pd.DataFrame, models: dict[str, ModelMeta], as_of: datetime, settings: Settings,
               round_questions: pd.DataFrame | None = None, replicates: int | None = None,
               observations: pd.DataFrame | None = None) -> dict[tuple[str, str], pd.DataFrame]:
    """Every configured (board, view), in configuration order; ``observations`` give the crowd value at
    each round's due time (``crowd_from_rounds``). Each board's ``attrs["unranked"]`` lists the files
    the imputation rule left off, with the reason."""
    crowd = crowd_from_rounds(round_questions, observations) if round_questions is not None and len(round_questions) else None
    lb = settings.leaderboard
    return boards_for(scores, models, as_of, settings, [(b, v) for b in lb.boards for v in lb.views],
                      replicates=replicates, crowd=crowd)


def history_rows(boards: dict[tuple[str, str], pd.DataFrame], as_of: datetime, version: str) -> pd.DataFrame:
    """Tonight's HISTORY rows: every board × view given (point estimates only), each row naming its
    view. One frame from the boards' columns joined end to end (a frame per board, then a concat,
    cost a tenth of the nightly's headline)."""
    kept = [(board, view, frame) for (board, view), frame in boards.items() if not frame.empty]
    if not kept:
        return pd.DataFrame(columns=list(HISTORY.names))
    sizes = [len(frame) for _, _, frame in kept]
    joined = {c: np.concatenate([frame[c].to_numpy() for _, _, frame in kept])
              for c in ("model", "rank", "n_dataset", "n_market", "overall", "dataset", "market", "brier_overall",
                        "provisional")}
    return pd.DataFrame({
        **joined, "as_of": format_ts(as_of), "n": joined["n_dataset"] + joined["n_market"],
        "board": np.repeat(np.array([board for board, _, _ in kept], dtype=object), sizes),
        "view": np.repeat(np.array([view for _, view, _ in kept], dtype=object), sizes),
        "methodology_version": version, "ledger_digest": "",  # the nightly adds the night's digest
    })[list(HISTORY.names)]


def history_views(history: pd.DataFrame) -> pd.DataFrame:
    """HISTORY rows with every row's view named: a night recorded before the ``view`` column
    existed recorded the overall view only, so its empty view reads ``overall``."""
    if "view" not in history or not (history["view"] == RECORDED_BEFORE_VIEWS).any():
        return history
    return history.assign(view=history["view"].where(history["view"] != RECORDED_BEFORE_VIEWS, "overall"))
