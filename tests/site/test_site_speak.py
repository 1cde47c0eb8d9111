"""The boards in words (site/speak.py), the Changes page's reshuffles, the methodology versions and
the static JSON API (site/api.py): hand-made frames for the rules, the demo for the pages, and the
API's files validated against their published schemas by check-jsonschema."""

from __future__ import annotations

import gzip
import json
import shutil
import subprocess
from pathlib import Path

import pandas as pd
import pytest

from generator.leaderboard.diff import history_diffs
from generator.site.listings import methodology_versions
from generator.site.speak import board_sentence, nights, since_last_night

from helpers import installed

COLUMNS = ["model", "name", "rank", "rank_low", "rank_high", "overall", "overall_ci_low", "overall_ci_high"]


def board(*rows) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=COLUMNS)


def test_a_leader_whose_interval_overlaps_others_is_not_clearly_ahead_of_them():
    frame = board(
        ("a.x", "Ada", 1, 1, 2, 71.2, 69.0, 73.4),
        ("b.x", "Bo", 2, 1, 3, 70.8, 68.1, 73.0),
        ("c.x", "Cy", 3, 2, 4, 69.9, 67.0, 72.2),
        ("d.x", "Di", 4, 4, 4, 60.0, 58.0, 62.0),
    )
    assert board_sentence(frame, "overall") == (
        "Ada leads (Brier Index 71.2 [69.0, 73.4]); it is not clearly ahead of Bo or Cy: their 95% rank intervals overlap its own."
    )


def test_a_leader_alone_in_its_interval_leads_clearly_and_provisional_rows_are_ignored():
    frame = board(
        ("a.x", "Ada", 1, 1, 1, 80.0, 78.0, 82.0), ("b.x", "Bo", 2, 2, 3, 70.0, 68.0, 72.0), ("p.x", "New", None, None, None, 90.0, 85.0, 95.0)
    )
    assert board_sentence(frame, "overall") == (
        "Ada leads (Brier Index 80.0 [78.0, 82.0]), clearly: no other forecaster's 95% rank interval overlaps its own (1–1)."
    )


def test_ties_share_the_lead_and_an_empty_board_says_so_and_many_contenders_are_counted():
    tied = board(("a.x", "Ada", 1, 1, 2, 70.0, 68.0, 72.0), ("b.x", "Bo", 1, 1, 2, 70.0, 68.0, 72.0))
    assert board_sentence(tied, "overall").startswith("Ada or Bo share the lead (Brier Index 70.0")
    assert board_sentence(board(("p.x", "New", None, None, None, 90.0, 85.0, 95.0)), "overall").startswith("No forecaster is ranked")
    crowd = board(*[(f"m{i}.x", f"M{i}", i + 1, 1, 6, 70.0 - i, 60.0, 75.0) for i in range(6)])
    assert "M1, M2, M3 or 2 others" in board_sentence(crowd, "overall")


def night(as_of: str, ranks: dict[str, int]) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "as_of": as_of,
                "board": "tournament",
                "model": m,
                "rank": r,
                "overall": 70.0 - r,
                "n_market": 10,
                "n_dataset": 5,
                "provisional": 0,
                "methodology_version": "1",
            }
            for m, r in ranks.items()
        ]
    )


def test_a_swap_inside_both_models_rank_intervals_is_noise_and_a_jump_out_of_it_is_news():
    history = pd.concat(
        [
            night("2026-03-01T00:00:00Z", {"a.x": 1, "b.x": 2, "c.x": 3}),
            night("2026-03-02T00:00:00Z", {"b.x": 1, "a.x": 2, "c.x": 3}),
            night("2026-03-03T00:00:00Z", {"c.x": 1, "b.x": 2, "a.x": 3}),
        ]
    )
    current = board(("c.x", "Cy", 1, 1, 1, 80.0, 79.0, 81.0), ("b.x", "Bo", 2, 1, 3, 70.0, 68.0, 72.0), ("a.x", "Ada", 3, 1, 3, 69.0, 67.0, 71.0))
    said = nights(history_diffs(history, names={"a.x": "Ada", "b.x": "Bo", "c.x": "Cy"}), {"tournament": current})
    latest, first = said
    assert [c.name for c in first.noise] == ["Bo", "Ada"] and not first.news, "a↔b inside [1, 3] is a reshuffle"
    assert [c.name for c in latest.news] == ["Cy"] and [c.name for c in latest.noise] == ["Bo", "Ada"]
    assert latest.news[0].sentence.startswith("Cy moved up from #3 to #1")
    nights_seen = sorted(history["as_of"].unique())
    assert since_last_night(nights_seen, said) == "Since the previous night (2026-03-02), 1 change on the boards beyond the noise:"
    assert since_last_night(nights_seen, [first]) == "No rank changed beyond the noise in the last 2 nights."
    assert since_last_night(nights_seen[:1], []).startswith("The boards have only one night")


def test_methodology_versions_are_read_from_the_history_with_their_first_and_last_nights():
    history = pd.concat(
        [
            night("2026-03-01T00:00:00Z", {"a.x": 1}),
            night("2026-03-02T00:00:00Z", {"a.x": 1}),
            night("2026-03-03T00:00:00Z", {"a.x": 1}).assign(methodology_version="2"),
        ]
    )
    assert methodology_versions(history, "2") == [
        {"version": "1", "first": "2026-03-01T00:00:00Z", "last": "2026-03-02T00:00:00Z", "nights": 2, "current": False},
        {"version": "2", "first": "2026-03-03T00:00:00Z", "last": "2026-03-03T00:00:00Z", "nights": 1, "current": True},
    ]
    assert methodology_versions(history.iloc[:0], "1") == []


