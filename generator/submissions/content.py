"""Checks of a parsed forecast file against its round's question set. Each check is a small pure
function that returns the problems it finds; ``check_content`` runs them all (collect-all).
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from itertools import chain

from ..codes import problem
from ..errors import Problem
from ..schemas import FORECASTS, QUESTION_SETS, ROUND_QUESTIONS, Table
from ..scoring.brier import set_name
from ..store import files
from ..store.forecast_file import Parsed, Row
from ..store.layout import Layout
from ..store.spreadsheet import formula_like
from ..timeutil import format_date, is_iso_date
from ..vocabulary import MARKET
from .reading import has_errors, hub_file, reader_problems

COVERAGE_WARN = 0.95
_NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$", re.ASCII)  # ASCII digits: what the nightly reader takes
ASCII_SPACE = " \t\n\r\f\v"  # a no-break space is not trimmed by the nightly reader either
# Cells certainly valid (a subset of what ``probability_problem`` passes): 0, 0.ddd, 1 or 1.000, ASCII only.
_PLAIN_PROBABILITY = re.compile(r"0(?:\.[0-9]{1,30})?|1(?:\.0{1,30})?")
_NOT_FINITE = {"nan", "+nan", "-nan", "inf", "+inf", "-inf", "infinity", "+infinity", "-infinity"}
REQUIRED = FORECASTS.names  # every column, as the nightly reader requires (reasoning cells may be empty)


@dataclass(frozen=True)
class RoundSet:
    """What the checks need from a round: its deadline and the forecastable units."""

    due: str
    due_ts: str
    kinds: dict[str, str]
    dates: dict[str, frozenset[str]]
    # the round's question sets (data/rounds/<due>/question_sets.csv) by name, ".json" dropped; empty: one set
    sets: dict[str, frozenset[tuple[str, str]]] = field(default_factory=dict)

    @property
    def units(self) -> frozenset[tuple[str, str]]:
        return frozenset((q, d) for q, kind in self.kinds.items() for d in (self.dates.get(q, frozenset()) if kind != MARKET else ("",)))

    def units_of(self, question_set: str | None) -> frozenset[tuple[str, str]]:
        """The units a file declaring ``question_set`` is scored on: that set's, or the whole round's."""
        return self.sets.get(set_name(question_set), self.units)


def round_set(data: bytes, due: str, label: str, sets: bytes | None = None, sets_label: str = "") -> RoundSet:
    """A published round's questions.csv (and question_sets.csv, when the round has several sets) →
    RoundSet. A broken round file is the hub's fault: SchemaError."""
    frame = hub_file(data, label, ROUND_QUESTIONS, "the round's question set")
    kinds = dict(zip(frame["question_id"], frame["kind"], strict=True))
    dated: dict[str, list[str]] = {}  # a dict of lists, not a groupby: a Python call per question either way
    for question, date in zip(frame["question_id"].tolist(), frame["resolution_date"].tolist(), strict=True):
        if date != "":
            dated.setdefault(question, []).append(date)
    dates = {question: frozenset(found) for question, found in sorted(dated.items())}
    due_ts = frame["due"].iloc[0] if len(frame) else f"{due}T00:00:00Z"
    named: dict[str, frozenset[tuple[str, str]]] = {}
    if sets is not None:
        members = hub_file(sets, sets_label, QUESTION_SETS, "the round's question sets")
        named = {set_name(n): frozenset(zip(g["question_id"], g["resolution_date"], strict=True)) for n, g in members.groupby("question_set")}
    return RoundSet(due, due_ts, kinds, dates, named)


def published_round(layout: Layout, due: datetime) -> RoundSet:
    """The RoundSet of a round the hub published: its questions.csv and, when the round has several
    question sets, its question_sets.csv."""
    questions, sets = layout.round_questions(due), layout.round_sets(due)
    return round_set(
        files.read_bytes(questions),
        format_date(due),
        layout.relative(questions),
        files.read_bytes(sets) if sets.is_file() else None,
        layout.relative(sets),
    )


