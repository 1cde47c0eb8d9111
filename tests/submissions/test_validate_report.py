"""Report rendering: deterministic text, Markdown that keeps submitter text inert, and JSON."""

from __future__ import annotations

import json

import pytest

from generator.submissions import Report, problem, render
from generator.submissions.report import MAX_MARKDOWN_ROWS, code, md, printable

from helpers import HOSTILE_TEXTS, assert_inert_markdown

FILE = "data/forecasts/2026-01-25/acme.gpt-x.csv"


def sample() -> Report:
    problems = (
        problem("probability-out-of-range", FILE, 3, "probability", "'1.5' is outside [0, 1]"),
        problem("low-coverage", FILE, None, None, "the file forecasts 3 of 4"),
        problem("unknown-question", FILE, 2, "question_id", "'<img src=x onerror=alert(1)>|@team' is not in the round"),
    )
    return Report("2026-01-20T00:00:00Z", (FILE,), problems, ("round 2026-01-25 is due 2026-01-25T00:00:00Z (UTC)",))


def test_problems_are_sorted_and_rendering_is_deterministic():
    report = sample()
    assert [p.code for p in report.problems] == ["low-coverage", "unknown-question", "probability-out-of-range"]
    shuffled = Report(report.at, report.files, tuple(reversed(report.problems)), report.notes)
    for fmt in ("text", "markdown", "json"):
        assert render(report, fmt) == render(shuffled, fmt)


def test_text_report():
    text = render(sample(), "text")
    assert text.splitlines()[0] == "Failed: 2 error(s) and 1 warning(s) in 1 file(s) checked at 2026-01-20T00:00:00Z (UTC)."
    assert f"  error: {FILE}, row 3, column 'probability': [probability-out-of-range] '1.5' is outside [0, 1]" in text


def test_markdown_report_has_summary_table_legend_and_next_steps():
    text = render(sample(), "markdown")
    assert "❌ **Failed: 2 error(s) and 1 warning(s)" in text
    assert "| severity | file | row | column | code | message |" in text
    assert "| error | data/forecasts/2026-01-25/acme.gpt-x.csv | 3 | probability | `probability-out-of-range` |" in text
    assert "- `unknown-question`: The question id is not in the round's question set." in text
    assert "**Next:** fix every error above" in text


def test_markdown_keeps_submitter_text_inert():
    text = render(sample(), "markdown")
    assert "<img" not in text and "&lt;img src=x onerror=alert(1)&gt;\\|@\u200bteam" in text
    assert md("a\nb|c`d[e](f)") == "a\\\\nb\\|c\\`d\\[e\\](f)"
    assert md("x" * 400).endswith("…") and len(md("x" * 400)) == 301


def test_markdown_caps_the_table():
    many = tuple(problem("empty-value", FILE, i, "question_id", f"empty {i}") for i in range(2, MAX_MARKDOWN_ROWS + 12))
    text = render(Report("2026-01-20T00:00:00Z", (FILE,), many), "markdown")
    same = tuple(problem("empty-value", FILE, i, "question_id", "empty") for i in range(2, MAX_MARKDOWN_ROWS + 12))
    grouped = render(Report("2026-01-20T00:00:00Z", (FILE,), same), "markdown")  # identical: one row, counted
    assert grouped.count("`empty-value` |") == 1 and f"| {MAX_MARKDOWN_ROWS + 10} rows: rows 2, 3, 4, 5, 6, … |" in grouped
    assert text.count("`empty-value` |") == MAX_MARKDOWN_ROWS and "… and 10 more" in text


def test_passing_report():
    report = Report("2026-01-20T00:00:00Z", (FILE,))
    assert report.ok and render(report, "text").startswith("Passed: 1 file(s)")
    assert "✅" in render(report, "markdown")


