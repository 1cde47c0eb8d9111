"""The [oracle] stage inside the nightly run and under the git audit, on the offline sim world: the
Sim Wire read by the intake, its questions made by the template maker (labelled, not an LLM); a
feed that fails never stops the night; the stage's ledgers are guarded as append-only."""

from __future__ import annotations

import httpx
import pytest

from generator.audit import git as audit_git
from generator.errors import PartialFailure
from generator.pipeline.nightly import nightly
from generator.schemas import NEWS, ORACLE_ARTICLES, ORACLE_GENERATED
from generator.store.csvio import read_table
from generator.timeutil import parse_ts

from helpers import SMALL_HUB, commit_at, git, write_hub

ORACLE = """
news_start = "2026-01-10T00:00:00Z"

[oracle]
question_set = "sim-news"
feeds = ["sim:news"{extra}]
maker = "template"
host_rate_per_second = 1000
"""
NIGHTS = ("2026-01-13T00:00:00Z", "2026-01-14T00:00:00Z", "2026-01-16T00:00:00Z")


def oracle_hub(tmp_path, extra: str = ""):
    return write_hub(tmp_path / "hub", SMALL_HUB + ORACLE.format(extra=extra))


def test_the_nightly_runs_the_stage_and_labels_what_the_template_maker_made(tmp_path):
    root = oracle_hub(tmp_path)
    for night in NIGHTS:
        report = nightly(root, parse_ts(night), env={})
    assert report.oracle is not None and report.oracle.news is not None and report.oracle.generated is not None
    generated = read_table(root / "data/oracle/sim-news/generated.csv", ORACLE_GENERATED)
    assert len(generated) and set(generated["maker"]) == {"template"} and set(generated["kept"]) <= {0, 1}
    news = read_table(root / "data/news/2026-01.csv", NEWS)
    assert set(news.loc[news["summarized_by"] != "", "summarized_by"]) == {"template"}
    assert set(read_table(root / "data/oracle/sim-news/articles.csv", ORACLE_ARTICLES)["day"].astype(str)) <= {
        "2026-01-11",
        "2026-01-12",
        "2026-01-13",
        "2026-01-14",
        "2026-01-15",
    }
    before = {p: p.read_bytes() for p in (root / "data").rglob("*.csv")}
    nightly(root, parse_ts(NIGHTS[-1]), env={})  # the same night again changes no byte
    assert {p: p.read_bytes() for p in (root / "data").rglob("*.csv")} == before


def test_a_feed_that_fails_never_stops_the_night(tmp_path):
    root = oracle_hub(tmp_path, ', "https://down.example.org/feed.xml"')
    client = httpx.Client(transport=httpx.MockTransport(lambda request: httpx.Response(503)))
    with pytest.raises(PartialFailure) as caught:
        nightly(root, parse_ts(NIGHTS[0]), env={}, client=client)
    assert [p.code for p in caught.value.problems] == ["feed-failed"]
    assert "the oracle stage reported 1 problem" in str(caught.value)
    assert (root / "data/questions/sim.csv").is_file() and (root / "data/news/2026-01.csv").is_file()  # the rest was written


def test_without_an_llm_key_the_llm_maker_is_skipped_with_a_note(tmp_path):
    root = write_hub(tmp_path / "hub", SMALL_HUB + ORACLE.format(extra="").replace('maker = "template"', 'maker = "llm"'))
    report = nightly(root, parse_ts(NIGHTS[0]), env={})
    assert report.oracle is not None and report.oracle.generated is None
    assert any("PRESCIENT_LLM_API_KEY" in note for note in report.oracle.notes)


def test_the_stages_ledgers_are_append_only_under_the_git_audit(tmp_path):
    root = oracle_hub(tmp_path)
    git(root, "init", "-q", "-b", "main")
    for night in NIGHTS[:2]:
        nightly(root, parse_ts(night), env={})
        commit_at(root, night.replace("T00", "T01"), f"nightly {night}")
    assert [p for p in audit_git.audit_history(root)[1] if p.severity == "error"] == []
    for path in ("data/news/2026-01.csv", "data/oracle/sim-news/articles.csv", "data/oracle/sim-news/generated.csv"):
        assert audit_git.is_ledger(path)
    generated = root / "data/oracle/sim-news/generated.csv"
    lines = generated.read_text().splitlines(keepends=True)
    generated.write_text("".join(lines[:-1]))
    news = root / "data/news/2026-01.csv"
    rows = news.read_text().splitlines(keepends=True)
    edited = next(i for i, row in enumerate(rows) if ",template," in row)
    rows[edited] = rows[edited].replace("simulated", "SIMULATED", 1)  # a summary edited
    news.write_text("".join(rows))
    commit_at(root, "2026-01-14T12:00:00Z", "rewrite history")
    found = sorted((p.code, p.file) for p in audit_git.audit_history(root)[1] if p.severity == "error")
    assert found == [("ledger-row-deleted", "data/oracle/sim-news/generated.csv"), ("ledger-row-rewritten", "data/news/2026-01.csv")]