def check_content(parsed: Parsed, rnd: RoundSet | None, line: float | None = None) -> list[Problem]:
    """Every problem of the rows (up to the file's MAX_PROBLEMS; ``parsed.summary()`` counts the rest);
    checks that need the round are skipped when it is unknown. ``line``: the hub's imputation line (the
    largest share of the round a file may leave without a probability and still be ranked), beyond which
    the file is refused (``too-many-missing``); None (the seal, the hub's own files) only warns. A file
    with no error here is one the hub's reader reads: its own checks run last, on what the others let through."""
    problems = parsed.keep(check_columns(parsed))
    if any(p.code == "missing-column" for p in problems):
        return problems
    ours = _ours(parsed, rnd)  # the rows of another set's file are told once (check_question_ids), not row by row
    problems += parsed.keep(
        chain(check_probabilities(ours), check_dates(ours), check_duplicates(ours), check_question_ids(parsed, rnd), check_formulas(ours))
    )
    # the coverage, once the rows' own errors are known: a file failing already gets the warning, not a second error
    problems += parsed.keep(check_coverage(parsed, rnd, None if has_errors(parsed.problems + problems) else line))
    if not has_errors(parsed.problems + problems):
        problems += parsed.keep(reader_problems(parsed, FORECASTS))
    return problems


def _ours(parsed: Parsed, rnd: RoundSet | None) -> Parsed:
    """``parsed``, or, for a file answering another question set, a copy holding only its rows of the round."""
    if rnd is None or not foreign_rows(parsed, rnd):
        return parsed
    return dataclasses.replace(parsed, rows=[r for r in parsed.rows if _key(r)[0] in rnd.kinds])


def check_columns(parsed: Parsed) -> list[Problem]:
    return check_header(parsed, FORECASTS, REQUIRED)


def check_header(parsed: Parsed, table: Table, required: Sequence[str]) -> list[Problem]:
    """Missing, unknown and repeated columns of a submitted CSV's header against ``table``."""
    columns, label, names = parsed.columns, parsed.label, table.names
    out = [
        problem("missing-column", label, 1, name, f"required column {name!r} is missing; the header must be " + ",".join(names))
        for name in required
        if name not in columns
    ]
    out += [problem("unknown-column", label, 1, name, f"column {name!r} is not one of " + ", ".join(names)) for name in columns if name not in names]
    out += [
        problem("duplicate-column", label, 1, name, f"column {name!r} appears {n} times in the header")
        for name, n in sorted(Counter(columns).items())
        if n > 1
    ]
    return out


def plain_number(text: str) -> str | None:
    """The number a cell holds when it is a plain decimal number in ASCII (optional sign, dot and
    exponent; ASCII white space around it), as the readers take it; None for anything else (Unicode
    digits, a no-break space, a comma, inf, nan, hex, underscores). Both the forecast, oracle and
    bet checks go through here, so they accept the same numbers."""
    value = text.strip(ASCII_SPACE)
    return value if _NUMBER.fullmatch(value) else None


def probability_problem(text: str) -> tuple[str, str] | None:
    """(code, message) for a probability cell that is not a finite number in [0, 1]."""
    if _PLAIN_PROBABILITY.fullmatch(text):  # most cells: a decimal in [0, 1] as the writer formats one
        return None
    value = text.strip(ASCII_SPACE)
    if not value:
        return "empty-value", "the probability is empty"
    if value.lower() in _NOT_FINITE:
        return "probability-not-finite", f"{text!r} is not a finite number; give a probability from 0 to 1"
    if plain_number(value) is None:
        return "probability-not-a-number", f"{text!r} is not a number{_not_a_number_hint(value)}"
    number = float(value)
    if not math.isfinite(number):
        return "probability-not-finite", f"{text!r} is too large to be a probability"
    if not 0.0 <= number <= 1.0:
        hint = f"; a percentage? write {_hundredth(number)}" if 1.0 < number <= 100.0 else ""
        return "probability-out-of-range", f"{text!r} is outside [0, 1]{hint}"
    return None


def _not_a_number_hint(value: str) -> str:
    """What to write instead of a cell that is no number: ``72%`` → 0.72, ``0,5`` → a dot."""
    if re.fullmatch(r"[+-]?\d*,\d+", value):
        return " (use a dot as the decimal separator)"
    percent = value.removesuffix("%").rstrip(ASCII_SPACE)
    if value.endswith("%") and plain_number(percent) is not None and 0.0 <= float(percent) <= 100.0:
        return f"; write {_hundredth(float(percent))} (a probability from 0 to 1, not a percentage)"
    return ""


