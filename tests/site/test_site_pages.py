"""The generated pages, without a browser: question pages, downloads, board panels, calibration."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest

from generator.site.payloads import payload_rows
from generator.site.questions import RECENT_ROUNDS, question_slug

GENERATED = Path("site_src/docs/generated")


@pytest.mark.parametrize(
    "question_id,slug",
    [
        ("sim:m0001", "sim--m0001"),
        ("manifold:Abc_12-x", "manifold--Abc_12-x"),
        ("fred:DGS10", "fred--DGS10"),
    ],
)
def test_plain_question_ids_keep_a_readable_page_name(question_id: str, slug: str) -> None:
    assert question_slug(question_id) == slug


@pytest.mark.parametrize(
    "question_id",
    [
        "dbnomics:ECB/EXR/D.USD.EUR.SP00.A",
        "x:../../etc/passwd",
        "x:.hidden",
        "x:a b",
        "x:é",
        "x:" + "a/" * 80,
    ],
)
def test_odd_question_ids_get_a_safe_unique_page_name(question_id: str) -> None:
    slug = question_slug(question_id)
    assert re.fullmatch(r"[A-Za-z0-9_-][A-Za-z0-9._-]*", slug) and ".." not in slug and len(slug) <= 80
    assert question_slug(question_id + "x") != slug


def _asked(demo_hub: Path) -> list[str]:
    return sorted(
        pd.concat([pd.read_csv(p, dtype=str, keep_default_na=False) for p in (demo_hub / "data/rounds").glob("*/questions.csv")])[
            "question_id"
        ].unique()
    )


def test_every_asked_question_has_a_page_out_of_nav_found_by_search_by_id_and_title(demo_hub: Path) -> None:
    asked = _asked(demo_hub)
    site = demo_hub / "site_src/site"
    pages = {p.parent.name for p in (site / "generated/questions").glob("*/index.html")}
    assert pages == {question_slug(q) for q in asked}, "one page per asked question, and the shell is gone"
    bodies = {p.stem for p in (demo_hub / GENERATED / "question-pages").glob("*.html")}
    assert bodies == pages
    assert not (site / "generated/question-pages").exists(), "the body fragments are not published on their own"
    html = (site / "generated/questions" / question_slug(asked[0]) / "index.html").read_text(encoding="utf-8")
    assert "PRESCIENT-QUESTION" not in html and "prescient-question-shell" not in html
    assert html.count("<h1") == 1 and 'id="prescient-forecasts"' in html
    assert "generated/questions/*.md" in (demo_hub / "site_src/mkdocs.yml").read_text(encoding="utf-8")
    index = json.loads((site / "search/search_index.json").read_text(encoding="utf-8"))
    found = {d["location"]: d for d in index["docs"] if d["location"].startswith("generated/question")}
    assert set(found) == {f"generated/questions/{question_slug(q)}/" for q in asked}, "every question page, once"
    heads = json.loads((demo_hub / GENERATED / "question-pages" / "pages.json").read_text(encoding="utf-8"))
    first = found[f"generated/questions/{question_slug(asked[0])}/"]
    assert first["title"] == heads[question_slug(asked[0])]["heading"]
    assert first["text"].split() == [asked[0], asked[0].split(":", 1)[1]], "its id, and the native id alone"
    assert "prescient-forecasts" not in json.dumps(index), "the forecast tables stay out of the index"


def _payload(page: str) -> dict:
    found = re.search(r'<script type="application/json" id="prescient-forecasts">(.*?)</script>', page, re.S)
    assert found, "the page carries its forecasts"
    return json.loads(found.group(1))


def _asked_in(demo_hub: Path) -> dict[str, list[str]]:
    """Each question id's rounds (due dates, sorted), from the rounds' question sets."""
    asked: dict[str, list[str]] = {}
    for path in sorted((demo_hub / "data/rounds").glob("*/questions.csv")):
        for qid in pd.read_csv(path, dtype=str, keep_default_na=False)["question_id"].unique():
            asked.setdefault(qid, []).append(path.parent.name)
    return asked


def _forecasts_on_the_page(demo_hub: Path, qid: str) -> tuple[str, dict, list[tuple[str, str, float]]]:
    page = (demo_hub / "site_src/site/generated/questions" / question_slug(qid) / "index.html").read_text(encoding="utf-8")
    payload = _payload(page)
    script = (demo_hub / "site_src/site/generated/assets/question-models.js").read_text(encoding="utf-8")
    models = json.loads(script.removeprefix("window.prescientModels = ").rstrip().removesuffix(";"))
    units, indexes = payload_rows(payload)
    got = [(payload["rounds"][payload["units"][u][0]], models[m], p) for u, m, p in zip(units.tolist(), indexes.tolist(), payload["p"], strict=True)]
    return page, payload, got


def _forecasts_in_the_files(demo_hub: Path, qid: str, rounds: list[str]) -> list[tuple[str, str, float]]:
    """The forecasts of ``qid`` in the hub's files of ``rounds``, but the last round's: due after the
    demo's last night, it is still open, and an open round's forecasts are never published."""
    expected, last = [], max(p.name for p in (demo_hub / "data/rounds").iterdir())
    for path in sorted((demo_hub / "data/forecasts").glob("*/*.csv")):
        if path.parent.name in rounds and path.parent.name != last:
            rows = pd.read_csv(path, dtype=str, keep_default_na=False)
            expected += [(path.parent.name, path.stem, round(float(p), 6)) for p in rows.loc[rows["question_id"] == qid, "probability"]]
    return expected


def test_question_page_carries_every_forecast_of_its_latest_rounds(demo_hub: Path) -> None:
    asked = _asked_in(demo_hub)
    few = next(q for q, rounds in asked.items() if len(rounds) <= RECENT_ROUNDS and _forecasts_in_the_files(demo_hub, q, rounds))
    page, payload, got = _forecasts_on_the_page(demo_hub, few)
    assert sorted(got) == sorted(_forecasts_in_the_files(demo_hub, few, asked[few])) and len(got) > 0
    assert "older-rounds" not in page, "a question asked in no more rounds than a page shows has no earlier rounds"
    assert 'src="../../assets/question-models.js"' in page, "the page loads the shared model list"
    scores = pd.concat([pd.read_csv(p, dtype=str, keep_default_na=False) for p in (demo_hub / "data/scores").glob("*.csv")])
    scored = scores[(scores["question_id"] == few)]
    for round_index, date, outcome, _runs in payload["units"]:
        rows = scored[(scored["round"] == payload["rounds"][round_index]) & (scored["resolution_date"] == date)]
        assert (outcome is None) == rows.empty, "a unit shows an outcome exactly when it is scored"
        if outcome is not None:
            assert {float(o) for o in rows["outcome"]} == {float(outcome)}


def test_a_question_asked_in_many_rounds_shows_its_latest_and_links_each_earlier_rounds_files(demo_hub: Path) -> None:
    """A page's size is bounded (its latest ``RECENT_ROUNDS`` rounds), and a reader still
    reaches every earlier forecast: the page links each earlier round's page, which links the
    forecast file of each of that round's forecasters (the file holds this question's rows)."""
    asked = _asked_in(demo_hub)
    many = [q for q, rounds in asked.items() if len(rounds) > RECENT_ROUNDS]
    assert many, "the demo asks some questions in more rounds than a page shows"
    qid = max(many, key=lambda q: (len(asked[q]), q))
    latest, older = asked[qid][-RECENT_ROUNDS:], asked[qid][:-RECENT_ROUNDS]
    page, payload, got = _forecasts_on_the_page(demo_hub, qid)
    assert sorted(got) == sorted(_forecasts_in_the_files(demo_hub, qid, latest)) and len(got) > 0
    assert set(payload["rounds"]) <= set(latest)
    found = re.search(r'<p class="prescient-older-rounds" data-older-rounds="(\d+)">(.*?)</p>', page, re.S)
    assert found and int(found.group(1)) == len(older)
    assert re.findall(r'href="\.\./\.\./rounds/([^/"]+)/"', found.group(2)) == older[::-1], "each earlier round, latest first"
    assert f"latest {RECENT_ROUNDS} rounds" in page and f'href="#older-rounds">{len(older)} earlier round' in page
    for due in older:
        files = [
            p
            for p in sorted((demo_hub / "data/forecasts" / due).glob("*.csv"))
            if qid in set(pd.read_csv(p, dtype=str, keep_default_na=False)["question_id"])
        ]
        assert files, f"someone forecast {qid} in {due}"
        round_page = (demo_hub / "site_src/site/generated/rounds" / due / "index.html").read_text(encoding="utf-8")
        for path in files:  # the round page links this forecaster's file, offered byte for byte
            href = f"../../downloads/forecasts/{due}/{path.name}"
            assert f'href="{href}"' in round_page, href
            offered = demo_hub / "site_src/site/generated/downloads/forecasts" / due / path.name
            assert offered.read_bytes() == path.read_bytes()


def test_round_files_and_forecasts_are_offered_as_downloads_byte_for_byte(demo_hub: Path) -> None:
    site = demo_hub / "site_src/site/generated/downloads"
    for path in (demo_hub / "data/rounds").glob("*/questions.*"):
        assert (site / "rounds" / path.parent.name / path.name).read_bytes() == path.read_bytes()
    forecasts = sorted((demo_hub / "data/forecasts").glob("*/*.csv"))
    last = max(p.name for p in (demo_hub / "data/rounds").iterdir())  # due after the demo's last night: still open
    assert forecasts and any(p.parent.name == last for p in forecasts)
    for path in forecasts:
        offered = site / "forecasts" / path.parent.name / path.name
        if path.parent.name == last:  # an open round's forecasts are never published
            assert not offered.exists()
        else:
            assert offered.read_bytes() == path.read_bytes()


def test_home_has_one_panel_per_configured_board_and_view(demo_hub: Path) -> None:
    text = (demo_hub / GENERATED / "leaderboard.md").read_text(encoding="utf-8")
    panels = re.findall(r'class="prescient-panel" data-board="([^"]+)" data-view="([^"]+)"', text)
    assert panels == [(b, v) for b in ("tournament", "baseline") for v in ("overall", "dataset", "market", "resolved-only")]
    hidden = re.findall(r'class="prescient-panel" data-board="[^"]+" data-view="[^"]+" hidden>', text)
    assert len(hidden) == len(panels) - 1  # only the first is shown before the script runs
    assert "Brier Index" in text and "Rank 95%" in text


def test_model_page_has_calibration_decomposition_and_downloads(demo_hub: Path) -> None:
    page = (demo_hub / GENERATED / "models" / "demo.calibrated.md").read_text(encoding="utf-8")
    assert "## Calibration" in page and "Reliability" in page and "Within-bin remainder" in page
    assert page.count('class="prescient-chart"') >= 2
    assert re.search(r'href="\.\./\.\./downloads/forecasts/\d{4}-\d\d-\d\d/demo\.calibrated\.csv" download', page)


def test_model_page_breaks_scores_down_by_source_category_and_horizon(demo_hub: Path) -> None:
    page = (demo_hub / GENERATED / "models" / "demo.calibrated.md").read_text(encoding="utf-8")
    scores = pd.concat([pd.read_csv(p, dtype=str) for p in (demo_hub / "data/scores").glob("*.csv")])
    mine = scores[scores["model"] == "demo.calibrated"]
    for title in ("<th>Source</th>", "<th>Category</th>", "<th>Horizon (days)</th>"):
        assert title in page
    section = page.split("## By source, category and horizon", 1)[1].split("## Calibration", 1)[0]
    dataset = mine[mine["kind"] == "dataset"]
    horizons = (pd.to_datetime(dataset["resolution_date"]) - pd.to_datetime(dataset["round"])).dt.days
    for days, n in horizons.value_counts().items():  # every horizon row with its N
        assert f"<tr><td>{days}</td>" in section and f'<td data-value="{n}">{n}</td></tr>' in section
    assert sum(int(n) for n in re.findall(r'<td data-value="\d+">(\d+)</td></tr>', section.split("<th>Category</th>")[0])) == len(mine)


def test_forecasters_not_on_the_board_still_get_a_page_and_a_row_in_the_models_index(demo_hub: Path) -> None:
    """A team whose only round has not resolved (and one that only bets) must not be a dead link."""
    import dataclasses

    from generator.models import ModelMeta
    from generator.pipeline.demo import SEASON_END
    from generator.site.build import gather
    from generator.site.render import render_site

    data = gather(demo_hub, SEASON_END)
    last = data.rounds[-1]
    rounds = [*data.rounds[:-1], dataclasses.replace(last, participants=(*last.participants, "late.model"))]
    arena = pd.concat([data.arena, data.arena.iloc[:1].assign(model="bets.only")], ignore_index=True)
    models = {**data.models, "late.model": ModelMeta(id="late.model", name="Late <b>Model</b>", organization="Late", kind="llm")}
    files = render_site(dataclasses.replace(data, rounds=rounds, arena=arena, models=models))
    late = files["generated/models/late.model.md"].decode("utf-8")
    assert "Late &lt;b&gt;Model&lt;/b&gt;" in late and "No resolved forecasts yet." in late
    assert f'<a href="../../rounds/{last.due}/">Round due {last.due}</a>' in late
    assert "generated/models/bets.only.md" in files
    index = files["generated/models/index.md"].decode("utf-8")
    late_row = index[index.index('<a href="../models/late.model/">') :]
    late_row = late_row[: late_row.index("</tr>")]
    assert 'Late &lt;b&gt;Model&lt;/b&gt;</a></td>\n<td>Late</td>\n<td>llm</td>\n<td data-value="">not scored yet</td>' in late_row
    assert f'<td data-value="1">1 <span class="prescient-ci">({last.due})</span></td>' in late_row
    bets = index[index.index('<a href="../models/bets.only/">bets.only</a>') :]
    assert '<td class="pc-more">Arena</td>' in bets[: bets.index("</tr>")]
    round_page = files[f"generated/rounds/{last.due}.md"].decode("utf-8")
    linked = set(re.findall(r'href="\.\./\.\./models/([^/"]+)/"', round_page))
    assert "late.model" in linked and all(f"generated/models/{m}.md" in files for m in linked), "no dead model links"


def _one_models_breakdowns(scores: pd.DataFrame) -> list[dict]:
    """The breakdowns of one model's rows by a grouping of its own (what the model pages did per model)."""
    from generator.leaderboard.views import horizon_days

    keyed = scores.assign(category=scores["category"].fillna("").replace("", "(none)"), horizon=horizon_days(scores))
    tables = []
    for title, column in (("Source", "source"), ("Category", "category"), ("Horizon (days)", "horizon")):
        rows = keyed.dropna(subset=[column]) if column == "horizon" else keyed
        if not len(rows):
            continue
        grouped = rows.groupby(column, sort=True)["brier"].agg(["mean", "count"]).reset_index()
        keys = [f"{int(v)}" if column == "horizon" else str(v) for v in grouped[column]]
        tables.append(
            {
                "title": title,
                "rows": [
                    {"key": k, "mean": m, "count": c} for k, m, c in zip(keys, grouped["mean"].tolist(), grouped["count"].tolist(), strict=True)
                ],
            }
        )
    return tables


