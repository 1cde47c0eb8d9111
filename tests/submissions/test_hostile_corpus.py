"""Hostile and broken submissions, end to end through ``validate_files`` on a real hub folder.

Every bad file of the corpus is rejected with its own code, at its row and column, and never with a
traceback. The files are made here (no binaries committed); the million-row file is written to
tmp_path and must be refused by the size cap before a byte of it is read. Decisions, in line with
the Submit page: a byte-order mark and CRLF line endings are rejected (their own codes); ``-0``,
``+0.3``, ``.5`` and ``1e-1`` are valid probabilities; reasoning or a model name that looks like a
spreadsheet formula is accepted with a ``formula-like-text`` warning; a bidirectional override or a
control character in a model's display text is an error, a zero-width character a warning.

Also here: CSV printed for people neutralises formula injection, and the PR validation workflow
runs with a read-only token and no secrets.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import os
import re
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.console import print_frame
from generator.schemas import FORECASTS
from generator.store.csvio import check_frame, read_table
from generator.store.forecast_file import MAX_FORECAST_BYTES
from generator.store.spreadsheet import formula_like, spreadsheet_safe, spreadsheet_safe_bytes
from generator.submissions import CODES, validate_files
from generator.submissions.content import probability_problem
from generator.submissions.paths import classify
from generator.submissions.validate import DiskTree

from helpers import ROOT, round_file, run_cli, write_hub

DUE, OTHER_DUE = "2026-01-25", "2026-02-08"
CSV = f"data/forecasts/{DUE}/acme.gpt-x.csv"
JSON = f"data/forecasts/{DUE}/acme.gpt-x.json"
META = "data/models/acme.gpt-x.yml"
AT = datetime(2026, 1, 20, tzinfo=UTC)
HEADER = "question_id,resolution_date,probability,reasoning\n"
FULL = "manifold:m1,,0.7,\nmanifold:m2,,0.2,\nfred:GDP,2026-02-01,0.5,\nfred:GDP,2026-02-24,0.55,\n"
GOOD_META = "name: GPT-X\norganization: Acme\nkind: llm\nmaintainers: [alice]\n"


def make_hub(root: Path) -> Path:
    """Two published rounds and one registered model; no forecast file yet."""
    hub = write_hub(root / "hub")
    for due, units in (
        (
            DUE,
            [
                ("manifold:m1", "", "binary"),
                ("manifold:m2", "", "binary"),
                ("fred:GDP", "2026-02-01", "dataset"),
                ("fred:GDP", "2026-02-24", "dataset"),
            ],
        ),
        (OTHER_DUE, [("manifold:later", "", "binary")]),
    ):
        (hub / f"data/rounds/{due}").mkdir(parents=True)
        (hub / f"data/rounds/{due}/questions.csv").write_bytes(round_file(due, units))
    (hub / "data/models").mkdir(parents=True)
    (hub / META).write_text(GOOD_META, encoding="utf-8")
    return hub


def submit(hub: Path, rel: str, data: bytes):
    """The report of checking one file on disk, less the one warning every file-mode check gives
    (``author-unchecked``: who will open the pull request is the pull request's to tell)."""
    (hub / rel).parent.mkdir(parents=True, exist_ok=True)
    (hub / rel).write_bytes(data)
    report = validate_files(hub, [hub / rel], AT)
    assert [p.code for p in report.problems if p.code == "author-unchecked"] == ["author-unchecked"]
    return dataclasses.replace(report, problems=tuple(p for p in report.problems if p.code != "author-unchecked"))


def with_cell(cell: str) -> bytes:
    """The complete file with manifold:m2's probability (row 3) replaced by ``cell``, quoted."""
    return (HEADER + FULL.replace("manifold:m2,,0.2,", f'manifold:m2,,"{cell}",')).encode("utf-8")


def fb(items: list, **extra) -> bytes:
    body = {
        "organization": "Acme",
        "model": "GPT-X",
        "model_organization": "Acme",
        "question_set": f"{DUE}-prescient.json",
        "forecasts": items,
        **extra,
    }
    return json.dumps(body).encode("utf-8")


FB_FULL = [
    {"id": "m1", "source": "manifold", "forecast": 0.7, "resolution_date": None},
    {"id": "m2", "source": "manifold", "forecast": 0.2, "resolution_date": None},
    {"id": "GDP", "source": "fred", "forecast": 0.5, "resolution_date": "2026-02-01"},
    {"id": "GDP", "source": "fred", "forecast": 0.5, "resolution_date": "2026-02-24"},
]


def fb_with(index: int, **change) -> bytes:
    items = [dict(item) for item in FB_FULL]
    items[index].update(change)
    return fb(items)


def raw_json_forecast(literal: str) -> bytes:
    """A forecast set whose first forecast value is the JSON text ``literal`` (not re-encoded)."""
    return fb(FB_FULL).replace(b'"forecast": 0.7', f'"forecast": {literal}'.encode(), 1)


# (case id, path, bytes, expected error code, row, column). Every one must be rejected.
CSV_CASES = [
    ("utf16-le", CSV, (HEADER + FULL).encode("utf-16"), "not-utf8", 1, None),
    ("utf16-be-no-bom", CSV, (HEADER + FULL).encode("utf-16-be"), "not-utf8", 1, None),
    ("latin1-reasoning", CSV, (HEADER + FULL + "").encode().replace(b"0.2,\n", "0.2,caf\xe9\n".encode("latin-1")), "not-utf8", 3, None),
    ("nul-byte", CSV, (HEADER + FULL.replace("0.2,", "0.2,\x00")).encode(), "bad-csv", 3, None),
    ("unclosed-quote", CSV, (HEADER + FULL + 'manifold:m1,,"0.7,\n').encode(), "bad-csv", 6, None),
    ("empty", CSV, b"", "empty-file", 1, None),
    ("blank-lines-only", CSV, b"\n \n\t\n", "empty-file", 1, None),
    ("no-header-row", CSV, FULL.encode(), "missing-column", 1, "question_id"),
    ("header-misspelt", CSV, (HEADER.replace("probability", "probabilty") + FULL).encode(), "missing-column", 1, "probability"),
    (
        "extra-header-column",
        CSV,
        (HEADER.replace("\n", ",confidence\n") + FULL.replace(",\n", ",,high\n")).encode(),
        "unknown-column",
        1,
        "confidence",
    ),
    ("duplicate-column", CSV, (HEADER.replace("\n", ",reasoning\n") + FULL.replace(",\n", ",,\n")).encode(), "duplicate-column", 1, "reasoning"),
    ("header-only", CSV, HEADER.encode(), "no-forecasts", None, None),
    ("short-row", CSV, (HEADER + FULL.replace("manifold:m2,,0.2,", "manifold:m2,,0.2")).encode(), "wrong-field-count", 3, None),
    ("long-row", CSV, (HEADER + FULL.replace("manifold:m2,,0.2,", "manifold:m2,,0.2,,x")).encode(), "wrong-field-count", 3, None),
    ("nan", CSV, with_cell("NaN"), "probability-not-finite", 3, "probability"),
    ("inf", CSV, with_cell("inf"), "probability-not-finite", 3, "probability"),
    ("minus-infinity", CSV, with_cell("-Infinity"), "probability-not-finite", 3, "probability"),
    ("overflowing-exponent", CSV, with_cell("1e999"), "probability-not-finite", 3, "probability"),
    ("decimal-comma", CSV, with_cell("0,5"), "probability-not-a-number", 3, "probability"),
    ("percent", CSV, with_cell("50%"), "probability-not-a-number", 3, "probability"),
    ("hex", CSV, with_cell("0x1"), "probability-not-a-number", 3, "probability"),
    ("underscore-digits", CSV, with_cell("0_5"), "probability-not-a-number", 3, "probability"),
    ("word", CSV, with_cell("likely"), "probability-not-a-number", 3, "probability"),
    ("boolean", CSV, with_cell("True"), "probability-not-a-number", 3, "probability"),
    ("arabic-indic-digits", CSV, with_cell("\u0660.\u0665"), "probability-not-a-number", 3, "probability"),
    ("fullwidth-digits", CSV, with_cell("\uff10.\uff15"), "probability-not-a-number", 3, "probability"),
    ("no-break-space", CSV, with_cell("0.5\u00a0"), "probability-not-a-number", 3, "probability"),
    ("formula-as-probability", CSV, with_cell("=1/2"), "probability-not-a-number", 3, "probability"),
    ("just-above-one", CSV, with_cell("1.0000001"), "probability-out-of-range", 3, "probability"),
    ("negative", CSV, with_cell("-0.0001"), "probability-out-of-range", 3, "probability"),
    ("large-exponent", CSV, with_cell("1e3"), "probability-out-of-range", 3, "probability"),
    ("empty-probability", CSV, with_cell(""), "empty-value", 3, "probability"),
    ("spaces-probability", CSV, with_cell("   "), "empty-value", 3, "probability"),
    ("empty-question-id", CSV, (HEADER + FULL.replace("manifold:m2,,", ",,")).encode(), "empty-value", 3, "question_id"),
    ("id-of-another-round", CSV, (HEADER + FULL + "manifold:later,,0.5,\n").encode(), "unknown-question", 6, "question_id"),
    ("id-without-source", CSV, (HEADER + FULL.replace("manifold:m2,", "m2,")).encode(), "unknown-question", 3, "question_id"),
    ("id-with-padding", CSV, (HEADER + FULL.replace("manifold:m2,", " manifold:m2,")).encode(), "unknown-question", 3, "question_id"),
    ("id-formula", CSV, (HEADER + FULL.replace("manifold:m2,", '"=HYPERLINK(""http://x"")",')).encode(), "unknown-question", 3, "question_id"),
    ("duplicate-row", CSV, (HEADER + FULL + "manifold:m1,,0.1,\n").encode(), "duplicate-forecast", 6, "question_id"),
    ("dataset-without-date", CSV, (HEADER + FULL + "fred:GDP,,0.5,\n").encode(), "missing-resolution-date", 6, "resolution_date"),
    ("date-not-in-round", CSV, (HEADER + FULL + "fred:GDP,2026-03-01,0.5,\n").encode(), "unknown-resolution-date", 6, "resolution_date"),
    ("date-with-slashes", CSV, (HEADER + FULL.replace("2026-02-01", "2026/02/01")).encode(), "bad-date", 4, "resolution_date"),
    ("date-feb-30", CSV, (HEADER + FULL.replace("2026-02-01", "2026-02-30")).encode(), "bad-date", 4, "resolution_date"),
    (
        "date-arabic-digits",
        CSV,
        (HEADER + FULL.replace("2026-02-01", "\u0662\u0660\u0662\u0666-\u0660\u0662-\u0660\u0661")).encode(),
        "bad-date",
        4,
        "resolution_date",
    ),
    ("too-large", CSV, HEADER.encode() + b"manifold:m1,,0.5,\n" * (MAX_FORECAST_BYTES // 18 + 1), "file-too-large", None, None),
]

JSON_CASES = [
    ("json-truncated", JSON, fb(FB_FULL)[:-20], "bad-json", 1, None),
    ("json-utf16", JSON, fb(FB_FULL).decode().encode("utf-16"), "not-utf8", 1, None),
    ("json-top-level-list", JSON, json.dumps(FB_FULL).encode(), "bad-json", None, None),
    ("json-forecasts-object", JSON, fb({"m1": 0.5}), "bad-json", None, "forecasts"),
    ("json-no-forecasts", JSON, json.dumps({"model": "x"}).encode(), "missing-field", None, "forecasts"),
    ("json-item-not-object", JSON, fb(FB_FULL + ["m1"]), "bad-json", 5, None),
    (
        "json-missing-forecast",
        JSON,
        fb(FB_FULL[:3] + [{"id": "GDP", "source": "fred", "resolution_date": "2026-02-24"}]),
        "missing-field",
        4,
        "forecast",
    ),
    ("json-nan", JSON, raw_json_forecast("NaN"), "probability-not-finite", 1, "forecast"),
    ("json-infinity", JSON, raw_json_forecast("-Infinity"), "probability-not-finite", 1, "forecast"),
    ("json-huge-float", JSON, raw_json_forecast("1e400"), "probability-not-finite", 1, "forecast"),
    ("json-huge-integer", JSON, raw_json_forecast("1" + "0" * 5000), "bad-json", None, None),
    ("json-deep-nesting", JSON, b"[" * 100_000 + b"]" * 100_000, "bad-json", None, None),
    ("json-nested-garbage", JSON, fb_with(0, forecast={"p": [0.7]}), "probability-not-a-number", 1, "forecast"),
    ("json-boolean", JSON, fb_with(0, forecast=True), "probability-not-a-number", 1, "forecast"),
    ("json-string-comma", JSON, fb_with(0, forecast="0,7"), "probability-not-a-number", 1, "forecast"),
    ("json-string-number", JSON, fb_with(0, forecast="0.7"), "probability-as-text", 1, "forecast"),  # A string is no number
    ("json-out-of-range", JSON, fb_with(0, forecast=1.0000001), "probability-out-of-range", 1, "forecast"),
    ("json-id-of-another-round", JSON, fb(FB_FULL + [{"id": "later", "source": "manifold", "forecast": 0.5}]), "unknown-question", 5, "id"),
    ("json-bad-date", JSON, fb_with(2, resolution_date="next week"), "bad-date", 3, "resolution_date"),
]

REJECTED = CSV_CASES + JSON_CASES


def error_set(report) -> set[tuple[str, int | None, str | None]]:
    return {(p.code, p.row, p.column) for p in report.errors}


def test_the_corpus_has_at_least_40_rejected_files():
    assert len(REJECTED) >= 40 and len({case[0] for case in REJECTED}) == len(REJECTED)


@pytest.mark.parametrize("name, rel, data, code, row, column", REJECTED, ids=[c[0] for c in REJECTED])
def test_each_bad_file_is_rejected_with_its_code_row_and_column(tmp_path, name, rel, data, code, row, column):
    report = submit(make_hub(tmp_path), rel, data)
    assert not report.ok
    assert (code, row, column) in error_set(report), report.problems
    header = {"missing-column", "unknown-column", "duplicate-column"}  # a wrong header: column by column
    assert {p.code for p in report.errors} <= ({code} | header if code in header else {code}), report.problems
    assert all(p.code in CODES and p.file == rel for p in report.problems)


def test_a_million_rows_are_refused_by_the_size_cap_before_any_byte_is_read(tmp_path, monkeypatch):
    hub = make_hub(tmp_path)
    path = hub / CSV
    path.parent.mkdir(parents=True)
    with path.open("w", encoding="utf-8") as handle:
        handle.write(HEADER)
        handle.writelines(f"manifold:m{i},,0.5,\n" for i in range(1_000_000))
    assert path.stat().st_size > MAX_FORECAST_BYTES
    real_read = DiskTree.read

    def read(self, rel: str) -> bytes:
        assert rel != CSV, "the oversized file was read"
        return real_read(self, rel)

    monkeypatch.setattr(DiskTree, "read", read)
    report = validate_files(hub, [path], AT)
    assert error_set(report) == {("file-too-large", None, None)}
    assert f"{path.stat().st_size:,} bytes" in report.errors[0].message


# -- accepted (some with a warning) -----------------------------------------------------------------

ACCEPTED = {
    "minus-zero": with_cell("-0"),
    "scientific": with_cell("1e-1"),
    "upper-e": with_cell("2E-1"),
    "plus-sign": with_cell("+0.3"),
    "no-leading-zero": with_cell(".5"),
    "trailing-dot": with_cell("1."),
    "padded-with-spaces": with_cell(" 0.25 "),
    "quoted-everything": (HEADER + "".join(",".join(f'"{c}"' for c in line.split(",")) + "\n" for line in FULL.splitlines())).encode(),
    "reasoning-with-comma-quote-newline": (HEADER + FULL.replace("manifold:m2,,0.2,", 'manifold:m2,,0.2,"a, ""b""\nc"')).encode(),
    "columns-in-another-order": (
        "probability,question_id,reasoning,resolution_date\n"
        + "".join(f"{p},{q},{r},{d}\n" for q, d, p, r in (line.split(",") for line in FULL.splitlines()))
    ).encode(),
    "rtl-and-emoji-in-reasoning": (HEADER + FULL.replace("0.2,", "0.2,\u05e9\u05dc\u05d5\u05dd \U0001f468\u200d\U0001f469\u200d\U0001f467")).encode(),
}
# Saved by a spreadsheet: read as what they mean, with a warning naming what was read past.
SPREADSHEET_SAVED = {
    "utf8-bom": (CSV, b"\xef\xbb\xbf" + (HEADER + FULL).encode(), {("utf8-bom", 1)}),
    "crlf": (CSV, (HEADER + FULL).replace("\n", "\r\n").encode(), set()),  # RFC 4180's own ending, as Python's csv writes
    "bom-and-crlf": (CSV, b"\xef\xbb\xbf" + (HEADER + FULL).replace("\n", "\r\n").encode(), {("utf8-bom", 1)}),
    "lone-cr": (CSV, (HEADER + FULL).replace("\n", "\r").encode(), {("crlf-line-endings", 1)}),
    "cr-inside-quoted-reasoning": (CSV, (HEADER + FULL.replace("0.2,", '0.2,"a\rb"')).encode(), {("crlf-line-endings", 3)}),
    "json-bom": (JSON, b"\xef\xbb\xbf" + fb(FB_FULL), {("utf8-bom", 1)}),
}


@pytest.mark.parametrize("name", sorted(SPREADSHEET_SAVED))
def test_spreadsheet_saved_files_pass_with_a_warning_and_the_nightly_reader_takes_them_unchanged(tmp_path, name):
    from generator.store.hub import Hub
    from generator.store.readers import load_forecasts
    from generator.timeutil import parse_ts

    rel, data, warned = SPREADSHEET_SAVED[name]
    hub = make_hub(tmp_path)
    report = submit(hub, rel, data)
    assert report.ok and {(p.code, p.row) for p in report.warnings} == warned, report.problems
    quarantine: list = []
    frames = load_forecasts(Hub(hub), parse_ts(DUE), quarantine)  # what the nightly reads from a merged file
    assert quarantine == [] and len(frames) == 1
    frame = next(iter(frames.values()))
    assert len(frame) == 4 and frame["probability"].between(0, 1).all()
    assert list(frame.columns) == list(FORECASTS.names)
    assert (hub / rel).read_bytes() == data  # never rewritten


@pytest.mark.parametrize("name", sorted(ACCEPTED))
def test_odd_but_valid_files_pass_and_the_nightly_reader_takes_them(tmp_path, name):
    rel = JSON if name.startswith("json") else CSV
    hub = make_hub(tmp_path)
    report = submit(hub, rel, ACCEPTED[name])
    assert report.ok and report.warnings == [], report.problems
    if rel == CSV:
        frame = read_table(hub / rel, FORECASTS, rel)  # what the nightly run does with a merged file
        assert len(frame) == 4 and frame["probability"].between(0, 1).all()


def test_a_market_row_with_a_resolution_date_is_accepted_with_a_warning_as_forecastbench_ignores_it(tmp_path):
    body = HEADER + FULL.replace("manifold:m2,,", "manifold:m2,2026-02-01,")
    report = submit(make_hub(tmp_path), CSV, body.encode())
    assert report.ok
    assert [(p.code, p.row, p.column, p.severity) for p in report.problems] == [("market-resolution-date", 3, "resolution_date", "warning")]


def test_formula_like_reasoning_is_accepted_with_a_warning_on_its_row(tmp_path):
    body = HEADER + FULL.replace("manifold:m2,,0.2,", 'manifold:m2,,0.2,"=HYPERLINK(""http://evil.example"",""x"")"')
    body = body.replace("fred:GDP,2026-02-24,0.55,", "fred:GDP,2026-02-24,0.55,@SUM(A1)")
    report = submit(make_hub(tmp_path), CSV, body.encode())
    assert report.ok
    assert [(p.code, p.row, p.column, p.severity) for p in report.problems] == [
        ("formula-like-text", 3, "reasoning", "warning"),
        ("formula-like-text", 5, "reasoning", "warning"),
    ]
    json_report = submit(make_hub(tmp_path / "j"), JSON, fb_with(1, reasoning="+cmd|' /C calc'!A0"))
    assert [(p.code, p.row, p.column) for p in json_report.problems] == [("formula-like-text", 2, "reasoning")]


def _reader_accepts(cell: str) -> bool:
    frame = pd.DataFrame({"question_id": ["m:1"], "resolution_date": [""], "probability": [cell], "reasoning": [""]})
    return not [p for p in check_frame(frame, FORECASTS, "f") if p.column == "probability"]


# Probabilities as people and programs write them: fixed decimals, shortest reprs, exponents, a
# leading dot or sign, surrounding spaces. Every one is in [0, 1]: the validator must accept it.
_WRITTEN = st.one_of(
    st.builds(lambda x, d: f"{x:.{d}f}", st.floats(0, 1), st.integers(0, 9)),
    st.floats(0, 1).map(repr),
    st.builds(lambda x: f"{x:g}", st.floats(0, 1)),
    st.builds(lambda x, pad: f"{pad}{x:.3f}{pad}", st.floats(0, 1), st.sampled_from(["", " ", "\t"])),
    st.sampled_from(["0", "1", "1.0", ".5", "+0.25", "5e-1", "1E-3", "0.000001"]),
)
_HOSTILE = st.text(alphabet="0123456789.,+-eE \t\u00a0\u0660\u0665\uff11_xn", max_size=9)


@settings(max_examples=400, deadline=None)
@given(_WRITTEN, _HOSTILE)
def test_a_probability_the_validator_accepts_is_one_the_nightly_reader_accepts(written, hostile):
    """Both ways round a written probability the validator must accept, and the reader too; a hostile
    cell, if the validator accepts it, the reader accepts as well. (The first half keeps the second
    from passing vacuously: a validator that rejected everything would fail it.)"""
    assert probability_problem(written) is None, written
    assert _reader_accepts(written), written
    if probability_problem(hostile) is None:
        assert _reader_accepts(hostile), hostile


# -- paths ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path, code",
    [
        (f"data/forecasts/{DUE}/../../models/acme.gpt-x.yml", "unsafe-path"),
        ("../../etc/passwd", "unsafe-path"),
        ("/etc/passwd", "unsafe-path"),
        ("C:/Users/x/acme.gpt-x.csv", "unsafe-path"),
        (f"data\\forecasts\\{DUE}\\acme.gpt-x.csv", "unsafe-path"),
        (f"data/forecasts/{DUE}/acme.gpt-x.csv\x00.txt", "unsafe-path"),
        (f"data/forecasts/{DUE}//acme.gpt-x.csv", "unsafe-path"),
        (f"data/forecasts/{DUE}/acme.\u202egpt-x.csv", "bad-file-name"),
        (f"data/forecasts/{DUE}/acme.gpt\u200d-x.csv", "bad-file-name"),
        (f"data/forecasts/{DUE}/acme.gpt-x.csv.exe", "bad-extension"),
        (".github/workflows/validate.yml", "outside-submission-area"),
    ],
)
def test_hostile_paths_are_judged_without_touching_the_disk(path, code):
    target, problems = classify(path)
    assert [p.code for p in problems][:1] == [code] and target.model is None


def test_a_symlinked_file_is_refused_and_never_read(tmp_path):
    hub = make_hub(tmp_path)
    secret = tmp_path / "secret.csv"
    secret.write_text(HEADER + FULL)
    (hub / CSV).parent.mkdir(parents=True)
    os.symlink(secret, hub / CSV)
    report = validate_files(hub, [hub / CSV], AT)
    assert error_set(report) == {("not-a-regular-file", None, None)}


def test_a_symlinked_round_folder_is_refused(tmp_path):
    hub = make_hub(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "acme.gpt-x.csv").write_text(HEADER + FULL)
    (hub / "data/forecasts").mkdir(parents=True)
    os.symlink(elsewhere, hub / f"data/forecasts/{DUE}", target_is_directory=True)
    report = validate_files(hub, [hub / CSV], AT)
    assert error_set(report) == {("not-a-regular-file", None, None)}


def test_a_file_outside_the_hub_given_by_a_dotdot_path_is_refused(tmp_path):
    hub = make_hub(tmp_path)
    outside = tmp_path / "x.csv"
    outside.write_text(HEADER + FULL)
    report = validate_files(hub, [hub / "data" / ".." / ".." / "x.csv"], AT)
    assert [p.code for p in report.errors] == ["outside-submission-area"]


# -- model metadata ---------------------------------------------------------------------------------


def yaml_bomb(levels: int = 9) -> str:
    lines = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, levels)]
    return "\n".join(lines) + f"\nname: *a{levels - 1}\norganization: Acme\nkind: llm\n"


