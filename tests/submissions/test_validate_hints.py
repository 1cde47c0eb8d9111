"""The validator says what to write, through the real `prescient validate`: percentages get one
"divide by 100" (every row still listed in JSON, one grouped line in the terminal), a CSV separated
by semicolons gets one "use commas", `72%` gets 0.72, a bare JSON list gets the object it belongs
in, `Acme.My_Bot` gets its lowercase id, a report after the due time says what can still be done
(pushing again cannot help), and a JSON forecast written as a string is refused.
`round template --out` outside the hub refuses at once instead of writing a file validate refuses;
`rounds` says why no round is scored yet."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from helpers import prescient, two_round_hub

DUE, LATER = "2026-01-25", "2026-02-08"
AT, AFTER = "2026-01-20T00:00:00Z", "2026-01-26T00:00:00Z"
MARKETS = [f"manifold:m{i}" for i in range(1, 7)]
UNITS = [(q, "", "binary") for q in MARKETS] + [("fred:GDP", "2026-02-01", "dataset"), ("fred:GDP", "2026-02-24", "dataset")]
HEADER = "question_id,resolution_date,probability,reasoning"


@pytest.fixture
def hub(tmp_path: Path) -> Path:
    """Two rounds (eight questions × dates in the first, due DUE) and a registered model."""
    return two_round_hub(tmp_path / "hub", {DUE: UNITS, LATER: [("manifold:later", "", "binary")]})


def check(hub: Path, name: str, data: bytes, fmt: str = "text", at: str = AT) -> subprocess.CompletedProcess:
    path = hub / f"data/forecasts/{DUE}/{name}"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return prescient("validate", "--hub", str(hub), "--at", at, "--format", fmt, str(path))


def problems(result: subprocess.CompletedProcess) -> list[tuple[str, int | None, str | None]]:
    body = json.loads(result.stdout)
    return [(p["code"], p["row"], p["column"]) for p in body["problems"] if p["code"] != "author-unchecked"]


def lines_of(result: subprocess.CompletedProcess, code: str) -> list[str]:
    return [line for line in result.stdout.splitlines() if f"[{code}]" in line]


def csv_file(values: list[str], sep: str = ",") -> bytes:
    rows = [HEADER.replace(",", sep)] + [sep.join((q, d, v, "")) for (q, d, _kind), v in zip(UNITS, values, strict=True)]
    return ("\n".join(rows) + "\n").encode()


def json_file(values: list[object]) -> bytes:
    items = [
        {"id": q.split(":")[1], "source": q.split(":")[0], "forecast": v, "resolution_date": d or None}
        for (q, d, _kind), v in zip(UNITS, values, strict=True)
    ]
    body = {"organization": "Acme", "model": "bot", "question_set": f"{DUE}-prescient.json", "forecasts": items}
    return json.dumps(body).encode()


PERCENTS = ["70", "30", "5", "100", "1", "45", "50", "60"]


@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_percentages_get_one_divide_by_100_and_every_row_is_still_listed(hub: Path, fmt: str):
    data = csv_file(PERCENTS) if fmt == "csv" else json_file([int(v) for v in PERCENTS])
    text = check(hub, f"acme.bot.{fmt}", data)
    assert text.returncode == 9
    found = lines_of(text, "probability-out-of-range")
    assert len(found) == 1, text.stdout  # one line for the seven rows, not seven
    first = 2 if fmt == "csv" else 1
    rows = [first + i for i, v in enumerate(PERCENTS) if float(v) > 1]
    assert f"7 rows: rows {', '.join(map(str, rows[:5]))}, …" in found[0]
    assert "percentages" in found[0] and "divide every probability by 100" in found[0] and "70 → 0.7" in found[0]
    assert "1 or less too" in found[0]  # the row written 1 (1%) passes alone, and is said
    as_json = check(hub, f"acme.bot.{fmt}", data, "json")
    assert [p for p in problems(as_json) if p[0] == "probability-out-of-range"] == [
        ("probability-out-of-range", row, "probability" if fmt == "csv" else "forecast") for row in rows
    ]


def test_one_percentage_among_probabilities_is_named_on_its_row(hub: Path):
    text = check(hub, "acme.bot.csv", csv_file(["0.4"] * 3 + ["72"] + ["0.4"] * 4))
    assert text.returncode == 9
    [line] = lines_of(text, "probability-out-of-range")
    assert "row 5" in line and "'72' is outside [0, 1]" in line and "a percentage? write 0.72" in line
    assert "divide every" not in line


def test_a_csv_separated_by_semicolons_is_one_error_saying_use_commas(hub: Path):
    data = csv_file(["0,7", "0,3", "0,5", "0,5", "0,5", "0,5", "0,5", "0,5"], sep=";")
    as_json = check(hub, "acme.bot.csv", data, "json")
    assert as_json.returncode == 9 and problems(as_json) == [("wrong-separator", 1, None)], as_json.stdout
    message = json.loads(as_json.stdout)["problems"][-1]["message"]
    assert "separated by ';'" in message and "commas" in message and "a dot" in message
    tabs = check(hub, "acme.bot.csv", csv_file(["0.5"] * 8, sep="\t"), "json")
    assert problems(tabs) == [("wrong-separator", 1, None)] and "tabs" in json.loads(tabs.stdout)["problems"][-1]["message"]


@pytest.mark.parametrize("cell, hint", [("72%", "write 0.72"), ("7.5 %", "write 0.075"), ("100%", "write 1")])
def test_a_percent_sign_gets_the_probability_to_write(hub: Path, cell: str, hint: str):
    text = check(hub, "acme.bot.csv", csv_file([cell] + ["0.4"] * 7))
    [line] = lines_of(text, "probability-not-a-number")
    assert "row 2" in line and f"{cell!r} is not a number" in line and hint in line, line


def test_a_bare_json_list_is_told_the_object_it_belongs_in(hub: Path):
    items = json.loads(json_file([0.4] * 8))["forecasts"]
    result = check(hub, "acme.bot.json", json.dumps(items).encode(), "json")
    assert result.returncode == 9 and problems(result) == [("bad-json", None, None)]
    message = json.loads(result.stdout)["problems"][-1]["message"]
    assert "a JSON list" in message and '"forecasts": [' in message and '"question_set"' in message and '"organization"' in message
    assert "put the list under" in message


@pytest.mark.parametrize(
    "name, suggestion",
    [
        (f"data/forecasts/{DUE}/Acme.My_Bot.csv", f"data/forecasts/{DUE}/acme.my_bot.csv"),
        ("data/models/Acme.My_Bot.yml", "data/models/acme.my_bot.yml"),
        (f"data/forecasts/{DUE}/Acme Labs.GPT 5.csv", f"data/forecasts/{DUE}/acme-labs.gpt-5.csv"),
    ],
)
def test_a_file_name_in_capitals_is_told_its_lowercase_id(hub: Path, name: str, suggestion: str):
    path = hub / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(HEADER + "\n")
    result = prescient("validate", "--hub", str(hub), "--at", AT, str(path))
    [line] = lines_of(result, "bad-file-name")
    assert f"rename it {suggestion}" in line, line


def test_a_report_after_the_due_time_says_what_can_still_be_done(hub: Path):
    data = csv_file(["0.4"] * 8)
    text = check(hub, "acme.bot.csv", data, at=AFTER)
    assert text.returncode == 9 and "[round-closed]" in text.stdout
    assert "push again" not in text.stdout, text.stdout
    assert "pushing again cannot change what counts" in text.stdout
    assert f"the open round is {LATER}: data/forecasts/{LATER}/" in text.stdout
    comment = check(hub, "acme.bot.csv", data, "markdown", at=AFTER).stdout
    assert "push a new commit" not in comment and "pushing again cannot change what counts" in comment
    assert f"data/forecasts/{LATER}/" in comment
    before = check(hub, "acme.bot.csv", csv_file(["abc"] + ["0.4"] * 7))  # before the due time: fixing helps
    assert before.returncode == 9 and "Fix every error and push again" in before.stdout
    assert "cannot change what counts" not in before.stdout


def test_after_every_round_closed_the_report_says_none_is_open(hub: Path):
    text = check(hub, "acme.bot.csv", csv_file(["0.4"] * 8), at="2026-03-01T00:00:00Z")
    assert text.returncode == 9 and "pushing again cannot change what counts" in text.stdout
    assert "no round is open now" in text.stdout and "push again" not in text.stdout


def test_a_forecast_written_as_a_json_string_is_refused(hub: Path):
    strings = check(hub, "acme.bot.json", json_file(["0.7"] * 8))
    assert strings.returncode == 9, strings.stdout
    [line] = lines_of(strings, "probability-as-text")
    assert "8 rows: rows 1, 2, 3, 4, 5, …" in line and "without quotes" in line
    numbers = check(hub, "acme.bot.json", json_file([0.7] * 8))
    assert numbers.returncode == 0 and "probability-as-text" not in numbers.stdout, numbers.stdout
    one = check(hub, "acme.bot.json", json_file([0.7] * 7 + ["0.7"]), "json")
    assert problems(one) == [("probability-as-text", 8, "forecast")]


def test_round_template_out_of_the_hub_refuses_and_names_the_path_inside(hub: Path, tmp_path: Path):
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    made = prescient("round", "template", "--hub", str(hub), "--due", LATER, "--out", "acme.bot.csv", cwd=outside)
    assert made.returncode == 2, made.stderr
    assert not (outside / "acme.bot.csv").exists(), "nothing written"
    assert "is outside the hub" in made.stderr and f"data/forecasts/{LATER}/acme.bot.csv" in made.stderr
    assert "prescient validate" not in made.stderr and "wrote" not in made.stderr
    assert "leave out --out" in made.stderr  # standard output still takes a file kept out of the hub (commit–reveal)
    inside = hub / f"data/forecasts/{LATER}/acme.bot.csv"
    written = prescient("round", "template", "--hub", str(hub), "--due", LATER, "--out", str(inside), cwd=outside)
    assert written.returncode == 0 and inside.is_file(), written.stderr
    checked = prescient("validate", "--hub", str(hub), "--at", AT, str(inside), cwd=outside)
    assert "[empty-value]" in checked.stdout and "outside-submission-area" not in checked.stdout, checked.stdout


def test_rounds_says_what_scored_means_while_no_round_is_scored(hub: Path):
    closed = prescient("rounds", "--hub", str(hub), "--as-of", AFTER)
    assert closed.returncode == 0 and f"{DUE}     8 question(s) × date  closed, resolving (0 of 8 resolved)" in closed.stdout
    assert (
        "scored: a round is scored once every question × date is resolved or void (the Rounds page's rule); "
        f"none is yet: the oldest closed round, {DUE}, waits for 8 of its 8"
    ) in closed.stdout
    before = prescient("rounds", "--hub", str(hub), "--as-of", AT)
    assert before.returncode == 0 and "open · closes in" in before.stdout and "scored:" not in before.stdout
