"""ForecastBench's real human data, handled exactly, with the files in ``../shared``.

- The superforecasters' individual file imports as FB publishes it: its 40 members' rows are kept (the
  file as published) and the group's median per question × resolution date is the model
  "Superforecaster median forecast" (kind human), scored on the human question set only: N = 521
  dataset and 57 market rows with today's resolution set, the published tournament board's N.
- FB's legacy human board (last updated 2025-09-05) for that row, from the 2025-09-05 snapshot of the
  resolution set with open markets scored against the crowd value of that day: every printed digit.
- The same numbers computed here independently with pandas from the raw JSON equal Prescient's to 1e-9.
- Importing successive snapshots appends only what changed, and a replay as of the first snapshot sees
  exactly what FB had published then.
"""

from __future__ import annotations

import csv
import json
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from generator.interop.forecastbench.importer import import_forecastbench
from generator.leaderboard.hub_boards import hub_board
from generator.pipeline.recompute import hub_view, write_round_scores
from generator.store import readers
from generator.store.hub import Hub
from generator.timeutil import parse_ts

from helpers import ROOT

FB = ROOT.parent / "shared" / "forecastbench"
FB = Path(os.environ.get("PRESCIENT_FB_DIR", FB)).resolve()
DUE = "2024-07-21"
INDIVIDUAL = FB / "datasets" / "forecast_sets" / DUE / f"{DUE}.ForecastBench.human_super_individual.json"
HUMAN_SET = FB / "datasets" / "question_sets" / f"{DUE}-human.json"
TODAY = FB / "datasets" / "resolution_sets" / f"{DUE}_resolution_set.json"
SNAPSHOT = FB / "datasets" / "resolution_sets" / "history" / "2025-09-05" / f"{DUE}_resolution_set.json"
LEGACY = FB / "leaderboards" / "legacy" / "human_leaderboard_overall.csv"
MEDIAN = "forecastbench.superforecaster-median-forecast"
MARKETS = {"infer", "manifold", "metaculus", "polymarket"}
TODAY_AS_OF, SNAPSHOT_AS_OF = "2026-08-21T00:00:00Z", "2025-09-05T00:00:00Z"

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(
        not all(p.is_file() for p in (INDIVIDUAL, HUMAN_SET, TODAY, SNAPSHOT, LEGACY)),
        reason=f"the real ForecastBench human files are not at {FB} (../shared is absent)",
    ),
]

LEGACY_HUB_TOML = f"""[hub]
title = "ForecastBench legacy human board"

[rounds]
first_due = "{DUE}T00:00:00Z"
cadence_days = 14
open_days_before_due = 0

[scoring]
unresolved_markets = "market_proxy"
"""


def _datasets(folder: Path, resolution_set: Path) -> tuple[Path, Path]:
    """A datasets folder holding the human question set and ``resolution_set``, and a forecasts folder
    holding the individual file (links to the shared files, nothing copied)."""
    (folder / "datasets" / "question_sets").mkdir(parents=True)
    (folder / "datasets" / "resolution_sets").mkdir(parents=True)
    (folder / "forecasts").mkdir()
    (folder / "datasets" / "question_sets" / HUMAN_SET.name).symlink_to(HUMAN_SET)
    (folder / "datasets" / "resolution_sets" / TODAY.name).symlink_to(resolution_set)
    (folder / "forecasts" / INDIVIDUAL.name).symlink_to(INDIVIDUAL)
    return folder, folder / "forecasts"


def _import(hub: Path, resolution_set: Path, as_of: str, toml: str | None = None) -> None:
    if toml is not None and not (hub / "data" / "hub.toml").is_file():
        (hub / "data").mkdir(parents=True, exist_ok=True)
        (hub / "data" / "hub.toml").write_text(toml)
    datasets, forecasts = _datasets(hub.parent / f"fb-{as_of[:10]}", resolution_set)
    import_forecastbench(hub, datasets, forecasts, as_of=as_of, workers=1)


def _scores(hub: Path, as_of: str) -> pd.DataFrame:
    loaded = Hub.load(hub)
    view = hub_view(loaded, readers.load_observations(loaded), parse_ts(as_of))
    return write_round_scores(loaded, view, loaded.settings.scoring.impute_value)[0]


def _row(hub: Path, scores: pd.DataFrame, as_of: str, view: str = "overall") -> pd.Series:
    loaded = Hub.load(hub)
    board = hub_board(scores, readers.load_models(loaded), parse_ts(as_of), loaded.settings, board="tournament", view=view, replicates=0)
    return board.set_index("model").loc[MEDIAN]


@pytest.fixture(scope="module")
def today(tmp_path_factory) -> tuple[Path, pd.DataFrame]:
    hub = tmp_path_factory.mktemp("today") / "hub"
    _import(hub, TODAY, TODAY_AS_OF)
    return hub, _scores(hub, TODAY_AS_OF)


