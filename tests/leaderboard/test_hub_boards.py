"""The hub's boards made fast (``hub_boards.pair_boards``) are the boards of the plain method
(``hub_boards.plain_pair_boards``: each board × view made on its own with ``fb_board``), to the bit:
every column, every note in ``attrs``, the CSV bytes, whichever pairs are asked for together, with or
without the bootstrap, the crowd's market difficulty, and boards kept from the last night."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from generator.leaderboard.fb_board import COLUMNS
from generator.leaderboard.hub_boards import KeptBoards, history_rows, pair_boards, plain_pair_boards
from generator.models import ModelMeta
from generator.schemas import HISTORY
from generator.store.csvio import to_csv_bytes
from generator.store.hub import Hub
from generator.timeutil import parse_ts

from helpers import SMALL_HUB, write_hub

AS_OF = parse_ts("2026-03-01T00:00:00Z")
MODELS = {
    't.a"1': ModelMeta('t.a"1', "A", "O", "llm"),
    "t.b,2": ModelMeta("t.b,2", "B", "O", "llm", saw_crowd=True),
    "t.c\n3": ModelMeta("t.c\n3", "C", "O", "human"),
    "prescient.naive": ModelMeta("prescient.naive", "N", "O", "baseline"),
}
VIEWS = ("overall", "market", "dataset", "resolved-only", "source:fred")
BOARDS = ("tournament", "baseline", "preliminary")


def scores_of(seed: int) -> pd.DataFrame:
    """Score rows of three rounds, markets and dataset questions, ids that need quoting, some forecasts
    imputed and some markets scored against a proxy, in a shuffled order under a shuffled index."""
    rng = np.random.default_rng(seed)
    rows = []
    for r in ("2026-01-04", "2026-01-11", "2026-02-22"):
        for q in range(9):
            market = q % 3 == 0
            outcome = float(rng.integers(0, 2))
            for m in [*MODELS, "u.é"]:
                if rng.random() < 0.2:
                    continue
                p = float(rng.random())
                rows.append(
                    {
                        "round": r,
                        "model": m,
                        "question_id": f"{'manifold' if market else 'fred'}:q\r{q}",
                        "resolution_date": "" if market else "2026-02-01",
                        "source": "manifold" if market else "fred",
                        "kind": "binary" if market else "dataset",
                        "category": "c,1" if q % 2 else "",
                        "probability": p,
                        "imputed": int(rng.random() < 0.1),
                        "outcome": outcome,
                        "resolved_at": "2026-02-25T00:00:00Z",
                        "proxy": float(rng.random()) if market and rng.random() < 0.3 else np.nan,
                        "brier": (p - outcome) ** 2,
                    }
                )
    frame = pd.DataFrame(rows)
    order = rng.permutation(len(frame))
    return frame.iloc[order].set_axis(rng.permutation(len(frame)) + 7)  # not a RangeIndex


def crowd_of(scores: pd.DataFrame, seed: int) -> pd.DataFrame:
    """The crowd's value of each market of each round (``crowd.crowd_from_rounds``' columns), one left out."""
    rng = np.random.default_rng(seed)
    markets = scores[scores["kind"] == "binary"][["round", "question_id"]].drop_duplicates().iloc[1:]
    return markets.assign(probability=rng.random(len(markets)), at="due").reset_index(drop=True)


def assert_same_boards(fast: dict, plain: dict) -> None:
    assert list(fast) == list(plain)
    for pair, board in plain.items():
        pd.testing.assert_frame_equal(fast[pair], board, check_exact=True)
        assert fast[pair].to_csv(index=False).encode() == board.to_csv(index=False).encode(), pair
        assert fast[pair].attrs.keys() == board.attrs.keys(), pair
        for key, note in board.attrs.items():
            if isinstance(note, pd.DataFrame):
                pd.testing.assert_frame_equal(fast[pair].attrs[key], note, check_exact=True)
            else:
                assert repr(fast[pair].attrs[key]) == repr(note), (pair, key)


@pytest.fixture(scope="module")
def hub_settings(tmp_path_factory):
    root = write_hub(tmp_path_factory.mktemp("hub"), SMALL_HUB + f"\n[leaderboard]\nboards = {list(BOARDS)!r}\nviews = {list(VIEWS)!r}\n")
    return Hub.load(root).settings


@pytest.mark.parametrize("seed", range(2))
@pytest.mark.parametrize("replicates", [0, 25])
def test_every_board_and_view_made_together_is_the_plain_methods_board(hub_settings, seed, replicates):
    scores = scores_of(seed)
    pairs = [(b, v) for b in BOARDS for v in VIEWS]
    plain = plain_pair_boards(scores, MODELS, AS_OF, hub_settings, pairs, replicates=replicates)
    assert sum(len(board) for board in plain.values()) > 0
    assert_same_boards(pair_boards(scores, MODELS, AS_OF, hub_settings, pairs, replicates=replicates), plain)
    some = pairs[seed::4]  # a share of them, in another order
    assert_same_boards(pair_boards(scores, MODELS, AS_OF, hub_settings, some[::-1], replicates=replicates), {p: plain[p] for p in some[::-1]})


@pytest.mark.parametrize("seed", range(2))
def test_the_crowds_market_difficulty_gives_the_plain_methods_boards(hub_settings, seed):
    scores = scores_of(seed)
    pairs = [(b, v) for b in BOARDS for v in ("overall", "market")]
    options = {"market_difficulty": "crowd", "min_round_age_days": 0}
    crowd = crowd_of(scores, seed)
    plain = plain_pair_boards(scores, MODELS, AS_OF, hub_settings, pairs, replicates=0, crowd=crowd, **options)
    assert "crowd_values" in plain[("tournament", "overall")].attrs  # the crowd's values were used
    assert_same_boards(pair_boards(scores, MODELS, AS_OF, hub_settings, pairs, replicates=0, crowd=crowd, **options), plain)


def test_boards_kept_from_the_last_night_are_the_plain_methods_boards(hub_settings):
    """Night after night: a board kept (only a round too young for it changed), then made again (the
    round is old enough now), each the plain method's board."""
    pairs = [(b, v) for b in BOARDS for v in ("overall", "market")]
    old = scores_of(3)
    young = scores_of(4).query("round == '2026-02-22'").assign(round="2026-02-27")  # too young on AS_OF
    rescored = young.assign(brier=young["brier"] / 2)
    kept, taken, last = KeptBoards(), [], {}
    nights = [(AS_OF, young, "young"), (AS_OF, rescored, "young 2"), (parse_ts("2026-03-25T00:00:00Z"), rescored, "young 2")]
    for as_of, frame, token in nights:
        kept.parts = [("old", len(old)), (token, len(frame))]
        scores = pd.concat([old, frame])
        made = pair_boards(scores, MODELS, as_of, hub_settings, pairs, replicates=0, kept=kept)
        assert_same_boards(made, plain_pair_boards(scores, MODELS, as_of, hub_settings, pairs, replicates=0))
        taken.append(sum(made[p] is last.get(p) for p in pairs))
        last = made
    assert taken[1] > 0 and taken[2] < len(pairs), taken  # kept on the second night; made again on the third


