"""The validator's messages say what to write, through the real `prescient validate`.

An unfilled or mostly-null file is an error in both formats (the hub's imputation line); a wrong
question set names the one to write; an unknown round lists the open ones; a file of the other format,
or of another question set (a ForecastBench file), gets one diagnosis; rows with errors are not also
"missing"; identical problems are one line with a count and the first rows, in the terminal and the
pull-request comment; CRLF line endings throughout (Python's `csv`) are not a spreadsheet's."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from helpers import ROOT, prescient, two_round_hub

DUE, LATER = "2026-01-25", "2026-02-08"
AT = "2026-01-20T00:00:00Z"
MARKETS = [f"manifold:m{i}" for i in range(1, 7)]
UNITS = [(q, "", "binary") for q in MARKETS] + [("fred:GDP", "2026-02-01", "dataset"), ("fred:GDP", "2026-02-24", "dataset")]
FB_SETS = ROOT.parent / "shared" / "forecastbench" / "datasets" / "question_sets"


@pytest.fixture
def hub(tmp_path: Path) -> Path:
    """Two open rounds (eight questions × dates in the first) and a registered model."""
    return two_round_hub(tmp_path / "hub", {DUE: UNITS, LATER: [("manifold:later", "", "binary")]})


def check(hub: Path, name: str, data: bytes, fmt: str = "json", due: str = DUE) -> subprocess.CompletedProcess:
    path = hub / f"data/forecasts/{due}/{name}"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return prescient("validate", "--hub", str(hub), "--at", AT, "--format", fmt, str(path))


def problems(result: subprocess.CompletedProcess) -> list[tuple[str, int | None, str | None]]:
    body = json.loads(result.stdout)
    return [(p["code"], p["row"], p["column"]) for p in body["problems"] if p["code"] != "author-unchecked"]


def template(hub: Path, fmt: str) -> bytes:
    result = prescient("round", "template", "--hub", str(hub), "--due", DUE, "--model", "acme.bot", "--format", fmt)
    assert result.returncode == 0, result.stderr
    return result.stdout.encode()


def filled(probabilities: dict[int, str] | None = None, end: str = "\n") -> bytes:
    """The round's CSV, every probability 0.4 except ``probabilities`` (by row number, header = 1)."""
    rows = ["question_id,resolution_date,probability,reasoning"]
    for n, (q, d, _kind) in enumerate(UNITS, start=2):
        rows.append(f"{q},{d},{(probabilities or {}).get(n, '0.4')},")
    return (end.join(rows) + end).encode()


@pytest.mark.parametrize("fmt", ["json", "csv"])
def test_an_unfilled_template_is_an_error_in_both_formats_with_one_line_for_its_rows(hub: Path, fmt: str):
    data = template(hub, fmt)
    as_json = check(hub, f"acme.bot.{fmt}", data)
    text = check(hub, f"acme.bot.{fmt}", data, "text")
    assert as_json.returncode == text.returncode == 9, text.stdout
    missing = [p for p in problems(as_json) if p[0] == "too-many-missing"]
    per_row = "null-forecast" if fmt == "json" else "empty-value"
    if fmt == "json":  # nulls are warnings: the imputation line makes the file an error
        assert missing == [("too-many-missing", None, None)]
        assert "8 of the round's 8 questions × resolution dates have no probability" in text.stdout
        assert "more than 5% missing is never ranked ([scoring] max_imputed_share)" in text.stdout
    else:  # the empty cells are errors already: they say it, once
        assert missing == []
    first = 1 if fmt == "json" else 2
    rows = ", ".join(str(first + i) for i in range(5))
    lines = [line for line in text.stdout.splitlines() if f"[{per_row}]" in line]
    assert lines and len(lines) == 1 and f"8 rows: rows {rows}, …" in lines[0], text.stdout
    comment = check(hub, f"acme.bot.{fmt}", data, "markdown").stdout
    table = [line for line in comment.splitlines() if line.startswith("|") and f"`{per_row}`" in line]
    assert len(table) == 1 and f"| 8 rows: rows {rows}, … |" in table[0]


def test_the_imputation_line_is_the_hubs(hub: Path):
    """Two of eight left out (25%): refused at the default 5%, a warning under a hub's line of 30%."""
    data = b"\n".join(filled().splitlines()[:-2]) + b"\n"
    refused = check(hub, "acme.bot.csv", data, "text")
    assert refused.returncode == 9 and "[too-many-missing] 2 of the round's 8" in refused.stdout
    assert "missing fred:GDP (2026-02-01), fred:GDP (2026-02-24); these 2 units will be scored as 0.5" in refused.stdout
    toml = hub / "data/hub.toml"
    toml.write_text(toml.read_text().replace("[scoring]\n", "[scoring]\nmax_imputed_share = 0.3\n"))
    assert "max_imputed_share = 0.3" in toml.read_text()
    warned = check(hub, "acme.bot.csv", data, "text")
    assert warned.returncode == 0 and "[low-coverage]" in warned.stdout and "too-many-missing" not in warned.stdout


