"""The hub's published boards: every configured board × view, and tonight's headline rows. Pure.

The site, ``prescient leaderboard`` and ``data/leaderboard/history.csv`` all go through here, so a
number on the site, in the CLI and in the history is computed one way (``fb_board`` with the
options ``board_options`` reads from ``hub.toml``). The method is ``plain_pair_boards``, first
below; ``pair_boards`` makes the same boards faster (shared selections, ids coded once, boards
kept from the last night) and is tested equal to it (tests/leaderboard/test_hub_boards.py).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta

import numpy as np
import pandas as pd

from ..config import Settings
from ..models import ModelMeta
from ..parallel import one_blas_thread
from ..schemas import HISTORY
from ..timeutil import format_date, format_ts
from .crowd import crowd_from_rounds
from .fb_board import (
    AUTO,
    FBOptions,
    Selection,
    board_options,
    fb_board,
    ranking_score,
    select,
    selection_board,
    selection_key,
    unit_codes,
)
from .row_codes import RowCodes
from .secondary import units_as_text
from .views import view_mask, view_rows


def plain_pair_boards(
    scores: pd.DataFrame,
    models: dict[str, ModelMeta],
    as_of: datetime,
    settings: Settings,
    pairs: list[tuple[str, str]],
    *,
    replicates: int | None = None,
    seed: int | None = None,
    crowd: pd.DataFrame | None = None,
    **options,
) -> dict[tuple[str, str], pd.DataFrame]:
    """The method: each (board, view) of ``pairs``, in the order given, made on its own. A view is a
    subset of the score rows (``views``); a board is ForecastBench's board (``fb_board``) of those rows
    with the options ``hub.toml`` sets for it (``board_options``; ``options`` override ``FBOptions``
    fields), ranked by the view's headline score (``HEADLINE``). Each board draws its bootstrap from
    its own ``numpy.random.default_rng(seed)``, so a board is the same whichever others are made with
    it; ``crowd`` (the crowd's value of each market) serves the boards whose market difficulty is the
    crowd's. ``replicates=0``: point estimates and ranks only, bootstrap columns empty."""
    seed = settings.leaderboard.seed if seed is None else seed
    out = {}
    with one_blas_thread():  # numpy's BLAS on one thread: the same numbers on every machine
        for board, view in pairs:
            fb_options = _pair_options(settings, board, view, replicates, options)
            board_crowd = crowd if fb_options.market_difficulty == "crowd" else None
            made = fb_board(view_rows(scores, view), models, as_of, np.random.default_rng(seed), fb_options, board_crowd)
            out[(board, view)] = _point_only(made, replicates)
    return out


# The score each view ranks by: the per-type views by that type's Brier Index, the overall view by
# the overall one (FB's), every other view (a source, a category, a horizon, resolved-only) by the
# overall score when it holds both question types and by the one type it holds otherwise.
HEADLINE = {"overall": "overall", "market": "market", "dataset": "dataset"}
RECORDED_BEFORE_VIEWS = ""  # history.csv's view on nights recorded before the column existed: the overall view
BOOTSTRAP_COLUMNS = (
    *(f"{s}_ci_{e}" for s in ("dataset", "market", "overall") for e in ("low", "high")),
    "pct_rank1",
    "rank_low",
    "rank_high",
    "p_value",
    "pct_top5",
    "p_public",
)


def headline_of(view: str, board: pd.DataFrame) -> str:
    """The score column ``board`` (the board of ``view``) is ranked by, as ``fb_board`` chose it."""
    counts = [board[f"n_{t}"].fillna(0).sum() if f"n_{t}" in board else 0 for t in ("dataset", "market")]
    return ranking_score(HEADLINE.get(view, AUTO), counts)


def hub_board(
    scores: pd.DataFrame,
    models: dict[str, ModelMeta],
    as_of: datetime,
    settings: Settings,
    *,
    board: str,
    view: str = "overall",
    replicates: int | None = None,
    seed: int | None = None,
    crowd: pd.DataFrame | None = None,
    **options,
) -> pd.DataFrame:
    """One board × view, as ``fb_board`` computes it with the hub's options (``options`` override
    ``FBOptions`` fields). ``replicates=0``: point estimates and ranks only, bootstrap columns empty."""
    return pair_boards(scores, models, as_of, settings, [(board, view)], replicates=replicates, seed=seed, crowd=crowd, **options)[(board, view)]


@dataclass
class KeptBoards:
    """Boards kept from one call of ``pair_boards`` to the next (the nightly's headline, night after
    night): a board is made again only when something it reads has changed. A board reads the rows
    ``select`` keeps, the rows the imputation rule left off, the models' metadata, its options and
    seed, and, of the time, only which rounds are old enough for the stability rule; its key covers
    them all. The rows are known by ``parts``, the caller's names for the frames whose concatenation
    is ``scores`` (``digest.inputs_digest``'s: a token of each frame's rows and its number of rows),
    and their positions in those frames: a board none of whose rows lies in a frame that changed
    (a round too young for the board, say) is taken again. ``parts`` None keeps nothing. ``made``:
    the boards of the last call, by (board, view)."""

    parts: list[tuple[object, int]] | None = None
    boards: dict[str, pd.DataFrame] = field(default_factory=dict)
    made: dict[tuple[str, str], pd.DataFrame] = field(default_factory=dict)


def _pair_options(settings: Settings, board: str, view: str, replicates: int | None, options: dict) -> FBOptions:
    """The options of one (board, view): what hub.toml sets for the board, ranked by the view's headline
    score (``HEADLINE``), with ``replicates`` and the caller's ``options`` (``FBOptions`` fields) over them."""
    return board_options(
        settings.scoring, settings.leaderboard, settings.own_prefix, board=board, score=HEADLINE.get(view, AUTO), replicates=replicates, **options
    )


def pair_boards(
    scores: pd.DataFrame,
    models: dict[str, ModelMeta],
    as_of: datetime,
    settings: Settings,
    pairs: list[tuple[str, str]],
    *,
    replicates: int | None = None,
    seed: int | None = None,
    crowd: pd.DataFrame | None = None,
    kept: KeptBoards | None = None,
    **options,
) -> dict[tuple[str, str], pd.DataFrame]:
    """``plain_pair_boards``, the same boards, made faster. The boards of one view share one row
    selection (``fb_board.select``): the baseline board's rows are the tournament's rows of the models
    that saw no crowd value, so step 1 runs once per view; every selection and board reads the ids of
    ``scores`` coded once (``RowCodes``); and ``kept`` holds boards a board may be taken from when
    nothing it reads changed (``KeptBoards``), which is then given."""
    with one_blas_thread():  # numpy's BLAS on one thread: the same numbers on every machine
        out: dict[tuple[str, str], pd.DataFrame] = {}
        seed = settings.leaderboard.seed if seed is None else seed
        keys = (
            _Keys(kept.parts, scores, models, as_of, seed)
            if kept is not None and kept.parts is not None and sum(n for _, n in kept.parts) == len(scores) and crowd is None
            else None
        )
        fresh: dict[str, pd.DataFrame] = {}
        codes = _Codes(scores)
        for view in dict.fromkeys(v for _, v in pairs):
            mask = view_mask(scores, view).to_numpy(dtype=bool)
            whole = mask.all() and scores.index.equals(pd.RangeIndex(len(scores)))  # the overall view: no copy
            rows, shared = scores if whole else scores[mask].reset_index(drop=True), {}
            for board in (b for b, v in pairs if v == view):
                fb_options = _pair_options(settings, board, view, replicates, options)
                key = selection_key(fb_options)
                if key not in shared:
                    shared[key] = select(rows, models, as_of, fb_options, codes.of(mask))
                board_crowd = crowd if fb_options.market_difficulty == "crowd" else None
                name = keys.of(view, mask, shared[key], fb_options) if keys is not None else None
                if name is not None and kept is not None and name in kept.boards:
                    out[(board, view)] = fresh[name] = kept.boards[name]
                    continue
                shared[key] = codes.with_units(shared[key], mask)
                made = selection_board(shared[key], models, as_of, np.random.default_rng(seed), fb_options, board_crowd)
                out[(board, view)] = _point_only(made, replicates)
                if name is not None:
                    fresh[name] = out[(board, view)]
        if kept is not None:
            kept.boards, kept.made = fresh, dict(out)
        return {pair: out[pair] for pair in pairs}


class _Codes:
    """The ``RowCodes`` of one ``pair_boards`` call's ``scores``, for every selection; their units
    coded when a first board is made (a night whose boards are all kept codes no unit)."""

    def __init__(self, scores: pd.DataFrame):
        self.scores, self.codes = scores, RowCodes.of(scores)
        self.unit: np.ndarray | None = None
        self.text = False

    def of(self, mask: np.ndarray) -> RowCodes | None:
        """The codes of the rows of ``mask``."""
        return None if self.codes is None else self.codes.take(mask)

    def with_units(self, selection: Selection, mask: np.ndarray) -> Selection:
        """``selection`` (of the rows of ``mask``) with its rows' units coded."""
        if selection.codes is None or selection.codes.unit is not None:
            return selection
        if self.unit is None:
            self.unit, self.text = unit_codes(self.scores)[0], units_as_text(self.scores)
        positions = np.flatnonzero(mask)[selection.rows.index.to_numpy(dtype=np.int64)]
        return replace(selection, codes=selection.codes.with_units(self.unit[positions], self.text))


class _Keys:
    """``KeptBoards``' key of each board of one ``pair_boards`` call."""

    def __init__(self, parts: list[tuple[object, int]], scores: pd.DataFrame, models: dict[str, ModelMeta], as_of: datetime, seed: int):
        self.parts, self.offsets = parts, np.cumsum([0] + [n for _, n in parts])
        self.base = repr((sorted(models.items()), seed)).encode()
        self.rounds = sorted({str(r)[:10] for r in pd.unique(scores["round"].to_numpy())})
        self.as_of = as_of

    def of(self, view: str, mask: np.ndarray, selection: Selection, options: FBOptions) -> str:
        cutoff = format_date(self.as_of - timedelta(days=options.min_age_days))
        digest = hashlib.sha256(self.base)
        digest.update(repr((view, options, [r for r in self.rounds if r <= cutoff], selection.unranked.to_numpy().tolist())).encode())
        rows = np.flatnonzero(mask)[selection.rows.index.to_numpy(dtype=np.int64)]  # positions in ``scores``, ascending
        cuts = np.searchsorted(rows, self.offsets)
        for (token, _), start, a, b in zip(self.parts, self.offsets[:-1], cuts[:-1], cuts[1:], strict=True):
            if b > a:  # the frame holds some of the board's rows: its token, and which
                digest.update(repr((token, b - a)).encode())
                digest.update((rows[a:b] - start).tobytes())
        return digest.hexdigest()


def _point_only(board: pd.DataFrame, replicates: int | None) -> pd.DataFrame:
    """A board of ``replicates=0`` with its bootstrap columns empty: ``fb_board`` leaves them so
    (no bootstrap); its empty board, of no rows, takes their types here."""
    if replicates == 0 and board.empty:
        board[list(BOOTSTRAP_COLUMNS)] = np.nan
        board[["p_display", "p_label"]] = ""
    return board


def configured_pairs(settings: Settings) -> list[tuple[str, str]]:
    """Every configured (board, view), in configuration order (boards, then views)."""
    lb = settings.leaderboard
    return [(b, v) for b in lb.boards for v in lb.views]


def configured_boards(
    scores: pd.DataFrame,
    models: dict[str, ModelMeta],
    as_of: datetime,
    settings: Settings,
    round_questions: pd.DataFrame | None = None,
    replicates: int | None = None,
    observations: pd.DataFrame | None = None,
    pairs: list[tuple[str, str]] | None = None,
) -> dict[tuple[str, str], pd.DataFrame]:
    """Every configured (board, view), in configuration order, or only the ``pairs`` given (a share of
    them: ``site.boards`` makes the shares in forked workers); ``observations`` give the crowd value at
    each round's due time (``crowd_from_rounds``). Each board's ``attrs["unranked"]`` lists the files
    the imputation rule left off, with the reason. A board is the same whichever share it is made
    in: each draws from its own ``numpy.random.default_rng(seed)``, and what boards of one view share
    (``pair_boards``: the row selection, the ids' codes) does not depend on which boards ask for it."""
    crowd = crowd_from_rounds(round_questions, observations) if round_questions is not None and len(round_questions) else None
    return pair_boards(scores, models, as_of, settings, configured_pairs(settings) if pairs is None else pairs, replicates=replicates, crowd=crowd)


def history_rows(boards: dict[tuple[str, str], pd.DataFrame], as_of: datetime, version: str) -> pd.DataFrame:
    """Tonight's HISTORY rows: every board × view given (point estimates only), each row naming its
    view. One frame from the boards' columns joined end to end (a frame per board, then a concat,
    cost a tenth of the nightly's headline)."""
    kept = [(board, view, frame) for (board, view), frame in boards.items() if not frame.empty]
    if not kept:
        return pd.DataFrame(columns=list(HISTORY.names))
    sizes = [len(frame) for _, _, frame in kept]
    joined = {
        c: np.concatenate([frame[c].to_numpy() for _, _, frame in kept])
        for c in ("model", "rank", "n_dataset", "n_market", "overall", "dataset", "market", "brier_overall", "provisional")
    }
    return pd.DataFrame(
        {
            **joined,
            "as_of": format_ts(as_of),
            "n": joined["n_dataset"] + joined["n_market"],
            "board": np.repeat(np.array([board for board, _, _ in kept], dtype=object), sizes),
            "view": np.repeat(np.array([view for _, view, _ in kept], dtype=object), sizes),
            "methodology_version": version,
            "ledger_digest": "",  # the nightly adds the night's digest
        }
    )[list(HISTORY.names)]


def history_views(history: pd.DataFrame) -> pd.DataFrame:
    """HISTORY rows with every row's view named: a night recorded before the ``view`` column
    existed recorded the overall view only, so its empty view reads ``overall``."""
    if "view" not in history or not (history["view"] == RECORDED_BEFORE_VIEWS).any():
        return history
    return history.assign(view=history["view"].where(history["view"] != RECORDED_BEFORE_VIEWS, "overall"))
