"""Whatever text a source or a submitter sends, every CSV the hub writes reads back as written.

The policy (store/csvio.py, the Data page): a cell holding a comma, a quote, CR, LF, any other
control character, U+2028/U+2029 or edge whitespace is quoted; a lone surrogate and NUL become
U+FFFD; everything else is kept as sent. Checked here for every text column of every table, with
the hub's reader, Python's csv module and the writer itself (a re-write gives the same bytes).
"""

from __future__ import annotations

import csv
import io
import itertools
import json
import re
from pathlib import Path

import httpx
import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generator.errors import PartialFailure
from generator.pipeline.nightly import nightly
from generator.schemas import ALL_TABLES, FORECASTS, QUESTIONS, Table
from generator.store import csvio, ledger, spreadsheet
from generator.store.csvio import RoundTripError, read_table, to_csv_bytes, write_table
from generator.store.fast_forecasts import forecast_bytes
from generator.timeutil import parse_ts

from helpers import MANIFOLD_API, MANIFOLD_HUB, write_hub

# separators, bidi overrides and isolates, a BOM, lone surrogates, and CSV's own syntax.
NASTY = [
    "\r",
    "\n",
    "\x00",
    "\x01",
    "\t",
    "\x0b",
    "\x0c",
    "\x1c",
    "\x1f",
    "\x7f",
    "\x85",
    "\x9f",
    "\u2028",
    "\u2029",
    "\u202e",
    "\u202d",
    "\u2066",
    "\u2069",
    "\u200b",
    "\ufeff",
    "\ud800",
    "\udbff",
    "\udc00",
    "\udfff",
    '"',
    ",",
    " ",
    "\u00a0",
    "\u3000",
    "=",
    "'",
    "#",
    "é",
    "😀",
]
TEXT = st.text(st.sampled_from(NASTY) | st.characters(), max_size=10)
SAMPLE = {"ts": "2026-01-02T03:04:05Z", "date": "2026-01-02", "float": 1.5, "prob": 0.25, "int": 1}
REPLACED = re.compile("[\x00\ud800-\udfff]")  # the documented policy, restated independently


def stored(text: str) -> str:
    return REPLACED.sub("\ufffd", text)


def frame_for(table: Table, texts: list[list[str]]) -> pd.DataFrame:
    """One row per list of ``texts`` (one text per str column); other columns a fixed valid value.
    A required text that would be blank gets a visible letter; rows whose key repeats are dropped."""
    strs = [c for c in table.columns if c.type == "str"]
    rows = []
    for values in texts:
        row = {c.name: c.choices[0] if c.type == "enum" else SAMPLE.get(c.type) for c in table.columns}
        for column, text in zip(strs, values, strict=True):
            row[column.name] = text if column.nullable or stored(text).strip() else text + "x"
        rows.append(row)
    frame = pd.DataFrame(rows, columns=list(table.names))
    keys = frame[list(table.key)].astype(str).map(stored)
    return frame[~keys.duplicated()].reset_index(drop=True)


def rows_of(frame: pd.DataFrame, table: Table) -> list[tuple]:
    return sorted(map(tuple, csvio.as_text(frame, table).to_numpy().tolist()))


def texts_of(frame: pd.DataFrame, table: Table, policy=lambda text: text) -> list[tuple]:
    """The text columns' values, row by row, sorted (rows are written in key order)."""
    strs = [c.name for c in table.columns if c.type == "str"]
    return sorted(zip(*(frame[c].fillna("").astype(str).map(policy) for c in strs), strict=True))


FILES = itertools.count()


