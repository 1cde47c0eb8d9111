"""Arena cohorts: rounds grouped into cohorts, the books a forecaster carries into a round, and the
bet-file rules that depend on them (the 25% limit from the cash carried, sales of what is held)."""

from __future__ import annotations

from generator.arena.cohorts import Books, cohort_labels
from generator.submissions.bets import check_bet_file
from generator.submissions.content import RoundSet

DUE = "2026-02-08T00:00:00Z"
ROUND = RoundSet("2026-02-08", DUE, {"sim:m4": "binary", "sim:m5": "binary"}, {})
HEAD = "question_id,placed_at,action,side,amount,reasoning\n"
CARRIED = Books(cash=6_000.0, held={("sim:m1", "YES"): 1_000.0, ("sim:m2", "NO"): 500.0})


def _codes(text: str, carried: Books | None = None) -> list[tuple[int | None, str | None, str]]:
    return sorted((p.row, p.column, p.code) for p in check_bet_file((HEAD + text).encode(), "f.csv", ROUND, carried))


def test_each_round_is_its_own_cohort_by_default():
    dues = ["2026-01-25", "2026-02-08", "2026-02-22"]
    assert cohort_labels(dues) == {d: d for d in dues}


def test_cohort_rounds_groups_consecutive_rounds_and_a_gap_starts_a_new_cohort():
    dues = ["2026-01-25T00:00:00Z", "2026-02-08T00:00:00Z", "2026-02-22T00:00:00Z", "2026-04-19T00:00:00Z", "2026-05-03T00:00:00Z"]
    assert cohort_labels(dues, cohort_rounds=2, cadence_days=14) == {
        "2026-01-25": "2026-01-25",
        "2026-02-08": "2026-01-25",
        "2026-02-22": "2026-02-22",
        "2026-04-19": "2026-04-19",
        "2026-05-03": "2026-04-19",
    }


def test_the_limit_is_25_percent_of_the_cash_carried_into_the_round():
    assert _codes("sim:m4,2026-02-01T00:00:00Z,buy,YES,1500,\n", CARRIED) == []
    assert _codes("sim:m4,2026-02-01T00:00:00Z,buy,YES,1500.01,\n", CARRIED) == [(2, "amount", "bet-over-limit")]
    assert _codes("sim:m4,2026-02-01T00:00:00Z,,YES,2500,\n") == []  # a cohort's first round: $10,000; empty is buy


def test_a_sale_may_close_at_most_the_stake_held_in_its_market_and_side():
    text = (
        "sim:m1,2026-02-01T00:00:00Z,sell,YES,400,\n"  # 2 part of the $1,000 held: fine
        "sim:m1,2026-02-02T00:00:00Z,sell,YES,600.01,\n"  # 3 only $600 left
        "sim:m2,2026-02-01T00:00:00Z,sell,YES,10,\n"  # 4 the position is NO, not YES
        "sim:m9,2026-02-01T00:00:00Z,sell,NO,10,\n"  # 5 nothing held
        "sim:m4,2026-02-01T00:00:00Z,hold,YES,10,\n"
    )  # 6 not an action of a bet file
    assert _codes(text, CARRIED) == [
        (3, "amount", "sell-over-held"),
        (4, "question_id", "sell-not-held"),
        (5, "question_id", "sell-not-held"),
        (6, "action", "bad-bet-action"),
    ]


def test_a_sale_of_a_market_of_an_earlier_round_is_no_unknown_question():
    assert _codes("sim:m1,2026-02-01T00:00:00Z,sell,YES,1000,\n", CARRIED) == []
    assert _codes("sim:m1,2026-02-01T00:00:00Z,buy,YES,100,\n", CARRIED) == [(2, "question_id", "unknown-question")]


def test_a_sale_does_not_give_back_cash_within_the_round():
    text = (
        "sim:m1,2026-02-01T00:00:00Z,sell,YES,1000,\n"
        "sim:m4,2026-02-02T00:00:00Z,buy,YES,1500,\n"
        "sim:m5,2026-02-03T00:00:00Z,buy,NO,1125.01,\n"
    )  # 25% of 4,500; the sale's money comes back next round
    assert _codes(text, CARRIED) == [(4, "amount", "bet-over-limit")]


def test_a_refused_row_costs_nothing_whatever_refused_it():
    """A refused row is not placed. A buy refused for its market no longer takes its $2,500 out
    of the cash (25% of 6,000 is 1,500, so the next $1,500 buy is legal), and a refused sale leaves the
    stake held (so the next sale of the whole $1,000 is legal)."""
    text = (
        "sim:zz,2026-02-01T00:00:00Z,buy,YES,2500,\n"  # 2 not in the round
        "sim:m4,2026-02-01T00:00:00Z,buy,YES,1e12,\n"  # 3 over the limit
        "sim:m5,2026-02-02T00:00:00Z,buy,NO,1500,\n"  # 4 25% of the 6,000 carried
        "sim:m1,2026-02-03T00:00:00Z,sell,YES,1000.01,\n"  # 5 more than the $1,000 held
        "sim:m1,2026-02-04T00:00:00Z,sell,YES,1000,\n"
    )  # 6 the $1,000 still held
    assert _codes(text, CARRIED) == [(2, "question_id", "unknown-question"), (3, "amount", "bet-over-limit"), (5, "amount", "sell-over-held")]
