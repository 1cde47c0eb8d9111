"""Bytes of a forecast file → rows of text cells, with every encoding and syntax problem.

Two formats carry the same content: a CSV with the FORECASTS columns, and a ForecastBench
forecast-set JSON (``{organization, model, model_organization, question_set, forecasts: [...]}``)
whose items ``{id, source, forecast, resolution_date, reasoning}`` become rows with
``question_id = <source>:<id>``. FB's own spellings are read too (``question-set``, no
``model_organization``, extra per-row fields). An *individual* file (items carrying ``user_id``, one
forecaster of a group each) keeps every member's rows; the group's forecast is their median per
question × resolution date (``group_median``). Rows are numbered like a spreadsheet for CSV (header = row 1)
and from 1 along ``forecasts`` for JSON. Nothing here raises on bad input.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..codes import problem
from ..errors import Problem
from ..schemas import FORECASTS

MAX_FORECAST_BYTES = 10 * 1024 * 1024
MAX_PROBLEMS = 200  # listed per file; the rest are counted (``Parsed.summary``), so a broken file costs little
BOM = b"\xef\xbb\xbf"
# JSON field that carries each FORECASTS column, for locating problems in the submitter's terms.
JSON_FIELDS = {"question_id": "id", "resolution_date": "resolution_date", "probability": "forecast", "reasoning": "reasoning"}


MEMBER_KEY = "user_id"  # the per-row field naming a group's member (FB's individual human files)
QUESTION_SET_KEYS = ("question_set", "question-set")  # FB publishes both spellings


@dataclass(frozen=True, slots=True)
class Row:
    number: int
    cells: dict[str, str]
    member: str = ""  # individual files: the forecaster of a group who gave this row


@dataclass
class Parsed:
    label: str
    fmt: str
    columns: tuple[str, ...] = ()
    rows: list[Row] = field(default_factory=list)
    question_set: str | None = None
    records: int = 0
    problems: list[Problem] = field(default_factory=list)
    listed: int = 0  # problems handed out by ``keep``, in ``problems`` or to a check's caller
    hidden: Counter = field(default_factory=Counter)  # problems past MAX_PROBLEMS, by severity
    nulls: set[tuple[str, str]] = field(default_factory=set)  # JSON items whose forecast is null: (question id, resolution date)
    quoted: set[int] = field(default_factory=set)  # the rows of JSON items whose forecast is a string ("0.7"), which the validator refuses

    def keep(self, found: Iterable[Problem]) -> list[Problem]:
        """The problems that still fit in the file's MAX_PROBLEMS; the rest are only counted.
        Every problem of a file goes through here, so a file with millions of bad rows costs little."""
        out = []
        for one in found:
            if self.listed < MAX_PROBLEMS:
                out.append(one)
                self.listed += 1
            else:
                self.hidden[one.severity] += 1
        return out

    def add(self, found: Problem) -> None:
        self.problems.extend(self.keep([found]))

    def summary(self) -> list[Problem]:
        """One problem saying how many were not listed (none when everything was)."""
        errors, warnings = self.hidden["error"], self.hidden["warning"]
        if not errors and not warnings:
            return []
        counts = " and ".join(f"{n:,} more {word}" for n, word in ((errors, "error(s)"), (warnings, "warning(s)")) if n)
        return [
            problem(
                "too-many-problems" if errors else "too-many-warnings",
                self.label,
                None,
                None,
                f"{counts} not listed: only the first {MAX_PROBLEMS} problems of a file are",
            )
        ]

    def col(self, name: str) -> str:
        """The column name as the submitter wrote it (the JSON field for JSON files)."""
        return JSON_FIELDS.get(name, name) if self.fmt == "json" else name


def parse_forecast(data: bytes, label: str, fmt: str) -> Parsed:
    parsed = Parsed(label, fmt)
    problems: list[Problem] = []
    text = _decode(data, label, problems)
    parsed.problems.extend(parsed.keep(problems))
    if text is None:
        return parsed
    other = looks_like(text)
    if other is not None and other != fmt:  # one diagnosis, not a column error per field of the other format
        parsed.add(
            problem(
                "wrong-format",
                label,
                1,
                None,
                f"this looks like {other.upper()}, not {fmt.upper()}; name the file .{other} (a {other.upper()} file is read as one)",
            )
        )
        return parsed
    if fmt == "json":
        _parse_json(text, parsed)
    else:
        _parse_csv(text, parsed)
    return parsed


def looks_like(text: str) -> str | None:
    """``json`` for text that opens as a JSON object or list, ``csv`` for text whose first line is the
    forecast file's header (or names its question_id column), None when it is neither."""
    start = text.lstrip(" \t\r\n")
    if start[:1] in ("{", "["):
        return "json"
    first = start.split("\n", 1)[0].strip().lower()
    return "csv" if "," in first and "question_id" in first.split(",") else None


