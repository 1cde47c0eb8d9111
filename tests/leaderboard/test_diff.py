"""The nightly leaderboard diff: hand-built history rows in, plain-English sentences out."""

from __future__ import annotations

import pandas as pd

from generator.leaderboard.diff import Between, history_diffs, night_diff, score_column

N1, N2, N3 = "2026-03-01T00:00:00Z", "2026-03-02T00:00:00Z", "2026-03-03T00:00:00Z"


def night(as_of, rows, version="1", score="brier", board="tournament"):
    """rows: (model, rank, headline score, n_market, n_dataset)."""
    return pd.DataFrame(
        [
            {
                "as_of": as_of,
                "board": board,
                "model": m,
                "rank": r,
                "n": nm + nd,
                "n_dataset": nd,
                "n_market": nm,
                score: s,
                "provisional": 0,
                "methodology_version": version,
            }
            for m, r, s, nm, nd in rows
        ]
    )


BEFORE = night(N1, [("a.one", 1, 0.10, 20, 5), ("b.two", 2, 0.12, 20, 5), ("c.three", 3, 0.15, 20, 5)])


def test_an_unchanged_board_says_nothing():
    same = BEFORE.assign(as_of=N2)
    assert night_diff(BEFORE, same) == []
    assert history_diffs(pd.concat([BEFORE, same])) == []


def test_a_move_names_both_ranks_the_reason_and_the_score():
    after = night(N2, [("c.three", 1, 0.09, 32, 5), ("a.one", 2, 0.11, 32, 5), ("b.two", 3, 0.13, 32, 5)])
    assert night_diff(BEFORE, after) == [
        "c.three moved up from #3 to #1 after 12 new market resolutions (mean Brier 0.1500 → 0.0900).",
        "a.one moved down from #1 to #2 after 12 new market resolutions (mean Brier 0.1000 → 0.1100).",
        "b.two moved down from #2 to #3 after 12 new market resolutions (mean Brier 0.1200 → 0.1300).",
    ]


def test_given_counts_and_new_rounds_win_over_the_rows():
    after = night(N2, [("b.two", 1, 0.09, 20, 5), ("a.one", 2, 0.11, 20, 5), ("c.three", 3, 0.15, 20, 5)])
    said = night_diff(BEFORE, after, Between(3, 1, ("2026-02-15",)))
    assert said[0] == (
        "b.two moved up from #2 to #1 after 3 new market and 1 new dataset resolutions and "
        "round 2026-02-15 first scored (mean Brier 0.1200 → 0.0900)."
    )


def test_entries_and_departures_are_reported_and_explain_moves_without_new_data():
    after = night(N2, [("d.four", 1, 0.05, 10, 0), ("a.one", 2, 0.10, 20, 5), ("b.two", 3, 0.12, 20, 5)])
    assert night_diff(BEFORE, after, first_rounds={"d.four": "2026-02-15"}) == [
        "d.four entered the tournament board at #1 (first round resolved: 2026-02-15).",
        "a.one moved down from #1 to #2 as d.four entered and c.three left (mean Brier 0.1000 → 0.1000).",
        "b.two moved down from #2 to #3 as d.four entered and c.three left (mean Brier 0.1200 → 0.1200).",
        "c.three left the tournament board (was #3).",
    ]


def test_ties_read_as_tied_and_a_methodology_change_is_named():
    after = night(N2, [("a.one", 1, 0.10, 20, 5), ("b.two", 1, 0.10, 20, 5), ("c.three", 3, 0.15, 20, 5)], version="2")
    assert night_diff(BEFORE, after) == [
        "b.two moved up from #2 to tied #1 after the methodology changed from version 1 to 2 (mean Brier 0.1200 → 0.1000).",
    ]


def test_a_move_with_no_visible_cause_is_a_score_correction():
    after = night(N2, [("b.two", 1, 0.09, 20, 5), ("a.one", 2, 0.10, 20, 5), ("c.three", 3, 0.15, 20, 5)])
    assert night_diff(BEFORE, after)[0].startswith("b.two moved up from #2 to #1 after score corrections")


def test_the_brier_index_column_is_detected_when_present():
    before = night(N1, [("a.one", 1, 70.0, 20, 5), ("b.two", 2, 65.0, 20, 5)], score="overall")
    after = night(N2, [("b.two", 1, 72.5, 21, 5), ("a.one", 2, 69.0, 21, 5)], score="overall")
    assert score_column(after.columns) == "overall"
    assert night_diff(before, after)[0] == "b.two moved up from #2 to #1 after 1 new market resolution (Brier Index 65.0 → 72.5)."


def test_history_diffs_covers_every_consecutive_pair_per_board_latest_first():
    n2 = night(N2, [("b.two", 1, 0.09, 25, 5), ("a.one", 2, 0.11, 25, 5), ("c.three", 3, 0.15, 25, 5)])
    n3 = n2.assign(as_of=N3)
    other = pd.concat(
        [night(N1, [("a.one", 1, 0.1, 1, 0)], board="baseline"), night(N2, [("a.one", 1, 0.1, 1, 0), ("e.five", 2, 0.2, 1, 0)], board="baseline")]
    )
    history = pd.concat([n3, other, BEFORE, n2]).sample(frac=1, random_state=1)  # order must not matter
    changes = history_diffs(history, news={N2: Between(new_rounds=("2026-02-15",))})
    assert [(c.previous, c.as_of, c.board) for c in changes] == [(N1, N2, "tournament"), (N1, N2, "baseline")]
    assert changes[1].sentences == ("e.five entered the baseline board at #2.",)
    assert changes[0].sentences[0] == (
        "b.two moved up from #2 to #1 after 5 new market resolutions and round 2026-02-15 first scored (mean Brier 0.1200 → 0.0900)."
    )
    assert history_diffs(history.iloc[::-1]) == history_diffs(history)


def test_provisional_rows_are_unranked_and_only_their_status_change_is_news():
    nan = float("nan")
    before = night(N1, [("a.one", 1, 60.0, 20, 5), ("b.two", nan, 55.0, 2, 0), ("c.three", nan, 50.0, 1, 0)], score="overall")
    after = night(
        N2, [("a.one", 2, 60.0, 30, 5), ("b.two", 1, 62.0, 12, 0), ("c.three", nan, 51.0, 3, 0), ("d.four", nan, 40.0, 1, 0)], score="overall"
    )
    assert night_diff(before, after) == [
        "d.four entered the tournament board as provisional (unranked).",
        "b.two was ranked for the first time, at #1, after 10 new market resolutions (Brier Index 55.0 → 62.0).",
        "a.one moved down from #1 to #2 after 10 new market resolutions (Brier Index 60.0 → 60.0).",
    ]
    back = night(N3, [("a.one", nan, 60.0, 30, 5)], score="overall")
    assert night_diff(after.iloc[:1], back)[0] == "a.one became provisional again (was #2) after score corrections (Brier Index 60.0 → 60.0)."