def test_the_breakdowns_of_every_model_at_once_are_each_models_own() -> None:
    """Grouped once over every model's rows, each model's tables are what a grouping of its own rows gives, float
    for float: sorted keys, blank categories as "(none)", markets without a horizon, a missing source left out
    (its table kept, empty), a missing Brier not counted, a model with no rows without tables."""
    import numpy as np

    from generator.schemas import SCORES
    from generator.site.breakdowns import breakdowns
    from generator.store.csvio import empty_frame

    rng = np.random.default_rng(7)
    n = 600
    frame = pd.DataFrame(
        {
            "model": rng.choice(["b", "a", "c"], n),
            "source": rng.choice(["fred", "acled", "manifold"], n).astype(object),
            "category": rng.choice(["", "Economy", None, "Science"], n),
            "kind": rng.choice(["dataset", "market"], n),
            "round": rng.choice(["2025-01-05", "2025-01-19"], n),
            "resolution_date": rng.choice(["2025-02-05", "2025-03-19", "2025-07-01"], n),
            "brier": rng.random(n) / 3,
        }
    )
    frame.loc[frame.index[::17], "brier"] = np.nan
    frame.loc[(frame["model"] == "c").to_numpy(), "source"] = None  # every source of c missing
    frame.loc[(frame["model"] == "b").to_numpy(), "kind"] = "market"  # b has no horizon
    by_model = {m: g for m, g in frame.groupby("model", sort=True)}
    by_model["d"] = empty_frame(SCORES)
    got = breakdowns(by_model)
    assert set(got) == {"a", "b", "c", "d"} and got["d"] == []
    for model in "abc":
        assert got[model] == _one_models_breakdowns(by_model[model]), model
    assert [t["title"] for t in got["b"]] == ["Source", "Category"] and got["c"][0] == {"title": "Source", "rows": []}