def _hundredth(number: float) -> str:
    """``number`` / 100 as a short decimal (72 → 0.72, 7.5 → 0.075, 100 → 1)."""
    return f"{number / 100:.10g}"


PERCENT_SHARE = 0.5  # a file more than this share of whose numbers are above 1 (and none above 100) is in percentages


def percentages(parsed: Parsed) -> str | None:
    """One message for every out-of-range row of a file written in percentages: every probability a
    number from 0 to 100 and most of them above 1. None for any other file (its rows are told one by one)."""
    numbers = [float(v) for row in parsed.rows if (v := plain_number(row.cells.get("probability", ""))) is not None]
    above = sum(1 for n in numbers if n > 1.0)
    if not numbers or above <= PERCENT_SHARE * len(numbers) or not all(0.0 <= n <= 100.0 for n in numbers):
        return None
    return (
        f"the file's probabilities look like percentages ({above:,} of its {len(numbers):,} numbers are from 1 to 100): "
        "divide every probability by 100, those of 1 or less too (70 → 0.7, 5 → 0.05, 1 → 0.01)"
    )


def check_probabilities(parsed: Parsed) -> Iterator[Problem]:
    """A problem per row whose probability is not one; a file in percentages gets one message, on each
    of its rows above 1 (the report groups them); a JSON forecast written as a string is refused."""
    col = parsed.col("probability")
    hint: list[str | None] = []  # the file's percentages message, once looked for (None: the file is not in percentages)
    for row in parsed.rows:
        hit = probability_problem(row.cells.get("probability", ""))
        if hit is None:
            if row.number in parsed.quoted:
                yield problem("probability-as-text", parsed.label, row.number, col, QUOTED)
            continue
        code, message = hit
        if code == "probability-out-of-range" and 1.0 < float(row.cells["probability"]) <= 100.0:
            hint = hint or [percentages(parsed)]  # looked for once, at the first such row
            message = hint[0] or message
        yield problem(code, parsed.label, row.number, col, message)


QUOTED = 'the forecast is a JSON string, not a number: write it without quotes ("forecast": 0.7, not "forecast": "0.7")'


def _bad_date(text: str) -> bool:
    return not is_iso_date(text)


def check_dates(parsed: Parsed) -> Iterator[Problem]:
    col = parsed.col("resolution_date")
    return (
        problem("bad-date", parsed.label, row.number, col, f"{row.cells['resolution_date']!r} is not a date written as YYYY-MM-DD")
        for row in parsed.rows
        if row.cells.get("resolution_date") and _bad_date(row.cells["resolution_date"])
    )


def _key(row: Row) -> tuple[str, str]:
    return row.cells.get("question_id", ""), row.cells.get("resolution_date", "")


def _unit(row: Row, rnd: RoundSet) -> tuple[str, str]:
    """The unit a row answers: a market row's resolution date is ignored."""
    qid, rdate = _key(row)
    return (qid, "") if rnd.kinds.get(qid) == MARKET else (qid, rdate)


def check_duplicates(parsed: Parsed) -> Iterator[Problem]:
    """A unit given twice; in an individual file (rows naming a member), twice by the same member."""
    first: dict[tuple[str, str, str], int] = {}
    for row in parsed.rows:
        key = (row.member, *_key(row))
        if key in first and key[1]:
            who = f" by {row.member!r}" if row.member else ""
            yield problem(
                "duplicate-forecast",
                parsed.label,
                row.number,
                parsed.col("question_id"),
                f"question {key[1]!r}" + (f" for {key[2]}" if key[2] else "") + f" was already forecast{who} in row {first[key]}",
            )
        first.setdefault(key, row.number)


FOREIGN_MIN = 10  # unknown question ids from which a file that is mostly unknown ids gets one diagnosis


def check_question_ids(parsed: Parsed, rnd: RoundSet | None) -> Iterator[Problem]:
    foreign = foreign_rows(parsed, rnd)
    if foreign and rnd is not None:  # another round's (or ForecastBench's) file: one diagnosis, not an error per row
        yield foreign_set(parsed, rnd, foreign)
    for row in parsed.rows:
        qid, rdate = _key(row)
        if not qid.strip():
            yield problem("empty-value", parsed.label, row.number, parsed.col("question_id"), "the question id is empty")
        elif rnd is not None and not (foreign and qid not in rnd.kinds):
            yield from _against_round(parsed, row, qid, rdate, rnd)