META_CASES = [
    ("yaml-bomb", yaml_bomb().encode(), "bad-yaml", None),
    ("alias-in-maintainers", b"people: &p [alice]\nname: X\norganization: Acme\nkind: llm\nmaintainers: *p\n", "bad-yaml", None),
    ("python-object-tag", b"name: !!python/object/apply:os.system ['id']\norganization: Acme\nkind: llm\n", "bad-yaml", None),
    ("python-name-tag", b"name: !!python/name:os.system\norganization: Acme\nkind: llm\n", "bad-yaml", None),
    ("deep-nesting", b"name: " + b"[" * 20_000, "bad-yaml", None),
    ("latin1", "name: Caf\xe9\norganization: Acme\nkind: llm\n".encode("latin-1"), "bad-yaml", None),
    ("a-list-not-a-mapping", b"- name: X\n", "bad-yaml", None),
    ("binary-tag-name", b"name: !!binary aGVsbG8=\norganization: Acme\nkind: llm\n", "bad-value", "name"),
    ("name-is-a-list", b"name: [a, b]\norganization: Acme\nkind: llm\n", "bad-value", "name"),
    ("kind-is-a-set", b"name: X\norganization: Acme\nkind: !!set {llm}\n", "bad-value", "kind"),
    ("rtl-override-in-name", "name: \u202eX-TPG\norganization: Acme\nkind: llm\n".encode(), "control-character", "name"),
    ("bidi-isolate-in-org", "name: X\norganization: Acme\u2067evil\u2069\nkind: llm\n".encode(), "control-character", "organization"),
    ("escape-char-in-method", b'name: X\norganization: Acme\nkind: llm\nmethod: "a\\x1b[31mred"\n', "control-character", "method"),
    ("too-large", b"name: X\norganization: Acme\nkind: llm\nmethod: " + b"x" * 70_000 + b"\n", "file-too-large", None),
]


