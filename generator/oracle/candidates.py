"""The question maker's pure parts: an article in, its four questions out, each with filter scores.

The four steps (Daily Oracle, §3.1): a **summary** that says whether the article reports a new
event (no new event: no questions); **two true/false questions**, one answered "Yes" and one
"No", and **two multiple-choice questions** with their correct answers; **three misleading
choices** for each multiple-choice question; the **filter**, seven principles scored 0 to 2, a
question kept when they sum to at least ``[oracle] min_score`` (13 of 14). Each step's answer is a
JSON object; ``parse_*`` turn an answer's text into its values or a ``Malformed`` naming what is
wrong. Multiple-choice options are put in an order drawn from the question's id, so the correct
answer's letter is as likely to be any of A to D, and the same on every run.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import Problem
from ..schemas import FILTER_PRINCIPLES

LETTERS = ("A", "B", "C", "D")
SLOTS = ("tf1", "tf2", "mc1", "mc2")
CATEGORIES = (
    "Business & Economics",
    "Politics & Governance",
    "Science & Technology",
    "Health",
    "Environment & Energy",
    "Sports",
    "Arts & Culture",
    "Crime & Justice",
    "World",
    "Other",
)
MAX_TEXT_CHARS = 12000  # of an article's text put into a prompt


@dataclass(frozen=True)
class Article:
    """What a maker is given: one selected article, its text (or its title when the text is lost)."""

    url: str
    day: str  # publication date, YYYY-MM-DD: the questions' resolution date
    published_at: str
    title: str
    source: str
    text_sha256: str
    text: str


@dataclass(frozen=True)
class Candidate:
    question_id: str
    kind: str  # tf | mc
    text: str
    choices: tuple[str, ...]  # the four options of an mc question; () for tf
    answer: str  # the correct letter
    scores: dict[str, int]

    @property
    def total(self) -> int:
        return sum(self.scores.values())


@dataclass
class Outcome:
    """What became of one article: ``done`` (summary known; candidates scored), ``pending`` (a call
    failed, answered malformed JSON or was not made: the next run goes on) or ``gave-up`` (a step
    failed for good: no questions)."""

    status: str
    summary: str = ""
    new_event: bool | None = None
    category: str = ""
    candidates: list[Candidate] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)


class Malformed(ValueError):
    """An answer that is not the JSON object its step asks for."""


def question_id(article: Article, slot: str) -> str:
    return f"{article.day}.{article.text_sha256[:10]}.{slot}"


def json_object(text: str) -> dict:
    """The JSON object of an answer (a fenced code block or text around it allowed); Malformed otherwise."""
    body = re.sub(r"^\s*```[a-zA-Z]*\s*|\s*```\s*$", "", text.strip())
    start, end = body.find("{"), body.rfind("}")
    if start < 0 or end <= start:
        raise Malformed("the answer holds no JSON object")
    try:
        value = json.loads(body[start : end + 1])
    except (ValueError, RecursionError) as exc:
        raise Malformed(f"the answer is not valid JSON ({str(exc)[:120]})") from None
    if not isinstance(value, dict):
        raise Malformed("the answer is not a JSON object")
    return value


def _text(value: Any, what: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise Malformed(f"{what} is missing or not text")
    return " ".join(value.split())


def parse_summary(text: str) -> tuple[str, str, bool, str]:
    """(summary, key point, new event, category); an unknown category becomes "Other"."""
    value = json_object(text)
    new_event = value.get("new_event")
    if not isinstance(new_event, bool):
        raise Malformed('"new_event" is not true or false')
    category = value.get("category") if value.get("category") in CATEGORIES else "Other"
    key_point = _text(value.get("key_point"), '"key_point"') if new_event else " ".join(str(value.get("key_point") or "").split())
    return _text(value.get("summary"), '"summary"'), key_point, new_event, str(category)


def parse_questions(text: str) -> list[dict[str, str]]:
    """The four {question, answer} pairs: a Yes question, a No question, two open ones."""
    items = json_object(text).get("questions")
    if not isinstance(items, list) or len(items) != 4 or not all(isinstance(i, dict) for i in items):
        raise Malformed('"questions" is not a list of four objects')
    pairs = [
        {"question": _text(i.get("question"), f"question {n}"), "answer": _text(i.get("answer"), f"answer {n}")} for n, i in enumerate(items, start=1)
    ]
    for n, expected in ((0, "yes"), (1, "no")):
        if pairs[n]["answer"].strip(" .!").lower() != expected:
            raise Malformed(f'answer {n + 1} is {pairs[n]["answer"]!r}, not "{expected.title()}"')
    return pairs


def parse_choices(text: str, answers: list[str]) -> list[list[str]]:
    """Three wrong options for each of the two multiple-choice questions, none equal to its answer or each other."""
    groups = json_object(text).get("choices")
    if not isinstance(groups, list) or len(groups) != 2 or not all(isinstance(g, list) and len(g) == 3 for g in groups):
        raise Malformed('"choices" is not two lists of three options')
    out = []
    for n, (group, answer) in enumerate(zip(groups, answers, strict=True), start=1):
        options = [_text(o, f"an option of question {n}") for o in group]
        if len({o.lower() for o in [*options, answer]}) != 4:
            raise Malformed(f"the options of question {n} repeat each other or the correct answer")
        out.append(options)
    return out


def parse_scores(text: str) -> list[dict[str, int]]:
    """The seven scores (0, 1 or 2) of each of the four questions."""
    items = json_object(text).get("scores")
    if not isinstance(items, list) or len(items) != 4 or not all(isinstance(i, dict) for i in items):
        raise Malformed('"scores" is not a list of four objects')
    out = []
    for n, item in enumerate(items, start=1):
        bad = [p for p in FILTER_PRINCIPLES if type(item.get(p)) is not int or item[p] not in (0, 1, 2)]
        if bad:
            raise Malformed(f"question {n}: {', '.join(bad)} not scored 0, 1 or 2")
        out.append({p: int(item[p]) for p in FILTER_PRINCIPLES})
    return out


def arrange(qid: str, correct: str, wrong: list[str]) -> tuple[tuple[str, ...], str]:
    """The four options in an order drawn from ``qid``, and the correct one's letter."""
    rng = np.random.default_rng(int.from_bytes(hashlib.sha256(qid.encode()).digest()[:8], "big"))
    position = int(rng.integers(4))
    options = list(wrong)
    options.insert(position, correct)
    return tuple(options), LETTERS[position]


def candidates(article: Article, pairs: list[dict[str, str]], wrong: list[list[str]], scores: list[dict[str, int]]) -> list[Candidate]:
    """The four questions of an article, in slot order (tf1: answer Yes, tf2: No, mc1, mc2)."""
    out = []
    for slot, pair, score in zip(SLOTS, pairs, scores, strict=True):
        qid = question_id(article, slot)
        if slot.startswith("tf"):
            out.append(Candidate(qid, "tf", pair["question"], (), "A" if slot == "tf1" else "B", score))
        else:
            options, letter = arrange(qid, pair["answer"], wrong[SLOTS.index(slot) - 2])
            out.append(Candidate(qid, "mc", pair["question"], options, letter, score))
    return out


def kept(candidate: Candidate, min_score: int) -> bool:
    return candidate.total >= min_score
