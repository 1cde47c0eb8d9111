"""Question pages: one per question asked in any round. Pure: frames in, page data out.

There can be thousands of questions, so everything is grouped once (never filtered per page),
the pages stay out of the sidebar (``not_in_nav``) and out of the search index (front matter).
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..scoring.resolve import known_by, latest_questions

_PLAIN = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9._-]*")
_FORECAST_COLUMNS = ["round", "model", "resolution_date", "probability", "outcome", "brier", "reasoning"]


@dataclass(frozen=True)
class QuestionInfo:
    id: str
    slug: str
    question: dict  # the latest question-bank row (text, url, source, kind, category, criteria...)
    history: pd.DataFrame  # observed_at, value: what the source reported, known by as_of
    forecasts: pd.DataFrame  # _FORECAST_COLUMNS, one row per forecast of any round


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
                                by_question.get(qid, empty_forecasts)))
    return out


def _split(rows: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Rows sorted by question id, as one frame of ``_FORECAST_COLUMNS`` per question: slices of one
    frame (a groupby builds each group by a take, too slow for thousands of questions)."""
    ids = rows["question_id"].to_numpy()
    frame = rows[_FORECAST_COLUMNS].reset_index(drop=True)
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


def _number(x: float) -> int | float:
    return int(x) if float(x).is_integer() else float(x)


def _cut(text: str) -> str:
    return text if len(text) <= REASONING_CHARS else text[:REASONING_CHARS - 1].rstrip() + "…"


def script_json(payload) -> str:
    """JSON that is safe inside ``<script type="application/json">``: no ``<``, ``>`` or ``&``."""
    text = json.dumps(payload, separators=(",", ":"), ensure_ascii=True, allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