def test_a_question_set_of_another_round_names_the_one_to_write(hub: Path):
    body = json.loads(template(hub, "json"))
    for item in body["forecasts"]:
        item["forecast"] = 0.4
    body["question_set"] = f"{LATER}-prescient.json"
    result = check(hub, "acme.bot.json", json.dumps(body).encode(), "text")
    assert result.returncode == 9
    assert (
        f"[question-set-mismatch] question_set is '{LATER}-prescient.json', but the file is in round {DUE}; "
        f'write "question_set": "{DUE}-prescient.json"'
    ) in result.stdout


def test_an_unknown_round_lists_the_open_ones(hub: Path):
    result = check(hub, "acme.bot.csv", filled(), "text", due="2026-01-26")
    assert result.returncode == 9
    assert (
        "[unknown-round] no round is due on 2026-01-26: data/rounds/2026-01-26/questions.csv does not exist; "
        f"the open rounds are {DUE}, {LATER}: put the file in data/forecasts/{DUE}/"
    ) in result.stdout


@pytest.mark.parametrize(
    "name, data, other",
    [
        ("acme.bot.csv", None, "json"),  # the template as JSON, saved as .csv
        ("acme.bot.json", filled(), "csv"),
    ],
)
def test_a_file_of_the_other_format_gets_one_diagnosis(hub: Path, name: str, data: bytes | None, other: str):
    result = check(hub, name, data if data is not None else template(hub, "json"))
    assert result.returncode == 9 and problems(result) == [("wrong-format", 1, None)]
    body = json.loads(result.stdout)
    assert f"name the file .{other}" in body["problems"][-1]["message"] and body["errors"] == 1


def test_a_forecastbench_file_in_a_prescient_round_gets_one_diagnosis(hub: Path):
    items = [{"id": f"q{i}", "source": "acled", "forecast": 0.3, "resolution_date": "2025-11-02"} for i in range(12)]
    body = {"organization": "Acme", "model": "bot", "question_set": "2025-10-26-llm.json", "forecasts": items}
    result = check(hub, "acme.bot.json", json.dumps(body).encode(), "text")
    assert result.returncode == 9
    found = [line for line in result.stdout.splitlines() if line.startswith(("  error", "  warning")) and "author-unchecked" not in line]
    assert len(found) == 1, result.stdout
    assert "[question-set-mismatch] 12 of the file's 12 rows name questions that are not in round 2026-01-25" in found[0]
    assert (
        "this is ForecastBench round 2025-10-26's question set (2025-10-26-llm.json); "
        f"this round's set is {DUE}-prescient.json, the questions of data/rounds/{DUE}/questions.csv"
    ) in found[0]


@pytest.mark.skipif(not (FB_SETS / "2025-10-26-llm.json").is_file(), reason=f"real ForecastBench question sets not found at {FB_SETS}")
def test_a_forecast_set_for_a_real_forecastbench_question_set_is_one_diagnosis(hub: Path):
    questions = json.loads((FB_SETS / "2025-10-26-llm.json").read_text(encoding="utf-8"))["questions"]
    items = [
        {"id": q["id"], "source": q["source"], "forecast": 0.5, "resolution_date": d}
        for q in questions
        for d in (q["resolution_dates"] if isinstance(q.get("resolution_dates"), list) else [None])
    ]
    body = {"organization": "Acme", "model": "bot", "question_set": "2025-10-26-llm.json", "forecasts": items}
    result = check(hub, "acme.bot.json", json.dumps(body).encode())
    assert result.returncode == 9 and problems(result) == [("question-set-mismatch", None, "id")]
    assert f"{len(items):,} of the file's {len(items):,} rows" in json.loads(result.stdout)["problems"][-1]["message"]


def test_rows_with_errors_are_not_also_listed_as_missing(hub: Path):
    result = check(hub, "acme.bot.csv", filled({3: "abc"}), "text")
    assert result.returncode == 9 and "[probability-not-a-number]" in result.stdout
    assert "manifold:m2" not in result.stdout and "missing" not in result.stdout, result.stdout


def test_crlf_line_endings_throughout_are_fine_and_a_lone_carriage_return_is_said(hub: Path):
    crlf = check(hub, "acme.bot.csv", filled(end="\r\n"), "text")
    assert crlf.returncode == 0 and "crlf-line-endings" not in crlf.stdout and "Passed" in crlf.stdout
    mixed = filled().replace(b"manifold:m3,,0.4,\n", b"manifold:m3,,0.4,\r")
    said = check(hub, "acme.bot.csv", mixed)
    assert said.returncode == 0 and problems(said) == [("crlf-line-endings", 4, None)]