@pytest.mark.parametrize("seed", range(2))
def test_a_headline_only_board_is_the_full_boards_history_columns(hub_settings, seed):
    """The nightly's history rows come from boards made ``headline_only``: every column the history
    records is the full board's, to the bit; the secondary columns are empty and the Explore notes
    absent (no history row holds them), and the history rows made from either are the same bytes."""
    scores = scores_of(seed)
    pairs = [(b, v) for b in BOARDS for v in VIEWS]
    full = plain_pair_boards(scores, MODELS, AS_OF, hub_settings, pairs, replicates=0)
    headline = pair_boards(scores, MODELS, AS_OF, hub_settings, pairs, replicates=0, headline_only=True)
    recorded = [c for c in HISTORY.names if c in COLUMNS]
    assert "log_score" not in recorded and {"rank", "overall", "provisional"} <= set(recorded)
    for pair, board in full.items():
        pd.testing.assert_frame_equal(headline[pair][recorded], board[recorded], check_exact=True)
        assert headline[pair].attrs["unranked"].equals(board.attrs["unranked"])
        if len(board):
            assert headline[pair][["log_score", "peer", "bss", "accuracy"]].isna().all().all()
            assert board["log_score"].notna().any() and "difficulty" not in headline[pair].attrs
    assert to_csv_bytes(history_rows(headline, AS_OF, "v"), HISTORY) == to_csv_bytes(history_rows(full, AS_OF, "v"), HISTORY)
