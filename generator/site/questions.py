"""Question pages: one per question asked in any round. Pure: frames in, page data out.

There can be thousands of questions, so everything is grouped once (never filtered per page),
the pages stay out of the sidebar (``not_in_nav``); the search index lists each by its id and title
(``site.shell``), not by its whole body.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field

import pandas as pd

from ..leaderboard.panel import sorted_codes
from ..scoring.resolve import known_by, latest_questions
from .payloads import NO_FORECASTS, blocks, forecast_payloads

_PLAIN = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9._-]*")
# A question page shows the forecasts of the question's latest rounds only, so that its size stays bounded
# however many rounds ask it again; it links each earlier round's page, whose forecasters'
# files hold that round's forecasts.
RECENT_ROUNDS = 3
# How each unit (round × resolution date) of a question stands: its round's times and rounds.resolutions
UNIT_COLUMNS = ["round", "resolution_date", "due", "freeze_time", "freeze_value", "status", "outcome", "resolved_at", "final_value"]


@dataclass(frozen=True)
class QuestionInfo:
    id: str
    slug: str
    question: dict  # the latest question-bank row (text, url, source, kind, category, criteria...)
    history: pd.DataFrame  # observed_at, value: what the source reported, known by as_of
    payload: dict  # forecast_payload of its forecasts given (FORECAST_COLUMNS, a row per forecast; see question_infos)
    models: tuple[str, ...]  # the model ids shared by every question page, which the payload names by index
    units: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=UNIT_COLUMNS))  # per round × resolution date


def question_slug(question_id: str) -> str:
    """A file-name-safe, unique page name: ``source--native`` when that is plain, else with a hash."""
    plain = question_id.replace(":", "--", 1)
    if _PLAIN.fullmatch(plain):
        return plain
    base = re.sub(r"[^A-Za-z0-9_-]+", "-", plain).strip("-")[:60] or "q"
    return f"{base}-{hashlib.sha256(question_id.encode('utf-8')).hexdigest()[:10]}"


def shown_rounds(round_questions: pd.DataFrame) -> dict[str, set[str]]:
    """Per round, the questions whose page shows that round's forecasts: those for which it is one of
    their latest ``RECENT_ROUNDS`` rounds. ``round_questions`` as ``question_infos`` takes it."""
    pairs = round_questions[["question_id", "round"]].drop_duplicates().astype(str)
    pairs = pairs.sort_values(["question_id", "round"], kind="mergesort")
    latest = pairs.groupby("question_id", sort=False).tail(RECENT_ROUNDS)
    return {r: set(g["question_id"]) for r, g in latest.groupby("round", sort=True)}


def question_infos(
    bank: pd.DataFrame,
    obs: pd.DataFrame,
    round_questions: pd.DataFrame,
    forecasts: pd.DataFrame,
    scores: pd.DataFrame,
    as_of: str,
    models: tuple[str, ...] | None = None,
) -> list[QuestionInfo]:
    """Every question of ``round_questions`` (all rounds), sorted by id.

    ``round_questions`` holds every round's question set with a ``round`` column and, where known,
    the ``rounds.resolutions`` columns (status, outcome, resolved_at, final_value) of each unit;
    ``forecasts`` has columns round, model, question_id, resolution_date, probability, reasoning;
    ``scores`` is the SCORES frame (its outcome and Brier are joined on where the unit resolved).
    A page shows the forecasts of its question's latest rounds only, so ``forecasts`` need hold no
    other (``shown_rounds``: at three years that is a tenth of them; rows of older rounds are carried
    into the payload and cut when the page is rendered). ``models``: the ids every page names its
    forecasts' models by, sorted (default: those of ``forecasts`` on the questions asked); a caller
    that cut ``forecasts`` gives those of the whole, so that the pages stay the same.
    """
    asked = sorted(round_questions["question_id"].unique())
    latest = latest_questions(bank).set_index("id").to_dict("index")  # rows as dicts: one lookup per page
    seen = known_by(obs, as_of)
    history = {
        q: g[["observed_at", "value"]].reset_index(drop=True) for q, g in seen[seen["question_id"].isin(asked)].groupby("question_id", sort=False)
    }
    scored = forecasts[forecasts["question_id"].isin(asked)].merge(
        scores[["round", "model", "question_id", "resolution_date", "outcome", "brier"]],
        on=["round", "model", "question_id", "resolution_date"],
        how="left",
    )
    scored = scored.sort_values(["question_id", "round", "resolution_date", "model"], kind="mergesort")
    models = tuple(sorted_codes(scored["model"].to_numpy())[0].tolist()) if models is None else models
    payloads = forecast_payloads(scored, models)
    frozen = round_questions.drop_duplicates("question_id", keep="last").set_index("question_id").to_dict("index")
    units = _split(
        round_questions.reindex(columns=["question_id", *UNIT_COLUMNS]).sort_values(["question_id", "round", "resolution_date"], kind="mergesort"),
        UNIT_COLUMNS,
    )
    empty_history = pd.DataFrame(columns=["observed_at", "value"])
    out = []
    for qid in asked:
        row, fallback = latest.get(qid, {}), frozen[qid]
        question = {
            "text": row.get("text") or fallback["text"],
            "url": row.get("url") or fallback["url"] or "",
            "source": fallback["source"],
            "kind": fallback["kind"],
            "category": fallback["category"] or "",
            "background": row.get("background") or "",
            "resolution_criteria": row.get("resolution_criteria") or "",
        }
        out.append(
            QuestionInfo(qid, question_slug(qid), question, history.get(qid, empty_history), payloads.get(qid, NO_FORECASTS), models, units[qid])
        )
    return out


def _split(rows: pd.DataFrame, columns: list[str]) -> dict[str, pd.DataFrame]:
    """Rows sorted by question id, as one frame of ``columns`` per question: slices of one
    frame (a groupby builds each group by a take, too slow for thousands of questions)."""
    ids = rows["question_id"].to_numpy()
    frame = rows[columns].reset_index(drop=True)
    starts, ends = blocks(ids)
    return {ids[a]: frame.iloc[a:b].reset_index(drop=True) for a, b in zip(starts.tolist(), ends.tolist(), strict=True)}