@pytest.mark.parametrize("name, data, code, column", META_CASES, ids=[c[0] for c in META_CASES])
def test_hostile_model_metadata_is_rejected(tmp_path, name, data, code, column):
    hub = make_hub(tmp_path)
    (hub / META).write_bytes(data)
    report = submit(hub, CSV, (HEADER + FULL).encode())
    assert not report.ok
    assert (code, None, column) in {(p.code, p.row, p.column) for p in report.errors}, report.problems
    assert all(p.file == META for p in report.errors)


@pytest.mark.parametrize(
    "name_text, code",
    [
        ("GPT\u200dX", "invisible-character"),
        ("\ufeffGPT-X", "invisible-character"),
        ('=HYPERLINK("http://evil.example")', "formula-like-text"),
        ("@GPT-X", "formula-like-text"),
    ],
)
def test_odd_model_names_pass_with_a_warning(tmp_path, name_text, code):
    hub = make_hub(tmp_path)
    (hub / META).write_text(yaml.safe_dump({"name": name_text, "organization": "Acme", "kind": "llm"}, allow_unicode=True))
    report = submit(hub, CSV, (HEADER + FULL).encode())
    assert report.ok and [(p.code, p.file, p.column) for p in report.warnings] == [(code, META, "name")]


def test_right_to_left_text_without_overrides_is_a_valid_name(tmp_path):
    hub = make_hub(tmp_path)
    (hub / META).write_text("name: \u05de\u05d5\u05d3\u05dc GPT-X\norganization: \u0634\u0631\u0643\u0629\nkind: llm\n", encoding="utf-8")
    assert submit(hub, CSV, (HEADER + FULL).encode()).problems == ()


