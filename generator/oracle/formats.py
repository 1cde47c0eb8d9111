"""The oracle import format: bytes of a CSV or JSONL question file → ORACLE_QUESTIONS rows.

Pure and collect-all: ``parse_questions`` returns the rows it could read and every problem it
found (file, row or line, column, code). Rows are numbered like a spreadsheet for CSV (header =
row 1) and by line for JSONL.

Fields (one CSV column or JSON key each):
- ``question`` (required): the question text;
- ``choice_a`` … ``choice_d`` (CSV) or ``choices`` (JSONL, a list): no choices for a true/false
  question, exactly four for a multiple-choice one;
- ``answer`` (required): ``True``/``False`` (also ``Yes``/``No``, ``A``/``B``) for true/false; a letter
  ``A``–``D`` or the exact text of a choice for multiple choice;
- ``resolution_date`` (required, YYYY-MM-DD), ``category`` (required), ``url`` and ``id`` (optional).
An ``id`` left out is derived from the question text and resolution date, so re-importing the same
file gives the same ids. Other columns or keys are ignored with a warning.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import re
from dataclasses import dataclass, field
from typing import NamedTuple

from ..errors import Problem
from ..timeutil import is_iso_date

LETTERS = ("A", "B", "C", "D")
CHOICES = tuple(f"choice_{x.lower()}" for x in LETTERS)
REQUIRED = ("question", "answer", "resolution_date", "category")
FIELDS = ("id", "question", *CHOICES, "answer", "resolution_date", "category", "url")
TF_CHOICES = ("True", "False")
_TF_ANSWERS = {"true": "A", "yes": "A", "a": "A", "false": "B", "no": "B", "b": "B"}
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:-]*$")


@dataclass
class ParsedQuestions:
    label: str
    rows: list[dict[str, str]] = field(default_factory=list)
    numbers: list[int] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == "error"]


def parse_questions(data: bytes, label: str, fmt: str) -> ParsedQuestions:
    """Parse a question file (``fmt`` is ``csv`` or ``jsonl``) into ORACLE_QUESTIONS cells (no recorded_at)."""
    out = ParsedQuestions(label)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        out.problems.append(Problem(label, None, None, "not-utf8", f"byte {exc.start} is not UTF-8; save the file as UTF-8"))
        return out
    records = _csv_records(text, out) if fmt == "csv" else _jsonl_records(text, out)
    for number, cells in records:
        row = _question_row(number, cells, label, out.problems)
        if row is not None:
            out.rows.append(row)
            out.numbers.append(number)
    out.problems += _duplicates(out, label)
    if not records and not out.problems:
        out.problems.append(Problem(label, None, None, "no-questions", "the file holds no questions"))
    return out


def _csv_records(text: str, out: ParsedQuestions) -> list[tuple[int, dict[str, str]]]:
    try:
        lines = [r for r in csv.reader(io.StringIO(text, newline=""), strict=True)]
    except csv.Error as exc:
        out.problems.append(Problem(out.label, None, None, "bad-csv", f"cannot parse the CSV: {exc}"))
        return []
    if not lines:
        return []
    header = [h.strip() for h in lines[0]]
    out.problems += _header_problems(header, out.label, 1)
    if any(p.code == "missing-column" for p in out.problems):
        return []
    records = []
    for number, values in enumerate(lines[1:], start=2):
        if not values:
            continue
        if len(values) != len(header):
            out.problems.append(
                Problem(out.label, number, None, "wrong-field-count", f"the row has {len(values)} field(s) but the header has {len(header)}")
            )
            continue
        records.append((number, dict(zip(header, values, strict=True))))
    return records


def _header_problems(names: list[str], label: str, row: int | None) -> list[Problem]:
    out = [Problem(label, row, name, "missing-column", f"required column {name!r} is missing") for name in REQUIRED if name not in names]
    return out + [
        Problem(label, row, name, "ignored-column", f"{name!r} is not part of the format and is ignored", "warning")
        for name in dict.fromkeys(names)
        if name not in FIELDS
    ]


def _jsonl_records(text: str, out: ParsedQuestions) -> list[tuple[int, dict[str, str]]]:
    records, ignored = [], set()
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError as exc:
            out.problems.append(Problem(out.label, number, None, "bad-json", f"not valid JSON: {exc.msg}"))
            continue
        if not isinstance(item, dict):
            out.problems.append(Problem(out.label, number, None, "bad-json", "each line must be a JSON object"))
            continue
        missing = [Problem(out.label, number, k, "missing-field", f"the question has no {k!r}") for k in REQUIRED if k not in item]
        out.problems += missing
        ignored |= {k for k in item if k not in FIELDS and k != "choices"}
        cells = _json_cells(item, number, out)
        if not missing and cells is not None:
            records.append((number, cells))
    out.problems += [
        Problem(out.label, None, k, "ignored-column", f"key {k!r} is not part of the format and is ignored", "warning") for k in sorted(ignored)
    ]
    return records


def _json_cells(item: dict, number: int, out: ParsedQuestions) -> dict[str, str] | None:
    choices = item.get("choices") or []
    if not isinstance(choices, list) or len(choices) not in (0, 4):
        out.problems.append(
            Problem(out.label, number, "choices", "bad-choices", "choices must be a list of four options, or left out for a true/false question")
        )
        return None
    cells = {k: _text(item.get(k)) for k in FIELDS if k not in CHOICES}
    return cells | ({name: _text(value) for name, value in zip(CHOICES, choices, strict=True)} if choices else {})


def _text(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "True" if value else "False"
    return value if isinstance(value, str) else json.dumps(value)


def _question_row(number: int, cells: dict[str, str], label: str, problems: list[Problem]) -> dict[str, str] | None:
    get = {k: (cells.get(k) or "").strip() for k in FIELDS}
    found = [Problem(label, number, k, "empty-value", f"{k} is empty") for k in ("question", "category") if not get[k]]
    if not is_iso_date(get["resolution_date"]):
        found.append(Problem(label, number, "resolution_date", "bad-date", f"{get['resolution_date']!r} is not a date written as YYYY-MM-DD"))
    if get["id"] and not _ID.match(get["id"]):
        found.append(Problem(label, number, "id", "bad-id", f"{get['id']!r}: use letters, digits and . _ : - only"))
    if get["url"] and not get["url"].startswith(("https://", "http://")):
        found.append(Problem(label, number, "url", "bad-url", f"{get['url']!r} is not an http(s) address"))
    kind, answer, choice_problem = _kind_and_answer(get)
    if choice_problem:
        found.append(Problem(label, number, choice_problem.column, choice_problem.code, choice_problem.message))
    problems += found
    if found:
        return None
    return _row(get, kind, answer)


class _Bad(NamedTuple):
    """A problem of a question's choices or answer, before its file and row are known."""

    column: str
    code: str
    message: str