def foreign_rows(parsed: Parsed, rnd: RoundSet | None) -> list[str]:
    """The question ids of the rows not in the round, when they are most of the file's rows (at least
    FOREIGN_MIN): the file answers another question set. Else empty."""
    if rnd is None:
        return []
    unknown = [q for row in parsed.rows if (q := _key(row)[0]).strip() and q not in rnd.kinds]
    return unknown if len(unknown) >= FOREIGN_MIN and 2 * len(unknown) > len(parsed.rows) else []


def expected_set(due: str) -> str:
    """The ``question_set`` a JSON file of a round with one set declares (what ``round template`` writes)."""
    return f"{due}-prescient.json"


def foreign_set(parsed: Parsed, rnd: RoundSet, unknown: list[str]) -> Problem:
    declared = parsed.question_set if parsed.fmt == "json" else None
    theirs = _set_round(declared)
    whose = "" if set_name(declared).endswith("-prescient") else "ForecastBench "
    what = (
        f"this is {whose}round {theirs}'s question set ({declared})"
        if theirs and theirs != rnd.due
        else f"is this another round's file? (first: {', '.join(repr(q) for q in unknown[:3])})"
    )
    sets = (
        f"one of {', '.join(f'{n}.json' for n in sorted(rnd.sets))}"
        if rnd.sets
        else f"{expected_set(rnd.due)}, the questions of data/rounds/{rnd.due}/questions.csv"
    )
    return problem(
        "question-set-mismatch",
        parsed.label,
        None,
        parsed.col("question_id"),
        f"{len(unknown):,} of the file's {len(parsed.rows):,} rows name questions that are not in round "
        f"{rnd.due}: {what}; this round's set is {sets} (`prescient round template --due {rnd.due}` "
        f"writes a file to fill)",
    )


def _set_round(name: str | None) -> str | None:
    """The due date a question set's name starts with (``2025-10-26-llm.json`` → ``2025-10-26``), else None."""
    head = set_name(name)[:10]
    return head if is_iso_date(head) else None


def _against_round(parsed: Parsed, row: Row, qid: str, rdate: str, rnd: RoundSet) -> list[Problem]:
    label, number, col = parsed.label, row.number, parsed.col("resolution_date")
    if qid not in rnd.kinds:
        return [problem("unknown-question", label, number, parsed.col("question_id"), f"{qid!r} is not in the question set of round {rnd.due}")]
    if rnd.kinds[qid] == MARKET:  # ForecastBench ignores a market row's date, and so does the scoring
        return (
            [problem("market-resolution-date", label, number, col, f"{qid!r} is a market question; its resolution_date {rdate!r} is ignored")]
            if rdate
            else []
        )
    allowed = sorted(rnd.dates.get(qid, ()))
    if not rdate:
        return [
            problem("missing-resolution-date", label, number, col, f"{qid!r} is a dataset question; give one row for each of {', '.join(allowed)}")
        ]
    if rdate not in allowed and not _bad_date(rdate):
        return [
            problem("unknown-resolution-date", label, number, col, f"{rdate} is not a resolution date of {qid!r}; its dates are {', '.join(allowed)}")
        ]
    return []


def check_formulas(parsed: Parsed) -> Iterator[Problem]:
    """A warning per reasoning cell that a spreadsheet would run as a formula (it is kept as written)."""
    col = parsed.col("reasoning")
    return (
        problem(
            "formula-like-text",
            parsed.label,
            row.number,
            col,
            f"the reasoning starts with {row.cells['reasoning'][:1]!r}; a spreadsheet may run "
            f"{row.cells['reasoning'][:30]!r} as a formula (our CSV downloads neutralise it)",
        )
        for row in parsed.rows
        if formula_like(row.cells.get("reasoning", ""))
    )


