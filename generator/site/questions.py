"""Question pages: one per question asked in any round. Pure: frames in, page data out.

There can be thousands of questions, so everything is grouped once (never filtered per page),
the pages stay out of the sidebar (``not_in_nav``); the search index lists each by its id and title
(``site.shell``), not by its whole body.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..leaderboard.panel import sorted_codes
from ..scoring.resolve import known_by, latest_questions
from ..vocabulary import MARKET

_PLAIN = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9._-]*")
_FORECAST_COLUMNS = ["round", "model", "resolution_date", "probability", "outcome", "brier", "reasoning"]
# How each unit (round × resolution date) of a question stands: its round's times and rounds.resolutions
UNIT_COLUMNS = ["round", "resolution_date", "due", "freeze_time", "freeze_value", "status", "outcome", "resolved_at",
                "final_value"]


@dataclass(frozen=True)
class QuestionInfo:
    id: str
    slug: str
    question: dict  # the latest question-bank row (text, url, source, kind, category, criteria...)
    history: pd.DataFrame  # observed_at, value: what the source reported, known by as_of
    payload: dict  # forecast_payload of its forecasts (_FORECAST_COLUMNS, one row per forecast of any round)
    models: tuple[str, ...]  # the model ids shared by every question page, which the payload names by index
    units: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=UNIT_COLUMNS))  # per round × resolution date


def question_slug(question_id: str) -> str:
    """A file-name-safe, unique page name: ``source--native`` when that is plain, else with a hash."""
    plain = question_id.replace(":", "--", 1)
    if _PLAIN.fullmatch(plain):
        return plain
    base = re.sub(r"[^A-Za-z0-9_-]+", "-", plain).strip("-")[:60] or "q"
    return f"{base}-{hashlib.sha256(question_id.encode('utf-8')).hexdigest()[:10]}"


def question_infos(bank: pd.DataFrame, obs: pd.DataFrame, round_questions: pd.DataFrame,
                   forecasts: pd.DataFrame, scores: pd.DataFrame, as_of: str) -> list[QuestionInfo]:
    """Every question of ``round_questions`` (all rounds), sorted by id.

    ``round_questions`` holds every round's question set with a ``round`` column and, where known,
    the ``rounds.resolutions`` columns (status, outcome, resolved_at, final_value) of each unit;
    ``forecasts`` has columns round, model, question_id, resolution_date, probability, reasoning;
    ``scores`` is the SCORES frame (its outcome and Brier are joined on where the unit resolved).
    """
    asked = sorted(round_questions["question_id"].unique())
    latest = latest_questions(bank).set_index("id").to_dict("index")  # rows as dicts: one lookup per page
    seen = known_by(obs, as_of)
    history = {q: g[["observed_at", "value"]].reset_index(drop=True)
               for q, g in seen[seen["question_id"].isin(asked)].groupby("question_id", sort=False)}
    scored = forecasts[forecasts["question_id"].isin(asked)].merge(
        scores[["round", "model", "question_id", "resolution_date", "outcome", "brier"]],
        on=["round", "model", "question_id", "resolution_date"], how="left")
    scored = scored.sort_values(["question_id", "round", "resolution_date", "model"], kind="mergesort")
    models = tuple(sorted_codes(scored["model"].to_numpy())[0].tolist())
    payloads = forecast_payloads(scored, models)
    frozen = round_questions.drop_duplicates("question_id", keep="last").set_index("question_id").to_dict("index")
    units = _split(round_questions.reindex(columns=["question_id", *UNIT_COLUMNS])
                   .sort_values(["question_id", "round", "resolution_date"], kind="mergesort"), UNIT_COLUMNS)
    empty_history = pd.DataFrame(columns=["observed_at", "value"])
    out = []
    for qid in asked:
        row, fallback = latest.get(qid, {}), frozen[qid]
        question = {
            "text": row.get("text") or fallback["text"], "url": row.get("url") or fallback["url"] or "",
            "source": fallback["source"], "kind": fallback["kind"], "category": fallback["category"] or "",
            "background": row.get("background") or "", "resolution_criteria": row.get("resolution_criteria") or "",
        }
        out.append(QuestionInfo(qid, question_slug(qid), question, history.get(qid, empty_history),
                                payloads.get(qid, NO_FORECASTS), models, units[qid]))
    return out


def _split(rows: pd.DataFrame, columns: list[str]) -> dict[str, pd.DataFrame]:
    """Rows sorted by question id, as one frame of ``columns`` per question: slices of one
    frame (a groupby builds each group by a take, too slow for thousands of questions)."""
    ids = rows["question_id"].to_numpy()
    frame = rows[columns].reset_index(drop=True)
    starts, ends = _blocks(ids)
    return {ids[a]: frame.iloc[a:b].reset_index(drop=True) for a, b in zip(starts.tolist(), ends.tolist())}


def _blocks(ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where each run of equal ``ids`` starts and ends (sorted ids: one run per id)."""
    starts = np.flatnonzero(np.r_[True, ids[1:] != ids[:-1]]) if len(ids) else np.array([], dtype=np.int64)
    return starts, np.r_[starts[1:], len(ids)].astype(np.int64)


