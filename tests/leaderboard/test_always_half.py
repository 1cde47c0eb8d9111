"""``Always 0.5`` scores exactly 50 on every view of every board, in both market modes,
with and without orphan units, on random hubs (seeded: each seed a hub).

A random hub: rounds present or absent, each with random dataset units (several horizons) and
markets; a random set of estimation-sample models per round (none: every unit of the round an
orphan); the hub's own ``prescient.always-0.5`` (and ``prescient.always-0``) in every round, as the
nightly writes them; on an "import", ForecastBench's own ``forecastbench.always-0.5`` only in the
rounds that have ForecastBench forecast sets (the rounds with estimation models), as a partial import
has it; crowd values for most markets (some missing, for the crowd board's rules).

Under 0.13.3 a crowd board's market average was taken over every market with a crowd value, also
those only the hub's own baselines answered (a partial import's other rounds): ForecastBench's
``Always 0.5`` then scored 44.8 on the market view (45.4 on FB's real sets)."""

from __future__ import annotations

from datetime import date, timedelta

import numpy as np
import pandas as pd
import pytest

from generator.leaderboard.crowd import CROWD_AT_DUE, CROWD_AT_FREEZE
from generator.leaderboard.fb_board import FBOptions, board_rules, fb_board
from generator.leaderboard.views import view_rows
from generator.models import ModelMeta
from generator.timeutil import parse_ts

AS_OF = parse_ts("2026-09-01T00:00:00Z")
HALF = ("prescient.always-0.5", "forecastbench.always-0.5")
DATASET_SOURCES, MARKET_SOURCES = ("fred", "acled"), ("manifold", "polymarket")
VIEWS = ("overall", "dataset", "market", "resolved-only", "source:manifold", "horizon:7")
LLMS = tuple(f"lab{i}.llm-{i}" for i in range(6))


def _models() -> dict[str, ModelMeta]:
    models = {m: ModelMeta(m, f"LLM {i}", f"Lab {i}", "llm", saw_crowd=bool(i % 2)) for i, m in enumerate(LLMS)}
    models["fb.super"] = ModelMeta("fb.super", "Supers", "ForecastBench", "human")
    for team in ("prescient", "forecastbench"):
        for value in ("0", "0.5"):
            models[f"{team}.always-{value}"] = ModelMeta(f"{team}.always-{value}", f"Always {value}", team, "baseline", saw_crowd=False)
    return models


def random_hub(seed: int, imported: bool, orphans: bool):
    """(scores, crowd) of one random hub."""
    rng = np.random.default_rng(seed)
    first = date(2025, 6, 1)
    rounds = [first + timedelta(days=14 * k) for k in range(8) if rng.random() < 0.7] or [first]
    rows, crowd = [], []
    for r in rounds:
        due = r.isoformat()
        units = []
        for q in range(int(rng.integers(2, 7))):
            src = DATASET_SOURCES[q % 2]
            for h in (7, 30):
                if rng.random() < 0.8:
                    units.append((f"{src}:{due}-d{q}", (r + timedelta(days=h)).isoformat(), src, "dataset"))
        for q in range(int(rng.integers(1, 6))):
            src = MARKET_SOURCES[q % 2]
            units.append((f"{src}:{due}-m{q}", "", src, "binary"))
            if rng.random() < 0.85:
                crowd.append(
                    {
                        "round": due,
                        "question_id": f"{src}:{due}-m{q}",
                        "probability": float(rng.uniform(0.02, 0.98)),
                        "at": CROWD_AT_DUE if rng.random() < 0.5 else CROWD_AT_FREEZE,
                    }
                )
        est = [m for m in (*LLMS, "fb.super") if rng.random() < 0.5]
        if not orphans and not est:
            est = [LLMS[0]]
        if orphans and rng.random() < 0.35:
            est = []  # a round only the hub's baselines answer: every unit an orphan
        forecasters = {m: None for m in est}
        forecasters.update({"prescient.always-0.5": 0.5, "prescient.always-0": 0.0})
        if imported and est:
            forecasters["forecastbench.always-0.5"] = 0.5
        for qid, res_date, src, kind in units:
            outcome = float(rng.random() < 0.4)
            proxy = kind == "binary" and rng.random() < 0.2
            for m, fixed in forecasters.items():
                p = fixed if fixed is not None else float(np.clip(rng.beta(2, 2) * 0.6 + 0.4 * outcome, 0.01, 0.99))
                rows.append(
                    {
                        "round": due,
                        "model": m,
                        "question_id": qid,
                        "resolution_date": res_date,
                        "source": src,
                        "kind": kind,
                        "category": "",
                        "probability": p,
                        "imputed": 0,
                        "outcome": outcome,
                        "resolved_at": (r + timedelta(days=40)).isoformat() + "T00:00:00Z",
                        "brier": (p - outcome) ** 2,
                        "proxy": int(proxy),
                    }
                )  # an open market, scored on a proxy
    scores = pd.DataFrame(rows)
    return scores, pd.DataFrame(crowd, columns=["round", "question_id", "probability", "at"])