# -- the command line: the same verdicts, no traceback --------------------------------------------


def test_the_cli_reports_hostile_files_with_exit_9_and_no_traceback(tmp_path):
    hub = make_hub(tmp_path)
    (hub / META).write_bytes(yaml_bomb().encode())
    (hub / CSV).parent.mkdir(parents=True)
    (hub / CSV).write_bytes(b"\xff\xfe" + (HEADER + FULL).encode("utf-16-le"))
    done = run_cli("validate", "--hub", str(hub), "--at", "2026-01-20T00:00:00Z", "--format", "json", str(hub / CSV))
    assert done.returncode == 9 and "Traceback" not in done.stderr, done.stderr
    codes = {(p["file"], p["code"]) for p in json.loads(done.stdout)["problems"]}
    assert codes == {(CSV, "not-utf8"), (META, "bad-yaml"), (CSV, "author-unchecked")}


# -- CSV for people: formula injection neutralised ----------------------------------------------------


def test_spreadsheet_safe_prefixes_formula_text_and_leaves_numbers():
    frame = pd.DataFrame(
        {
            "model": ['=HYPERLINK("http://x")', "+cmd", "-1+2", "@SUM(A1)", "\tx", "\rx", "plain", "-0.5", "1e-3"],
            "brier": [-0.5, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8],
        }
    )
    safe = spreadsheet_safe(frame)
    assert safe["model"].tolist() == ['\'=HYPERLINK("http://x")', "'+cmd", "'-1+2", "'@SUM(A1)", "'\tx", "'\rx", "plain", "-0.5", "1e-3"]
    assert safe["brier"].tolist() == frame["brier"].tolist() and frame["model"][0].startswith("=")  # a copy
    assert formula_like("=1") and not formula_like("-0.5") and not formula_like("") and not formula_like("a=b")