def missing_units(parsed: Parsed, rnd: RoundSet | None) -> list[tuple[str, str]]:
    """The round's questions × resolution dates the file has no row for at all, sorted: not those of its
    rows with an error or a null forecast, which are reported on their own rows."""
    if rnd is None or not parsed.columns:
        return []
    given = {_unit(r, rnd) for r in parsed.rows} | {(q, "") if rnd.kinds.get(q) == MARKET else (q, d) for q, d in parsed.nulls}
    return sorted(rnd.units_of(parsed.question_set) - given)


def describe_missing(missing: list[tuple[str, str]], shown: int = 10) -> str:
    """``sim:m1, sim:s2 (2026-02-01), … and 12 more; these 14 units will be scored as 0.5``."""
    names = ", ".join(f"{q} ({d})" if d else q for q, d in missing[:shown])
    more = f" and {len(missing) - shown} more" if len(missing) > shown else ""
    these = "this 1 unit" if len(missing) == 1 else f"these {len(missing)} units"
    return f"missing {names}{more}; {these} will be scored as 0.5"


def check_coverage(parsed: Parsed, rnd: RoundSet | None, line: float | None = None) -> list[Problem]:
    if not parsed.records:
        return [problem("no-forecasts", parsed.label, None, None, "the file has no forecast rows")]
    units = rnd.units_of(parsed.question_set) if rnd is not None else frozenset()
    if not units:
        return []
    assert rnd is not None  # units is empty without a round
    if foreign_rows(parsed, rnd):  # another set's file: its one diagnosis says so
        return []
    covered = units & {_unit(r, rnd) for r in parsed.rows if probability_problem(r.cells.get("probability", "")) is None}
    left_out = missing_units(parsed, rnd)
    without = len(units) - len(covered)
    if line is not None and without > line * len(units):
        return [
            problem(
                "too-many-missing",
                parsed.label,
                None,
                None,
                f"{without:,} of the {_scope(parsed, rnd)}'s {len(units):,} questions × resolution dates have no "
                f"probability: {_why_without(without, left_out)}. A file with more than {line * 100:g}% missing is never "
                f"ranked ([scoring] max_imputed_share): give a probability from 0 to 1 on every row",
            )
        ]
    share = len(covered) / len(units)
    if share >= COVERAGE_WARN:
        return []
    return [
        problem(
            "low-coverage",
            parsed.label,
            None,
            None,
            f"the file forecasts {len(covered)} of the {_scope(parsed, rnd)}'s {len(units)} questions × resolution dates "
            f"({share:.1%}); {_why_without(without, left_out)}, and a file with more than "
            f"{1 - COVERAGE_WARN:.0%} imputed is left off the ranking",
        )
    ]


def _why_without(without: int, left_out: list[tuple[str, str]]) -> str:
    """Of the units without a probability, how many are in rows reported on their own, and which are left out."""
    shown = without - len(left_out)
    parts = [f"{shown:,} in rows reported on their own (empty, null or not a probability)"] if shown else []
    return "; ".join(parts + ([describe_missing(left_out)] if left_out else []))


def _scope(parsed: Parsed, rnd: RoundSet | None) -> str:
    """ "round", or "question set <name>" for a file answering one of the round's sets."""
    name = set_name(parsed.question_set)
    return f"question set {name}" if rnd is not None and name in rnd.sets else "round"


def check_question_set(parsed: Parsed, rnd: RoundSet | None, due: str) -> list[Problem]:
    """A JSON file's ``question_set`` must name one of the round's sets (any name of the round's due
    date when it has one set); a CSV file answers the whole round. A file whose rows are another set's
    has its diagnosis from ``check_question_ids`` instead."""
    if parsed.fmt != "json" or parsed.question_set is None or foreign_rows(parsed, rnd):
        return []
    name = set_name(parsed.question_set)
    if rnd is not None and rnd.sets:
        if name in rnd.sets:
            return []
        known = ", ".join(f"{n}.json" for n in sorted(rnd.sets))
        return [
            problem(
                "question-set-mismatch",
                parsed.label,
                None,
                "question_set",
                f"question_set is {parsed.question_set!r}, which names none of round {due}'s question sets; write one of {known}",
            )
        ]
    if name.startswith(due):
        return []
    return [
        problem(
            "question-set-mismatch",
            parsed.label,
            None,
            "question_set",
            f'question_set is {parsed.question_set!r}, but the file is in round {due}; write "question_set": "{expected_set(due)}"',
        )
    ]
