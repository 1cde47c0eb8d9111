"""Broken ForecastBench JSON files: each import is refused with a coded problem, nothing is written,
and no exception other than SchemaError (exit 3, no traceback) ever leaves ``import_forecastbench``.

Files are made here. Each case breaks one of the three files of a tiny, valid import (a question
set, a resolution set and a forecast set for the round due 2026-01-04).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from generator.errors import SchemaError
from generator.interop.forecastbench import parse as fb_parse
from generator.interop.forecastbench.importer import import_forecastbench

from helpers import run_cli

AS_OF = "2026-08-21T00:00:00Z"
QSET_NAME, RSET_NAME, FSET_NAME = "question_sets/2026-01-04-llm.json", "resolution_sets/2026-01-04_resolution_set.json", "x.json"


def _q(qid: str, source: str, dates) -> dict:
    return {
        "id": qid,
        "source": source,
        "question": f"Will {qid}?",
        "resolution_criteria": "",
        "background": "",
        "url": "",
        "freeze_datetime": "2025-12-25T00:00:00+00:00",
        "freeze_datetime_value": "0.3",
        "source_intro": "",
        "market_info_open_datetime": "N/A",
        "market_info_close_datetime": "N/A",
        "resolution_dates": dates,
    }


QSET = {
    "forecast_due_date": "2026-01-04",
    "question_set": "2026-01-04-llm.json",
    "questions": [_q("m1", "manifold", "N/A"), _q("F1", "fred", ["2026-01-11", "2026-02-03"])],
}
RSET = {
    "forecast_due_date": "2026-01-04",
    "question_set": "2026-01-04-llm.json",
    "resolutions": [
        {"id": "m1", "source": "manifold", "direction": None, "resolution_date": "2026-01-20", "resolved_to": 1.0, "resolved": True},
        {"id": "F1", "source": "fred", "direction": None, "resolution_date": "2026-01-11", "resolved_to": 0.0, "resolved": True},
    ],
}
FSET = {
    "organization": "Team A",
    "model": "Model X",
    "model_organization": "Lab",
    "question_set": "2026-01-04-llm.json",
    "forecasts": [
        {"id": "m1", "source": "manifold", "forecast": 0.8, "resolution_date": None, "reasoning": None},
        {"id": "F1", "source": "fred", "forecast": 0.4, "resolution_date": "2026-01-11", "reasoning": "r"},
    ],
}


def files(tmp_path: Path, which: str, data: bytes) -> tuple[Path, Path]:
    """The valid three files, with the ``which`` one (qset, rset or fset) replaced by ``data``."""
    datasets, forecasts = tmp_path / "fb" / "datasets", tmp_path / "forecasts"
    content = {
        datasets / QSET_NAME: json.dumps(QSET).encode(),
        datasets / RSET_NAME: json.dumps(RSET).encode(),
        forecasts / FSET_NAME: json.dumps(FSET).encode(),
    }
    content[{"qset": datasets / QSET_NAME, "rset": datasets / RSET_NAME, "fset": forecasts / FSET_NAME}[which]] = data
    for path, body in content.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(body)
    return tmp_path / "fb", forecasts


def edited(base: dict, path: tuple, value=..., drop: bool = False) -> bytes:
    """``base`` as JSON bytes with the value at ``path`` replaced (or dropped)."""
    body = copy.deepcopy(base)
    node = body
    for key in path[:-1]:
        node = node[key]
    if drop:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return json.dumps(body).encode()


def raw(base: dict, old: str, new: str) -> bytes:
    """``base`` as JSON text with one literal replaced (for values json.dumps will not write)."""
    text = json.dumps(base)
    assert old in text
    return text.replace(old, new, 1).encode()


CASES = [
    # (case id, which file, bytes, expected code)
    ("empty-file", "qset", b"", "bad-json"),
    ("truncated", "qset", json.dumps(QSET).encode()[:-25], "bad-json"),
    ("utf16", "qset", json.dumps(QSET).encode("utf-16"), "bad-json"),
    ("utf8-bom", "rset", b"\xef\xbb\xbf" + json.dumps(RSET).encode(), "bad-json"),
    ("latin1", "fset", json.dumps(FSET, ensure_ascii=False).replace("Team A", "\u00c9quipe").encode("latin-1"), "bad-json"),
    ("html-not-json", "rset", b"<!doctype html><html><body>502 Bad Gateway</body></html>", "bad-json"),
    ("deep-nesting", "qset", b"[" * 200_000 + b"]" * 200_000, "bad-json"),
    ("integer-of-5000-digits", "rset", raw(RSET, '"resolved_to": 1.0', '"resolved_to": 1' + "0" * 5000), "bad-json"),
    ("top-level-list", "qset", json.dumps([QSET]).encode(), "bad-structure"),
    ("top-level-null", "fset", b"null", "bad-structure"),
    ("questions-not-a-list", "qset", edited(QSET, ("questions",), {"m1": 1}), "bad-structure"),
    ("row-not-an-object", "rset", edited(RSET, ("resolutions", 1), ["F1", "fred"]), "bad-structure"),
    ("missing-header-key", "qset", edited(QSET, ("forecast_due_date",), drop=True), "missing-key"),
    ("missing-row-key", "rset", edited(RSET, ("resolutions", 0, "resolved_to"), drop=True), "missing-key"),
    ("missing-forecasts", "fset", edited(FSET, ("forecasts",), drop=True), "missing-key"),
    ("due-date-a-number", "qset", edited(QSET, ("forecast_due_date",), 20260104), "bad-date"),
    ("due-date-garbage", "rset", edited(RSET, ("forecast_due_date",), "soon"), "bad-date"),
    ("dates-not-a-list", "qset", edited(QSET, ("questions", 1, "resolution_dates"), "2026-01-11"), "bad-date"),
    ("dates-with-null", "qset", edited(QSET, ("questions", 1, "resolution_dates"), [None]), "bad-date"),
    ("resolution-date-nested", "rset", edited(RSET, ("resolutions", 1, "resolution_date"), {"d": "2026-01-11"}), "bad-date"),
    ("id-null", "qset", edited(QSET, ("questions", 0, "id"), None), "bad-id"),
    ("id-boolean", "fset", edited(FSET, ("forecasts", 0, "id"), True), "bad-id"),
    ("id-object", "rset", edited(RSET, ("resolutions", 0, "id"), {"id": "m1"}), "bad-id"),
    ("source-unknown", "qset", edited(QSET, ("questions", 0, "source"), "kalshi"), "unknown-source"),
    ("source-a-list", "fset", edited(FSET, ("forecasts", 0, "source"), ["manifold"]), "unknown-source"),
    ("source-an-object", "fset", edited(FSET, ("forecasts", 1, "source"), {"fred": 1}), "unknown-source"),
    ("resolved-to-text", "rset", edited(RSET, ("resolutions", 0, "resolved_to"), "yes"), "bad-outcome"),
    ("resolved-to-nan", "rset", raw(RSET, '"resolved_to": 1.0', '"resolved_to": NaN'), "bad-outcome"),
    ("resolved-to-huge", "rset", raw(RSET, '"resolved_to": 1.0', '"resolved_to": 1' + "0" * 400), "bad-outcome"),
    ("resolved-not-boolean", "rset", edited(RSET, ("resolutions", 0, "resolved"), "true"), "bad-value"),
    ("forecast-nan", "fset", raw(FSET, '"forecast": 0.8', '"forecast": NaN'), "bad-probability"),
    ("forecast-infinity", "fset", raw(FSET, '"forecast": 0.8', '"forecast": Infinity'), "bad-probability"),
    ("forecast-1e400", "fset", raw(FSET, '"forecast": 0.8', '"forecast": 1e400'), "bad-probability"),
    ("forecast-huge-integer", "fset", raw(FSET, '"forecast": 0.8', '"forecast": 1' + "0" * 400), "bad-probability"),
    ("forecast-above-one", "fset", edited(FSET, ("forecasts", 0, "forecast"), 1.0000001), "bad-probability"),
    ("forecast-negative", "fset", edited(FSET, ("forecasts", 0, "forecast"), -0.1), "bad-probability"),
    ("forecast-text", "fset", edited(FSET, ("forecasts", 0, "forecast"), "0,8"), "bad-probability"),
    ("forecast-boolean", "fset", edited(FSET, ("forecasts", 0, "forecast"), True), "bad-probability"),
    ("forecast-nested", "fset", edited(FSET, ("forecasts", 0, "forecast"), [0.8]), "bad-probability"),
    ("forecast-date-garbage", "fset", edited(FSET, ("forecasts", 1, "resolution_date"), "2026-13-45x"), "bad-date"),
    ("organization-empty", "fset", edited(FSET, ("organization",), ""), "bad-model"),
    ("model-an-object", "fset", edited(FSET, ("model",), {"name": "x"}), "bad-model"),
    ("null-everywhere", "fset", json.dumps({k: None for k in FSET}).encode(), "bad-structure"),
]


def test_the_corpus_is_large_and_every_case_is_distinct():
    assert len(CASES) >= 40 and len({c[0] for c in CASES}) == len(CASES)


def test_the_unbroken_files_import(tmp_path):
    datasets, forecasts = files(tmp_path, "fset", json.dumps(FSET).encode())
    report = import_forecastbench(tmp_path / "hub", datasets, forecasts, as_of=AS_OF)
    assert report.rounds == ["2026-01-04"] and "team-a.model-x" in report.models


@pytest.mark.parametrize("name, which, data, code", CASES, ids=[c[0] for c in CASES])
def test_each_broken_file_is_refused_with_its_code_and_nothing_is_written(tmp_path, name, which, data, code):
    datasets, forecasts = files(tmp_path, which, data)
    hub = tmp_path / "hub"
    with pytest.raises(SchemaError) as info:
        import_forecastbench(hub, datasets, forecasts, as_of=AS_OF)
    problems = info.value.problems
    assert code in {p.code for p in problems}, info.value.report()
    label = {"qset": f"datasets/{QSET_NAME}", "rset": f"datasets/{RSET_NAME}", "fset": FSET_NAME}[which]
    assert all(p.file == label for p in problems if p.severity == "error"), info.value.report()
    assert not hub.exists()


@pytest.mark.parametrize("parse", [fb_parse.parse_question_set, fb_parse.parse_resolution_set, fb_parse.parse_forecast_set])
@pytest.mark.parametrize(
    "body",
    [
        None,
        0,
        1.5,
        "x",
        [],
        [None],
        {},
        {"questions": None, "resolutions": None, "forecasts": None},
        {
            "forecast_due_date": [],
            "question_set": {},
            "questions": [[]],
            "resolutions": [1],
            "forecasts": [{"id": [], "source": {}, "forecast": {}}],
            "organization": [],
            "model": None,
            "model_organization": 0,
        },
    ],
)
def test_the_parsers_turn_any_shape_into_problems(parse, body):
    parsed = parse(body, "label")
    assert parsed.problems and all(p.code and p.file == "label" for p in parsed.problems)


def test_the_cli_refuses_a_broken_import_with_exit_3_and_no_traceback(tmp_path):
    datasets, forecasts = files(tmp_path, "fset", raw(FSET, '"forecast": 0.8', '"forecast": 1' + "0" * 400))
    done = run_cli("import", "forecastbench", str(datasets), "--forecasts", str(forecasts), "--hub", str(tmp_path / "hub"), "--as-of", AS_OF)
    assert done.returncode == 3 and "[bad-probability]" in done.stderr and "Traceback" not in done.stderr, done.stderr