def test_board_csv_output_is_safe_for_spreadsheets(capsys):
    board = pd.DataFrame(
        {"rank": [1, 2], "model": ['=HYPERLINK("http://evil.example","win")', "acme.gpt-x"], "name": ["@evil", "GPT-X"], "brier": [-0.5, 0.25]}
    )
    print_frame(board, "csv")
    out = pd.read_csv(io.StringIO(capsys.readouterr().out), dtype=str, keep_default_na=False)
    assert out["model"].tolist() == ['\'=HYPERLINK("http://evil.example","win")', "acme.gpt-x"]
    assert out["name"].tolist() == ["'@evil", "GPT-X"] and out["brier"].tolist() == ["-0.5", "0.25"]


def test_every_csv_printed_for_people_goes_through_the_one_helper():
    package = ROOT / "generator"
    writers = [
        p.relative_to(package).as_posix()
        for p in package.rglob("*.py")
        if re.search(r"to_csv\(\s*sys\.stdout|csv\.writer\(\s*sys\.stdout|sys\.stdout\.write\(\s*encode\(", p.read_text(encoding="utf-8"))
    ]
    assert writers == ["console.py"]
    console = (package / "console.py").read_text(encoding="utf-8")
    assert "safe = spreadsheet_safe(frame)" in console and "sys.stdout.write(encode(" in console