@pytest.mark.parametrize("table", ALL_TABLES, ids=lambda t: t.name)
@settings(max_examples=15, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_every_text_column_of_every_table_round_trips(table: Table, data, tmp_path: Path):
    width = sum(c.type == "str" for c in table.columns)
    texts = data.draw(st.lists(st.lists(TEXT, min_size=width, max_size=width), min_size=1, max_size=3))
    frame = frame_for(table, texts)
    path = tmp_path / f"{table.name}-{next(FILES)}.csv"  # a new name: no cache can answer for it
    write_table(path, frame, table)
    written = path.read_bytes()

    assert written == to_csv_bytes(frame, table)
    assert b"\x00" not in written  # git would call the file binary
    back = read_table(path, table)
    assert texts_of(back, table) == texts_of(frame, table, stored)  # value for value, modulo U+FFFD
    assert to_csv_bytes(back, table) == written  # a re-write changes no byte
    parsed = list(csv.reader(io.StringIO(written.decode("utf-8"), newline="")))
    assert parsed[0] == list(table.names)
    assert sorted(map(tuple, parsed[1:])) == rows_of(back, table)
    if table is FORECASTS:
        assert forecast_bytes(frame) == written


def test_cells_that_need_no_quotes_stay_bare_and_the_others_are_quoted():
    frame = pd.DataFrame(
        {
            "question_id": ["a:1", "a:2", "a:3", "a:4", "a:5", "a:6", "a:7", "a:8"],
            "resolution_date": [""] * 8,
            "probability": [0.5] * 8,
            "reasoning": ["plain text, é 😀 \u202e", "a\rb", " lead", "trail ", "x\x1cy", "p\u2028q", "n\x00ul", "s\ud800"],
        }
    )
    lines = to_csv_bytes(frame, FORECASTS).decode("utf-8").split("\n")
    assert lines[1:] == [
        'a:1,,0.500000,"plain text, é 😀 \u202e"',
        'a:2,,0.500000,"a\rb"',
        'a:3,,0.500000," lead"',
        'a:4,,0.500000,"trail "',
        'a:5,,0.500000,"x\x1cy"',
        'a:6,,0.500000,"p\u2028q"',
        "a:7,,0.500000,n\ufffdul",
        "a:8,,0.500000,s\ufffd",
        "",
    ]
    plain = pd.DataFrame({"question_id": ["a:1"], "resolution_date": [""], "probability": [0.5], "reasoning": ["in the middle é"]})
    assert to_csv_bytes(plain, FORECASTS).endswith(b"\na:1,,0.500000,in the middle \xc3\xa9\n")


def test_a_file_that_would_not_read_back_is_never_written(tmp_path: Path, monkeypatch):
    """The read-back check: with the old quoting (a bare CR), the write is refused with a code
    and the file keeps its previous bytes; no temp file is left behind."""
    path = tmp_path / "q.csv"
    frame = pd.DataFrame({"question_id": ["a:1"], "resolution_date": [""], "probability": [0.5], "reasoning": ["fine"]})
    write_table(path, frame, FORECASTS)
    before = path.read_bytes()
    monkeypatch.setattr(csvio, "needs_quotes", lambda text: any(c in text for c in ',"\n'))
    monkeypatch.setattr(csvio, "all_bare", lambda cells: not any(csvio.needs_quotes(c) for c in cells))
    broken = frame.assign(reasoning=["a\rb"])
    with pytest.raises(RoundTripError) as caught:
        write_table(path, broken, FORECASTS)
    assert [p.code for p in caught.value.problems] == ["write-read-back"]
    assert path.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == ["q.csv"]
    with pytest.raises(RoundTripError):  # the append path is checked the same way
        ledger.append(
            path, pd.DataFrame({"question_id": ["b:1"], "resolution_date": [""], "probability": [0.5], "reasoning": ["c\rd"]}), FORECASTS, "q.csv"
        )
    assert path.read_bytes() == before


def test_an_append_after_a_last_line_without_its_line_end_reads_back(tmp_path: Path):
    path = tmp_path / "q.csv"
    path.write_bytes(b"question_id,resolution_date,probability,reasoning\na:1,,0.500000,x")
    added = ledger.append(
        path, pd.DataFrame({"question_id": ["b:1"], "resolution_date": [""], "probability": [0.25], "reasoning": ["y\r"]}), FORECASTS, "q.csv"
    )
    assert len(added) == 1
    assert path.read_bytes() == b'question_id,resolution_date,probability,reasoning\na:1,,0.500000,x\nb:1,,0.250000,"y\r"\n'


# -- a whole hub: a source sends a title with a bare CR (or worse), and the next night still runs ----


def manifold(titles: list[str]) -> httpx.Client:
    """The recorded Manifold search, with the first markets retitled; sent as the API would, JSON
    with \\u escapes (so a lone surrogate arrives as ``"\\ud800"``)."""
    search = json.loads((MANIFOLD_API / "search_markets_binary_open_2026-08.json").read_text())
    for item, title in zip(search, titles, strict=False):  # only the first markets are retitled
        item["question"] = title

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/search-markets"):
            items = search if request.url.params.get("offset", "0") == "0" else []
            return httpx.Response(200, content=json.dumps(items).encode("ascii"), headers={"content-type": "application/json"})
        return httpx.Response(404, json={"message": "not found"})

    return httpx.Client(transport=httpx.MockTransport(handler))


@pytest.mark.parametrize(
    "titles",
    [
        ["Will it rain?\r", "Carriage\rreturn"],
        ["Lone \ud800 surrogate", "NUL\x00inside", ' spaced, "quoted"\u2028 '],
    ],
    ids=["carriage-return", "surrogate-nul-and-more"],
)
def test_a_hostile_title_is_recorded_and_the_next_nightly_still_succeeds(tmp_path: Path, titles: list[str]):
    root = write_hub(tmp_path / "hub", MANIFOLD_HUB)
    first = nightly(root, parse_ts("2026-08-05T12:00:00Z"), client=manifold(titles), env={})
    assert first.sources[0].new_questions == 3 and not first.sources[0].failures
    second = nightly(root, parse_ts("2026-08-06T12:00:00Z"), client=manifold(titles), env={})  # raised before the fix
    assert second.sources[0].new_questions == 0  # the stored (replaced) text equals the fetched one
    path = root / "data" / "questions" / "manifold.csv"
    bank = read_table(path, QUESTIONS)
    assert set(map(stored, titles)) <= set(bank["text"])
    assert pd.read_csv(path, dtype=str, keep_default_na=False)["text"].tolist() == bank["text"].tolist()
    assert [row[4] for row in csv.reader(io.StringIO(path.read_bytes().decode("utf-8"), newline=""))][1:] == bank["text"].tolist()


def test_a_blank_title_is_an_item_failure_not_a_stopped_night(tmp_path: Path):
    """Text that is only whitespace (as str.strip sees it) would break the schema's required text:
    the source reports that one market and records the others."""
    root = write_hub(tmp_path / "hub", MANIFOLD_HUB)
    with pytest.raises(PartialFailure) as caught:
        nightly(root, parse_ts("2026-08-05T12:00:00Z"), client=manifold(["\x1c\u2028 "]), env={})
    assert "question text is blank" in caught.value.report()
    assert len(read_table(root / "data" / "questions" / "manifold.csv", QUESTIONS)) == 2
    assert np.all(read_table(root / "data" / "questions" / "manifold.csv", QUESTIONS)["text"].str.strip() != "")


def test_the_spreadsheet_safe_download_quotes_like_the_ledgers():
    """The other CSV writer (site downloads, formula cells prefixed): a CR cell stays one cell."""
    frame = pd.DataFrame(
        {"question_id": ["a:1", "a:2"], "resolution_date": ["", ""], "probability": [0.5, 0.5], "reasoning": ["=HYPERLINK(1)", "two\rlines "]}
    )
    safe = spreadsheet.spreadsheet_safe_bytes(to_csv_bytes(frame, FORECASTS))
    rows = list(csv.reader(io.StringIO(safe.decode("utf-8"), newline="")))
    assert [r[3] for r in rows[1:]] == ["'=HYPERLINK(1)", "two\rlines "]
    assert safe.endswith(b'a:2,,0.500000,"two\rlines "\n')
