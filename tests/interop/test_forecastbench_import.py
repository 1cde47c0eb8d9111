"""ForecastBench import: the stated-resolutions override, malformed input, idempotence, and the
published facts reproduced from the real FB files in ../shared/forecastbench (skipped without them)."""

from __future__ import annotations

import hashlib
import io
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from generator.errors import SchemaError
from generator.interop.forecastbench.importer import import_forecastbench
from generator.leaderboard.fb_board import FB_TOURNAMENT, FBOptions, board_rules, fb_board
from generator.leaderboard.fb_layout import fb_layout
from generator.pipeline.recompute import hub_view, write_round_scores
from generator.schemas import FORECASTS, OBSERVATIONS, RESOLUTIONS
from generator.scoring.resolve import ledger_view, resolve_round
from generator.store import readers
from generator.store.csvio import empty_frame, read_table, to_csv_bytes
from generator.store.fast_forecasts import forecast_bytes
from generator.store.hub import Hub
from generator.timeutil import parse_ts

from helpers import MINI_FSET, MINI_QSET, MINI_RSET, ROOT, mini_fb

pytestmark = pytest.mark.e2e

FB = ROOT.parent / "shared" / "forecastbench"
AS_OF = "2026-08-21T00:00:00Z"
needs_fb = pytest.mark.skipif(not (FB / "datasets").is_dir(), reason=f"real ForecastBench files not found at {FB}")

# -- the override in resolution.resolve_round --------------------------------------------------------


def _round():
    return pd.DataFrame(
        {
            "question_id": ["m:1", "s:1", "s:1"],
            "resolution_date": ["", "2026-01-11", "2026-02-03"],
            "kind": ["binary", "dataset", "dataset"],
            "due": "2026-01-04T00:00:00Z",
        }
    )


def _stated(rows):
    cols = list(RESOLUTIONS.names)
    frame = pd.DataFrame([dict(zip(cols, r, strict=True)) for r in rows], columns=cols)
    frame["outcome"] = frame["outcome"].astype(float)
    return frame


def test_a_stated_resolution_overrides_the_computed_one_once_recorded():
    stated = _stated(
        [
            ("2026-01-04", "s:1", "2026-01-11", "2026-01-11T00:00:00Z", "resolved", 1.0, "2026-01-11T00:00:00Z", np.nan, ""),
            ("2026-01-04", "m:1", "", "2026-01-20T00:00:00Z", "resolved", 0.0, "2026-01-20T00:00:00Z", np.nan, ""),
            ("2026-01-04", "m:1", "", "2026-01-25T00:00:00Z", "resolved", 1.0, "2026-01-20T00:00:00Z", np.nan, ""),
        ]
    )
    obs = empty_frame(OBSERVATIONS)
    early = resolve_round(_round(), ledger_view(obs, "2026-01-15T00:00:00Z", stated)).set_index(["question_id", "resolution_date"])
    assert early.loc[("s:1", "2026-01-11"), "status"] == "resolved" and early.loc[("s:1", "2026-01-11"), "outcome"] == 1.0
    assert early.loc[("m:1", ""), "status"] == "open" and early.loc[("s:1", "2026-02-03"), "status"] == "open"
    mid = resolve_round(_round(), ledger_view(obs, "2026-01-21T00:00:00Z", stated)).set_index("question_id")
    late = resolve_round(_round(), ledger_view(obs, "2026-01-26T00:00:00Z", stated)).set_index("question_id")
    assert mid.loc["m:1", "outcome"] == 0.0 and late.loc["m:1", "outcome"] == 1.0  # the latest recorded wins
    assert resolve_round(_round(), ledger_view(obs, "2026-01-26T00:00:00Z")).equals(
        resolve_round(_round(), ledger_view(obs, "2026-01-26T00:00:00Z", None))
    )