@pytest.fixture(scope="module")
def legacy(tmp_path_factory) -> tuple[Path, pd.DataFrame]:
    hub = tmp_path_factory.mktemp("legacy") / "hub"
    _import(hub, SNAPSHOT, SNAPSHOT_AS_OF, LEGACY_HUB_TOML)
    as_of = "2025-09-06T00:00:00Z"  # open markets: the value known the day before, the snapshot's
    return hub, _scores(hub, as_of)


# -- an independent computation, straight from FB's JSON ---------------------------------------------


def _units(resolution_set: Path) -> pd.DataFrame:
    """The human question set's units joined with the resolution set and the members' median (pandas only)."""
    questions = json.loads(HUMAN_SET.read_text())["questions"]
    units = pd.DataFrame(
        [
            (q["source"], q["id"], "" if q["source"] in MARKETS else d)
            for q in questions
            for d in (["N/A"] if q["source"] in MARKETS else q["resolution_dates"])
        ],
        columns=["source", "id", "date"],
    )
    res = pd.DataFrame(json.loads(resolution_set.read_text())["resolutions"])
    res = res[res["id"].map(lambda x: isinstance(x, str))]
    res["date"] = np.where(res["source"].isin(MARKETS), "", res["resolution_date"])
    rows = pd.DataFrame(json.loads(INDIVIDUAL.read_text())["forecasts"])
    rows["date"] = np.where(rows["source"].isin(MARKETS), "", rows["resolution_date"].fillna(""))
    median = rows.groupby(["source", "id", "date"])["forecast"].median().rename("p").reset_index()
    out = units.merge(res[["source", "id", "date", "resolved", "resolved_to"]], on=["source", "id", "date"], how="inner")
    out = out.merge(median, on=["source", "id", "date"], how="left")
    out["brier"] = (out["p"].fillna(0.5) - out["resolved_to"].astype(float)) ** 2
    out["market"] = out["source"].isin(MARKETS)
    return out


def _by_hand(resolution_set: Path) -> dict[str, tuple[int, float]]:
    u = _units(resolution_set)
    parts = {
        "dataset": u[~u["market"] & u["resolved"]],
        "market_resolved": u[u["market"] & u["resolved"]],
        "market_unresolved": u[u["market"] & ~u["resolved"].astype(bool)],
        "market": u[u["market"]],
    }
    return {k: (len(v), float(v["brier"].mean())) for k, v in parts.items()}


# -- the tests ---------------------------------------------------------------------------------------


def test_the_individual_file_becomes_the_superforecaster_median_model_with_its_members_kept(today):
    hub, _ = today
    meta = readers.load_models(Hub(hub))[MEDIAN]
    assert (meta.name, meta.organization, meta.kind) == ("Superforecaster median forecast", "ForecastBench", "human")
    assert "40 forecasters" in meta.method
    kept = hub / "data" / "forecasts" / DUE / f"{MEDIAN}.json"
    assert kept.read_bytes() == INDIVIDUAL.read_bytes()  # every member's row, as FB published it
    frame = readers.load_forecasts(Hub(hub), parse_ts(DUE))[MEDIAN]
    raw = pd.DataFrame(json.loads(INDIVIDUAL.read_text())["forecasts"])
    assert len(frame) == raw.groupby(["source", "id", raw["resolution_date"].fillna("")]).ngroups
    assert frame.attrs["question_set"] == f"{DUE}-human.json"  # FB's `question-set` spelling, read


def test_the_median_is_scored_on_the_human_set_with_the_published_n(today):
    hub, scores = today
    row = _row(hub, scores, TODAY_AS_OF)
    assert (row["n_dataset"], row["n_market"]) == (521, 57)
    mine = scores[scores["model"] == MEDIAN]
    assert mine["imputed"].sum() == 0  # scored on its own set: nothing of the LLM set is imputed
    everyone = scores[scores["model"] == "prescient.always-0.5"]
    assert len(everyone) > 2 * len(mine)  # the hub's baselines answer the whole round
    sets = pd.read_csv(hub / "data" / "rounds" / DUE / "question_sets.csv", keep_default_na=False)
    assert set(sets["question_set"]) == {f"{DUE}-human.json"}


def test_prescient_equals_an_independent_pandas_computation_to_1e_9(today):
    hub, scores = today
    row = _row(hub, scores, TODAY_AS_OF)
    hand = _by_hand(TODAY)
    assert hand["dataset"][0] == 521 and hand["market_resolved"][0] == 57
    assert row["brier_dataset"] == pytest.approx(hand["dataset"][1], abs=1e-9)
    assert row["brier_market"] == pytest.approx(hand["market_resolved"][1], abs=1e-9)
    assert row["brier_overall"] == pytest.approx((hand["dataset"][1] + hand["market_resolved"][1]) / 2, abs=1e-9)


def _legacy_row() -> dict[str, str]:
    with LEGACY.open(newline="") as f:
        return next(r for r in csv.DictReader(f) if r["Model"] == "Superforecaster median forecast")


