"""A board's frame: its ``COLUMNS``, in order, one row per model, best first (``fb_board.selection_board``
makes the numbers; this module lays them out), and the secondary columns it takes."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .rows import board_order, distinct_names
from .secondary import model_secondary

COLUMNS = [
    "rank",
    "model",
    "name",
    "organization",
    "kind",
    "dataset",
    "dataset_ci_low",
    "dataset_ci_high",
    "market",
    "market_ci_low",
    "market_ci_high",
    "overall",
    "overall_ci_low",
    "overall_ci_high",
    "n_dataset",
    "n_market",
    "brier_dataset",
    "brier_market",
    "brier_overall",
    "pct_rank1",
    "rank_low",
    "rank_high",
    "p_value",
    "p_display",
    "p_label",
    "in_estimation",
    "log_score",
    "peer",
    "bss",
    "accuracy",
    "provisional",
    "pct_top5",
    "p_public",
    "n_orphan",
]


def board_secondary(
    rows: pd.DataFrame, names: np.ndarray, model: np.ndarray, unit: np.ndarray | None, naive_model: str | None, headline_only: bool = False
) -> dict[str, np.ndarray]:
    """The board's secondary columns (``model_secondary``); empty (NaN) on a board
    made for the history's headline only (``FBOptions.headline_only``): no history row holds them."""
    if headline_only:
        return {c: np.full(len(names), np.nan) for c in ("log_score", "peer", "bss", "accuracy")}
    return model_secondary(rows, names, model, naive_model, unit, counts=False)


def board_frame(
    names,
    models,
    point,
    summary,
    in_est,
    score: str,
    secondary: dict[str, np.ndarray],
    provisional,
    p_text: tuple[list[str], list[str]],
    extra: dict[str, np.ndarray],
    own: str,
) -> pd.DataFrame:
    """The board's ``COLUMNS``, one row per model of ``names`` (sorted; ``secondary``'s arrays follow them), best first: by rank,
    then the ranking score (higher first), then model id, missing ranks and scores last; ``own``: the hub's prefix. Built in one
    frame and ordered with one lexsort (its column assignments, sort and join cost the headline boards more than their fit)."""
    bi, low, high = summary.brier_index, summary.ci_low, summary.ci_high
    meta = [models.get(m) for m in names]
    columns = {
        "rank": summary.rank,
        "model": names,
        "name": distinct_names(names, [x.name if x else m for m, x in zip(names, meta, strict=True)], own),
        "organization": [x.organization if x else "" for x in meta],
        "kind": [x.kind if x else "" for x in meta],
    }
    for i, label in enumerate(("dataset", "market", "overall")):
        columns.update({label: bi[i], f"{label}_ci_low": low[i], f"{label}_ci_high": high[i]})
    columns.update(
        {
            "n_dataset": np.nan_to_num(point.n[0]).astype(np.int64),
            "n_market": np.nan_to_num(point.n[1]).astype(np.int64),
            "brier_dataset": summary.D[0],
            "brier_market": summary.D[1],
            "brier_overall": summary.D[2],
            "pct_rank1": summary.pct_rank1,
            "rank_low": summary.rank_low,
            "rank_high": summary.rank_high,
            "p_value": summary.p_value,
            "p_display": p_text[0],
            "p_label": p_text[1],
            "in_estimation": in_est.astype(np.int64),
            **{c: secondary[c] for c in ("log_score", "peer", "bss", "accuracy")},
            "provisional": np.asarray(provisional, dtype=np.int64),
            **extra,
        }
    )
    order = board_order(summary.rank, columns[score])
    return pd.DataFrame({c: np.asarray(columns[c], dtype=object if isinstance(columns[c], list) else None)[order] for c in COLUMNS})
