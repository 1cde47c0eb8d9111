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
    forecasts: pd.DataFrame  # _FORECAST_COLUMNS, one row per forecast of any round
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
    latest = latest_questions(bank).set_index("id")
    seen = known_by(obs, as_of)
    history = {q: g[["observed_at", "value"]].reset_index(drop=True)
               for q, g in seen[seen["question_id"].isin(asked)].groupby("question_id", sort=False)}
    scored = forecasts.merge(scores[["round", "model", "question_id", "resolution_date", "outcome", "brier"]],
                             on=["round", "model", "question_id", "resolution_date"], how="left")
    by_question = _split(scored.sort_values(["question_id", "round", "resolution_date", "model"], kind="mergesort"))
    frozen = round_questions.drop_duplicates("question_id", keep="last").set_index("question_id")
    units = _split(round_questions.reindex(columns=["question_id", *UNIT_COLUMNS])
                   .sort_values(["question_id", "round", "resolution_date"], kind="mergesort"), UNIT_COLUMNS)
    empty_history = pd.DataFrame(columns=["observed_at", "value"])
    empty_forecasts = pd.DataFrame(columns=_FORECAST_COLUMNS)
    out = []
    for qid in asked:
        row = latest.loc[qid].to_dict() if qid in latest.index else {}
        fallback = frozen.loc[qid]
        question = {
            "text": row.get("text") or fallback["text"], "url": row.get("url") or fallback["url"] or "",
            "source": fallback["source"], "kind": fallback["kind"], "category": fallback["category"] or "",
            "background": row.get("background") or "", "resolution_criteria": row.get("resolution_criteria") or "",
        }
        out.append(QuestionInfo(qid, question_slug(qid), question, history.get(qid, empty_history),
                                by_question.get(qid, empty_forecasts), units[qid]))
    return out


def _split(rows: pd.DataFrame, columns: list[str] = _FORECAST_COLUMNS) -> dict[str, pd.DataFrame]:
    """Rows sorted by question id, as one frame of ``columns`` per question: slices of one
    frame (a groupby builds each group by a take, too slow for thousands of questions)."""
    ids = rows["question_id"].to_numpy()
    frame = rows[columns].reset_index(drop=True)
    starts = np.flatnonzero(np.r_[True, ids[1:] != ids[:-1]]) if len(ids) else np.array([], dtype=np.int64)
    ends = np.r_[starts[1:], len(ids)]
    return {ids[a]: frame.iloc[a:b].reset_index(drop=True) for a, b in zip(starts.tolist(), ends.tolist())}


REASONING_CHARS = 300  # a forecast's reasoning is cut to this on its question page