# -- the PR validation workflow ---------------------------------------------------------------------


def test_the_pr_validation_workflow_has_a_read_only_token_and_no_secrets():
    path = ROOT / ".github" / "workflows" / "validate.yml"
    text = path.read_text(encoding="utf-8")
    workflow = yaml.safe_load(text)
    # Read-only: the contents, and its own run's record (the creation time the receipts use).
    assert workflow["permissions"] == {"contents": "read", "actions": "read"}
    assert all(job.get("permissions", {}) == {} for job in workflow["jobs"].values())
    assert "secrets." not in text and "secrets[" not in text
    triggers = workflow.get("on", workflow.get(True))
    assert set(triggers) == {"pull_request"}


def test_spreadsheet_safe_bytes_rewrites_only_files_with_formula_text():
    clean = b'question_id,probability,reasoning\nsim:m1,0.4,"a, b"\nsim:m2,-0.0,\n'
    assert spreadsheet_safe_bytes(clean) is clean  # byte for byte
    hostile = b'question_id,probability,reasoning\r\nsim:m1,0.4,"=HYPERLINK(""http://x"")"\r\nsim:m2,-0.5,@SUM(A1)\r\n'
    safe = pd.read_csv(io.BytesIO(spreadsheet_safe_bytes(hostile)), dtype=str, keep_default_na=False)
    assert safe["reasoning"].tolist() == ['\'=HYPERLINK("http://x")', "'@SUM(A1)"]
    assert safe["probability"].tolist() == ["0.4", "-0.5"]  # numbers stay numbers
    assert spreadsheet_safe_bytes(b"\xff\xfe=x") == b"\xff\xfe=x"  # not UTF-8: left alone, never raised