def test_statements_follow_their_round_and_the_due_date_void_rule():
    stated = _stated(
        [
            ("2025-12-21", "m:1", "", "2026-01-02T00:00:00Z", "resolved", 1.0, "2026-01-02T00:00:00Z", np.nan, ""),
            ("", "s:1", "2026-01-11", "2026-01-12T00:00:00Z", "void", np.nan, "2026-01-12T00:00:00Z", np.nan, ""),
            ("2026-01-04", "s:1", "2026-02-03", "2026-01-03T00:00:00Z", "resolved", 1.0, "2026-01-03T00:00:00Z", np.nan, ""),
        ]
    )
    out = resolve_round(_round(), ledger_view(empty_frame(OBSERVATIONS), AS_OF, stated)).set_index(["question_id", "resolution_date"])
    assert out.loc[("m:1", ""), "status"] == "open"  # stated for another round
    assert out.loc[("s:1", "2026-01-11"), "status"] == "void"  # a round-less statement applies
    assert out.loc[("s:1", "2026-02-03"), "status"] == "void"  # resolved before the due date


# -- malformed input ------------------------------------------------------------------------------


def _edit(base: dict, key: str, index: int, **changes) -> dict:
    body = json.loads(json.dumps(base))
    body[key][index].update(changes)
    return body


def _drop(base: dict, key: str, index: int | None, field: str) -> dict:
    body = json.loads(json.dumps(base))
    (body[key][index] if index is not None else body).pop(field)
    return body


BAD = {
    "bad-json": {"raw": {"question_sets/2026-01-18-llm.json": "{not json"}},
    "bad-structure": {"qset": {**MINI_QSET, "questions": {"id": "m1"}}},
    "missing-key": {"rset": _drop(MINI_RSET, "resolutions", 0, "resolved")},
    "unknown-source": {"qset": _edit(MINI_QSET, "questions", 0, source="kalshi")},
    "bad-date": {"rset": _edit(MINI_RSET, "resolutions", 1, resolution_date="soon")},
    "bad-outcome": {"rset": _edit(MINI_RSET, "resolutions", 1, resolved_to="yes")},
    "bad-value": {"rset": _edit(MINI_RSET, "resolutions", 1, resolved="yes")},
    "bad-probability": {"fset": _edit(MINI_FSET, "forecasts", 0, forecast=1.5)},
    "bad-id": {"fset": _edit(MINI_FSET, "forecasts", 0, id=None)},
    "bad-model": {"fset": {**MINI_FSET, "organization": ""}},
    "unknown-round": {"fset": {**MINI_FSET, "question_set": "2030-01-06-llm.json"}},
    "due-mismatch": {"raw": {"resolution_sets/2026-01-18_resolution_set.json": json.dumps(MINI_RSET)}},
}


@pytest.mark.parametrize("code", sorted(BAD))
def test_each_malformed_file_is_rejected_with_its_code_and_nothing_is_written(tmp_path, code):
    data, forecasts = mini_fb(tmp_path, **BAD[code])
    hub = tmp_path / "hub"
    with pytest.raises(SchemaError) as info:
        import_forecastbench(hub, data, forecasts, as_of=AS_OF)
    assert code in {p.code for p in info.value.problems}, info.value.report()
    assert not hub.exists()