def test_fb_legacy_human_board_row_every_printed_digit(legacy):
    hub, scores = legacy
    published = _legacy_row()
    columns = {c.split(" (N=")[0]: (c, int(c.split("(N=")[1].rstrip(")"))) for c in published if "(N=" in c}
    every = _row(hub, scores, "2025-09-06T00:00:00Z")
    resolved = _row(hub, scores, "2025-09-06T00:00:00Z", view="resolved-only")
    proxies = scores[(scores["model"] == MEDIAN) & (scores["proxy"] == 1)]
    mine = {  # column → (N, Brier), Prescient's numbers
        "Dataset Score": (every["n_dataset"], every["brier_dataset"]),
        "Market Score (resolved)": (resolved["n_market"], resolved["brier_market"]),
        "Market Score (unresolved)": (len(proxies), proxies["brier"].mean()),
        "Market Score (overall)": (every["n_market"], every["brier_market"]),
        "Overall Resolved Score": (resolved["n_dataset"] + resolved["n_market"], resolved["brier_overall"]),
        "Overall Score": (every["n_dataset"] + every["n_market"], every["brier_overall"]),
    }
    assert set(mine) == set(columns)
    for name, (n, brier) in mine.items():
        column, published_n = columns[name]
        assert (n, f"{brier:.3f}") == (published_n, published[column]), name
    hand = _by_hand(SNAPSHOT)
    assert every["brier_market"] == pytest.approx(hand["market"][1], abs=1e-9)
    assert proxies["brier"].mean() == pytest.approx(hand["market_unresolved"][1], abs=1e-9)
    assert resolved["brier_market"] == pytest.approx(hand["market_resolved"][1], abs=1e-9)


def test_successive_snapshots_append_only_what_changed_and_replay_what_fb_had_published(tmp_path, legacy):
    hub = tmp_path / "hub"
    _import(hub, SNAPSHOT, SNAPSHOT_AS_OF, LEGACY_HUB_TOML)
    ledgers = sorted((hub / "data" / "resolutions").glob("*.csv"))
    old_bytes = {p: p.read_bytes() for p in ledgers}
    first = readers.load_resolutions(Hub(hub))
    _import(hub, TODAY, TODAY_AS_OF)
    assert all(p.read_bytes().startswith(data) for p, data in old_bytes.items())  # appended, never rewritten
    both = readers.load_resolutions(Hub(hub))
    later = both[both["recorded_at"] > SNAPSHOT_AS_OF]
    assert len(both) == len(first) + len(later)
    assert set(later["recorded_at"]) == {TODAY_AS_OF} and set(first["recorded_at"]) == {SNAPSHOT_AS_OF}
    old = json.loads(SNAPSHOT.read_text())["resolutions"]
    new = json.loads(TODAY.read_text())["resolutions"]
    key = lambda r: (r["source"], r["id"], "" if r["source"] in MARKETS else r["resolution_date"])  # noqa: E731
    before = {key(r): (r["resolved"], r["resolved_to"]) for r in old if isinstance(r["id"], str)}
    changed = {key(r) for r in new if isinstance(r["id"], str) and before.get(key(r)) != (r["resolved"], r["resolved_to"])}
    assert 0 < len(later) <= len(changed)  # an open market's new value is a change too; nothing unchanged is added
    replay = _scores(hub, "2025-09-06T00:00:00Z")
    _, snapshot_only = legacy
    columns = ["round", "model", "question_id", "resolution_date", "probability", "outcome", "brier"]
    assert replay[columns].reset_index(drop=True).equals(snapshot_only[columns].reset_index(drop=True))


def test_a_crowd_difficulty_board_of_the_real_round_stands_and_counts_its_crowd_values(today):
    from generator.leaderboard.crowd import crowd_from_rounds

    hub, scores = today
    loaded = Hub.load(hub)
    rounds = readers.load_round(loaded, parse_ts(DUE))
    crowd = crowd_from_rounds(rounds, readers.load_observations(loaded))
    assert set(crowd["at"]) == {"freeze"}  # an import knows nothing later than the freeze value
    board = hub_board(
        scores,
        readers.load_models(loaded),
        parse_ts(TODAY_AS_OF),
        loaded.settings,
        board="tournament",
        replicates=0,
        crowd=crowd,
        market_difficulty="crowd",
    )
    counts = board.attrs["crowd_values"]
    # the 67 markets of the LLM set known only from the resolution set have no freeze value (the issue's
    # "67 market units have no crowd probability"), and only the hub's baselines answer them: no
    # difficulty is identified, so they are orphans, at the other markets' average, and said so
    assert counts == {"at_due": 0, "at_freeze": 57, "estimated": 0, "average": 67}
    rows = board.set_index("model")
    assert rows.loc[MEDIAN, "n_market"] == 57 and np.isfinite(rows.loc[MEDIAN, "brier_market"])
    assert rows.loc["prescient.always-0.5", "n_market"] == 124 and rows.loc["prescient.always-0.5", "n_orphan"] >= 67
    assert board.attrs["orphans"]["market"] == 67 and board.attrs["orphans"]["rounds"] == [DUE]