def test_json_report():
    body = json.loads(render(sample(), "json"))
    assert (body["ok"], body["errors"], body["warnings"], body["files"]) == (False, 2, 1, [FILE])
    assert body["problems"][0] == {
        "file": FILE,
        "row": None,
        "column": None,
        "code": "low-coverage",
        "severity": "warning",
        "message": "the file forecasts 3 of 4",
    }


def hostile_report() -> Report:
    names = [f"data/forecasts/2026-01-25/{h}.csv" for h in HOSTILE_TEXTS]
    problems = [problem("bad-file-name", n, None, None, f"{n!r} is not <team>.<model>") for n in names]
    problems += [problem("unknown-question", FILE, i + 2, h, f"{h} is not in the round") for i, h in enumerate(HOSTILE_TEXTS)]
    return Report("2026-01-20T00:00:00Z", tuple(names + [FILE]), tuple(problems))


def test_hostile_names_and_cells_are_inert_in_markdown():
    report = hostile_report()
    text = render(report, "markdown")
    assert_inert_markdown(text, report)
    assert not any(line.startswith("| error | forged.csv") for line in text.split("\n"))
    assert "\\\\xff\\\\xfe not UTF-8" in text  # the bytes of a non-UTF-8 name, shown as escapes


def test_hostile_names_keep_the_text_report_one_problem_a_line():
    report = hostile_report()
    text = render(report, "text")
    text.encode("utf-8")
    lines = text.split("\n")
    assert len(lines) == 1 + len(report.problems) + 1 + 1  # summary, problems, the hint, the final ""
    assert all(line.isprintable() for line in lines)
    assert "a\\n| error | forged.csv" in text and "\\xff\\xfe not UTF-8" in text and "\\u202egnp" in text


def test_hostile_names_give_valid_utf8_json():
    report = hostile_report()
    text = render(report, "json")
    body = json.loads(text.encode("utf-8"))
    assert len(body["files"]) == len(report.files) and len(body["problems"]) == len(report.problems)
    assert "data/forecasts/2026-01-25/\\xff\\xfe not UTF-8.csv" in body["files"]
    assert all(f.isprintable() for f in body["files"])


def test_printable_and_code():
    assert printable("plain text, ünïcode ✓") == "plain text, ünïcode ✓"
    assert printable("a\nb\tc\x00\x7f\x85\u2028\u202e\u200b\ufeff\udcc3\ud800") == "a\\nb\\tc\\x00\\x7f\\x85\\u2028\\u202e\\u200b\\ufeff\\xc3\\ud800"
    assert printable(None) == ""
    assert code("a.csv") == "`a.csv`" and code("a`b") == "``a`b``" and code("`x") == "`` `x ``"
    assert code("a\nb") == "`a\\nb`"


def test_the_file_list_is_capped():
    files = tuple(f"data/forecasts/2026-01-25/t.m{i:04d}.csv" for i in range(MAX_MARKDOWN_ROWS + 5))
    text = render(Report("2026-01-20T00:00:00Z", files), "markdown")
    assert text.count("\n- `data/") == MAX_MARKDOWN_ROWS and "- … and 5 more" in text


@pytest.mark.parametrize("fmt", ["text", "markdown", "json"])
def test_every_report_names_the_submit_page_last(fmt):
    """Without a site the page's source in the repository; with hub.toml's site_url, the published page."""
    url = "https://acme.github.io/hub/submit/"
    for report in (sample(), Report("2026-01-20T00:00:00Z", (FILE,))):
        plain = render(report, fmt)
        linked = render(report, fmt, url)
        if fmt == "json":
            assert json.loads(plain)["submit_page"] == "site_src/docs/submit.md"
            assert json.loads(linked)["submit_page"] == url
            continue
        assert plain.rstrip("\n").splitlines()[-1].endswith("site_src/docs/submit.md" + ("`" if fmt == "markdown" else ""))
        last = linked.rstrip("\n").splitlines()[-1]
        assert last.endswith(f"<{url}>" if fmt == "markdown" else url) and "Submit page" in last