REASONING_CHARS = 300  # a forecast's reasoning is cut to this on its question page


NO_FORECASTS: dict[str, list] = {"rounds": [], "units": [], "p": [], "why": []}


def forecast_payload(forecasts: pd.DataFrame, models: list[str] | None = None) -> dict:
    """A question's forecasts (``_FORECAST_COLUMNS``) as compact columns for the page's script,
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
    """``forecast_payload(forecasts, models)`` of every question of ``rows`` (``_FORECAST_COLUMNS`` and
    question_id, sorted by question id; round, model and resolution date as str), at once: numpy over
    all the rows, then one slice of each list per question (per question, the numpy calls cost more
    than the work at ForecastBench scale). Ids are coded by hashing (``sorted_codes``): sorting a
    million ids as strings took seconds."""
    if not len(rows):
        return {}
    ids = rows["question_id"].to_numpy()
    starts, ends = _blocks(ids)
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
    units = [[k, str(date_names[key % len(date_names)]), None if np.isnan(o) else _number(o), run]
             for k, key, o, run in zip(unit_round.tolist(), unit_keys.tolist(), outcome.tolist(),
                                       _model_runs(u, m, len(unit_keys)))]
    p = [None if x != x else x for x in np.round(rows["probability"].to_numpy(dtype=float)[order], 6).tolist()]
    reasons: list = rows["reasoning"].to_numpy(dtype=object)[order].tolist()
    why = [i for i, t in enumerate(reasons) if isinstance(t, str) and t]
    why_at = np.searchsorted(np.asarray(why, dtype=np.int64), np.append(starts, len(ids))).tolist()
    rounds = round_names[question_rounds % len(round_names)].tolist()
    return {ids[a]: {"rounds": rounds[first_round[k]:first_round[k + 1]], "units": units[first_unit[k]:first_unit[k + 1]],
                     "p": p[a:b], "why": [[i - a, _cut(reasons[i])] for i in why[why_at[k]:why_at[k + 1]]]}
            for k, (a, b) in enumerate(zip(starts.tolist(), ends.tolist()))}


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
    for unit, gap, length in zip(u[starts].tolist(), gaps.tolist(), lengths.tolist()):
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


def unit_summary(payload: dict, models: list[str]) -> list[dict]:
    """The forecasts' distribution per unit (round × resolution date) of a ``forecast_payload``, in
    its unit order: N, min, median, mean and max of the probabilities, the outcome, and once
    resolved the best and the worst forecast (lowest and highest Brier; ties broken by model id).
    ``models`` is the list the payload's model indexes point into.
    Vectorised over the question's forecasts (one call per question page)."""
    if not payload["units"]:
        return []
    p = np.array(payload["p"], dtype=float)  # None (no probability) as NaN
    u, m = payload_rows(payload)
    keep = ~np.isnan(p)
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
        row = {"round": payload["rounds"][unit[0]], "resolution_date": unit[1], "outcome": unit[2], "n": n,
               "min": None, "median": None, "mean": None, "max": None, "best": None, "worst": None}
        if n:
            row.update(min=float(sorted_p[a]), max=float(sorted_p[a + n - 1]), mean=float(sorted_p[a:a + n].mean()),
                       median=float((sorted_p[a + (n - 1) // 2] + sorted_p[a + n // 2]) / 2))
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
    text = (f"{int(resolved.sum())} of {len(units)} resolution dates resolved "
            f"({higher} higher, {int(resolved.sum()) - higher} not higher)")
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


def _number(x: float) -> int | float:
    return int(x) if float(x).is_integer() else float(x)


def _cut(text: str) -> str:
    return text if len(text) <= REASONING_CHARS else text[:REASONING_CHARS - 1].rstrip() + "…"


def script_json(payload) -> str:
    """JSON that is safe inside ``<script type="application/json">``: no ``<``, ``>`` or ``&``."""
    text = json.dumps(payload, separators=(",", ":"), ensure_ascii=True, allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