def _decode(data: bytes, label: str, problems: list[Problem]) -> str | None:
    if len(data) > MAX_FORECAST_BYTES:
        problems.append(problem("file-too-large", label, None, None, f"the file has {len(data):,} bytes; the cap is {MAX_FORECAST_BYTES:,}"))
        return None
    if data.startswith(BOM):  # a spreadsheet's "CSV UTF-8": read without the mark; the file stays as it is
        problems.append(
            problem(
                "utf8-bom",
                label,
                1,
                None,
                "the file starts with a UTF-8 byte-order mark (as spreadsheets save it); it is read without the mark, and the file is kept as it is",
            )
        )
        data = data[len(BOM) :]
    if _looks_utf16(data):
        problems.append(problem("not-utf8", label, 1, None, "the file looks like UTF-16 text; save it as UTF-8"))
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        problems.append(
            problem(
                "not-utf8",
                label,
                data[: exc.start].count(b"\n") + 1,
                None,
                f"byte 0x{data[exc.start]:02x} at offset {exc.start} is not UTF-8; save the file as UTF-8",
            )
        )
        return None
    if not text.strip():
        problems.append(problem("empty-file", label, 1, None, "the file is empty"))
        return None
    return text


def _looks_utf16(data: bytes) -> bool:
    """A UTF-16 byte-order mark, or NUL bytes in every other position (UTF-16 without one)."""
    head = data[:256]
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return True
    return len(head) >= 4 and max(head[0::2].count(0), head[1::2].count(0)) * 2 >= len(head) // 2


def _parse_csv(text: str, parsed: Parsed) -> None:
    lone = _lone_cr(text)
    if lone is not None:  # CRLF throughout is RFC 4180's own ending (Python's csv writes it): said nothing of
        parsed.add(
            problem(
                "crlf-line-endings",
                parsed.label,
                text[:lone].count("\n") + 1,
                None,
                "the file has a carriage return that ends no CRLF pair (old Mac line endings, or "
                "endings mixed); it is read as a line end, and the file is kept as it is",
            )
        )
    if "\x00" in text:
        parsed.add(
            problem(
                "bad-csv",
                parsed.label,
                text[: text.index("\x00")].count("\n") + 1,
                None,
                "the file contains a NUL byte; is it a spreadsheet saved in a binary format?",
            )
        )
        return
    header: tuple[str, ...] = ()
    number = 0  # rows are numbered like a spreadsheet, blank lines skipped (as the readers skip them)
    try:
        for values in csv.reader(io.StringIO(text, newline=""), strict=True):
            if values:
                number += 1
                header = header or tuple(values)
                if number == 1 and _other_separator(header, parsed):  # one diagnosis, not an error per column and row
                    return
                if number > 1:
                    _add_row(parsed, header, number, values)
    except csv.Error as exc:  # nothing of a file that is not CSV is checked further
        parsed.add(problem("bad-csv", parsed.label, number + 1, None, f"cannot parse the CSV: {exc}"))
        parsed.rows.clear()
        return
    parsed.columns, parsed.records = header, number - 1


SEPARATORS = {";": "semicolons", "\t": "tabs", "|": "vertical bars"}


def _other_separator(header: tuple[str, ...], parsed: Parsed) -> bool:
    """A header read as one column that another separator splits into the file's columns (a spreadsheet
    set to semicolons, a TSV): one ``wrong-separator`` problem; nothing else of the file is read."""
    if len(header) != 1:
        return False
    found = [(sep, name) for sep, name in SEPARATORS.items() if sep in header[0] and "question_id" in header[0].split(sep)]
    if not found:
        return False
    sep, name = found[0]
    parsed.add(
        problem(
            "wrong-separator",
            parsed.label,
            1,
            None,
            f"the fields are separated by {sep!r} ({name}), not commas: save the file as CSV with a comma between "
            "fields and a dot in decimals (0.7, not 0,7); the header is " + ",".join(FORECASTS.names),
        )
    )
    return True


def _lone_cr(text: str) -> int | None:
    """The offset of the first carriage return that is not followed by a line feed, else None."""
    at = text.find("\r")
    while at != -1:
        if text[at + 1 : at + 2] != "\n":
            return at
        at = text.find("\r", at + 2)
    return None


def _add_row(parsed: Parsed, header: tuple[str, ...], number: int, values: list[str]) -> None:
    """Rows stream through here one at a time: a file of a million bad rows is never held whole."""
    if len(values) == len(header):
        parsed.rows.append(Row(number, dict(zip(header, values, strict=True))))
    elif parsed.listed >= MAX_PROBLEMS:  # past the cap only the count is kept: no message to word
        parsed.hidden["error"] += 1
    else:
        parsed.add(problem("wrong-field-count", parsed.label, number, None, f"the row has {len(values)} field(s) but the header has {len(header)}"))


