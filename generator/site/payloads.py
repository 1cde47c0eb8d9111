"""A question page's forecasts as compact columns for the page's script (``forecast_payload``),
read back by ``payload_rows``, and the JSON that carries them into the page. Pure.

At ForecastBench scale a question has thousands of forecasts: a table of them in HTML would weigh
megabytes, so the page ships these columns and its script builds the table.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from ..leaderboard.panel import sorted_codes

FORECAST_COLUMNS = ["round", "model", "resolution_date", "probability", "outcome", "brier", "reasoning"]


REASONING_CHARS = 300  # a forecast's reasoning is cut to this on its question page

NO_FORECASTS: dict[str, list] = {"rounds": [], "units": [], "p": [], "why": []}


def forecast_payload(forecasts: pd.DataFrame, models: list[str] | None = None) -> dict:
    """A question's forecasts (``FORECAST_COLUMNS``) as compact columns for the page's script,
    which builds the table (rows are far too many to ship as HTML at ForecastBench scale).

    ``models`` is the list of model ids shared by every question page (``models_script``; default:
    this question's own models, sorted); a page names a model by its index in it. ``rounds`` holds
    the distinct rounds; ``units`` lists each scored unit (round × resolution date, in that order) as
    [round index, resolution date, outcome or null, runs]: its forecasts come one per model in model
    order, and ``runs`` = [gap, length, gap, length, ...] gives their model indexes as runs of
    consecutive indexes, each run starting ``gap`` after the end of the one before (the first
    after 0). ``p`` holds the probabilities in that order, ``why`` [row, reasoning] for the rows that
    give a reasoning. So a page carries ~7 bytes a forecast, not ~20 with a model and a unit index
    each. The Brier score shown is (p - outcome)², the score of a forecast of a resolved unit.
    """
    if not len(forecasts):
        return {key: [] for key in NO_FORECASTS}
    known = sorted_codes(forecasts["model"].to_numpy())[0].tolist() if models is None else models
    return forecast_payloads(forecasts.assign(question_id=""), known)[""]


def forecast_payloads(rows: pd.DataFrame, models: list[str] | tuple[str, ...]) -> dict[str, dict]:
    """``forecast_payload(forecasts, models)`` of every question of ``rows`` (``FORECAST_COLUMNS`` and
    question_id, sorted by question id; round, model and resolution date as str), at once: numpy over
    all the rows, then one slice of each list per question (per question, the numpy calls cost more
    than the work at ForecastBench scale). Ids are coded by hashing (``sorted_codes``): sorting a
    million ids as strings took seconds."""
    if not len(rows):
        return {}
    ids = rows["question_id"].to_numpy()
    starts, ends = blocks(ids)
    q = np.repeat(np.arange(len(starts)), ends - starts)
    round_names, r = sorted_codes(rows["round"].to_numpy())
    dates = rows["resolution_date"].to_numpy(dtype=object)
    date_names, d = sorted_codes(np.where(pd.isna(dates), "", dates))
    model_names, m = sorted_codes(rows["model"].to_numpy())
    m = _model_index(model_names.astype(str), models)[m]
    # each question's rounds, and its units (round × date, sorted), as runs of one sorted key each
    question_rounds = np.unique(q * len(round_names) + r)
    unit_keys, u = np.unique((q * len(round_names) + r) * len(date_names) + d, return_inverse=True)
    unit_question = unit_keys // (len(round_names) * len(date_names))
    first_round = np.searchsorted(question_rounds // len(round_names), np.arange(len(starts) + 1))
    first_unit = np.searchsorted(unit_question, np.arange(len(starts) + 1)).tolist()
    unit_round = np.searchsorted(question_rounds, unit_keys // len(date_names)) - first_round[unit_question]
    first_round = first_round.tolist()
    order = np.lexsort((m, u))  # by question and unit, then model (stable: ties keep the rows' order)
    u, m = u[order], m[order]
    outcome = np.full(len(unit_keys), np.nan)
    np.fmax.at(outcome, u, rows["outcome"].to_numpy(dtype=float)[order])  # fmax skips NaN (unscored rows)
    units = [
        [k, str(date_names[key % len(date_names)]), None if np.isnan(o) else _number(o), run]
        for k, key, o, run in zip(unit_round.tolist(), unit_keys.tolist(), outcome.tolist(), _model_runs(u, m, len(unit_keys)), strict=True)
    ]
    p = [None if x != x else x for x in np.round(rows["probability"].to_numpy(dtype=float)[order], 6).tolist()]
    reasons = rows["reasoning"].to_numpy(dtype=object)[order]
    # the rows that give a reasoning (a non-empty text): numpy's comparisons find the candidates, so only
    # they are looked at one by one (a ForecastBench-scale hub has millions of forecasts, most without one)
    maybe = np.flatnonzero(pd.notna(reasons) & (reasons != "")).tolist()
    why = [i for i in maybe if isinstance(reasons[i], str)]
    why_at = np.searchsorted(np.asarray(why, dtype=np.int64), np.append(starts, len(ids))).tolist()
    rounds = round_names[question_rounds % len(round_names)].tolist()
    return {
        ids[a]: {
            "rounds": rounds[first_round[k] : first_round[k + 1]],
            "units": units[first_unit[k] : first_unit[k + 1]],
            "p": p[a:b],
            "why": [[i - a, _cut(reasons[i])] for i in why[why_at[k] : why_at[k + 1]]],
        }
        for k, (a, b) in enumerate(zip(starts.tolist(), ends.tolist(), strict=True))
    }


def rounds_from(payload: dict, first: str) -> dict:
    """The part of a ``forecast_payload`` for the rounds due ``first`` or later (round names are
    dates, so they sort as text), in the same form: its units are a tail of the units (sorted by
    round), so its probabilities are the same tail of ``p``, and reasoning rows are renumbered."""
    rounds = payload["rounds"]
    start = next((k for k, r in enumerate(rounds) if str(r) >= first), len(rounds))
    if not start:
        return payload
    units = payload["units"]
    cut = next((k for k, unit in enumerate(units) if unit[0] >= start), len(units))
    offset = sum(sum(unit[3][1::2]) for unit in units[:cut])  # the forecasts of the units left out
    return {
        "rounds": rounds[start:],
        "units": [[unit[0] - start, *unit[1:]] for unit in units[cut:]],
        "p": payload["p"][offset:],
        "why": [[i - offset, text] for i, text in payload["why"] if i >= offset],
    }


def _model_index(ids: np.ndarray, models: list[str] | tuple[str, ...]) -> np.ndarray:
    """Each id's index in the sorted list ``models``; a ValueError names ids missing from it."""
    known = np.asarray(models, dtype=str)
    m = np.searchsorted(known, ids)
    if (m >= len(known)).any() or (known[np.minimum(m, len(known) - 1)] != ids).any():
        raise ValueError(f"a forecast's model is not in the shared model list: {sorted(set(ids) - set(known.tolist()))[:3]}")
    return m


def _model_runs(u: np.ndarray, m: np.ndarray, n_units: int) -> list[list[int]]:
    """Per unit, its model indexes ``m`` (rows sorted by unit ``u``, then model) as [gap, length, ...] runs."""
    new = np.r_[True, (u[1:] != u[:-1]) | (m[1:] != m[:-1] + 1)] if len(u) else np.zeros(0, dtype=bool)
    starts = np.flatnonzero(new)
    lengths = np.diff(np.r_[starts, len(u)])
    first = np.r_[True, u[starts[1:]] != u[starts[:-1]]] if len(starts) else new
    ends = m[starts] + lengths  # where each run ends; the next run of the unit starts gap after it
    gaps = np.where(first, m[starts], m[starts] - np.r_[0, ends[:-1]])
    out: list[list[int]] = [[] for _ in range(n_units)]
    for unit, gap, length in zip(u[starts].tolist(), gaps.tolist(), lengths.tolist(), strict=True):
        out[unit] += [gap, length]
    return out


def payload_rows(payload: dict) -> tuple[np.ndarray, np.ndarray]:
    """The unit and the model index of each forecast of a ``forecast_payload`` (its ``p`` order)."""
    runs = [np.asarray(unit[3], dtype=np.int64).reshape(-1, 2) for unit in payload["units"]]
    if not runs or not sum(len(r) for r in runs):
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    gaps, lengths = np.concatenate(runs).T
    run_unit = np.repeat(np.arange(len(runs)), [len(r) for r in runs])
    first = np.r_[True, run_unit[1:] != run_unit[:-1]]  # a unit's first run starts ``gap`` after 0
    step = gaps + np.where(first, 0, np.r_[0, lengths[:-1]])  # the others ``gap`` after the last one's end
    ends = np.cumsum(step)
    starts = ends - np.repeat((ends - step)[first], np.diff(np.r_[np.flatnonzero(first), len(first)]))
    before = np.cumsum(lengths) - lengths
    m = np.repeat(starts, lengths) + np.arange(int(lengths.sum())) - np.repeat(before, lengths)
    return np.repeat(run_unit, lengths), m


def models_script(models: list[str]) -> str:
    """The script every question page loads to name its forecasts' models: the shared list."""
    return f"window.prescientModels = {script_json(models)};\n"


def blocks(ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where each run of equal ``ids`` starts and ends (sorted ids: one run per id)."""
    starts = np.flatnonzero(np.r_[True, ids[1:] != ids[:-1]]) if len(ids) else np.array([], dtype=np.int64)
    return starts, np.r_[starts[1:], len(ids)].astype(np.int64)


def _number(x: float) -> int | float:
    return int(x) if float(x).is_integer() else float(x)


def _cut(text: str) -> str:
    return text if len(text) <= REASONING_CHARS else text[: REASONING_CHARS - 1].rstrip() + "…"


def script_json(payload) -> str:
    """JSON that is safe inside ``<script type="application/json">``: no ``<``, ``>`` or ``&``."""
    text = json.dumps(payload, separators=(",", ":"), ensure_ascii=True, allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
