"""Individual (group) files, question sets, LFS pointers and the never-silent imputation rule, on small
ForecastBench files made here (the real files are in tests/interop/test_fb_humans.py).

The round due 2026-01-04 has an LLM set (a market and a dataset question with two horizons) and a
human set (the market and the first horizon only).
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from generator.errors import SchemaError
from generator.interop.forecastbench.importer import import_forecastbench
from generator.pipeline import incremental
from generator.pipeline.recompute import concat_scores, hub_view, write_round_scores
from generator.store import readers
from generator.store.forecast_file import group_median
from generator.store.hub import Hub
from generator.timeutil import parse_ts

from helpers import run_cli

pytestmark = pytest.mark.e2e

AS_OF = "2026-08-21T00:00:00Z"
DUE = "2026-01-04"


def _q(qid, source, dates):
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


LLM = {
    "forecast_due_date": DUE,
    "question_set": f"{DUE}-llm.json",
    "questions": [_q("m1", "manifold", "N/A"), _q("F1", "fred", ["2026-01-11", "2026-02-03"])],
}
HUMAN = {"forecast_due_date": DUE, "question_set": f"{DUE}-human.json", "questions": [_q("m1", "manifold", "N/A"), _q("F1", "fred", ["2026-01-11"])]}
RSET = {
    "forecast_due_date": DUE,
    "question_set": f"{DUE}-llm.json",
    "resolutions": [
        {"id": "m1", "source": "manifold", "direction": None, "resolution_date": "2026-01-20", "resolved_to": 1.0, "resolved": True},
        {"id": "F1", "source": "fred", "direction": None, "resolution_date": "2026-01-11", "resolved_to": 0.0, "resolved": True},
        {"id": "F1", "source": "fred", "direction": None, "resolution_date": "2026-02-03", "resolved_to": 1.0, "resolved": True},
    ],
}


def _row(qid, source, p, date=None, user=None):
    row = {
        "id": qid,
        "source": source,
        "forecast": p,
        "resolution_date": date,
        "reasoning": "r",
        "direction": None,
        "searches": "a b",
        "consulted_urls": None,
    }
    return row | ({"user_id": user} if user else {})


# FB's spelling: `question-set`, no model_organization, extra per-row fields, float noise
GROUP = {
    "organization": "ForecastBench",
    "model": "Superforecaster forecasts",
    "question-set": f"{DUE}-human.json",
    "forecast_due_date": DUE,
    "forecasts": [
        _row("m1", "manifold", 0.7, user="u1"),
        _row("m1", "manifold", 0.9, user="u2"),
        _row("m1", "manifold", 0.8, user="u3"),
        _row("F1", "fred", 0.2, "2026-01-11", "u1"),
        _row("F1", "fred", 0.30000000000000004, "2026-01-11", "u2"),
    ],
}
LLM_FILE = {
    "organization": "Lab",
    "model": "Model",
    "model_organization": "Lab",
    "question_set": f"{DUE}-llm.json",
    "forecasts": [_row("m1", "manifold", 0.6), _row("F1", "fred", 0.5, "2026-01-11")],
}


def _files(root: Path, forecasts: dict[str, dict], extra: dict[str, bytes] | None = None) -> tuple[Path, Path]:
    data, folder = root / "fb" / "datasets", root / "forecasts"
    texts = {
        f"question_sets/{DUE}-llm.json": json.dumps(LLM).encode(),
        f"question_sets/{DUE}-human.json": json.dumps(HUMAN).encode(),
        f"resolution_sets/{DUE}_resolution_set.json": json.dumps(RSET).encode(),
        **(extra or {}),
    }
    for name, body in texts.items():
        (data / name).parent.mkdir(parents=True, exist_ok=True)
        (data / name).write_bytes(body)
    folder.mkdir(parents=True, exist_ok=True)
    for name, body in forecasts.items():
        (folder / name).write_text(json.dumps(body))
    return root / "fb", folder


def _scores(hub: Path) -> pd.DataFrame:
    loaded = Hub.load(hub)
    return write_round_scores(loaded, hub_view(loaded, readers.load_observations(loaded), parse_ts(AS_OF)), 0.5)[0]


def test_an_individual_file_in_fb_spelling_becomes_its_group_median_scored_on_its_own_set(tmp_path):
    data, forecasts = _files(tmp_path, {"super.json": GROUP, "llm.json": LLM_FILE})
    report = import_forecastbench(tmp_path / "hub", data, forecasts, as_of=AS_OF)
    group = "forecastbench.superforecaster-median-forecast"
    assert group in report.models and not [w for w in report.warnings if w.code == "duplicate-forecast"]
    meta = readers.load_models(Hub(tmp_path / "hub"))[group]
    assert (meta.name, meta.kind) == ("Superforecaster median forecast", "human") and "3 forecasters" in meta.method
    frame = readers.load_forecasts(Hub(tmp_path / "hub"), parse_ts(DUE))[group].set_index("question_id")
    assert frame.loc["manifold:m1", "probability"] == pytest.approx(0.8)  # the median, not the first member's 0.7
    assert frame.loc["fred:F1", "probability"] == pytest.approx(0.25)
    scores = _scores(tmp_path / "hub")
    mine = scores[scores["model"] == group]
    assert len(mine) == 2 and mine["imputed"].sum() == 0  # the human set: the market and one horizon
    assert len(scores[scores["model"] == "lab.model"]) == 3  # the LLM set: the second horizon too, imputed
    sets = pd.read_csv(tmp_path / "hub" / "data" / "rounds" / DUE / "question_sets.csv", keep_default_na=False)
    assert sets.groupby("question_set").size().to_dict() == {f"{DUE}-human.json": 2, f"{DUE}-llm.json": 3}


def test_the_nightly_scores_each_file_on_its_own_set_as_verify_does(tmp_path):
    data, forecasts = _files(tmp_path, {"super.json": GROUP, "llm.json": LLM_FILE})
    import_forecastbench(tmp_path / "hub", data, forecasts, as_of=AS_OF)
    loaded = Hub.load(tmp_path / "hub")
    view = hub_view(loaded, readers.load_observations(loaded), parse_ts(AS_OF))
    nightly_scores = concat_scores(incremental.rescore_changed_rounds(loaded, lambda: view, AS_OF, 0.5, "ignore", [])[0])
    group = "forecastbench.superforecaster-median-forecast"
    assert len(nightly_scores[nightly_scores["model"] == group]) == 2  # its set's units, not the whole round
    pd.testing.assert_frame_equal(nightly_scores, _scores(tmp_path / "hub"))


def test_the_group_median_is_the_ordinary_median_of_every_members_row():
    rows = pd.DataFrame(
        {
            "question_id": ["a", "a", "a", "a", "b"],
            "resolution_date": "",
            "probability": [0.1, 0.2, 0.6, 0.9, 0.4],
            "member": ["u1", "u2", "u3", "u4", "u1"],
        }
    )
    out = group_median(rows).set_index("question_id")
    assert out["probability"].tolist() == [pytest.approx(0.4), pytest.approx(0.4)]
    assert out.loc["a", "reasoning"] == "median of 4 forecaster(s)"


def test_a_question_set_the_round_does_not_have_is_a_warning_and_the_whole_round(tmp_path):
    other = dict(LLM_FILE, question_set=f"{DUE}-other.json")
    data, forecasts = _files(tmp_path, {"super.json": GROUP, "other.json": other})
    report = import_forecastbench(tmp_path / "hub", data, forecasts, as_of=AS_OF)
    assert [w.code for w in report.warnings if w.code == "unknown-question-set"] == ["unknown-question-set"]
    assert len(_scores(tmp_path / "hub").query("model == 'lab.model'")) == 3


def test_a_git_lfs_pointer_is_named_as_one(tmp_path):
    pointer = b"version https://git-lfs.github.com/spec/v1\noid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 12345\n"
    data, forecasts = _files(tmp_path, {"super.json": GROUP})
    (forecasts / "public.json").write_bytes(pointer)
    with pytest.raises(SchemaError) as caught:
        import_forecastbench(tmp_path / "hub", data, forecasts, as_of=AS_OF)
    codes = [p.code for p in caught.value.problems]
    assert codes == ["lfs-pointer"] and "git lfs pull" in caught.value.problems[0].message
    assert not (tmp_path / "hub" / "data").exists()


def test_the_leaderboard_command_lists_what_the_imputation_rule_left_off(tmp_path):
    data, forecasts = _files(tmp_path, {"super.json": GROUP, "llm.json": LLM_FILE})
    hub = tmp_path / "hub"
    assert run_cli("import", "forecastbench", str(data), "--forecasts", str(forecasts), "--hub", str(hub), "--as-of", AS_OF).returncode == 0
    run = run_cli("leaderboard", "--hub", str(hub), "--as-of", AS_OF, "--replicates", "0")
    assert run.returncode == 0, run.stderr
    assert "unranked (1 model-round(s) left off by the imputation rule):" in run.stdout
    assert f"lab.model · round {DUE}: 1 of its 3 resolved units imputed (33%, over the 5% limit)" in run.stdout
    toml = hub / "data" / "hub.toml"
    assert 'imputation_exempt = ["forecastbench"]' in toml.read_text()  # FB's own files are exempt, as FB exempts them
    toml.write_text(toml.read_text().replace('imputation_exempt = ["forecastbench"]', 'imputation_exempt = ["forecastbench", "lab"]'))
    run = run_cli("leaderboard", "--hub", str(hub), "--as-of", AS_OF, "--replicates", "0")
    assert "unranked" not in run.stdout and "lab.model" in run.stdout


# -- a hub's own human team, by pull request ---------------------------------------------------------


def _round_set(with_sets: bool):
    from generator.submissions.content import RoundSet

    units = {
        "llm": frozenset({("manifold:m1", ""), ("fred:F1", "2026-01-11"), ("fred:F1", "2026-02-03")}),
        "human": frozenset({("manifold:m1", ""), ("fred:F1", "2026-01-11")}),
    }
    return RoundSet(
        DUE,
        f"{DUE}T00:00:00Z",
        {"manifold:m1": "binary", "fred:F1": "dataset"},
        {"fred:F1": frozenset({"2026-01-11", "2026-02-03"})},
        {f"{DUE}-{k}": v for k, v in units.items()} if with_sets else {},
    )


def _checked(body: dict, with_sets: bool = True) -> list[tuple[str, str]]:
    from generator.store.forecast_file import parse_forecast
    from generator.submissions.content import check_content, check_question_set

    parsed = parse_forecast(json.dumps(body).encode(), "data/forecasts/2026-01-04/team.group.json", "json")
    rnd = _round_set(with_sets)
    return sorted((p.code, p.severity) for p in parsed.problems + check_content(parsed, rnd) + check_question_set(parsed, rnd, DUE))


def test_a_teams_individual_file_passes_validation_and_a_member_may_not_answer_twice():
    assert _checked(GROUP) == []  # members repeat units; the human set is fully covered
    twice = dict(GROUP, forecasts=[*GROUP["forecasts"], _row("m1", "manifold", 0.1, user="u1")])
    assert _checked(twice) == [("duplicate-forecast", "error")]


def test_a_question_set_the_round_does_not_have_is_an_error_and_coverage_is_per_set():
    assert _checked(dict(GROUP, **{"question-set": f"{DUE}-other.json"})) == [("low-coverage", "warning"), ("question-set-mismatch", "error")]
    assert _checked(dict(GROUP, **{"question-set": f"{DUE}-llm.json"})) == [("low-coverage", "warning")]  # 2 of the LLM set's 3
    assert _checked(dict(GROUP, **{"question-set": f"{DUE}-prescient.json"}), with_sets=False) == [("low-coverage", "warning")]
    assert _checked(dict(GROUP, **{"question-set": "2025-12-21-llm.json"}), with_sets=False) == [
        ("low-coverage", "warning"),
        ("question-set-mismatch", "error"),
    ]


def test_a_teams_individual_file_in_the_hub_is_scored_as_its_median(tmp_path):
    data, forecasts = _files(tmp_path, {})
    hub = tmp_path / "hub"
    import_forecastbench(hub, data, forecasts, as_of=AS_OF)
    (hub / "data" / "forecasts" / DUE / "team.group.json").write_text(json.dumps(dict(GROUP, organization="Team", model="Group")))
    scores = _scores(hub).query("model == 'team.group'").set_index("question_id")
    assert scores.loc["manifold:m1", "probability"] == pytest.approx(0.8) and len(scores) == 2


# -- the unranked list on the board page and in the nightly summary ----------------------------------


def test_the_board_page_and_the_nightly_summary_list_what_was_left_off(tmp_path):
    from generator.leaderboard.hub_boards import hub_board
    from generator.pipeline.headline import unranked_lines
    from generator.site.render import _panels, environment

    data, forecasts = _files(tmp_path, {"super.json": GROUP, "llm.json": LLM_FILE})
    hub = tmp_path / "hub"
    import_forecastbench(hub, data, forecasts, as_of=AS_OF)
    loaded, scores = Hub.load(hub), _scores(hub)
    lines = unranked_lines(loaded, scores, parse_ts(AS_OF))
    assert lines == [f"lab.model · round {DUE}: 1 of its 3 resolved units imputed (33%, over the 5% limit)"]
    board = hub_board(scores, readers.load_models(loaded), parse_ts(AS_OF), loaded.settings, board="tournament", replicates=0)
    panels = _panels({("tournament", "overall"): board})
    assert [(u["model"], u["round"]) for u in panels[0]["left_off"]] == [("lab.model", DUE)]
    env = environment()
    assert '{% include "_unranked.html.j2" %}' in env.loader.get_source(env, "leaderboard.md.j2")[0]
    page = env.get_template("_unranked.html.j2").render(p=panels[0])  # the list under each panel's table
    assert "<strong>Unranked</strong>" in page
    assert f"<code>lab.model</code>), round {DUE}: 1 of its 3 resolved units imputed (33%, over the 5% limit)</li>" in page


def test_an_import_keeps_the_files_it_wrote_for_the_next_nightly_with_the_same_bytes(tmp_path):
    """`import forecastbench` fills the nightly's cache (the checked frames of the forecast files it
    writes), so the first nightly after it need not parse them again; what both write is unchanged."""
    from helpers import tree_bytes

    data, forecasts = _files(tmp_path, {"super.json": GROUP, "llm.json": LLM_FILE})
    cache = tmp_path / "cache"
    runs = {"cached": ["--cache-dir", str(cache)], "plain": ["--no-cache"]}
    for name, options in runs.items():
        imported = run_cli(
            "import", "forecastbench", str(data), "--forecasts", str(forecasts), "--hub", str(tmp_path / name), "--as-of", AS_OF, *options
        )
        assert imported.returncode == 0, imported.stderr
    written = list((tmp_path / "cached" / "data" / "forecasts").rglob("*.csv"))
    assert written and len(list((cache / "frames").glob("*.frame"))) >= len(written)
    for name, options in runs.items():
        night = run_cli("nightly", "--hub", str(tmp_path / name), "--as-of", AS_OF, *options)
        assert night.returncode == 0, night.stderr
    assert tree_bytes(tmp_path / "cached") == tree_bytes(tmp_path / "plain")