def _parse_json(text: str, parsed: Parsed) -> None:
    try:
        body = json.loads(text, parse_constant=_keep_constant)
    except (ValueError, RecursionError) as exc:  # ValueError: JSONDecodeError, or an integer of > 4,300 digits
        line = getattr(exc, "lineno", None)
        reason = getattr(exc, "msg", None) or ("it is nested too deeply" if isinstance(exc, RecursionError) else "a number in it has too many digits")
        parsed.add(problem("bad-json", parsed.label, line, None, f"not valid JSON: {reason}"))
        return
    items = _forecast_items(body, parsed)
    if items is None:
        return
    parsed.columns = FORECASTS.names
    qs = next((body[k] for k in QUESTION_SET_KEYS if k in body), None)
    parsed.question_set = qs if isinstance(qs, str) else None
    parsed.records = len(items)
    for number, item in enumerate(items, start=1):
        row = _json_row(item, number, parsed)
        if row is not None:
            parsed.rows.append(row)


def _keep_constant(name: str) -> float:
    return {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}[name]


def _forecast_items(body: object, parsed: Parsed) -> list | None:
    if isinstance(body, list):
        parsed.add(problem("bad-json", parsed.label, None, None, BARE_LIST))
        return None
    if not isinstance(body, dict):
        parsed.add(problem("bad-json", parsed.label, None, None, "a forecast set must be a JSON object"))
        return None
    if "forecasts" not in body:
        parsed.add(problem("missing-field", parsed.label, None, "forecasts", "the forecast set has no 'forecasts' list"))
        return None
    if not isinstance(body["forecasts"], list):
        parsed.add(problem("bad-json", parsed.label, None, "forecasts", "'forecasts' must be a list"))
        return None
    return body["forecasts"]


BARE_LIST = (
    "the file is a JSON list, but a forecast set is an object that holds the list: put the list under "
    '"forecasts", as in {"organization": "acme", "model": "my-bot", "model_organization": "acme", '
    '"question_set": "<due>-prescient.json", "forecasts": [{"id": ..., "source": ..., "forecast": 0.7, '
    '"resolution_date": ..., "reasoning": ...}, ...]} (`prescient round template --format json` writes one to fill)'
)


def _json_row(item: object, number: int, parsed: Parsed) -> Row | None:
    if not isinstance(item, dict):
        parsed.add(problem("bad-json", parsed.label, number, None, "each forecast must be a JSON object"))
        return None
    missing = [k for k in ("id", "source", "forecast") if k not in item]
    for key in missing:
        parsed.add(problem("missing-field", parsed.label, number, key, f"the forecast has no {key!r}"))
    if missing:
        return None
    qid = _scalar(item["id"])
    source = _scalar(item["source"])
    if qid and source and not qid.startswith(source + ":"):
        qid = f"{source}:{qid}"
    if item["forecast"] is None:  # FB's "no forecast", as the FB importer reads it too: imputed when scored
        parsed.add(problem("null-forecast", parsed.label, number, "forecast", "the forecast is null; scored as missing (0.5)"))
        parsed.nulls.add((qid, _scalar(item.get("resolution_date"))))
        return None
    if isinstance(item["forecast"], str):
        parsed.quoted.add(number)
    cells = {
        "question_id": qid,
        "resolution_date": _scalar(item.get("resolution_date")),
        "probability": _scalar(item["forecast"]),
        "reasoning": _scalar(item.get("reasoning")),
    }
    member = item.get(MEMBER_KEY)
    return Row(number, cells, "" if member is None or isinstance(member, bool) else _scalar(member).strip())


def _scalar(value: object) -> str:
    """JSON value → cell text. Numbers keep their value; anything non-scalar becomes unparseable text."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, (int, str)):
        return str(value)
    return json.dumps(value)[:60]


def is_individual(parsed: Parsed) -> bool:
    """True when the file's rows name members of a group (an individual file)."""
    return any(row.member for row in parsed.rows)


def member_keyed(raw: pd.DataFrame, parsed: Parsed) -> pd.DataFrame:
    """The text rows of ``parsed`` as the schema checks take them: in an individual file a unit
    repeats once per member, so each row's key carries its member (other files are returned as they are)."""
    if not is_individual(parsed):
        return raw
    return raw.assign(question_id=[f"{row.member}\x1f{q}" for row, q in zip(parsed.rows, raw["question_id"], strict=True)])


GROUP_REASONING = "median of {n} forecaster(s)"


def group_median(members: pd.DataFrame) -> pd.DataFrame:
    """A group's forecast from its members' rows (columns ``question_id``, ``resolution_date``,
    ``probability``; ``member`` optional): per question × resolution date the ordinary median of every
    row given (FB's "Superforecaster median forecast"), with how many rows it took as the reasoning."""
    keys = ["question_id", "resolution_date"]
    grouped = members.groupby(keys, sort=True)["probability"]
    out = grouped.median().rename("probability").to_frame().join(grouped.size().rename("n")).reset_index()
    out["probability"] = np.clip(out["probability"].to_numpy(dtype=float), 0.0, 1.0)
    out["reasoning"] = [GROUP_REASONING.format(n=n) for n in out.pop("n").tolist()]
    return out[list(FORECASTS.names)]
