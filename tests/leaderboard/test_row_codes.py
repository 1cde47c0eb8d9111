"""The boards' ids coded once (``row_codes.RowCodes``) equal each subset coded on its own."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.leaderboard import fb_board
from generator.leaderboard.fb_board import FBOptions, select, selection_board, unit_codes
from generator.leaderboard.hub_boards import pair_boards
from generator.leaderboard.panel import sorted_codes
from generator.leaderboard.row_codes import RowCodes
from generator.leaderboard.secondary import model_secondary, units_as_text
from generator.models import ModelMeta
from generator.timeutil import parse_ts

HOSTILE = ['a"b', "a,b", "a\nb", "a\r\nb", "é", 'ü,"', "", " ", "q"]
ids = st.sampled_from(HOSTILE) | st.text(max_size=3)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(ids, ids, ids | st.none(), ids | st.none() | st.just(np.nan), st.booleans()), max_size=25))
def test_codes_of_a_subset_equal_coding_the_subset(rows):
    frame = pd.DataFrame(rows, columns=["model", "round", "question_id", "resolution_date", "keep"])
    codes = RowCodes.of(frame)
    assert codes is not None  # every model and round is text here
    codes = codes.with_units(unit_codes(frame)[0], units_as_text(frame))
    keep = frame["keep"].to_numpy(dtype=bool)
    sub = frame[keep].reset_index(drop=True)
    taken = codes.take(keep)
    for got, wanted in (
        (taken.model_codes(), sorted_codes(sub["model"].to_numpy())),
        (taken.round_codes(), sorted_codes(sub["round"].to_numpy())),
        (taken.unit_codes(), unit_codes(sub)),
    ):
        assert got is not None
        assert got[0].tolist() == wanted[0].tolist() and got[1].tolist() == wanted[1].tolist()


def test_ids_that_cannot_be_sorted_together_are_not_coded():
    assert RowCodes.of(pd.DataFrame({"model": ["a", None], "round": ["r", "r"]})) is None


def _scores(seed: int, text: bool = True) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    models, rounds = ['t.a"1', "t.b,2", "t.c\n3", "prescient.naive", "u.é"], ["2026-01-04", "2026-01-11", "2026-02-22"]
    rows = []
    for r in rounds:
        for q in range(8):
            market = q % 3 == 0
            outcome = float(rng.integers(0, 2))
            for m in models:
                if rng.random() < 0.2:
                    continue
                p = float(rng.random())
                rows.append(
                    {
                        "round": r,
                        "model": m,
                        "question_id": f"{'manifold' if market else 'fred'}:q\r{q}",
                        "resolution_date": ("" if text else np.nan) if market else "2026-02-01",
                        "source": "manifold" if market else "fred",
                        "kind": "binary" if market else "dataset",
                        "category": "",
                        "probability": p,
                        "imputed": int(rng.random() < 0.1),
                        "outcome": outcome,
                        "resolved_at": "2026-02-25T00:00:00Z",
                        "brier": (p - outcome) ** 2,
                    }
                )
    return pd.DataFrame(rows)


MODELS = {
    't.a"1': ModelMeta('t.a"1', "A", "O", "llm"),
    "t.b,2": ModelMeta("t.b,2", "B", "O", "llm", saw_crowd=True),
    "t.c\n3": ModelMeta("t.c\n3", "C", "O", "human"),
    "prescient.naive": ModelMeta("prescient.naive", "N", "O", "baseline"),
}
AS_OF = parse_ts("2026-03-01T00:00:00Z")


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(["tournament", "baseline"]), st.booleans())
def test_a_board_made_with_codes_equals_the_board_made_without(seed, board, text):
    scores = _scores(seed, text)
    options = FBOptions(board=board, replicates=0, min_round_age_days=None, max_imputed_share=0.15)
    unit = unit_codes(scores)[0]
    codes = RowCodes.of(scores)
    assert codes is not None
    selection = select(scores, MODELS, AS_OF, options, codes)
    assert selection.codes is not None
    positions = scores.index.get_indexer(selection.rows.index)
    with_codes = fb_board.Selection(selection.rows, selection.unranked, selection.codes.with_units(unit[positions], units_as_text(scores)))
    made = selection_board(with_codes, MODELS, AS_OF, np.random.default_rng(0), options)
    plain = selection_board(select(scores, MODELS, AS_OF, options), MODELS, AS_OF, np.random.default_rng(0), options)
    pd.testing.assert_frame_equal(made, plain, check_exact=True)
    pd.testing.assert_frame_equal(made.attrs["unranked"], plain.attrs["unranked"], check_exact=True)


def test_every_board_and_view_of_one_call_equals_each_made_alone(tmp_path):
    from generator.store.hub import Hub

    from helpers import SMALL_HUB, write_hub

    settings_ = Hub.load(write_hub(tmp_path, SMALL_HUB + '\n[leaderboard]\nviews = ["overall", "market", "dataset"]\n')).settings
    pairs = [(b, v) for v in ("overall", "market", "dataset") for b in ("tournament", "baseline")]
    scores = _scores(7)
    together = pair_boards(scores, MODELS, AS_OF, settings_, pairs, replicates=0)
    for pair in pairs:
        alone = pair_boards(scores, MODELS, AS_OF, settings_, [pair], replicates=0)[pair]
        pd.testing.assert_frame_equal(together[pair], alone, check_exact=True)
        options = fb_board.board_options(
            settings_.scoring, settings_.leaderboard, board=pair[0], replicates=0, score={"overall": "overall"}.get(pair[1], pair[1])
        )
        from generator.leaderboard.views import view_rows

        plain = fb_board.fb_board(view_rows(scores, pair[1]), MODELS, AS_OF, np.random.default_rng(settings_.leaderboard.seed), options)
        pd.testing.assert_frame_equal(together[pair], plain, check_exact=True)


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_the_secondary_columns_from_the_panel_units_equal_the_text_key(seed):
    rows = _scores(seed)
    assert units_as_text(rows) and not units_as_text(_scores(seed, text=False))
    names, model = sorted_codes(rows["model"].to_numpy())
    given_units = model_secondary(rows, names, model, "prescient.naive", unit_codes(rows)[0])
    own = model_secondary(rows, names, model, "prescient.naive")
    for column, values in own.items():
        np.testing.assert_array_equal(given_units[column], values)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.integers(-3, 6), max_size=40))
def test_first_appearance_by_a_running_maximum_equals_np_unique(keys):
    from generator.leaderboard.panel import counted_unique
    from generator.leaderboard.row_codes import first_appearance

    values = np.array(keys, dtype=np.int64)
    unit, first = first_appearance(values)
    wanted = np.zeros(len(values), bool)
    wanted[np.unique(values, return_index=True)[1]] = True
    assert unit.tolist() == pd.factorize(values)[0].tolist() and first.tolist() == wanted.tolist()
    positive = values - values.min(initial=0)
    uniques, inverse = counted_unique(positive, int(positive.max(initial=-1)) + 1)
    assert uniques.tolist() == np.unique(positive).tolist()
    assert inverse.tolist() == np.unique(positive, return_inverse=True)[1].tolist()


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([None, 0, 30]), st.booleans(), st.sampled_from([0, 3]))
def test_a_selection_made_with_codes_equals_the_rules_applied_one_by_one(seed, age, excluded, minimum):
    """``select`` narrows one mask (rounds compared once each by their codes) and takes the rows once:
    the rows, their labels and the unranked list are those of each rule applied in turn to a frame."""
    from dataclasses import replace as with_

    from generator.vocabulary import MARKET

    scores = _scores(seed)
    scores = scores.set_axis(np.arange(len(scores)) * 3 + 5)  # labels that are not positions
    models = {**MODELS, "t.b,2": with_(MODELS["t.b,2"], excluded=excluded)}
    options = FBOptions(
        board="tournament",
        replicates=0,
        min_round_age_days=age,
        max_imputed_share=0.15,
        min_dataset_rows=minimum,
        min_market_questions=1 if minimum else 0,
    )
    made = select(scores, models, AS_OF, options, RowCodes.of(scores))
    cutoff = (AS_OF - pd.Timedelta(days=age)).strftime("%Y-%m-%d") if age is not None else None
    rows = scores[(scores["resolved_at"] <= "2026-03-01T00:00:00Z") & ((scores["round"] <= cutoff) if cutoff else True)]
    if minimum:
        units = rows.drop_duplicates(["round", "question_id", "resolution_date"])
        market = units["kind"] == MARKET  # every other kind counts as a dataset unit
        per_round = pd.DataFrame({"dataset": (~market).groupby(units["round"]).sum(), "market": market.groupby(units["round"]).sum()})
        ok = (per_round["dataset"] >= minimum) & (per_round["market"] >= 1)
        rows = rows[rows["round"].isin(per_round.index[ok])]
    if excluded:
        rows = rows[rows["model"] != "t.b,2"]
    share = rows.groupby(["model", "round"])["imputed"].transform("mean")
    rows = rows[share <= 0.15]
    pd.testing.assert_frame_equal(made.rows, rows, check_exact=True)
    plain = select(scores, models, AS_OF, options)
    pd.testing.assert_frame_equal(plain.rows, rows, check_exact=True)
    pd.testing.assert_frame_equal(made.unranked, plain.unranked, check_exact=True)
    assert made.codes is not None
    assert made.codes.model_codes()[1].tolist() == sorted_codes(rows["model"].to_numpy())[1].tolist()
    assert made.codes.round_codes()[1].tolist() == sorted_codes(rows["round"].to_numpy())[1].tolist()
