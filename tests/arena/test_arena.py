"""The Arena view: the issue's worked examples, a cohort replayed over several nights, settlement of
YES, NO and void, the simulated portfolio of a probability forecast, bet-file validation and the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from generator.arena import bets as b
from generator.arena.gather import load_cohorts
from generator.arena.portfolio import arena_table, pnl_curves
from generator.schemas import BETS, FORECASTS, OBSERVATIONS, ROUND_QUESTIONS
from generator.store import manifest
from generator.store.csvio import write_table
from generator.store.hub import Hub
from generator.submissions.bets import check_bet_file
from generator.submissions.content import RoundSet
from generator.timeutil import parse_ts

from helpers import prescient, run_cli

DUE = "2026-01-25T00:00:00Z"
MODEL = "acme.bot"


# --- the worked examples -------------------------------------------------------------


def test_a_2500_bet_from_10000_cash_is_full_confidence():
    assert b.max_bet(10_000) == 2_500
    assert b.implied_confidence(2_500, 10_000) == 1.0
    assert b.implied_confidence(5_000, 10_000) == 1.0  # capped at 1
    assert b.implied_confidence(500, 10_000) == 0.2


def test_a_no_bet_at_80_percent_confidence_is_f_yes_020():
    confidence = b.implied_confidence(2_000, 10_000)
    assert confidence == 0.8
    assert b.f_yes(b.NO, confidence) == pytest.approx(0.20, abs=1e-15)
    assert b.f_yes(b.YES, confidence) == 0.8


def test_500_on_yes_at_040_buys_1250_shares_and_settles_at_plus_750():
    n = b.shares(500, b.side_price(b.YES, 0.40))
    assert n == 1_250
    assert b.payout(b.YES, n, 1.0) - 500 == 750
    assert b.payout(b.YES, n, 0.0) - 500 == -500
    assert b.payout(b.NO, 100, 0.0) == 100


def test_7500_cash_and_3200_positions_is_a_7_percent_return():
    assert b.return_pct(7_500 + 3_200) == 7.0


def test_no_price_is_one_minus_yes_price_and_never_below_one_cent():
    assert b.side_price(b.NO, 0.20) == 0.8
    assert b.side_price(b.NO, 1.0) == b.MIN_PRICE
    assert b.cash_before([2_500, 500, 1_000]) == [10_000, 7_500, 7_000]


# --- a hand-built hub: one round, three markets and a dataset question ------------------------


def _round(root: Path) -> None:
    rows = [("sim:m1", "", "binary", 0.25), ("sim:m2", "", "binary", 0.50), ("sim:m3", "", "binary", 0.50), ("sim:s1", "2026-02-01", "dataset", 10.0)]
    frame = pd.DataFrame(
        [
            {
                "question_id": q,
                "resolution_date": d,
                "source": "sim",
                "kind": k,
                "category": "",
                "due": DUE,
                "freeze_time": "2026-01-15T00:00:00Z",
                "freeze_value": v,
                "text": q,
                "url": "",
            }
            for q, d, k, v in rows
        ]
    )
    write_table(root / "data/rounds/2026-01-25/questions.csv", frame, ROUND_QUESTIONS)


def _observations(root: Path) -> None:
    rows = [
        ("sim:m1", "2026-01-20T00:00:00Z", 0.40, "open", None),
        ("sim:m1", "2026-01-26T00:00:00Z", 0.50, "open", None),
        ("sim:m1", "2026-01-27T00:00:00Z", 0.70, "open", None),
        ("sim:m1", "2026-01-28T12:00:00Z", 1.0, "resolved", 1.0),
        ("sim:m2", "2026-01-20T00:00:00Z", 0.20, "open", None),
        ("sim:m2", "2026-01-27T00:00:00Z", 0.10, "open", None),
        ("sim:m2", "2026-01-29T12:00:00Z", 0.0, "resolved", 0.0),
        ("sim:m3", "2026-01-20T00:00:00Z", 0.50, "open", None),
        ("sim:m3", "2026-01-28T00:00:00Z", None, "void", None),
    ]
    frame = pd.DataFrame(
        [
            {"question_id": q, "observed_at": t, "recorded_at": t, "value": v, "status": s, "outcome": o, "payload_sha256": ""}
            for q, t, v, s, o in rows
        ]
    )
    write_table(root / "data/observations/sim/2026-01.csv", frame, OBSERVATIONS)


ATTESTED = "2026-01-20T00:00:00Z"  # when the hub's manifest first recorded the files
BETS_CSV = """question_id,placed_at,side,amount,reasoning
sim:m2,2026-01-21T00:00:00Z,NO,2500,max bet against
sim:m1,2026-01-22T00:00:00Z,YES,500,
sim:m3,2026-01-23T00:00:00Z,YES,1000,
"""


@pytest.fixture
def hub(tmp_path: Path) -> Path:
    root = tmp_path / "hub"
    _round(root)
    _observations(root)
    (root / "data/bets/2026-01-25").mkdir(parents=True)
    (root / f"data/bets/2026-01-25/{MODEL}.csv").write_text(BETS_CSV, encoding="utf-8")
    forecasts = pd.DataFrame(
        {
            "question_id": ["sim:m1", "sim:m2", "sim:m3", "sim:s1"],
            "resolution_date": ["", "", "", "2026-02-01"],
            "probability": [0.6, 0.1, 0.5, 0.9],
            "reasoning": "",
        }
    )
    write_table(root / f"data/forecasts/2026-01-25/{MODEL}.csv", forecasts, FORECASTS)
    (root / "data/models").mkdir(parents=True)
    (root / f"data/models/{MODEL}.yml").write_text("name: Bot\norganization: Acme\nkind: llm\nmaintainers: [alice]\n")
    # the hub's record of the files, by a nightly run before the bets' own times: what attests them (a
    # bet file nothing attests is never priced)
    manifest.record(Hub(root), parse_ts(ATTESTED))
    return root


def _row(table: pd.DataFrame, view: str) -> dict:
    rows = table[table["view"] == view].to_dict("records")
    assert len(rows) == 1
    return rows[0]


def test_the_bets_file_is_read_through_the_bets_schema(hub):
    from generator.store.hub import Hub
    from generator.store.readers import load_bets

    frame = load_bets(Hub(hub), parse_ts(DUE))[MODEL]
    assert list(frame.columns) == list(BETS.names) and frame["amount"].tolist() == [2500, 500, 1000]


def test_positions_are_priced_at_the_bet_time_and_replayed_in_time_order(hub):
    pos = load_cohorts(hub, parse_ts("2026-01-30T00:00:00Z")).positions
    bets = pos[pos["view"] == "bets"].set_index("question_id")
    assert bets.loc["sim:m2", ["cash_before", "confidence", "yes_price", "price", "shares"]].tolist() == [10_000, 1.0, 0.2, 0.8, 3_125]
    assert bets.loc["sim:m2", "f_yes"] == 0.0
    assert bets.loc["sim:m1", ["cash_before", "yes_price", "shares"]].tolist() == [7_500, 0.4, 1_250]
    assert bets.loc["sim:m1", "confidence"] == pytest.approx(500 / 1_875)
    assert bets.loc["sim:m3", ["cash_before", "shares", "status", "payout"]].tolist() == [7_000, 2_000, "void", 1_000]


def test_settlement_of_yes_no_and_void_after_every_market_closed(hub):
    table = arena_table(load_cohorts(hub, parse_ts("2026-01-30T00:00:00Z")))
    row = _row(table, "bets")
    # NO 2,500 at 0.80 → 3,125 shares, resolved NO: +625; YES 500 at 0.40 → 1,250 shares, resolved YES: +750;
    # YES 1,000 on a void market: stake refunded, 0.
    assert row["cash"] == 10_000 - 4_000 + 3_125 + 1_250 + 1_000 == 11_375
    assert (row["positions_value"], row["total_value"], row["return_pct"]) == (0, 11_375, 13.75)
    assert (row["realised_pnl"], row["unrealised_pnl"]) == (1_375, 0)
    assert (row["n_bets"], row["n_open"], row["n_resolved"], row["n_void"], row["win_rate"]) == (3, 0, 2, 1, 1.0)
    assert row["bet_brier"] == pytest.approx(((0.0 - 0.0) ** 2 + (500 / 1_875 - 1.0) ** 2) / 2)


def test_mark_to_market_over_several_nights(hub):
    curve = pnl_curves(load_cohorts(hub, parse_ts("2026-01-30T00:00:00Z")))
    bets = curve[curve["view"] == "bets"].set_index("at")
    assert bets.index.tolist() == [f"2026-01-{d}T00:00:00Z" for d in range(22, 31)]
    expect = {  # at: (cash, positions value)
        "2026-01-22T00:00:00Z": (7_000, 3_125 * 0.8 + 1_250 * 0.4),  # a bet at 00:00 counts at 00:00
        "2026-01-23T00:00:00Z": (6_000, 2_500 + 500 + 2_000 * 0.5),
        "2026-01-27T00:00:00Z": (6_000, 3_125 * 0.9 + 1_250 * 0.7 + 1_000),  # m2 at 0.10, m1 at 0.70
        "2026-01-28T00:00:00Z": (7_000, 3_125 * 0.9 + 1_250 * 0.7),  # m3 void: refunded at 00:00
        "2026-01-29T00:00:00Z": (8_250, 3_125 * 0.9),  # m1 settled YES at 12:00 the day before
        "2026-01-30T00:00:00Z": (11_375, 0.0),
    }
    for at, (cash, value) in expect.items():
        assert bets.loc[at, "cash"] == pytest.approx(cash) and bets.loc[at, "positions_value"] == pytest.approx(value), at
    assert bets.loc["2026-01-27T00:00:00Z", "return_pct"] == pytest.approx(6.875)
    assert bets.loc["2026-01-27T00:00:00Z", "pnl"] == pytest.approx(687.5)


def test_an_earlier_as_of_sees_only_what_was_known_then(hub):
    row = _row(arena_table(load_cohorts(hub, parse_ts("2026-01-27T06:00:00Z"))), "bets")
    assert (row["n_open"], row["n_resolved"], row["cash"]) == (3, 0, 6_000)
    assert row["unrealised_pnl"] == pytest.approx(3_125 * 0.9 + 875 + 1_000 - 4_000)
    assert pd.isna(row["win_rate"]) and pd.isna(row["bet_brier"])


def test_the_simulated_portfolio_bets_100_toward_the_forecast_at_the_freeze_price(hub):
    cohorts = load_cohorts(hub, parse_ts("2026-01-30T00:00:00Z"))
    sim = cohorts.positions[cohorts.positions["view"] == "simulated"].set_index("question_id")
    # m1: p 0.6 > 0.25 → YES at 0.25 (400 shares); m2: p 0.1 < 0.5 → NO at 0.5 (200 shares); m3: p = price → no bet;
    # the dataset question is never bet on.
    assert sim.index.tolist() == ["sim:m1", "sim:m2"]
    assert sim["side"].tolist() == ["YES", "NO"] and sim["shares"].tolist() == [400, 200]
    assert (sim["placed_at"] == DUE).all() and (sim["amount"] == 100).all()
    row = _row(arena_table(cohorts), "simulated")
    assert (row["start"], row["total_value"], row["realised_pnl"], row["return_pct"]) == (200, 600, 400, 200.0)


def test_the_arena_table_never_ranks(hub):
    table = arena_table(load_cohorts(hub, parse_ts("2026-01-30T00:00:00Z")))
    assert "rank" not in table.columns
    assert table[["cohort", "view", "model"]].values.tolist() == [["2026-01-25", "bets", MODEL], ["2026-01-25", "simulated", MODEL]]


# --- validation of bet files ----------------------------------------------------------------

ROUND = RoundSet("2026-01-25", DUE, {"sim:m1": "binary", "sim:m2": "binary", "sim:s1": "dataset"}, {"sim:s1": frozenset({"2026-02-01"})})


def _codes(text: str) -> list[tuple[int | None, str | None, str]]:
    return sorted((p.row, p.column, p.code) for p in check_bet_file(text.encode(), "f.csv", ROUND))


def test_a_good_bet_file_has_no_problems():
    assert _codes("question_id,placed_at,side,amount,reasoning\nsim:m1,2026-01-20T00:00:00Z,YES,2500,\nsim:m2,2026-01-21T00:00:00Z,NO,1875,\n") == []


def test_every_bet_problem_is_reported_with_row_column_and_code():
    text = (
        "question_id,placed_at,side,amount,reasoning\n"
        "sim:s1,2026-01-20T00:00:00Z,YES,10,\n"  # 2 dataset question
        "sim:m1,2026-01-26T00:00:00Z,YES,10,\n"  # 3 after due
        "sim:m1,2026-01-20,yes,0,\n"  # 4 bad time, bad side, bad amount
        "sim:zz,2026-01-21T00:00:00Z,NO,nan,\n"  # 5 unknown question, bad amount
        "sim:s1,2026-01-20T00:00:00Z,NO,10,\n"
    )  # 6 duplicate of row 2
    assert _codes(text) == [
        (2, "question_id", "bet-not-market"),
        (3, "placed_at", "bet-after-due"),
        (4, "amount", "bad-bet-amount"),
        (4, "placed_at", "bad-bet-time"),
        (4, "side", "bad-bet-side"),
        (5, "amount", "bad-bet-amount"),
        (5, "question_id", "unknown-question"),
        (6, "placed_at", "duplicate-bet"),
        (6, "question_id", "bet-not-market"),
    ]


def test_the_limit_is_replayed_in_placed_at_order_not_file_order():
    text = (
        "question_id,placed_at,side,amount,reasoning\n"
        "sim:m2,2026-01-22T00:00:00Z,NO,1875.01,\n"  # placed second: 25% of 7,500 is 1,875
        "sim:m1,2026-01-21T00:00:00Z,YES,2500,\n"
    )  # placed first: exactly the limit
    assert _codes(text) == [(2, "amount", "bet-over-limit")]


def test_missing_columns_stop_the_row_checks():
    assert _codes("question_id,side,amount\nsim:m1,YES,10\n") == [(1, "placed_at", "missing-column")]


def test_prescient_validate_names_file_row_column_and_code_of_an_over_limit_bet(hub):
    path = f"data/bets/2026-01-25/{MODEL}.csv"
    (hub / path).write_text("question_id,placed_at,side,amount,reasoning\nsim:m1,2026-01-21T00:00:00Z,YES,2500.01,\n")
    done = run_cli("validate", "--hub", str(hub), path, "--at", "2026-01-22T00:00:00Z", "--format", "json", cwd=hub)
    assert done.returncode == 9, done.stderr
    problems = json.loads(done.stdout)["problems"]
    assert [(p["file"], p["row"], p["column"], p["code"]) for p in problems] == [
        (path, None, None, "author-unchecked"),
        (path, 2, "amount", "bet-over-limit"),
    ]
    text = run_cli("validate", "--hub", str(hub), path, "--at", "2026-01-22T00:00:00Z", cwd=hub).stdout
    assert "bet-over-limit" in text and "row 2" in text and "amount" in text


REFUSED_THEN_LEGAL = """question_id,placed_at,side,amount,reasoning
sim:m1,2026-01-21T00:00:00Z,YES,1e12,all in
sim:m2,2026-01-21T06:00:00Z,NO,10,a small legal buy
"""


def test_a_refused_buy_costs_nothing_so_a_later_legal_one_is_accepted_by_prescient_validate(hub):
    """One refused buy ($1e12) was taken out of the cash all the same, so a later legal $10 buy
    was refused too ("cash left $-999,999,990,000.00"). The real validator now refuses only the first."""
    path = f"data/bets/2026-01-25/{MODEL}.csv"
    (hub / path).write_text(REFUSED_THEN_LEGAL)
    done = prescient("validate", "--hub", str(hub), path, "--at", "2026-01-22T00:00:00Z", "--format", "json", cwd=hub)
    assert done.returncode == 9, done.stderr
    problems = json.loads(done.stdout)["problems"]
    assert [(p["row"], p["column"], p["code"]) for p in problems] == [(None, None, "author-unchecked"), (2, "amount", "bet-over-limit")]
    assert "over the limit of $2,500.00: 25% of the $10,000.00 cash left" in problems[1]["message"]


def test_the_portfolio_replays_only_the_buys_placed(hub):
    """The replay (the Arena's table, its curves, and the books a seal or the agents start from) places no
    buy the bet-file check refuses: the $1e12 buy costs nothing and the $10 buy is all the P/L."""
    (hub / f"data/bets/2026-01-25/{MODEL}.csv").write_text(REFUSED_THEN_LEGAL)
    manifest.record(Hub(hub), parse_ts("2026-01-20T12:00:00Z"))
    cohorts = load_cohorts(hub, parse_ts("2026-01-30T00:00:00Z"))
    bets = cohorts.positions[cohorts.positions["view"] == "bets"]
    assert bets[["question_id", "amount", "cash_before", "shares"]].values.tolist() == [["sim:m2", 10, 10_000, 12.5]]
    row = _row(arena_table(cohorts), "bets")
    assert (row["n_bets"], row["cash"], row["realised_pnl"]) == (1, 10_000 - 10 + 12.5, 2.5)


def test_prescient_validate_accepts_a_good_bet_file_and_refuses_json_bets(hub):
    path = f"data/bets/2026-01-25/{MODEL}.csv"
    done = run_cli("validate", "--hub", str(hub), path, "--at", "2026-01-22T00:00:00Z", cwd=hub)
    assert done.returncode == 0, done.stdout + done.stderr
    (hub / "data/bets/2026-01-25/acme.bot.json").write_text("{}")
    done = run_cli("validate", "--hub", str(hub), "data/bets/2026-01-25/acme.bot.json", "--at", "2026-01-22T00:00:00Z", "--format", "json", cwd=hub)
    assert [p["code"] for p in json.loads(done.stdout)["problems"]] == ["bad-extension"]


# --- the command line ------------------------------------------------------------------------


def test_prescient_arena_prints_the_table_as_csv_and_json(hub):
    done = run_cli("arena", "--hub", str(hub), "--as-of", "2026-01-30T00:00:00Z", "--format", "csv")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("cohort,model,view,n_bets,n_open,n_resolved,n_void,n_sold,start,cash,positions_value,total_value,return_pct")
    assert lines[1].startswith(f"2026-01-25,{MODEL},bets,3,0,2,1,0,10000,11375,0,11375,13.75,1375,0,1,")
    done = run_cli("arena", "--hub", str(hub), "--as-of", "2026-01-30T00:00:00Z", "--round", "2026-01-25", "--format", "json")
    records = json.loads(done.stdout)
    assert [(r["view"], r["total_value"]) for r in records] == [("bets", 11375.0), ("simulated", 600.0)]
    table = run_cli("arena", "--hub", str(hub), "--as-of", "2026-01-30T00:00:00Z").stdout
    assert "simulated" in table and "11,375.00" in table  # money to the cent, as the leaderboard formats numbers


def test_prescient_arena_refuses_an_unknown_round(hub):
    done = run_cli("arena", "--hub", str(hub), "--as-of", "2026-01-30T00:00:00Z", "--round", "2026-02-08")
    assert done.returncode == 1 and "no round is due on 2026-02-08" in done.stderr and "Traceback" not in done.stderr


def test_without_observations_bets_buy_at_the_freeze_value_and_stay_open(hub):
    (hub / "data/observations/sim/2026-01.csv").unlink()
    cohorts = load_cohorts(hub, parse_ts("2026-01-30T00:00:00Z"))
    bets = cohorts.positions[cohorts.positions["view"] == "bets"].set_index("question_id")
    assert bets["yes_price"].to_dict() == {"sim:m2": 0.5, "sim:m1": 0.25, "sim:m3": 0.5}
    row = _row(arena_table(cohorts), "bets")
    assert (row["n_open"], row["cash"], row["total_value"], row["return_pct"]) == (3, 6_000, 10_000, 0.0)
    curve = pnl_curves(cohorts)
    last = curve[(curve["view"] == "bets") & (curve["at"] == "2026-01-30T00:00:00Z")]
    assert last["total_value"].tolist() == [10_000]


def test_a_hub_without_bets_or_forecasts_has_an_empty_arena(tmp_path):
    root = tmp_path / "empty"
    _round(root)
    cohorts = load_cohorts(root, parse_ts("2026-01-30T00:00:00Z"))
    assert arena_table(cohorts).empty and pnl_curves(cohorts).empty


@pytest.mark.parametrize("as_of", ["2026-01-26T06:00:00Z", "2026-01-30T00:00:00Z", "2026-03-01T00:00:00Z"])
def test_every_curve_point_equals_the_summary_marked_at_that_time(hub, as_of):
    from generator.arena.portfolio import COHORT, mark, summarise

    cohorts = load_cohorts(hub, parse_ts(as_of))
    curve = pnl_curves(cohorts)
    assert len(curve) and curve["at"].max() <= as_of
    for at, rows in curve.groupby("at"):
        started = cohorts.positions.groupby(COHORT)["placed_at"].transform("min") <= at
        direct = summarise(mark(cohorts.positions[started], cohorts.known, at)).set_index(COHORT)
        got = rows.set_index(COHORT)
        assert sorted(got.index) == sorted(direct.index), at
        for column in ("cash", "positions_value", "total_value", "return_pct"):
            assert got[column].to_numpy() == pytest.approx(direct.loc[got.index, column].to_numpy(), abs=1e-9), (at, column)


def test_pricing_and_settlement_of_many_positions_at_once_match_the_scalar_bet_arithmetic():
    """``priced`` and ``settle`` work on whole columns: each row must be what ``bets.side_price``,
    ``bets.payout`` and the settlement rule give for it alone (YES and NO, prices under a cent and
    missing, open, resolved and void markets, resolutions before and after the due time)."""
    import numpy as np

    from generator.arena.portfolio import priced, settle

    sides = [b.YES, b.NO] * 6
    yes_prices = [0.4, 0.4, 0.005, 0.995, np.nan, np.nan, 0.7, 0.3, 0.01, 0.99, 0.5, 0.25]
    ids = [f"m:{i}" for i in range(12)]
    frame = priced(pd.DataFrame({"question_id": ids, "side": sides, "amount": [100.0, 250.0] * 6, "yes_price": yes_prices}))
    for side, p, got in zip(sides, yes_prices, frame["price"], strict=True):
        assert (np.isnan(got) and np.isnan(p)) or got == b.side_price(side, p)
    outcomes = pd.DataFrame(
        {
            "question_id": ids[:10],
            "status": ["resolved"] * 4 + ["resolved", "void", "open", "void"] + ["resolved"] * 2,
            "outcome": [1.0, 1.0, 0.0, 0.0, 1.0, np.nan, np.nan, np.nan, 0.0, 1.0],
            "resolved_at": ["2026-02-01T00:00:00Z", "2026-01-20T00:00:00Z"] * 4 + [None, "2026-03-01T00:00:00Z"],
        }
    )
    out = settle(
        frame.assign(round="r", model="x", view="bets", start=1.0, placed_at=DUE, cash_before=np.nan, confidence=np.nan, f_yes=np.nan), outcomes, DUE
    )
    for row, (_, o) in zip(out.itertuples(), outcomes.reindex(range(12)).iterrows(), strict=True):
        status = "void" if np.isnan(row.price) else (o["status"] if isinstance(o["status"], str) else "open")
        assert row.status == status
        if status == "open":
            assert row.settle_at == "" and np.isnan(row.payout)
            continue
        resolved_at = o["resolved_at"] if isinstance(o["resolved_at"], str) else ""
        assert row.settle_at == max(resolved_at, DUE)
        expected = row.amount if status == "void" else b.payout(row.side, row.shares, o["outcome"])
        assert row.payout == expected
