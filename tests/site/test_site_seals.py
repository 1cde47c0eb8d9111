"""The seals on the round and model pages (site/seal_rows.py): for each model and kind, the version that
counts, its attested time beside the model's name, the evidence, the validation run (linked on GitHub
when ``repo_url`` is set), the blob id and how many versions were seen. Hand-made ledgers here; the
demo's round pages in test_site_seals_demo.py."""

from __future__ import annotations

import re

import pandas as pd

from generator.models import ModelMeta
from generator.schemas import SEALS
from generator.site.render import render_site
from generator.site.rounds import RoundStatus
from generator.site.seal_rows import ahead_of, seal_index
from generator.site.sitedata import GENERATED, RoundInfo, SiteData
from generator.timeutil import parse_ts

DUE = "2026-01-25"
EVIL = '<img src=x onerror="alert(1)">'


def ledger(*rows: dict) -> pd.DataFrame:
    base = {c: "" for c in SEALS.names} | {"due": DUE, "kind": "forecast", "status": "sealed", "versions": 1, "sealed_at": f"{DUE}T00:00:00Z"}
    return pd.DataFrame([base | r for r in rows], columns=list(SEALS.names))


SEALS_ROWS = ledger(
    {"model": "*", "evidence": "none", "versions": 0, "detail": "2 file(s) sealed or ruled out", "sealed_at": "2026-01-25T00:00:00Z"},
    {
        "model": "acme.bot",
        "path": "data/forecasts/2026-01-25/acme.bot.csv",
        "blob": "ad07fac1da6e814f1607fd54a7147ba71c4d96f6",
        "attested_at": "2026-01-15T01:01:00Z",
        "evidence": "receipt",
        "run_id": 7000000001,
        "head_sha": "a258d04a8ea3eaec4c9394ed6c057b060fa960f2",
        "versions": 3,
    },
    {
        "model": "acme.bot",
        "kind": "bets",
        "blob": "1c8fe7a475fdba1ce411dfaf5b8766c0f8aa2482",
        "attested_at": "2026-01-15T01:01:00Z",
        "evidence": "receipt",
        "run_id": 7000000001,
    },
    {
        "model": "prescient.always-0.5",
        "blob": "8b0fb4d27c1ac2f7aaa1b2b272b3a25ab1eafe06",
        "attested_at": "2026-01-15T00:00:00Z",
        "evidence": "manifest",
    },
    {"model": "late.team", "status": "unproven", "evidence": "none", "versions": 0, "detail": "no record before the due time"},
)


def test_the_seal_index_lists_each_round_and_model_without_the_marker_row() -> None:
    index = seal_index(SEALS_ROWS, {"acme.bot": "Acme Bot"}, {DUE: f"{DUE}T00:00:00Z"}, "https://github.com/o/r")
    rows = index.by_round[DUE]
    assert [(r["model"], r["kind"]) for r in rows] == [
        ("acme.bot", "bets"),
        ("acme.bot", "forecast"),
        ("late.team", "forecast"),
        ("prescient.always-0.5", "forecast"),
    ]
    bot = rows[1]
    assert bot["name"] == "Acme Bot" and bot["attested_at"] == "2026-01-15T01:01:00Z" and bot["versions"] == "3"
    assert bot["run_url"] == "https://github.com/o/r/actions/runs/7000000001" and bot["ahead"] == "9 d 22 h before the due time"
    assert rows[2]["status"] == "unproven" and rows[2]["attested_at"] == "" and not rows[2]["counts"]
    assert rows[3]["run_id"] == "" and rows[3]["run_url"] == "", "a manifest's seal has no validation run"
    assert [r["kind"] for r in index.by_model["acme.bot"]] == ["bets", "forecast"] and index.sealed_at == {DUE: "2026-01-25T00:00:00Z"}
    assert not seal_index(SEALS_ROWS, {}, {}, "").by_round[DUE][1]["run_url"], "no repository: the run id without a link"
    assert seal_index(SEALS_ROWS.iloc[:0], {}, {}).by_round == {}


