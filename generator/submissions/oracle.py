"""Checks of an oracle forecast file, ``data/oracle/<set>/forecasts/<team>.<model>.csv``, against
its set's questions. Pure: bytes in, problems out (``validate`` reads the files).

A row gives option probabilities ``prob_a`` … ``prob_d`` for one question. A true/false question
offers A and B only; a multiple-choice question A to D. Every offered option needs a probability
and they must sum to 1 (within ``SUM_TOLERANCE``), unless every probability cell of the row is
empty, which is a refusal (scored as wrong).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from itertools import chain

from ..codes import problem
from ..errors import Problem
from ..schemas import ORACLE_FORECASTS, ORACLE_QUESTIONS
from ..scoring.resolve import latest
from ..store.forecast_file import Parsed, Row, parse_forecast
from .content import ASCII_SPACE, check_header, probability_problem
from .reading import has_errors, hub_file, reader_problems, reader_values

SUM_TOLERANCE = 1e-6
PROBS = ("prob_a", "prob_b", "prob_c", "prob_d")


def question_kinds(data: bytes, label: str) -> dict[str, str]:
    """A set's questions.csv → {question id: kind} of the current versions. A broken file is the hub's fault."""
    frame = hub_file(data, label, ORACLE_QUESTIONS, "the oracle question set")
    current = latest(frame, "id", ("recorded_at", "id"))
    return dict(zip(current["id"], current["kind"], strict=True))


def check_oracle_forecast(data: bytes, label: str, questions: bytes | None, questions_label: str) -> list[Problem]:
    """Every problem of an oracle forecast file; ``questions`` is the set's questions.csv (None: no such set)."""
    if questions is None:
        return [problem("unknown-oracle-set", label, None, None, f"no oracle question set here: {questions_label} does not exist")]
    parsed = parse_forecast(data, label, "csv")
    if not parsed.columns:
        return parsed.problems + parsed.summary()
    found = parsed.problems + parsed.keep(check_columns(parsed))
    if any(p.code == "missing-column" for p in found):
        return found + parsed.summary()
    kinds = question_kinds(questions, questions_label)
    values = option_values(parsed)
    rows = (p for row, row_values in zip(parsed.rows, values, strict=True) for p in check_row(parsed.label, row, kinds, row_values))
    found += parsed.keep(chain(rows, check_duplicates(parsed)))
    if not parsed.records:
        found += parsed.keep([problem("no-forecasts", label, None, None, "the file has no forecast rows")])
    if not has_errors(found):
        found += parsed.keep(reader_problems(parsed, ORACLE_FORECASTS))
    return found + parsed.summary()


def option_values(parsed: Parsed) -> list[dict[str, float]]:
    """Each row's option probabilities as the hub's reader converts them (NaN where it cannot)."""
    columns = [reader_values(parsed, ORACLE_FORECASTS, c) for c in PROBS]
    return [dict(zip(PROBS, row, strict=True)) for row in zip(*columns, strict=True)] if parsed.rows else []


def check_columns(parsed: Parsed) -> list[Problem]:
    return check_header(parsed, ORACLE_FORECASTS, ORACLE_FORECASTS.names)


def check_row(label: str, row: Row, kinds: dict[str, str], values: dict[str, float] | None = None) -> list[Problem]:
    """The row's problems; ``values`` are its probabilities as the reader converts them (for the sum)."""
    qid = row.cells.get("question_id", "")
    if not qid.strip():
        return [problem("empty-value", label, row.number, "question_id", "the question id is empty")]
    if qid not in kinds:
        return [problem("unknown-question", label, row.number, "question_id", f"{qid!r} is not a question of this set")]
    offered = PROBS[:2] if kinds[qid] == "tf" else PROBS
    cells = {c: row.cells.get(c, "").strip(ASCII_SPACE) for c in PROBS}  # as probability_problem: a no-break space is no space
    out = [
        problem("option-not-offered", label, row.number, c, f"{qid!r} is a true/false question: leave {c} empty")
        for c in PROBS
        if c not in offered and cells[c]
    ]
    if not any(cells[c] for c in offered):
        return out  # a refusal
    bad = {c: probability_problem(cells[c]) for c in offered}
    out += [
        problem(code, label, row.number, c, message if cells[c] else "give a probability for every option, or leave them all empty to refuse")
        for c, hit in bad.items()
        if hit
        for code, message in [hit]
    ]
    if not any(bad.values()):
        numbers = [values[c] if values else float(cells[c]) for c in offered]
        out += _sum_problem(label, row.number, numbers) if all(map(math.isfinite, numbers)) else []
    return out


def _sum_problem(label: str, number: int, values: list[float]) -> list[Problem]:
    total = sum(values)
    if abs(total - 1.0) <= SUM_TOLERANCE:
        return []
    return [problem("probabilities-not-summing", label, number, None, f"the option probabilities sum to {total:.6g}, not 1")]


def check_duplicates(parsed: Parsed) -> Iterator[Problem]:
    first: dict[str, int] = {}
    for row in parsed.rows:
        qid = row.cells.get("question_id", "").strip()
        if qid and qid in first:
            yield problem("duplicate-forecast", parsed.label, row.number, "question_id", f"question {qid!r} was already forecast in row {first[qid]}")
        first.setdefault(qid, row.number)