# (cell as written, whether the file then holds a formula cell): a bare carriage return is a line
# break, not a cell's start, and a quoted cell whose second line starts with "=" starts with "a".
QUICK_SCAN_CELLS = [
    ("=1+1", True),
    ("+x", True),
    ("-cmd", True),
    ("@SUM(A1)", True),
    ("\tx", True),
    ('"=quoted"', True),
    ("\rx", False),
    ('"a\n=b"', False),
]


@pytest.mark.parametrize(("cell", "formula"), QUICK_SCAN_CELLS)
@pytest.mark.parametrize("where", ["first", "middle", "last"])
def test_the_quick_scan_never_skips_a_file_with_a_formula_cell(cell, formula, where):
    """The byte scan that lets clean files through unparsed must see every formula cell's start, and a
    file with none comes back byte for byte."""
    from generator.store.spreadsheet import _CELL_START

    row = {"first": f"{cell},0.4,x", "middle": f"q,{cell},x", "last": f"q,0.4,{cell}"}[where]
    data = f"a,b,c\n{row}\n".encode()
    parsed = list(csv.reader(io.StringIO(data.decode(), newline="")))
    assert any(formula_like(c) for r in parsed[1:] for c in r) == formula
    if formula:
        assert _CELL_START.search(data)
        assert spreadsheet_safe_bytes(data) != data
    else:
        assert spreadsheet_safe_bytes(data) == data


