"""Each submission check on its own: the exact code, row and column it reports."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.store.forecast_file import MAX_FORECAST_BYTES, parse_forecast
from generator.submissions import CODES
from generator.submissions.content import (
    RoundSet,
    check_content,
    probability_problem,
    round_set,
)
from generator.submissions.paths import classify
from generator.submissions.policy import (
    check_author,
    check_metadata,
    check_one_model,
    check_timing,
)

FILE = "data/forecasts/2026-01-25/acme.gpt-x.csv"
HEADER = "question_id,resolution_date,probability,reasoning\n"
ROUND = RoundSet(
    due="2026-01-25",
    due_ts="2026-01-25T00:00:00Z",
    kinds={"manifold:m1": "binary", "manifold:m2": "binary", "fred:GDP": "dataset"},
    dates={"fred:GDP": frozenset({"2026-02-01", "2026-02-24"})},
)
FULL = "manifold:m1,,0.7,\nmanifold:m2,,0.2,\nfred:GDP,2026-02-01,0.5,\nfred:GDP,2026-02-24,0.55,\n"


def found(body: str | bytes, fmt: str = "csv", rnd: RoundSet | None = ROUND) -> list[tuple[str, int | None, str | None]]:
    """(code, row, column) of every problem; the tiny round makes any bad row a coverage warning, left out here."""
    data = body.encode("utf-8") if isinstance(body, str) else body
    parsed = parse_forecast(data, FILE, fmt)
    problems = parsed.problems + (check_content(parsed, rnd) if parsed.columns else [])
    return sorted((p.code, p.row, p.column) for p in problems if p.code != "low-coverage")


def codes(body, fmt="csv") -> set[str]:
    return {c for c, _, _ in found(body, fmt)}


def test_a_complete_file_has_no_problem():
    assert found(HEADER + FULL) == []


def test_every_reported_code_is_registered():
    assert all(code == code.lower() and " " not in code for code in CODES)


@pytest.mark.parametrize(
    "path, code",
    [
        ("/etc/passwd", "unsafe-path"),
        ("C:/x/data/forecasts/2026-01-25/acme.x.csv", "unsafe-path"),
        ("data/forecasts/../models/acme.x.yml", "unsafe-path"),
        ("data/forecasts/2026-01-25/./acme.x.csv", "unsafe-path"),
        ("data\\forecasts\\2026-01-25\\acme.x.csv", "unsafe-path"),
        ("data/forecasts/2026-01-25/acme.x\n.csv", "unsafe-path"),
        ("generator/cli.py", "outside-submission-area"),
        ("data/rounds/2026-01-25/questions.csv", "hub-ledger"),  # written by the nightly only
        ("data/resolutions/sim.csv", "hub-ledger"),
        ("data/llm/2026-01-25/prescient.gpt-x-arena.jsonl", "hub-ledger"),
        ("data/forecasts/2026-01-25/acme.x.txt", "bad-extension"),
        ("data/forecasts/2026-01-25/acme.x.CSV", "bad-extension"),
        ("data/forecasts/2026-01-25/ACME.x.csv", "bad-file-name"),
        ("data/forecasts/2026-01-25/acme.csv", "bad-file-name"),
        ("data/forecasts/2026-13-01/acme.x.csv", "bad-round-folder"),
        ("data/forecasts/latest/acme.x.csv", "bad-round-folder"),
        ("data/forecasts/acme.x.csv", "bad-round-folder"),
        ("data/models/acme.x.yaml", "bad-extension"),
        ("data/models/Acme.yml", "bad-file-name"),
    ],
)
def test_path_rules(path, code):
    target, problems = classify(path)
    assert [p.code for p in problems][:1] == [code]
    assert target.model is None


def test_good_paths_are_classified():
    forecast, none = classify("data/forecasts/2026-01-25/acme.gpt-4.1.json")
    assert none == [] and (forecast.kind, forecast.model, forecast.due, forecast.fmt) == ("forecast", "acme.gpt-4.1", "2026-01-25", "json")
    model, none = classify("data/models/acme.gpt-x.yml")
    assert none == [] and (model.kind, model.model) == ("model", "acme.gpt-x")


def test_encoding_problems_stop_parsing_with_their_code():
    assert found(b"\xef\xbb\xbf" + (HEADER + FULL).encode()) == [("utf8-bom", 1, None)]
    assert found((HEADER + "manifold:m1,,0.7,caf").encode() + b"\xe9\n") == [("not-utf8", 2, None)]
    assert found((HEADER + FULL).replace("\n", "\r\n")) == []  # CRLF throughout: RFC 4180's ending, Python's csv's
    assert found((HEADER + FULL).replace("\n", "\r\n", 2)[:-1] + "\r") == [("crlf-line-endings", 5, None)]
    assert found("") == [("empty-file", 1, None)]
    assert found(" \n\n") == [("empty-file", 1, None)]
    assert found(HEADER + 'manifold:m1,,"0.7,\n') == [("bad-csv", 2, None)]
    assert found(HEADER + "manifold:m1,,0.7\x00,\n") == [("bad-csv", 2, None)]


def test_size_cap():
    big = HEADER.encode() + b"x" * (MAX_FORECAST_BYTES + 1)
    assert found(big) == [("file-too-large", None, None)]


def test_header_problems():
    assert found("question_id,probability,reasoning\nmanifold:m1,0.7,\n") == [("missing-column", 1, "resolution_date")]
    assert ("unknown-column", 1, "confidence") in found(HEADER.strip() + ",confidence\n" + "manifold:m1,,0.7,,x\n")
    assert ("duplicate-column", 1, "reasoning") in found(HEADER.strip() + ",reasoning\nmanifold:m1,,0.7,,\n")


def test_wrong_field_count_is_per_row_and_the_rest_is_still_checked():
    problems = found(HEADER + "manifold:m1,,0.7\nmanifold:m2,,1.5,\n")
    assert ("wrong-field-count", 2, None) in problems
    assert ("probability-out-of-range", 3, "probability") in problems


@pytest.mark.parametrize(
    "cell, code",
    [
        ("0,5", "probability-not-a-number"),
        ("abc", "probability-not-a-number"),
        ("1_0", "probability-not-a-number"),
        ("0x1", "probability-not-a-number"),
        ("NaN", "probability-not-finite"),
        ("inf", "probability-not-finite"),
        ("-Infinity", "probability-not-finite"),
        ("1e999", "probability-not-finite"),
        ("1.0001", "probability-out-of-range"),
        ("-0.1", "probability-out-of-range"),
        ("", "empty-value"),
    ],
)
def test_bad_probabilities(cell, code):
    body = HEADER + FULL.replace("manifold:m2,,0.2,", f'manifold:m2,,"{cell}",')
    assert found(body) == [(code, 3, "probability")]


@pytest.mark.parametrize("cell", ["0", "1", "0.5", ".5", "1.", "5e-1", " 0.25", "+0.3"])
def test_good_probabilities(cell):
    assert probability_problem(cell) is None


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet="01.5e+- \n٠", max_size=8) | st.sampled_from(["0", "1", "0.5", "1.0", "1.01", "0.", ".5", "00.5", "0.5\n", "1." + "0" * 40]))
def test_the_quick_probability_pass_only_passes_what_the_full_check_passes(cell):
    import generator.submissions.content as content

    quick = content._PLAIN_PROBABILITY
    try:
        content._PLAIN_PROBABILITY = re.compile("(?!)")  # matches nothing: the full check alone
        full = probability_problem(cell)
    finally:
        content._PLAIN_PROBABILITY = quick
    assert probability_problem(cell) == full


def test_comma_hint_in_message():
    assert "decimal separator" in probability_problem("0,5")[1]


def test_ids_and_resolution_dates_against_the_round():
    body = (
        HEADER + FULL + "manifold:zzz,,0.5,\nmanifold:m1,2026-02-01,0.5,\nfred:GDP,,0.5,\n"
        "fred:GDP,2026-03-01,0.5,\nfred:GDP,2026-02-30,0.5,\n,,0.5,\n"
    )
    assert found(body) == [
        ("bad-date", 10, "resolution_date"),
        ("empty-value", 11, "question_id"),
        ("market-resolution-date", 7, "resolution_date"),
        ("missing-resolution-date", 8, "resolution_date"),
        ("unknown-question", 6, "question_id"),
        ("unknown-resolution-date", 9, "resolution_date"),
    ]


def test_duplicates_point_at_the_second_row():
    assert found(HEADER + FULL + "fred:GDP,2026-02-01,0.9,\n") == [("duplicate-forecast", 6, "question_id")]


def test_coverage_warning_below_95_percent():
    problems = parse_and_check(HEADER + "manifold:m1,,0.7,\nmanifold:m2,,0.2,\nfred:GDP,2026-02-01,0.5,\n")
    assert [(p.code, p.severity) for p in problems] == [("low-coverage", "warning")]
    assert "3 of the round's 4" in problems[0].message


def test_header_only_file_has_no_forecasts():
    assert ("no-forecasts", None, None) in found(HEADER)


def parse_and_check(body: str):
    parsed = parse_forecast(body.encode(), FILE, "csv")
    return parsed.problems + check_content(parsed, ROUND)


def fb(forecasts, **extra) -> str:
    body = {
        "organization": "Acme",
        "model": "GPT-X",
        "model_organization": "Acme",
        "question_set": "2026-01-25-prescient.json",
        "forecasts": forecasts,
        **extra,
    }
    return json.dumps(body)


FB_FULL = [
    {"id": "m1", "source": "manifold", "forecast": 0.7, "resolution_date": None, "reasoning": "r"},
    {"id": "m2", "source": "manifold", "forecast": 0.2, "resolution_date": None, "reasoning": None},
    {"id": "GDP", "source": "fred", "forecast": 0.5, "resolution_date": "2026-02-01", "reasoning": ""},
    {"id": "GDP", "source": "fred", "forecast": 1, "resolution_date": "2026-02-24"},
]


def test_forecastbench_json_is_accepted():
    assert found(fb(FB_FULL), "json") == []


def test_forecastbench_json_problems_use_its_field_names_and_item_numbers():
    items = [
        dict(FB_FULL[0], forecast=1.5),
        dict(FB_FULL[1], forecast="0,5"),
        {"id": "GDP", "source": "fred"},
        dict(FB_FULL[3], id="nope"),
        "x",
        dict(FB_FULL[0], forecast=True),
    ]
    assert found(fb(items), "json") == [
        ("bad-json", 5, None),
        ("duplicate-forecast", 6, "id"),
        ("missing-field", 3, "forecast"),
        ("probability-not-a-number", 2, "forecast"),
        ("probability-not-a-number", 6, "forecast"),
        ("probability-out-of-range", 1, "forecast"),
        ("unknown-question", 4, "id"),
    ]


def test_a_null_forecast_is_skipped_with_a_warning_as_the_forecastbench_importer_reads_it(tmp_path):
    """FB's own files write "forecast": null for "no forecast"; the validator, the nightly reader and the
    FB importer must agree that it is a missing row (imputed at scoring), not an error."""
    from generator.store.hub import Hub
    from generator.store.readers import _forecast_frame

    body = fb([dict(FB_FULL[0], forecast=None)] + FB_FULL[1:])
    assert found(body, "json") == [("null-forecast", 1, "forecast")]
    problem_ = next(p for p in parse_forecast(body.encode(), FILE, "json").problems)
    assert problem_.severity == "warning" and problem_.row == 1  # the row names it; the message is one for every null
    path = tmp_path / "data/forecasts/2026-01-25/acme.gpt-x.json"
    path.parent.mkdir(parents=True)
    path.write_text(body, encoding="utf-8")
    frame = _forecast_frame(Hub(tmp_path), path)
    assert list(frame["question_id"]) == ["manifold:m2", "fred:GDP", "fred:GDP"]


def test_forecastbench_json_nan_and_structure():
    assert found(fb([dict(FB_FULL[0], forecast=float("nan"))] + FB_FULL[1:]), "json") == [("probability-not-finite", 1, "forecast")]
    assert found("[1, 2]", "json") == [("bad-json", None, None)]
    assert found('{"forecasts": {}}', "json") == [("bad-json", None, "forecasts")]
    assert found('{"model": "x"}', "json") == [("missing-field", None, "forecasts")]
    assert found('{"forecasts": [', "json") == [("bad-json", 1, None)]


AT_OPEN = datetime(2026, 1, 20, tzinfo=UTC)
AT_DUE = datetime(2026, 1, 25, tzinfo=UTC)


def test_timing_is_judged_against_the_due_timestamp_in_utc():
    target, _ = classify(FILE)
    assert check_timing(target, "A", ROUND, AT_OPEN) == []
    assert check_timing(target, "M", ROUND, AT_OPEN) == []
    assert [p.code for p in check_timing(target, "A", ROUND, AT_DUE)] == ["round-closed"]
    assert [p.code for p in check_timing(target, "M", ROUND, AT_DUE)] == ["past-round-changed"]
    assert [p.code for p in check_timing(target, "D", ROUND, AT_DUE)] == ["past-round-changed"]
    assert [p.code for p in check_timing(target, "A", None, AT_OPEN)] == ["unknown-round"]


META = b"name: GPT-X\norganization: Acme\nkind: llm\nmaintainers: [alice, Bob]\n"


def test_metadata_checks():
    path = "data/models/acme.gpt-x.yml"
    assert check_metadata("acme.gpt-x", path, META) == (("alice", "Bob"), [])
    assert [p.code for p in check_metadata("acme.gpt-x", path, None)[1]] == ["missing-model-metadata"]
    assert [p.code for p in check_metadata("acme.gpt-x", path, b"name: [unclosed\n")[1]] == ["bad-yaml"]
    assert [p.code for p in check_metadata("acme.gpt-x", path, b"!!python/object:os.system x\n")[1]] == ["bad-yaml"]
    assert [p.code for p in check_metadata("acme.gpt-x", path, b"- a\n")[1]] == ["bad-yaml"]
    bad = b"name: X\nkind: robot\ncolour: red\n"
    assert sorted((p.code, p.column) for p in check_metadata("acme.gpt-x", path, bad)[1]) == [
        ("bad-value", "kind"),
        ("missing-field", "organization"),
        ("unknown-field", "colour"),
    ]
    assert [p.code for p in check_metadata("acme.gpt-x", path, b"x" * 70000)[1]] == ["file-too-large"]


def test_author_must_be_a_maintainer_case_insensitively():
    path = "data/models/acme.gpt-x.yml"
    assert check_author("acme.gpt-x", path, ("alice", "Bob"), "bob") == []
    (p,) = check_author("acme.gpt-x", path, ("alice",), "mallory")
    assert (p.code, p.column) == ("not-a-maintainer", "maintainers") and "@mallory" in p.message


def test_one_model_per_pull_request():
    targets = [classify(FILE)[0], classify("data/models/acme.gpt-x.yml")[0]]
    assert check_one_model(targets) == []
    targets.append(classify("data/forecasts/2026-01-25/other.model.csv")[0])
    assert [p.code for p in check_one_model(targets)] == ["multiple-models"]


def test_round_set_reads_a_published_round(tmp_path):
    data = (
        b"question_id,resolution_date,source,kind,category,due,freeze_time,freeze_value,text,url\n"
        b"fred:GDP,2026-02-01,fred,dataset,econ,2026-01-25T00:00:00Z,2026-01-15T00:00:00Z,1,GDP?,\n"
        b"manifold:m1,,manifold,binary,pol,2026-01-25T00:00:00Z,2026-01-15T00:00:00Z,0.4,M1?,\n"
    )
    rnd = round_set(data, "2026-01-25", "data/rounds/2026-01-25/questions.csv")
    assert rnd.due_ts == "2026-01-25T00:00:00Z"
    assert rnd.units == {("fred:GDP", "2026-02-01"), ("manifold:m1", "")}


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(["fred:a", "fred:b", "acled:c", "q,1", 'x"y']), st.sampled_from(["", "2026-02-01", "2026-03-01", "2026-04-01"])),
        max_size=12,
        unique=True,
    )
)
def test_round_set_dates_equal_the_groupby_they_replaced(units):
    import pandas as pd

    from generator.schemas import ROUND_QUESTIONS
    from generator.store.csvio import to_csv_bytes

    frame = pd.DataFrame(
        [
            {
                "question_id": q,
                "resolution_date": d,
                "source": q.split(":")[0],
                "kind": "dataset",
                "category": "",
                "due": "2026-01-25T00:00:00Z",
                "freeze_time": "2026-01-15T00:00:00Z",
                "freeze_value": 1.0,
                "text": "T?",
                "url": "",
            }
            for q, d in units
        ],
        columns=list(ROUND_QUESTIONS.names),
    )
    rnd = round_set(to_csv_bytes(frame, ROUND_QUESTIONS), "2026-01-25", "questions.csv")
    grouped = frame[frame["resolution_date"] != ""].groupby("question_id")["resolution_date"].agg(frozenset).to_dict()
    assert rnd.dates == grouped and list(rnd.dates) == list(grouped)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=400), st.sampled_from(["csv", "json"]))
def test_arbitrary_bytes_never_raise(data, fmt):
    parsed = parse_forecast(data, FILE, fmt)
    problems = parsed.problems + (check_content(parsed, ROUND) if parsed.columns else [])
    assert all(p.code in CODES for p in problems)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.text(max_size=12), min_size=1, max_size=6), max_size=8))
def test_arbitrary_csv_text_never_raises(rows):
    import csv
    import io

    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows([["question_id", "resolution_date", "probability", "reasoning"], *rows])
    parsed = parse_forecast(buffer.getvalue().encode("utf-8", "surrogatepass"), FILE, "csv")
    problems = parsed.problems + (check_content(parsed, ROUND) if parsed.columns else [])
    assert all(p.code in CODES for p in problems)


def test_a_file_outside_the_hub(tmp_path):
    from generator.submissions import validate_files

    hub = tmp_path / "hub"
    hub.mkdir()
    stray = tmp_path / "x.csv"
    stray.write_text(HEADER + FULL)
    report = validate_files(hub, [stray], AT_OPEN)
    assert [(p.code, p.file) for p in report.problems] == [("outside-submission-area", str(stray))]


# -- the validator accepts only what the readers read (Hardening II) -----------------------------------

BETS_HEADER = "question_id,placed_at,side,amount,reasoning\n"


@pytest.mark.parametrize("amount", ["\u0665\u0660\u0660", "500\u00a0", "\uff15\uff10\uff10", "5_00", "inf", "0x1p9"])
def test_a_bet_amount_the_reader_cannot_read_is_refused(amount):
    from generator.submissions.bets import check_bet_file

    body = BETS_HEADER + f'manifold:m1,2026-01-20T10:00:00Z,YES,"{amount}",\n'
    assert [(p.code, p.row, p.column) for p in check_bet_file(body.encode(), FILE, ROUND)] == [("bad-bet-amount", 2, "amount")]


def test_a_bet_time_with_unicode_digits_or_a_trailing_newline_is_refused():
    from generator.submissions.bets import check_bet_file

    for placed in ("2026-01-2\u0660T10:00:00Z", "2026-01-20T10:00:00Z\n"):
        body = BETS_HEADER + f'manifold:m1,"{placed}",YES,500,\n'
        assert [p.code for p in check_bet_file(body.encode(), FILE, ROUND)] == ["bad-bet-time"]


def test_a_cell_only_the_reader_refuses_is_still_reported_with_its_row_and_column(monkeypatch):
    """The readers' own cell check runs last: a gap in the validator's checks cannot let a file through."""
    import generator.submissions.content as content

    monkeypatch.setattr(content, "probability_problem", lambda text: None)  # a validator that checks nothing
    assert found(HEADER + FULL.replace("0.2", "0.2\u00a0")) == [("unreadable-cell", 3, "probability")]


def test_problems_past_200_per_file_are_counted_not_listed():
    body = HEADER + "manifold:m1,,abc,\n" * 1000
    parsed = parse_forecast(body.encode(), FILE, "csv")
    problems = parsed.problems + check_content(parsed, ROUND) + parsed.summary()
    assert len(problems) == 201 and problems[-1].code == "too-many-problems"
    assert "1,799 more error(s)" in problems[-1].message  # 1000 not a number + 999 duplicates − 200


def test_a_million_bad_rows_keep_only_200_problems():
    parsed = parse_forecast((HEADER + "x\n" * 1_000_000).encode(), FILE, "csv")
    assert len(parsed.problems) == 200 and parsed.rows == []
    assert [p.code for p in parsed.summary()] == ["too-many-problems"] and "999,800 more" in parsed.summary()[0].message


def test_warnings_past_the_cap_get_a_warning_summary():
    body = HEADER + "".join(f"manifold:m{i},,0.5,=1+{i}\n" for i in range(300))
    parsed = parse_forecast(body.encode(), FILE, "csv")
    problems = check_content(parsed, None) + parsed.summary()
    assert [p.code for p in problems[-1:]] == ["too-many-warnings"] and problems[-1].severity == "warning"


def test_a_huge_model_yaml_is_refused_by_its_size_before_it_is_read(tmp_path, monkeypatch):
    from generator.submissions import validate_files
    from generator.submissions.validate import DiskTree

    meta = tmp_path / "data/models/acme.gpt-x.yml"
    meta.parent.mkdir(parents=True)
    with meta.open("wb") as handle:
        handle.truncate(2 * 1024**3)  # a sparse 2 GB file: reading it would take 2 GB of memory
    forecast = tmp_path / FILE
    forecast.parent.mkdir(parents=True)
    forecast.write_text(HEADER + FULL)
    reads = []
    monkeypatch.setattr(DiskTree, "read", lambda self, path: reads.append(path) or (self.root / path).read_bytes())
    report = validate_files(tmp_path, [forecast], datetime(2026, 1, 20, tzinfo=UTC))
    assert ("file-too-large", "data/models/acme.gpt-x.yml") in {(p.code, p.file) for p in report.problems}
    assert "data/models/acme.gpt-x.yml" not in reads


def _git(repo, *args):
    import subprocess

    subprocess.run(
        ["git", "-C", str(repo), *args],
        check=True,
        capture_output=True,
        env={
            "GIT_AUTHOR_NAME": "t",
            "GIT_AUTHOR_EMAIL": "t@x",
            "GIT_COMMITTER_NAME": "t",
            "GIT_COMMITTER_EMAIL": "t@x",
            "HOME": str(repo),
            "PATH": __import__("os").environ["PATH"],
        },
    )


def test_a_pull_request_of_more_than_100_files_is_refused_unread(tmp_path, monkeypatch):
    from generator.store.git import GitTree
    from generator.submissions import validate_pr

    _git(tmp_path, "init", "-q", "-b", "main")
    (tmp_path / "README").write_text("hub\n")
    _git(tmp_path, "add", "README")
    _git(tmp_path, "commit", "-q", "-m", "base")
    for i in range(101):
        path = tmp_path / f"data/forecasts/2026-01-{i % 28 + 1:02d}/acme.m{i}.csv"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(HEADER)
    _git(tmp_path, "add", "data")
    _git(tmp_path, "commit", "-q", "-m", "head")
    monkeypatch.setattr(GitTree, "read", lambda *a: pytest.fail("a file of a refused pull request was read"))
    report = validate_pr(tmp_path, "HEAD~1", "HEAD", "alice", datetime(2026, 1, 20, tzinfo=UTC))
    assert [(p.code, p.severity) for p in report.problems] == [("too-many-files", "error")]
    assert "101 files" in report.problems[0].message and "cap is 100" in report.problems[0].message
