"""What a question page says of its units (round × resolution date): the forecasts' distribution,
the outcome and resolution in words, and the dates its chart marks. Pure."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..vocabulary import MARKET
from .payloads import payload_rows


def unit_summary(payload: dict, models: list[str], leave_out: frozenset[str] = frozenset()) -> list[dict]:
    """The forecasts' distribution per unit (round × resolution date) of a ``forecast_payload``, in
    its unit order: N, min, median, mean and max of the probabilities, the outcome, and once
    resolved the best and the worst forecast (lowest and highest Brier; ties broken by model id).
    ``models`` is the list the payload's model indexes point into; the forecasts of ``leave_out``
    (the hub's baselines: Always 0 and Always 1 would always be the range, the best and the worst)
    are left out of every column.
    Vectorised over the question's forecasts (one call per question page)."""
    if not payload["units"]:
        return []
    p = np.array(payload["p"], dtype=float)  # None (no probability) as NaN
    u, m = payload_rows(payload)
    keep = ~np.isnan(p)
    if leave_out:
        keep &= ~np.isin(m, [k for k, model in enumerate(models) if model in leave_out])
    p, u, m = p[keep], u[keep], m[keep]
    n_units = len(payload["units"])
    count = np.bincount(u, minlength=n_units)
    order = np.lexsort((p, u))  # by unit, then probability
    sorted_p = p[order]
    starts = np.r_[0, np.cumsum(count)[:-1]]
    outcome = np.array([np.nan if unit[2] is None else unit[2] for unit in payload["units"]], dtype=float)
    brier = (p - outcome[u]) ** 2
    ranked = np.lexsort((m, brier, u))  # by unit, then Brier, then model index (= model id order)
    out = []
    for k, unit in enumerate(payload["units"]):
        n, a = int(count[k]), int(starts[k])
        row = {
            "round": payload["rounds"][unit[0]],
            "resolution_date": unit[1],
            "outcome": unit[2],
            "n": n,
            "min": None,
            "median": None,
            "mean": None,
            "max": None,
            "best": None,
            "worst": None,
        }
        if n:
            row.update(
                min=float(sorted_p[a]),
                max=float(sorted_p[a + n - 1]),
                mean=float(sorted_p[a : a + n].mean()),
                median=float((sorted_p[a + (n - 1) // 2] + sorted_p[a + n // 2]) / 2),
            )
            if unit[2] is not None:
                best, worst = ranked[a], ranked[a + n - 1]
                row["best"] = (models[m[best]], float(p[best]), float(brier[best]))
                row["worst"] = (models[m[worst]], float(p[worst]), float(brier[worst]))
        out.append(row)
    return out


def outcome_text(kind: str, units: pd.DataFrame) -> str:
    """A question's outcome in a few words, from its units (``UNIT_COLUMNS``)."""
    given = units["status"].to_numpy() if len(units) and "status" in units else np.zeros(0)
    if pd.isna(given).all():
        return "not known yet"
    status = np.where(pd.isna(given), "open", given)
    resolved = status == "resolved"
    if kind == MARKET:
        if resolved.any():
            first = int(resolved.argmax())
            value = units["outcome"].to_numpy()[first]
            said = "YES" if value == 1 else "NO" if value == 0 else f"{value:.3f} (a market value)"
            return f"resolved {said} on {str(units['resolved_at'].to_numpy()[first])[:10]}"
        if (status == "void").all():
            return "void (cancelled or ambiguous, or resolved before a round's due time): not scored"
        last = _present(units["final_value"].to_numpy())
        return "open: not resolved yet" + (f"; latest market value {float(last[-1]):.3f}" if len(last) else "")
    higher = int((units["outcome"].to_numpy()[resolved] == 1).sum())
    waiting = int((status == "open").sum())
    text = f"{int(resolved.sum())} of {len(units)} resolution dates resolved ({higher} higher, {int(resolved.sum()) - higher} not higher)"
    return text + (f"; {waiting} still to come" if waiting else "")


def resolution_text(kind: str, units: pd.DataFrame) -> str:
    """When a question resolves: a market's resolution date once known; a dataset question's dates."""
    if kind == MARKET:
        resolved = _resolved(units)
        return str(units["resolved_at"].to_numpy()[resolved][0])[:10] if resolved.any() else "when the market resolves"
    dates = sorted({str(d) for d in _present(units["resolution_date"].to_numpy()) if str(d)})
    return ", ".join(dates) or "–"


def time_marks(units: pd.DataFrame) -> list[list[str]]:
    """The dates a question's chart marks, as [kind, YYYY-MM-DD] pairs, once each, in date order:
    each round's ``freeze`` and ``due`` time, and each ``resolved`` unit's resolution time. The
    page's script draws them as vertical lines (a few bytes each, not a Plotly shape apiece)."""
    if not len(units):
        return []
    marks = {("freeze", str(t)[:10]) for t in _present(units["freeze_time"].to_numpy())}
    marks |= {("due", str(t)[:10]) for t in _present(units["due"].to_numpy())}
    if "status" in units:
        resolved = units["resolved_at"].to_numpy()[_resolved(units)]
        marks |= {("resolved", str(t)[:10]) for t in _present(resolved) if str(t)}
    return [[kind, day] for kind, day in sorted(marks, key=lambda m: (m[1], m[0]))]


# The three summaries above run once per question page (thousands at FB scale) on a few units
# each: numpy over the columns' arrays, not pandas selections (whose per-call overhead was ~30%
# of rendering the question pages), with the same missing-value rule as Series.dropna.
def _present(values: np.ndarray) -> np.ndarray:
    """``values`` without missing ones (None, NaN), as ``Series.dropna`` leaves them."""
    return values[pd.notna(values)]


def _resolved(units: pd.DataFrame) -> np.ndarray:
    """Which units are resolved (none when the frame has no status column)."""
    if "status" not in units:
        return np.zeros(len(units), dtype=bool)
    return units["status"].to_numpy() == "resolved"
