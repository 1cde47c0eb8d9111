"""Checks of a parsed forecast file against its round's question set. Each check is a small pure
function that returns the problems it finds; ``check_content`` runs them all (collect-all).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from itertools import chain

from ..codes import problem
from ..errors import Problem
from ..schemas import FORECASTS, QUESTION_SETS, ROUND_QUESTIONS, Table
from ..scoring.brier import set_name
from ..store.forecast_file import Parsed, Row
from ..store.spreadsheet import formula_like
from ..timeutil import is_iso_date
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
        return frozenset((q, d) for q, kind in self.kinds.items()
                         for d in (self.dates.get(q, frozenset()) if kind != MARKET else ("",)))

    def units_of(self, question_set: str | None) -> frozenset[tuple[str, str]]:
        """The units a file declaring ``question_set`` is scored on: that set's, or the whole round's."""
        return self.sets.get(set_name(question_set), self.units)


def round_set(data: bytes, due: str, label: str, sets: bytes | None = None, sets_label: str = "") -> RoundSet:
    """A published round's questions.csv (and question_sets.csv, when the round has several sets) →
    RoundSet. A broken round file is the hub's fault: SchemaError."""
    frame = hub_file(data, label, ROUND_QUESTIONS, "the round's question set")
    kinds = dict(zip(frame["question_id"], frame["kind"]))
    dated: dict[str, list[str]] = {}  # a dict of lists, not a groupby: a Python call per question either way
    for question, date in zip(frame["question_id"].tolist(), frame["resolution_date"].tolist()):
        if date != "":
            dated.setdefault(question, []).append(date)
    dates = {question: frozenset(found) for question, found in sorted(dated.items())}
    due_ts = frame["due"].iloc[0] if len(frame) else f"{due}T00:00:00Z"
    named: dict[str, frozenset[tuple[str, str]]] = {}
    if sets is not None:
        members = hub_file(sets, sets_label, QUESTION_SETS, "the round's question sets")
        named = {set_name(n): frozenset(zip(g["question_id"], g["resolution_date"])) for n, g in members.groupby("question_set")}
    return RoundSet(due, due_ts, kinds, dates, named)


def check_content(parsed: Parsed, rnd: RoundSet | None) -> list[Problem]:
    """Every problem of the rows (up to the file's MAX_PROBLEMS; ``parsed.summary()`` counts the rest);
    checks that need the round are skipped when it is unknown. A file with no error here is one the
    hub's reader reads: its own checks run last, on what the others let through."""
    problems = parsed.keep(check_columns(parsed))
    if any(p.code == "missing-column" for p in problems):
        return problems
    problems += parsed.keep(chain(check_probabilities(parsed), check_dates(parsed), check_duplicates(parsed),
                                  check_question_ids(parsed, rnd), check_coverage(parsed, rnd), check_formulas(parsed)))
    if not has_errors(parsed.problems + problems):
        problems += parsed.keep(reader_problems(parsed, FORECASTS))
    return problems


def check_columns(parsed: Parsed) -> list[Problem]:
    return check_header(parsed, FORECASTS, REQUIRED)


def check_header(parsed: Parsed, table: Table, required: Sequence[str]) -> list[Problem]:
    """Missing, unknown and repeated columns of a submitted CSV's header against ``table``."""
    columns, label, names = parsed.columns, parsed.label, table.names
    out = [problem("missing-column", label, 1, name, f"required column {name!r} is missing; the header must be "
                   + ",".join(names)) for name in required if name not in columns]
    out += [problem("unknown-column", label, 1, name, f"column {name!r} is not one of " + ", ".join(names))
            for name in columns if name not in names]
    out += [problem("duplicate-column", label, 1, name, f"column {name!r} appears {n} times in the header")
            for name, n in sorted(Counter(columns).items()) if n > 1]
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
        hint = " (use a dot as the decimal separator)" if re.fullmatch(r"[+-]?\d*,\d+", value) else ""
        return "probability-not-a-number", f"{text!r} is not a number{hint}"
    number = float(value)
    if not math.isfinite(number):
        return "probability-not-finite", f"{text!r} is too large to be a probability"
    if not 0.0 <= number <= 1.0:
        return "probability-out-of-range", f"{text!r} is outside [0, 1]"
    return None


def check_probabilities(parsed: Parsed) -> Iterator[Problem]:
    col = parsed.col("probability")
    found = ((row, probability_problem(row.cells.get("probability", ""))) for row in parsed.rows)
    return (problem(code, parsed.label, row.number, col, message) for row, hit in found if hit for code, message in [hit])


def _bad_date(text: str) -> bool:
    return not is_iso_date(text)


def check_dates(parsed: Parsed) -> Iterator[Problem]:
    col = parsed.col("resolution_date")
    return (problem("bad-date", parsed.label, row.number, col, f"{row.cells['resolution_date']!r} is not a date written as YYYY-MM-DD")
            for row in parsed.rows if row.cells.get("resolution_date") and _bad_date(row.cells["resolution_date"]))


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
            yield problem("duplicate-forecast", parsed.label, row.number, parsed.col("question_id"),
                          f"question {key[1]!r}" + (f" for {key[2]}" if key[2] else "") + f" was already forecast{who} in row {first[key]}")
        first.setdefault(key, row.number)