def test_site_downloads_neutralise_formula_text_and_the_ledger_keeps_it(tmp_path):
    from generator.pipeline.nightly import nightly
    from generator.site.build import _downloads
    from generator.store.hub import Hub
    from generator.timeutil import parse_ts

    from helpers import write_hub

    root = write_hub(tmp_path / "hub")
    nightly(root, parse_ts("2026-01-16T00:00:00Z"))
    hub_files = Hub(root)
    layout = hub_files.layout
    due = layout.round_dirs()[0].name
    question = pd.read_csv(layout.round_dirs()[0] / "questions.csv", dtype=str)["question_id"].iloc[0]
    raw = f'question_id,probability,reasoning\n{question},0.5,"=HYPERLINK(""http://evil.example"")"\n'.encode()
    (root / f"data/forecasts/{due}").mkdir(parents=True, exist_ok=True)
    (root / f"data/forecasts/{due}/acme.bot.csv").write_bytes(raw)
    files = _downloads(hub_files, set())["downloads"]  # the site's own copies (no repo_url in hub.toml)
    offered = pd.read_csv(io.BytesIO(files[f"downloads/forecasts/{due}/acme.bot.csv"]), dtype=str)
    assert offered["reasoning"].tolist() == ['\'=HYPERLINK("http://evil.example")']
    assert (root / f"data/forecasts/{due}/acme.bot.csv").read_bytes() == raw
    baseline = next(p for p in layout.forecast_files(parse_ts(due + "T00:00:00Z")) if p.name != "acme.bot.csv")
    assert files[f"downloads/forecasts/{due}/{baseline.name}"] == baseline.read_bytes()


@pytest.mark.parametrize("amount", ["\u0665\u0660\u0660", "500\u00a0", "\u06f5\u06f0\u06f0"])
def test_a_bet_amount_in_non_ascii_digits_or_with_a_no_break_space_is_refused_end_to_end(tmp_path, amount):
    """validate accepted these, then `build` stopped on them: the bets reader takes ASCII numbers only."""
    hub = make_hub(tmp_path)
    body = f'question_id,placed_at,side,amount,reasoning\nmanifold:m1,2026-01-20T10:00:00Z,YES,"{amount}",\n'
    report = submit(hub, f"data/bets/{DUE}/acme.gpt-x.csv", body.encode("utf-8"))
    assert [(p.code, p.row, p.column) for p in report.problems if p.severity == "error"] == [("bad-bet-amount", 2, "amount")]


def test_console_csv_quotes_a_bare_carriage_return_and_keeps_every_cell(capsys):
    """`--format csv` prints cells quoted as the ledgers are: a bare CR, U+2028 or edge space stays in its cell."""
    from generator.console import print_frame

    hostile = ["x\ry", "u\u2028v", " lead", "=1+1", 'q"uote', "plain"]
    frame = pd.DataFrame({"model": hostile, "score": [0.123456789, float("nan"), 1.0, 2.5, -3.0, 4e-9], "rank": range(6)})
    print_frame(frame, "csv")
    out = capsys.readouterr().out
    rows = list(csv.reader(io.StringIO(out, newline="")))
    assert rows[0] == ["model", "score", "rank"] and len(rows) == 7
    assert [r[0] for r in rows[1:]] == [spreadsheet_safe(frame)["model"][i] for i in range(6)]
    assert [r[1] for r in rows[1:]] == ["0.123457", "", "1", "2.5", "-3", "4e-09"]
    assert [r[2] for r in rows[1:]] == [str(i) for i in range(6)]
