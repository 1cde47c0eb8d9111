"""Human comparison groups on a board (ForecastBench's superforecaster and public medians): which rows
are human groups, and ForecastBench's two one-sided tests against them, "<reference> > Forecaster?"
(the board's ``p_value``, against its reference row) and "Forecaster > <public>?" (``p_public``).

Both p-values come from the board's own paired bootstrap (``leaderboard.stats.one_sided_p``: the
share of replicates in which one model scores at least as well as the other); nothing is drawn
again here. This module only finds the rows they compare against and labels the results."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..leaderboard.stats import format_p, p_label

HUMAN = "human"


def comparison_row(frame: pd.DataFrame, column: str, headline: str) -> str:
    """The model a p-value ``column`` compares against: the one row with a score but no p-value
    (``one_sided_p`` leaves the reference's own NaN), when some row has one; else ""."""
    if not len(frame) or column not in frame or not np.isfinite(frame[column].to_numpy(dtype=float)).any():
        return ""
    alone = frame[column].isna() & frame[headline].notna()
    return str(frame.loc[alone, "model"].iloc[0]) if alone.sum() == 1 else ""


def human_columns(frame: pd.DataFrame, headline: str) -> dict:
    """What the board table shows of its human groups: ``ref_header`` (FB's "<group> > Forecaster?"
    when the reference row is a human group, else ""), ``public`` (the model of "Forecaster >
    <public>?", "" when the board has no such p-value), its ``public_header``, and per model
    ``public_cells``: (label, p shown)."""
    kinds = dict(zip(frame["model"], frame["kind"], strict=True)) if len(frame) else {}
    names = dict(zip(frame["model"], frame["name"], strict=True)) if len(frame) else {}
    reference = comparison_row(frame, "p_value", headline)
    public = comparison_row(frame, "p_public", headline)
    cells = {m: (p_label(float(p)), format_p(float(p))) for m, p in zip(frame["model"], frame["p_public"], strict=True)} if public else {}
    return {
        "ref_header": f"{names[reference]} > Forecaster?" if kinds.get(reference) == HUMAN else "",
        "public": public,
        "public_header": f"Forecaster > {names[public]}?" if public else "",
        "public_cells": cells,
    }