def _kind_and_answer(get: dict[str, str]) -> tuple[str, str, _Bad | None]:
    given = [get[c] for c in CHOICES]
    filled = sum(1 for c in given if c)
    if filled == 0:
        letter = _TF_ANSWERS.get(get["answer"].lower())
        bad = None if letter else _Bad("answer", "bad-answer", f"{get['answer']!r} is not True or False")
        return "tf", letter or "", bad
    if filled != 4:
        return (
            "",
            "",
            _Bad(
                next(c for c, v in zip(CHOICES, given, strict=True) if not v),
                "bad-choices",
                f"{filled} of 4 choices are given; a multiple-choice question has exactly four, a true/false one none",
            ),
        )
    letter = (
        get["answer"].upper()
        if get["answer"].upper() in LETTERS
        else next((x for x, c in zip(LETTERS, given, strict=True) if c == get["answer"]), "")
    )
    bad = None if letter else _Bad("answer", "bad-answer", f"{get['answer']!r} is neither a letter A-D nor the text of a choice")
    return "mc", letter, bad


def question_id(text: str, resolution_date: str) -> str:
    """The id of a question given without one: stable across re-imports of the same question."""
    return "q-" + hashlib.sha256(f"{text}\n{resolution_date}".encode()).hexdigest()[:12]


def _row(get: dict[str, str], kind: str, answer: str) -> dict[str, str]:
    choices = list(TF_CHOICES) + ["", ""] if kind == "tf" else [get[c] for c in CHOICES]
    return {
        "id": get["id"] or question_id(get["question"], get["resolution_date"]),
        "kind": kind,
        "text": get["question"],
        **dict(zip(CHOICES, choices, strict=True)),
        "answer": answer,
        "resolution_date": get["resolution_date"],
        "category": get["category"],
        "url": get["url"],
    }


def _duplicates(parsed: ParsedQuestions, label: str) -> list[Problem]:
    seen: dict[str, int] = {}
    out = []
    for number, row in zip(parsed.numbers, parsed.rows, strict=True):
        if row["id"] in seen:
            out.append(Problem(label, number, "id", "duplicate-question", f"question id {row['id']!r} was already given in row {seen[row['id']]}"))
        seen.setdefault(row["id"], number)
    return out