def _halves(board: pd.DataFrame) -> pd.DataFrame:
    return board[board["model"].isin(HALF)]


@pytest.mark.parametrize("seed", range(8))
def test_always_half_is_fifty_on_every_view_of_every_board(seed):
    imported, orphans = bool(seed % 2), bool((seed // 2) % 2)
    scores, crowd = random_hub(seed, imported, orphans)
    models = _models()
    checked = 0
    for market_difficulty in ("estimated", "crowd"):
        for missing_crowd in ("estimate", "drop"):
            for board in ("tournament", "baseline", "preliminary"):
                options = board_rules(
                    FBOptions(
                        board=board,
                        replicates=4,
                        min_round_age_days=None,
                        max_imputed_share=None,
                        market_difficulty=market_difficulty,
                        missing_crowd=missing_crowd,
                    )
                )
                for view in VIEWS:
                    rows = view_rows(scores, view)
                    if rows.empty:
                        continue
                    out = fb_board(rows, models, AS_OF, np.random.default_rng(seed), options, crowd)
                    for _, row in _halves(out).iterrows():
                        for col in (
                            "dataset",
                            "market",
                            "overall",
                            "dataset_ci_low",
                            "dataset_ci_high",
                            "market_ci_low",
                            "market_ci_high",
                            "overall_ci_low",
                            "overall_ci_high",
                        ):
                            value = float(row[col])
                            if np.isfinite(value):
                                checked += 1
                                assert value == pytest.approx(50.0, abs=1e-9), (
                                    seed,
                                    market_difficulty,
                                    missing_crowd,
                                    board,
                                    view,
                                    row["model"],
                                    col,
                                    value,
                                )
    assert checked > 0


def test_the_crowd_market_average_is_taken_over_the_boards_units_not_the_hubs_other_rounds():
    # one round with an estimation model and ForecastBench's Always 0.5; a second only the hub's baselines answered
    scores, crowd = random_hub(0, imported=True, orphans=True)
    rounds = sorted(scores["round"].unique())
    answered = set(scores.loc[scores["model"].isin(LLMS + ("fb.super",)), "round"])
    assert answered and set(rounds) - answered, "the seed must give a round only the hub's baselines answer"
    options = FBOptions(replicates=0, min_round_age_days=None, max_imputed_share=None, market_difficulty="crowd")
    out = fb_board(scores, _models(), AS_OF, np.random.default_rng(0), options, crowd).set_index("model")
    assert out.loc["forecastbench.always-0.5", "market"] == pytest.approx(50.0, abs=1e-9)
    # the hub's own baselines answered the other rounds' markets: orphans there, each at its raw Brier
    assert out.loc["prescient.always-0.5", "n_orphan"] > 0 == out.loc["forecastbench.always-0.5", "n_orphan"]
    assert out.attrs["orphans"]["market"] > 0