def test_the_demo_pages_speak_link_names_and_leave_baselines_out_of_question_summaries(demo_hub: Path) -> None:
    generated = demo_hub / "site_src/docs/generated"
    leaderboard = (generated / "leaderboard.md").read_text(encoding="utf-8")
    assert leaderboard.count('<p class="prescient-says">') == leaderboard.count('class="prescient-panel"') > 0
    assert "Sim superforecasters leads (Brier Index" in leaderboard, "the demo's human group leads its board"
    changes = (generated / "changes.md").read_text(encoding="utf-8")
    assert 'id="since-last-night"' in changes and "`" not in changes.split("<h2")[0]
    assert '<a href="../generated/models/' in changes, "names link to the forecasters' pages from changes/"
    models = (generated / "models/index.md").read_text(encoding="utf-8")
    assert "Knowledge cutoff" in models and "Released" in models and ">Rank 95%<" not in models
    site = demo_hub / "site_src/site"
    for page in site.glob("generated/questions/*/index.html"):
        text = page.read_text(encoding="utf-8")
        if "prescient-forecast-summary" in text:
            summary = text.split("prescient-forecast-summary", 1)[1].split("</table>", 1)[0]
            assert "prescient.always-" not in summary, f"{page}: a constant baseline named in Best/Worst"
    assert (site / "methodology-versions/index.html").is_file()


SCHEMAS = {
    "index.json": "index",
    "models.json": "models",
    "rounds.json": "rounds",
    "questions.json": "questions",
    "question-effects.json": "question-effects",
}  # the last gzip-compressed on the site (.gz), checked unpacked


def _unpacked(api: Path, into: Path) -> Path:
    """A copy of the API with question-effects.json.gz unpacked beside its other files."""
    shutil.copytree(api, into)
    (into / "question-effects.json").write_bytes(gzip.decompress((api / "question-effects.json.gz").read_bytes()))
    return into


def test_every_api_file_of_the_demo_passes_its_published_schema(demo_hub: Path, tmp_path: Path) -> None:
    exe = installed("check-jsonschema")
    if exe is None:
        pytest.skip("check-jsonschema is not installed (pip install '.[test]')")
    api = _unpacked(demo_hub / "site_src/site/api", tmp_path / "api")
    index = json.loads((api / "index.json").read_text(encoding="utf-8"))
    boards = [api / b["json"] for b in index["boards"]]
    assert len(boards) == 8 and all(p.is_file() and (api / b["csv"]).is_file() for p, b in zip(boards, index["boards"], strict=True))
    checks = [(api / "schemas/board.schema.json", boards)] + [(api / f"schemas/{s}.schema.json", [api / f]) for f, s in SCHEMAS.items()]
    for schema, files in checks:
        run = subprocess.run([exe, "--schemafile", str(schema), *map(str, files)], capture_output=True, text=True)
        assert run.returncode == 0, run.stdout + run.stderr
    overall = json.loads((api / "boards/tournament/overall.json").read_text(encoding="utf-8"))
    ranks = [r["rank"] for r in overall["rows"] if r["rank"] is not None]
    assert ranks == sorted(ranks) and overall["reference"] == overall["rows"][0]["model"]
    csv = pd.read_csv(api / "boards/tournament/overall.csv")
    assert list(csv["model"]) == [r["model"] for r in overall["rows"]]
    questions = json.loads((api / "questions.json").read_text(encoding="utf-8"))["questions"]
    assert {q["status"] for q in questions} == {"open", "resolved", "void"}
    effects = json.loads((api / "question-effects.json").read_text(encoding="utf-8"))
    units = effects["units"]["question"]
    assert effects["boards"] == [b["board"] for b in index["boards"] if b["view"] == "overall"] and units
    assert all(len(effects["b"][b]) == len(units) for b in effects["boards"])
    assert any(v is not None for v in effects["b"][effects["boards"][0]])
    assert {effects["questions"][i] for i in units} <= {q["id"] for q in questions}


def test_a_broken_api_file_fails_its_schema(demo_hub: Path, tmp_path: Path) -> None:
    """The schema check can fail: a board row with a Brier Index above 100 and a missing column."""
    exe = installed("check-jsonschema")
    if exe is None:
        pytest.skip("check-jsonschema is not installed (pip install '.[test]')")
    api = _unpacked(demo_hub / "site_src/site/api", tmp_path / "api")
    overall = json.loads((api / "boards/tournament/overall.json").read_text(encoding="utf-8"))
    overall["rows"][0]["overall"] = 140.0
    del overall["rows"][1]["rank_low"]
    broken = tmp_path / "overall.json"
    broken.write_text(json.dumps(overall), encoding="utf-8")
    run = subprocess.run([exe, "--schemafile", str(api / "schemas/board.schema.json"), str(broken)], capture_output=True, text=True)
    assert run.returncode == 1 and "140.0" in run.stdout and "rank_low" in run.stdout
    effects = json.loads((api / "question-effects.json").read_text(encoding="utf-8"))
    effects["units"]["round"][0] = -1
    broken.write_text(json.dumps(effects), encoding="utf-8")
    run = subprocess.run([exe, "--schemafile", str(api / "schemas/question-effects.schema.json"), str(broken)], capture_output=True, text=True)
    assert run.returncode == 1 and "-1" in run.stdout
