"""Report rendering: deterministic text, Markdown that keeps submitter text inert, and JSON."""

from __future__ import annotations

import json

from generator.submissions import Report, problem, render
from generator.submissions.report import MAX_MARKDOWN_ROWS, md

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
    assert md("a\nb|c`d[e](f)") == "a b\\|c\\`d\\[e\\](f)"
    assert md("x" * 400).endswith("…") and len(md("x" * 400)) == 301


def test_markdown_caps_the_table():
    many = tuple(problem("empty-value", FILE, i, "question_id", "empty") for i in range(2, MAX_MARKDOWN_ROWS + 12))
    text = render(Report("2026-01-20T00:00:00Z", (FILE,), many), "markdown")
    assert text.count("`empty-value` |") == MAX_MARKDOWN_ROWS and "… and 10 more" in text


def test_passing_report():
    report = Report("2026-01-20T00:00:00Z", (FILE,))
    assert report.ok and render(report, "text").startswith("Passed: 1 file(s)")
    assert "✅" in render(report, "markdown")


def test_json_report():
    body = json.loads(render(sample(), "json"))
    assert (body["ok"], body["errors"], body["warnings"], body["files"]) == (False, 2, 1, [FILE])
    assert body["problems"][0] == {"file": FILE, "row": None, "column": None, "code": "low-coverage",
                                   "severity": "warning", "message": "the file forecasts 3 of 4"}