@pytest.mark.parametrize("fresh", [True, False])
def test_a_rejected_import_whose_workers_staged_files_leaves_the_hub_as_it_was(tmp_path, monkeypatch, fresh):
    """With parsing workers (which stage the good sets' files in the hub under its lock), a bad
    forecast set still writes nothing: the staged files and the folders made for them are removed,
    and a hub that did not exist still does not."""
    from generator.interop.forecastbench import workers

    monkeypatch.setattr(workers, "_POOL_MIN_FILES", 0)
    log, stage = tmp_path / "staged.log", workers.stage_bytes

    def logged(path, data):  # the workers are forked: they tell the test through a file
        staged = stage(path, data)
        with log.open("a") as out:
            out.write(f"{staged}\n")
        return staged

    monkeypatch.setattr(workers, "stage_bytes", logged)
    data, forecasts = mini_fb(tmp_path, fset=_edit(MINI_FSET, "forecasts", 0, forecast=1.5))
    (forecasts / "good.json").write_text(json.dumps({**MINI_FSET, "model": "Good"}))
    hub = tmp_path / "hub"
    if not fresh:
        (hub / "data").mkdir(parents=True)
        (hub / "data" / "hub.toml").write_text('[hub]\ntitle = "mine"\n')
    before = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if "hub" in p.parts)
    with pytest.raises(SchemaError) as info:
        import_forecastbench(hub, data, forecasts, as_of=AS_OF)
    assert "bad-probability" in {p.code for p in info.value.problems}
    after = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if "hub" in p.parts)
    assert after == sorted(before + ([] if fresh else ["hub/data/.prescient.lock"])), after
    assert "/hub/data/forecasts/" in log.read_text()  # the good set's file was staged, then removed


def test_list_ids_are_dropped_with_a_warning_and_the_cli_reports_errors_without_a_traceback(tmp_path):
    data, forecasts = mini_fb(tmp_path)
    report = import_forecastbench(tmp_path / "hub", data, forecasts, as_of=AS_OF)
    assert [p.code for p in report.warnings] == ["combination-id"]
    stated = readers.load_resolutions(Hub(tmp_path / "hub"))
    assert sorted(stated["question_id"]) == ["fred:F1", "fred:F1", "manifold:m1"]
    bad, bad_forecasts = mini_fb(tmp_path / "bad", fset=BAD["bad-probability"]["fset"])
    cmd = [
        sys.executable,
        "-m",
        "generator",
        "import",
        "forecastbench",
        str(bad),
        "--forecasts",
        str(bad_forecasts),
        "--hub",
        str(tmp_path / "hub2"),
        "--as-of",
        AS_OF,
    ]
    run = subprocess.run(cmd, check=False, capture_output=True, text=True)
    assert run.returncode == 3 and "[bad-probability]" in run.stderr and "Traceback" not in run.stderr


def test_a_small_import_scores_from_stated_resolutions(tmp_path):
    data, forecasts = mini_fb(tmp_path)
    hub = tmp_path / "hub"
    import_forecastbench(hub, data, forecasts, as_of=AS_OF)
    scores, _ = score_hub(Hub(hub), parse_ts(AS_OF))
    x = scores[scores["model"] == "team-a.model-x-1.0"].set_index(["question_id", "resolution_date"])
    assert x.loc[("manifold:m1", ""), "brier"] == pytest.approx(0.04)
    assert x.loc[("fred:F1", "2026-01-11"), "brier"] == pytest.approx(0.16)
    assert x.loc[("fred:F1", "2026-02-03"), "imputed"] == 1
    assert sorted(scores["model"].unique()) == ["prescient.always-0", "prescient.always-0.5", "prescient.always-1", "team-a.model-x-1.0"]
    early, _ = score_hub(Hub(hub), parse_ts("2026-01-15T00:00:00Z"))
    assert early.empty  # the hub learned every outcome at the import (recorded_at = its as_of), not at FB's dates
    stated = readers.load_resolutions(Hub(hub))
    assert set(stated["recorded_at"]) == {AS_OF}
    assert stated.set_index("question_id").loc["manifold:m1", "resolved_at"] == "2026-01-20T00:00:00Z"  # FB's date stays


def test_an_import_into_a_labs_hub_writes_the_baselines_under_its_own_prefix(tmp_path):
    data, forecasts = mini_fb(tmp_path)
    hub = tmp_path / "hub"
    (hub / "data").mkdir(parents=True)
    (hub / "data/hub.toml").write_text('[hub]\ntitle = "Acme Lab"\nown_prefix = "acmelab"\n')  # the import adds nothing to a hub.toml
    import_forecastbench(hub, data, forecasts, as_of=AS_OF)
    models = sorted(p.name for p in (hub / "data/models").iterdir())
    assert [m for m in models if m.startswith(("acmelab.", "prescient."))] == [
        "acmelab.always-0.5.yml",
        "acmelab.always-0.yml",
        "acmelab.always-1.yml",
    ]