def check_question_ids(parsed: Parsed, rnd: RoundSet | None) -> Iterator[Problem]:
    for row in parsed.rows:
        qid, rdate = _key(row)
        if not qid.strip():
            yield problem("empty-value", parsed.label, row.number, parsed.col("question_id"), "the question id is empty")
        elif rnd is not None:
            yield from _against_round(parsed, row, qid, rdate, rnd)


def _against_round(parsed: Parsed, row: Row, qid: str, rdate: str, rnd: RoundSet) -> list[Problem]:
    label, number, col = parsed.label, row.number, parsed.col("resolution_date")
    if qid not in rnd.kinds:
        return [problem("unknown-question", label, number, parsed.col("question_id"),
                        f"{qid!r} is not in the question set of round {rnd.due}")]
    if rnd.kinds[qid] == MARKET:  # ForecastBench ignores a market row's date, and so does the scoring
        return [problem("market-resolution-date", label, number, col,
                        f"{qid!r} is a market question; its resolution_date {rdate!r} is ignored")] if rdate else []
    allowed = sorted(rnd.dates.get(qid, ()))
    if not rdate:
        return [problem("missing-resolution-date", label, number, col,
                        f"{qid!r} is a dataset question; give one row for each of {', '.join(allowed)}")]
    if rdate not in allowed and not _bad_date(rdate):
        return [problem("unknown-resolution-date", label, number, col,
                        f"{rdate} is not a resolution date of {qid!r}; its dates are {', '.join(allowed)}")]
    return []


def check_formulas(parsed: Parsed) -> Iterator[Problem]:
    """A warning per reasoning cell that a spreadsheet would run as a formula (it is kept as written)."""
    col = parsed.col("reasoning")
    return (problem("formula-like-text", parsed.label, row.number, col,
                    f"the reasoning starts with {row.cells['reasoning'][:1]!r}; a spreadsheet may run "
                    f"{row.cells['reasoning'][:30]!r} as a formula (our CSV downloads neutralise it)")
            for row in parsed.rows if formula_like(row.cells.get("reasoning", "")))


def missing_units(parsed: Parsed, rnd: RoundSet | None) -> list[tuple[str, str]]:
    """The round's questions × resolution dates the file gives no valid probability for, sorted."""
    if rnd is None or not parsed.columns:
        return []
    covered = {_unit(r, rnd) for r in parsed.rows if probability_problem(r.cells.get("probability", "")) is None}
    return sorted(rnd.units_of(parsed.question_set) - covered)


def describe_missing(missing: list[tuple[str, str]], shown: int = 10) -> str:
    """``sim:m1, sim:s2 (2026-02-01), … and 12 more; these 14 units will be scored as 0.5``."""
    names = ", ".join(f"{q} ({d})" if d else q for q, d in missing[:shown])
    more = f" and {len(missing) - shown} more" if len(missing) > shown else ""
    these = "this 1 unit" if len(missing) == 1 else f"these {len(missing)} units"
    return f"missing {names}{more}; {these} will be scored as 0.5"


def check_coverage(parsed: Parsed, rnd: RoundSet | None) -> list[Problem]:
    if not parsed.records:
        return [problem("no-forecasts", parsed.label, None, None, "the file has no forecast rows")]
    units = rnd.units_of(parsed.question_set) if rnd is not None else frozenset()
    if not units:
        return []
    assert rnd is not None  # units is empty without a round
    covered = units & {_unit(r, rnd) for r in parsed.rows if probability_problem(r.cells.get("probability", "")) is None}
    share = len(covered) / len(units)
    if share >= COVERAGE_WARN:
        return []
    return [problem("low-coverage", parsed.label, None, None,
                    f"the file forecasts {len(covered)} of the {_scope(parsed, rnd)}'s {len(units)} questions × resolution dates "
                    f"({share:.1%}); {describe_missing(sorted(units - covered))}, and a file with more than "
                    f"{1 - COVERAGE_WARN:.0%} imputed is left off the ranking")]


def _scope(parsed: Parsed, rnd: RoundSet | None) -> str:
    """"round", or "question set <name>" for a file answering one of the round's sets."""
    name = set_name(parsed.question_set)
    return f"question set {name}" if rnd is not None and name in rnd.sets else "round"


def check_question_set(parsed: Parsed, rnd: RoundSet | None, due: str) -> list[Problem]:
    """A JSON file's ``question_set`` must name one of the round's sets (any name of the round's due
    date when it has one set); a CSV file answers the whole round."""
    if parsed.fmt != "json" or parsed.question_set is None:
        return []
    name = set_name(parsed.question_set)
    if rnd is not None and rnd.sets:
        if name in rnd.sets:
            return []
        known = ", ".join(f"{n}.json" for n in sorted(rnd.sets))
        return [problem("question-set-mismatch", parsed.label, None, "question_set",
                        f"question_set is {parsed.question_set!r}, which names none of round {due}'s question sets ({known})")]
    if name.startswith(due):
        return []
    return [problem("question-set-mismatch", parsed.label, None, "question_set",
                    f"question_set is {parsed.question_set!r}, but the file is in round {due}")]