def forecast_payload(forecasts: pd.DataFrame) -> dict:
    """A question's forecasts (``_FORECAST_COLUMNS``, in page order) as compact columns for the page's
    script, which builds the table (rows are far too many to ship as HTML at ForecastBench scale).

    ``rounds`` and ``models`` are the distinct values; ``units`` lists each scored unit as
    [round index, resolution date, outcome or null]; per forecast ``u`` (unit index), ``m`` (model
    index) and ``p`` (probability); ``why`` holds [row, reasoning] for rows that give a reasoning.
    The Brier score shown is (p - outcome)², the score of a forecast of a resolved unit.
    """
    if not len(forecasts):
        return {"rounds": [], "models": [], "units": [], "u": [], "m": [], "p": [], "why": []}
    # numpy only: this runs once per question, thousands of times per build
    rounds, r = np.unique(forecasts["round"].to_numpy().astype(str), return_inverse=True)
    models, m = np.unique(forecasts["model"].to_numpy().astype(str), return_inverse=True)
    dates = forecasts["resolution_date"].to_numpy(dtype=object)
    dates, d = np.unique(np.where(pd.isna(dates), "", dates).astype(str), return_inverse=True)
    keys, u = np.unique(r * len(dates) + d, return_inverse=True)  # units sorted by (round, date)
    outcome = np.full(len(keys), np.nan)
    np.fmax.at(outcome, u, forecasts["outcome"].to_numpy(dtype=float))  # fmax skips NaN (unscored rows)
    units = [[int(k // len(dates)), str(dates[k % len(dates)]), None if np.isnan(o) else _number(o)]
             for k, o in zip(keys.tolist(), outcome.tolist())]
    p = np.round(forecasts["probability"].to_numpy(dtype=float), 6)
    return {"rounds": rounds.tolist(), "models": models.tolist(), "units": units, "u": u.tolist(), "m": m.tolist(),
            "p": [None if x != x else x for x in p.tolist()],
            "why": [[i, _cut(t)] for i, t in enumerate(forecasts["reasoning"].tolist()) if isinstance(t, str) and t]}


def unit_summary(payload: dict) -> list[dict]:
    """The forecasts' distribution per unit (round × resolution date) of a ``forecast_payload``, in
    its unit order: N, min, median, mean and max of the probabilities, the outcome, and once
    resolved the best and the worst forecast (lowest and highest Brier; ties broken by model id).
    Vectorised over the question's forecasts (one call per question page)."""
    if not payload["units"]:
        return []
    p = np.array([np.nan if x is None else x for x in payload["p"]], dtype=float)
    u, m = np.asarray(payload["u"], dtype=np.int64), np.asarray(payload["m"], dtype=np.int64)
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
                row["best"] = (payload["models"][m[best]], float(p[best]), float(brier[best]))
                row["worst"] = (payload["models"][m[worst]], float(p[worst]), float(brier[worst]))
        out.append(row)
    return out


def outcome_text(kind: str, units: pd.DataFrame) -> str:
    """A question's outcome in a few words, from its units (``UNIT_COLUMNS``)."""
    if not len(units) or "status" not in units or units["status"].isna().all():
        return "not known yet"
    status = units["status"].fillna("open")
    resolved = units[status == "resolved"]
    if kind == MARKET:
        if len(resolved):
            first = resolved.iloc[0]
            value = first["outcome"]
            said = "YES" if value == 1 else "NO" if value == 0 else f"{value:.3f} (a market value)"
            return f"resolved {said} on {str(first['resolved_at'])[:10]}"
        if (status == "void").all():
            return "void (cancelled or ambiguous, or resolved before a round's due time): not scored"
        last = units["final_value"].dropna()
        return "open: not resolved yet" + (f"; latest market value {float(last.iloc[-1]):.3f}" if len(last) else "")
    higher = int((resolved["outcome"] == 1).sum())
    waiting = int((status == "open").sum())
    text = f"{len(resolved)} of {len(units)} resolution dates resolved ({higher} higher, {len(resolved) - higher} not higher)"
    return text + (f"; {waiting} still to come" if waiting else "")


def resolution_text(kind: str, units: pd.DataFrame) -> str:
    """When a question resolves: a market's resolution date once known; a dataset question's dates."""
    if kind == MARKET:
        done = units[units["status"] == "resolved"] if "status" in units else units.iloc[:0]
        return str(done["resolved_at"].iloc[0])[:10] if len(done) else "when the market resolves"
    dates = sorted({str(d) for d in units["resolution_date"].dropna() if str(d)})
    return ", ".join(dates) or "–"


def time_marks(units: pd.DataFrame) -> list[list[str]]:
    """The dates a question's chart marks, as [kind, YYYY-MM-DD] pairs, once each, in date order:
    each round's ``freeze`` and ``due`` time, and each ``resolved`` unit's resolution time. The
    page's script draws them as vertical lines (a few bytes each, not a Plotly shape apiece)."""
    if not len(units):
        return []
    marks = {("freeze", str(t)[:10]) for t in units["freeze_time"].dropna()}
    marks |= {("due", str(t)[:10]) for t in units["due"].dropna()}
    if "status" in units:
        resolved = units[units["status"] == "resolved"]
        marks |= {("resolved", str(t)[:10]) for t in resolved["resolved_at"].dropna() if str(t)}
    return [[kind, day] for kind, day in sorted(marks, key=lambda m: (m[1], m[0]))]


def _number(x: float) -> int | float:
    return int(x) if float(x).is_integer() else float(x)


def _cut(text: str) -> str:
    return text if len(text) <= REASONING_CHARS else text[:REASONING_CHARS - 1].rstrip() + "…"


def script_json(payload) -> str:
    """JSON that is safe inside ``<script type="application/json">``: no ``<``, ``>`` or ``&``."""
    text = json.dumps(payload, separators=(",", ":"), ensure_ascii=True, allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