# -- the real ForecastBench files ---------------------------------------------------------------------


def score_hub(files: Hub, as_of):
    """Score every round of an imported hub exactly as the nightly run does."""
    return write_round_scores(files, hub_view(files, readers.load_observations(files), as_of), 0.5)


def _digest(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def fb_hub(tmp_path_factory):
    if not (FB / "datasets").is_dir():
        pytest.skip(f"real ForecastBench files not found at {FB}")
    hub = tmp_path_factory.mktemp("fbhub")
    # the datasets and the one public forecast set, the superforecasters': a partial import
    import_forecastbench(hub, FB, FB / "datasets" / "forecast_sets", as_of=AS_OF)
    score_hub(Hub(hub), parse_ts(AS_OF))
    return hub


PUBLISHED = {"prescient.always-0": (37.7, 52.7, 44.7), "prescient.always-1": (21.8, 11.9, 16.7), "prescient.always-0.5": (50.0, 50.0, 50.0)}


@needs_fb
def test_the_published_always_rows_and_counts_are_reproduced(fb_hub):
    hub = Hub(fb_hub)
    options = FBOptions(**{**FB_TOURNAMENT.__dict__, "replicates": 50})
    board = fb_board(readers.load_scores(hub), readers.load_models(hub), parse_ts(AS_OF), np.random.default_rng(0), options).set_index("model")
    for model, published in PUBLISHED.items():
        got = board.loc[model, ["dataset", "market", "overall"]].to_numpy(dtype=float)
        assert np.abs(got - np.array(published)).max() <= 0.2, (model, got, published)
        assert (board.loc[model, "n_dataset"], board.loc[model, "n_market"]) == (32_579, 3_091)


PRELIMINARY = FB / "leaderboards" / "leaderboard_preliminary.csv"


@needs_fb
def test_a_partial_import_keeps_every_unit_and_says_how_many_no_estimation_model_answered(fb_hub):
    # the superforecasters are the only estimation-sample model and answer 578 of the 35,670 units:
    # 0.6.4 dropped the rest silently (Always 0 overall 45.9); now every unit stays, at its raw Brier
    layout = Hub(fb_hub)
    board = fb_board(
        readers.load_scores(layout),
        readers.load_models(layout),
        parse_ts(AS_OF),
        np.random.default_rng(0),
        FBOptions(**{**FB_TOURNAMENT.__dict__, "replicates": 0}),
    ).set_index("model")
    assert board.loc["forecastbench.superforecaster-median-forecast", "in_estimation"] == 1
    assert board.loc["prescient.always-0", "n_orphan"] == 35_670 - 578 == board.attrs["orphans"]["units"]
    assert round(board.loc["prescient.always-0", "overall"], 1) == 44.7
    done = subprocess.run(
        [sys.executable, "-m", "generator", "leaderboard", "--hub", str(fb_hub), "--replicates", "0", "--format", "csv"],
        capture_output=True,
        text=True,
        check=True,
    )
    # the imported hub's tournament board takes market difficulty from the crowd: fewer orphans, still said
    assert re.search(r"\[orphan-units\] tournament board: [\d,]+ unit\(s\) .* in 31 round\(s\)", done.stderr)
    assert "n_orphan" in done.stdout.splitlines()[0]


@needs_fb
def test_the_preliminary_board_reproduces_the_published_always_rows(fb_hub):
    published = pd.read_csv(PRELIMINARY, dtype=str, keep_default_na=False).set_index("Model")
    layout = Hub(fb_hub)
    options = board_rules(FBOptions(board="preliminary", replicates=50))
    board = fb_board(readers.load_scores(layout), readers.load_models(layout), parse_ts(AS_OF), np.random.default_rng(0), options)
    ours = fb_layout(board, "preliminary", readers.load_models(layout))
    assert list(ours.columns) == list(pd.read_csv(PRELIMINARY, nrows=0).columns)
    ours = ours.set_index("Model")
    for name in ("Always 0", "Always 1", "Always 0.5"):
        assert abs(float(ours.loc[name, "Dataset"]) - float(published.loc[name, "Dataset"])) <= 0.1, name
        # the published N (33,789) is 0.7% above these files' (33,536): FB scored newer processed files
        assert abs(int(ours.loc[name, "N dataset"]) / int(published.loc[name, "N dataset"]) - 1) < 0.01
    assert board["n_market"].eq(0).all() and board.attrs["orphans"]["market"] == 0  # dataset units only
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "generator",
            "leaderboard",
            "--hub",
            str(fb_hub),
            "--board",
            "preliminary",
            "--replicates",
            "0",
            "--format",
            "forecastbench",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    printed = pd.read_csv(io.StringIO(done.stdout), dtype=str, keep_default_na=False).set_index("Model")
    assert printed.loc["Always 0", "Dataset"] == ours.loc["Always 0", "Dataset"] == published.loc["Always 0", "Dataset"]


@needs_fb
def test_reimporting_changes_no_byte(fb_hub):
    before = _digest(fb_hub)
    report = import_forecastbench(fb_hub, FB / "datasets", as_of=AS_OF)
    score_hub(Hub(fb_hub), parse_ts(AS_OF))
    assert report.questions_added == report.statements_added == report.forecast_files == 0
    assert _digest(fb_hub) == before


@needs_fb
def test_fast_forecast_bytes_equal_the_canonical_writer(fb_hub):
    for path in sorted((fb_hub / "data" / "forecasts").rglob("*.csv"))[:6]:
        frame = read_table(path, FORECASTS)
        assert forecast_bytes(frame) == to_csv_bytes(frame, FORECASTS) == path.read_bytes()
    odd = pd.DataFrame(
        {
            "question_id": ["b:2", "a:1"],
            "resolution_date": ["", "2026-01-01"],
            "probability": [0.25, 1.0],
            "reasoning": ["plain", 'with "quotes", and commas'],
        }
    )
    assert forecast_bytes(odd) == to_csv_bytes(odd, FORECASTS)


def test_an_import_refuses_while_a_nightly_run_holds_the_hub(tmp_path):
    """The import writes the same ledgers as a nightly run, so it takes the same lock (exit 7, nothing written)."""
    import signal

    from helpers import tree_bytes

    data, forecasts = mini_fb(tmp_path)
    hub = tmp_path / "hub"
    import_forecastbench(hub, data, as_of="2026-01-01T00:00:00Z")  # an earlier, smaller state of the hub
    hold = (
        "import sys, time\nfrom pathlib import Path\nfrom generator.store.lock import hub_lock\n"
        "with hub_lock(Path(sys.argv[1]), 'prescient nightly (test)'):\n    print('locked', flush=True)\n    time.sleep(60)\n"
    )
    holder = subprocess.Popen([sys.executable, "-c", hold, str(hub / "data")], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        before = tree_bytes(hub)
        cmd = [
            sys.executable,
            "-m",
            "generator",
            "import",
            "forecastbench",
            str(data),
            "--forecasts",
            str(forecasts),
            "--hub",
            str(hub),
            "--as-of",
            AS_OF,
        ]
        run = subprocess.run(cmd, check=False, capture_output=True, text=True)
        assert run.returncode == 7 and "prescient nightly (test)" in run.stderr and "Traceback" not in run.stderr
        assert tree_bytes(hub) == before
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait(timeout=10)
    assert import_forecastbench(hub, data, forecasts, as_of=AS_OF).rounds