def test_how_far_ahead_of_the_due_time() -> None:
    assert ahead_of("2026-01-24T23:59:00Z", "2026-01-25T00:00:00Z") == "1 min before the due time"
    assert ahead_of("2026-01-23T00:00:00Z", "2026-01-25T00:00:00Z") == "2 d 0 h before the due time"
    assert ahead_of("2026-01-25T00:00:00Z", "2026-01-25T00:00:00Z") == "at the due time"
    assert ahead_of("2026-01-26T03:00:00Z", "2026-01-25T00:00:00Z") == "1 d 3 h after the due time"
    assert ahead_of("2026-01-24T20:55:00Z", "2026-01-25T00:00:00Z") == "3 h 5 min before the due time"
    assert ahead_of("", "2026-01-25T00:00:00Z") == ""


def _site(repo_url: str = "") -> dict[str, bytes]:
    names = {"acme.bot": EVIL, "prescient.always-0.5": "Always 0.5", "late.team": "Late"}
    models = {m: ModelMeta(id=m, name=n, organization="o", kind="llm") for m, n in names.items()}
    questions = pd.DataFrame(columns=["question_id", "text", "kind", "source", "category", "resolution_date", "freeze_value", "due", "freeze_time"])
    status = RoundStatus("resolving", "closed, resolving (0 of 0 resolved)", f"{DUE}T00:00:00Z", 0, 0, 0)
    data = SiteData(
        title="t",
        as_of=parse_ts("2026-02-01T00:00:00Z"),
        methodology_version="1",
        board=pd.DataFrame(columns=["model"]),
        history=pd.DataFrame(columns=["as_of", "model", "overall"]),
        models=models,
        model_scores={},
        rounds=[RoundInfo(DUE, questions, tuple(sorted(names)), status=status)],
        repo_url=repo_url,
        seals=seal_index(SEALS_ROWS, names, {DUE: f"{DUE}T00:00:00Z"}, repo_url),
    )
    return render_site(data)


def _row(page: str, model: str, kind: str = "forecast", due: str = DUE) -> str:
    found = re.search(rf'<tr class="prescient-seal" data-model="{re.escape(model)}" data-kind="{kind}" data-due="{due}">(.*?)</tr>', page, re.S)
    assert found, (model, kind)
    return found.group(1)


def test_the_round_page_gives_each_models_attested_time_beside_its_name() -> None:
    page = _site("https://github.com/o/r")[f"{GENERATED}/rounds/{DUE}.md"].decode()
    row = _row(page, "acme.bot")
    assert '<a href="../../models/acme.bot/">&lt;img src=x onerror=&#34;alert(1)&#34;&gt;</a>' in row, "the name, escaped"
    assert '<time datetime="2026-01-15T01:01:00Z">2026-01-15T01:01:00Z</time>' in row and "9 d 22 h before the due time" in row
    assert '<a href="https://github.com/o/r/actions/runs/7000000001">7000000001</a>' in row and ">receipt<" in row
    blob = "ad07fac1da6e814f1607fd54a7147ba71c4d96f6"
    assert f'<code title="{blob} (data/forecasts/2026-01-25/acme.bot.csv)" data-blob="{blob}">{blob[:12]}</code>' in row
    assert row.endswith('<td data-value="3">3</td>'), "how many versions were seen"
    assert "unproven" in _row(page, "late.team") and "no record before the due time" in _row(page, "late.team")
    assert ">manifest<" in _row(page, "prescient.always-0.5") and "sealed 2026-01-25T00:00:00Z" in page.replace("</strong>", "").replace(
        "<strong>", ""
    )
    assert 'onerror="' not in page


def test_without_a_repository_the_run_is_named_not_linked_and_the_model_page_lists_its_seals() -> None:
    files = _site()
    row = _row(files[f"{GENERATED}/rounds/{DUE}.md"].decode(), "acme.bot")
    assert "<td>7000000001</td>" in row and "actions/runs" not in row
    model = files[f"{GENERATED}/models/acme.bot.md"].decode()
    assert '<a href="../../rounds/2026-01-25/">2026-01-25</a>' in _row(model, "acme.bot") and "2026-01-15T01:01:00Z" in _row(
        model, "acme.bot", "bets"
    )
