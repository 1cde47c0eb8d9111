"""The model pages' breakdowns: each model's mean Brier and N by source, by category and by horizon.
Pure: the scores of every model in, one list of tables per model out."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..leaderboard.views import horizon_days

BREAKDOWNS = (("Source", "source"), ("Category", "category"), ("Horizon (days)", "horizon"))


def breakdowns(model_scores: dict[str, pd.DataFrame]) -> dict[str, list[dict]]:
    """Per model, the mean Brier and N of its scored forecasts by source, by category and by horizon
    (``BREAKDOWNS``; a table without rows left out), each table's rows sorted by key. Every model at
    once: one grouping per table over all the rows, by (model, key) codes (a grouping per model and
    table was ~330 pandas groupings at ForecastBench scale, twice the time); each group's rows, in
    their order, are what the model's own grouping took, so the means are the same floats."""
    out: dict[str, list[dict]] = {m: [] for m in model_scores}
    frames = [g[["model", "source", "category", "round", "resolution_date", "kind", "brier"]] for g in model_scores.values() if len(g)]
    if not frames:
        return out
    scores = pd.concat(frames, ignore_index=True)
    owners, models = pd.factorize(scores["model"], sort=True)
    keys = {"source": scores["source"], "category": scores["category"].fillna("").replace("", "(none)"), "horizon": horizon_days(scores)}
    brier = scores["brier"]
    for title, column in BREAKDOWNS:
        codes, uniques = pd.factorize(keys[column], sort=True)  # a missing key: -1, left out as a grouping leaves it
        kept = codes >= 0
        stats = brier[kept].groupby(owners[kept].astype(np.int64) * len(uniques) + codes[kept], sort=True).agg(["mean", "count"])
        names = [f"{int(v)}" if column == "horizon" else str(v) for v in uniques]
        # a model's table is there when it has rows for it (a horizon: dataset rows), even with no key among them
        tables: dict[str, list[dict]] = {m: [] for m in models[np.unique(owners[keys[column].notna().to_numpy()] if column == "horizon" else owners)]}
        for group, mean, count in zip(stats.index.tolist(), stats["mean"].tolist(), stats["count"].tolist(), strict=True):
            tables.setdefault(models[group // len(uniques)], []).append({"key": names[group % len(uniques)], "mean": mean, "count": count})
        for model, rows in tables.items():
            out[model].append({"title": title, "rows": rows})
    return out
