"""A board in ForecastBench's published CSV layout (``leaderboards/csv/leaderboard_<board>.csv``). Pure.

FB writes its boards (``write_leaderboard``, ``write_preliminary_leaderboard`` in its
``src/leaderboard/main.py``) with these columns and this formatting, which ``fb_layout`` follows:

- Brier Index columns (Dataset, Market, Overall and their 95% CIs, printed ``[low, high]``) rounded to
  one decimal, every other number to three; an empty cell where a value is missing;
- ``Rank``: by the displayed (rounded) ranking score, ties sharing the lowest rank; rows ordered by
  that score, then by their N (larger first). The ranking score is the dataset Brier Index on the
  preliminary board and the overall one on the others;
- "Supers > Forecaster?" and its p-value against the board's ``reference`` (FB: the superforecasters'
  median), "Forecaster > Public?" and its p-value against ``public_reference`` (FB: the public's
  median); the reference's own row reads "—";
- "Pct times № 1" and "Pct times top 5%" from the bootstrap; Peer and BSS; on the tournament and
  baseline boards also the difficulty-adjusted Brier scores (Brier Dataset, Market, Overall).

Where Prescient differs, the layout shows Prescient's value: a provisional row (the stability rule,
which FB does not have) has no rank; "Pct times № 1" shares a replicate among tied models (FB gives
it to the first); "Model Organization" is the model metadata's ``model_organization``, else its
``organization``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..models import ModelMeta
from ..vocabulary import PRELIMINARY
from .stats import format_p, p_label

PRELIMINARY_COLUMNS = (
    "Rank",
    "Team",
    "Model Organization",
    "Model",
    "Dataset",
    "N dataset",
    "Dataset 95% CI",
    "Supers > Forecaster?",
    "p-val Supers > Forecaster?",
    "Forecaster > Public?",
    "p-val Forecaster > Public?",
    "Pct times № 1",
    "Pct times top 5%",
    "Peer",
    "BSS",
)
FULL_COLUMNS = (
    "Rank",
    "Team",
    "Model Organization",
    "Model",
    "Dataset",
    "N dataset",
    "Dataset 95% CI",
    "Market",
    "N market",
    "Market 95% CI",
    "Overall",
    "N",
    "Overall 95% CI",
    "Supers > Forecaster?",
    "p-val Supers > Forecaster?",
    "Forecaster > Public?",
    "p-val Forecaster > Public?",
    "Pct times № 1",
    "Pct times top 5%",
    "Peer",
    "BSS",
    "Brier Dataset",
    "Brier Market",
    "Brier Overall",
)


def fb_columns(board_name: str) -> tuple[str, ...]:
    """The header of ForecastBench's published CSV of that board."""
    return PRELIMINARY_COLUMNS if board_name == PRELIMINARY else FULL_COLUMNS


def fb_layout(board: pd.DataFrame, board_name: str, models: dict[str, ModelMeta]) -> pd.DataFrame:
    """``board`` (``fb_board.COLUMNS``) as ForecastBench prints that board: text cells, FB's columns and order."""
    columns = fb_columns(board_name)
    if board.empty:
        return pd.DataFrame(columns=list(columns))
    score = "dataset" if board_name == PRELIMINARY else "overall"
    n = board["n_dataset"].to_numpy() if board_name == PRELIMINARY else (board["n_dataset"] + board["n_market"]).to_numpy()
    shown = np.round(board[score].to_numpy(dtype=float), 1)
    order = np.lexsort((-n.astype(float), np.where(np.isnan(shown), np.inf, -shown)))
    board, shown, n = board.iloc[order].reset_index(drop=True), shown[order], n[order]
    ranked = np.isfinite(shown) & (board["provisional"].fillna(0).to_numpy() == 0)
    rank = np.full(len(board), np.nan)
    rank[ranked] = np.searchsorted(np.sort(-shown[ranked]), -shown[ranked], side="left") + 1
    meta = [models.get(m) for m in board["model"]]
    cells: dict[str, list] = {
        "Rank": [_int(r) for r in rank],
        "Team": list(board["organization"].fillna("")),
        "Model Organization": [(x.model_organization or x.organization) if x else o for x, o in zip(meta, board["organization"], strict=True)],
        "Model": list(board["name"]),
        "N": [_int(x) for x in n],
    }
    for kind in ("dataset", "market", "overall"):
        label = kind.capitalize()
        cells[label] = [_num(x, 1) for x in board[kind]]
        cells[f"{label} 95% CI"] = [_ci(lo, hi) for lo, hi in zip(board[f"{kind}_ci_low"], board[f"{kind}_ci_high"], strict=True)]
        cells[f"Brier {label}"] = [_num(x, 3) for x in board[f"brier_{kind}"]]
    cells.update(
        {
            "N dataset": [_int(x) for x in board["n_dataset"]],
            "N market": [_int(x) for x in board["n_market"]],
            "Supers > Forecaster?": _labels(board["p_value"]),
            "p-val Supers > Forecaster?": _p_values(board["p_value"]),
            "Forecaster > Public?": _labels(board["p_public"]),
            "p-val Forecaster > Public?": _p_values(board["p_public"]),
            "Pct times № 1": [_num(x, 3) for x in board["pct_rank1"]],
            "Pct times top 5%": [_num(x, 3) for x in board["pct_top5"]],
            "Peer": [_num(x, 3) for x in board["peer"]],
            "BSS": [_num(x, 3) for x in board["bss"]],
        }
    )
    return pd.DataFrame({c: cells[c] for c in columns})


def _num(value: float, digits: int) -> str:
    """FB's cell: the value rounded (half to even, as pandas' ``round``), as Python prints a float."""
    return "" if value is None or not np.isfinite(value) else str(float(np.round(float(value), digits)))


def _int(value: float) -> str:
    return "" if value is None or not np.isfinite(value) else str(int(value))


def _ci(low: float, high: float) -> str:
    return "" if not (np.isfinite(low) and np.isfinite(high)) else f"[{_num(low, 1)}, {_num(high, 1)}]"


def _labels(p: pd.Series) -> list[str]:
    """FB's verdict, "—" on the reference's own row (its p-value is NaN) and where there is none."""
    return [p_label(x) for x in p.astype(float)]


def _p_values(p: pd.Series) -> list[str]:
    return [format_p(x) for x in p.astype(float)]
