"""Leaderboard views: which SCORES rows each view keeps, and the CLI's --view."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from generator.leaderboard.views import horizon_days, view_mask, view_rows
from generator.schemas import SCORES
from generator.store.csvio import write_table
from generator.vocabulary import PLAIN_VIEWS, parse_view

from helpers import SMALL_HUB, run_cli, write_hub


def available_views(scores: pd.DataFrame) -> list[str]:
    """Every view with at least one row: the plain ones, then per source, category and horizon."""
    out = [v for v in PLAIN_VIEWS if view_mask(scores, v).any()]
    out += [f"source:{s}" for s in sorted(scores["source"].dropna().astype(str).unique()) if s]
    out += [f"category:{c}" for c in sorted(scores["category"].dropna().astype(str).unique()) if c]
    out += [f"horizon:{h}" for h in sorted(horizon_days(scores).dropna().unique())]
    return out


def row(
    model="a.x",
    q="fred:d1",
    res="2026-01-11",
    kind="dataset",
    source="fred",
    category="econ",
    p=0.8,
    outcome=1.0,
    resolved_at="2026-01-20T00:00:00Z",
    round_="2026-01-04",
    imputed=0,
):
    return {
        "round": round_,
        "model": model,
        "question_id": q,
        "resolution_date": res,
        "source": source,
        "kind": kind,
        "category": category,
        "probability": p,
        "imputed": imputed,
        "outcome": outcome,
        "resolved_at": resolved_at,
        "brier": (p - outcome) ** 2,
    }


SCORES_ROWS = pd.DataFrame(
    [
        row(),  # dataset, horizon 7
        row(q="fred:d2", res="2026-02-03"),  # dataset, horizon 30
        row(q="manifold:m1", res="", kind="binary", source="manifold", category="politics"),
        row(q="manifold:m2", res="", kind="binary", source="manifold", category="politics", resolved_at=""),
    ]
)


def ids(frame):
    return frame["question_id"].tolist()


def test_each_view_keeps_the_rows_it_names():
    assert ids(view_rows(SCORES_ROWS, "overall")) == ["fred:d1", "fred:d2", "manifold:m1", "manifold:m2"]
    assert ids(view_rows(SCORES_ROWS, "market")) == ["manifold:m1", "manifold:m2"]
    assert ids(view_rows(SCORES_ROWS, "dataset")) == ["fred:d1", "fred:d2"]
    assert ids(view_rows(SCORES_ROWS, "resolved-only")) == ["fred:d1", "fred:d2", "manifold:m1"]
    assert ids(view_rows(SCORES_ROWS, "source:manifold")) == ["manifold:m1", "manifold:m2"]
    assert ids(view_rows(SCORES_ROWS, "category:econ")) == ["fred:d1", "fred:d2"]
    assert ids(view_rows(SCORES_ROWS, "horizon:7")) == ["fred:d1"]
    assert ids(view_rows(SCORES_ROWS, "horizon:30")) == ["fred:d2"]
    assert view_rows(SCORES_ROWS, "horizon:90").empty
    assert list(view_rows(SCORES_ROWS, "market").index) == [0, 1]


def test_markets_have_no_horizon_and_dataset_rows_count_days_from_the_due_date():
    assert horizon_days(SCORES_ROWS).tolist()[:2] == [7, 30]
    assert horizon_days(SCORES_ROWS).isna().tolist()[2:] == [True, True]


def test_resolved_only_drops_rows_flagged_as_market_proxies():
    frame = SCORES_ROWS.assign(proxy=[float("nan"), float("nan"), 1.0, float("nan")])
    assert ids(view_rows(frame, "resolved-only")) == ["fred:d1", "fred:d2"]


def test_available_views_lists_only_views_with_rows():
    assert available_views(SCORES_ROWS) == [
        "overall",
        "market",
        "dataset",
        "resolved-only",
        "source:fred",
        "source:manifold",
        "category:econ",
        "category:politics",
        "horizon:7",
        "horizon:30",
    ]


@pytest.mark.parametrize("bad", ["everything", "source:", "horizon:soon", "horizon:0", "sector:energy"])
def test_unknown_views_are_refused_with_the_accepted_forms(bad):
    with pytest.raises(ValueError, match="view"):
        parse_view(bad)


def _hub_with_scores(tmp_path: Path) -> Path:
    root = write_hub(tmp_path, SMALL_HUB.replace("min_resolved = 5", "min_resolved = 1").replace("min_age_days = 20", "min_age_days = 0"))
    rows = [
        row(model=m, q=q, res=res, kind=k, source=s, p=p, outcome=o)
        for m, shift in (("a.x", 0.0), ("b.y", 0.2))
        for q, res, k, s, p, o in (
            ("fred:d1", "2026-01-11", "dataset", "fred", 0.8 - shift, 1.0),
            ("fred:d2", "2026-01-11", "dataset", "fred", 0.3 + shift, 0.0),
            ("manifold:m1", "", "binary", "manifold", 0.6, 1.0),
            ("manifold:m2", "", "binary", "manifold", 0.1 + shift, 0.0),
        )
    ]
    (root / "data" / "scores").mkdir(parents=True)
    frame = pd.DataFrame(rows)
    frame = frame.reindex(columns=list(SCORES.names))  # columns added to SCORES later stay empty
    write_table(root / "data" / "scores" / "2026-01-04.csv", frame, SCORES)
    return root


def test_cli_prints_the_secondary_columns_and_filters_by_view(tmp_path: Path):
    hub = _hub_with_scores(tmp_path)
    # no --as-of: the committed score files are ranked (--as-of rescores from the ledgers, which this hub lacks)
    common = ("leaderboard", "--hub", str(hub), "--replicates", "20", "--format", "csv")
    result = run_cli(*common)
    assert result.returncode == 0, result.stderr
    board = pd.read_csv(pd.io.common.StringIO(result.stdout)).set_index("model")
    assert {"log_score", "peer", "bss", "accuracy", "provisional"} <= set(board.columns)
    # a.x beats the field mean by .06 on d1, .08 on d2, 0 on m1 and .04 on m2: mean .045
    assert board.loc["a.x", "peer"] == pytest.approx(0.045)
    assert board.loc["b.y", "peer"] == pytest.approx(-0.045)
    assert board["provisional"].tolist() == [0, 0]
    market = run_cli(*common, "--view", "market")
    assert market.returncode == 0, market.stderr
    only = pd.read_csv(pd.io.common.StringIO(market.stdout)).set_index("model")
    assert only["n_dataset"].tolist() == [0, 0] and only["n_market"].tolist() == [2, 2]
    bad = run_cli(*common, "--view", "sector:energy")
    assert bad.returncode == 1 and "unknown view" in bad.stderr and "Traceback" not in bad.stderr


# Every view ranks: a view of one question type used to rank by the overall score, which
# is undefined without both types, so its Rank, Rank 95%, % #1 and vs. ref were all empty.


def _assert_ranked(board: pd.DataFrame, score: str) -> None:
    assert board["rank"].notna().all(), board[["model", "rank"]]
    assert board["rank"].tolist() == sorted(board["rank"].tolist()), "best first"
    assert board[score].tolist() == sorted(board[score].tolist(), reverse=True), f"ordered by {score}"
    assert board["pct_rank1"].sum() == pytest.approx(100.0)
    assert (board["rank_low"] <= board["rank"]).all() and (board["rank"] <= board["rank_high"]).all()
    assert (board[f"{score}_ci_low"] <= board[score]).all() and (board[score] <= board[f"{score}_ci_high"]).all()
    assert board["p_value"].isna().sum() == 1, "every model but the reference (the top one) has a p-value"
    assert board["p_label"].iloc[0] == "—" and set(board["p_label"].iloc[1:]) <= {"Yes", "Likely", "No"}


@pytest.mark.parametrize(
    "view,score",
    [
        ("dataset", "dataset"),
        ("market", "market"),
        ("overall", "overall"),
        ("source:manifold", "market"),
        ("source:fred", "dataset"),
        ("horizon:7", "dataset"),
        ("category:econ", "overall"),
        ("resolved-only", "overall"),
    ],
)
def test_every_view_ranks_by_its_own_score_with_its_own_intervals(tmp_path: Path, view: str, score: str):
    from generator.leaderboard.hub_boards import headline_of, hub_board
    from generator.store import readers
    from generator.store.hub import Hub
    from generator.timeutil import parse_ts

    hub = Hub.load(_hub_with_scores(tmp_path))
    scores = readers.load_scores(hub)
    board = hub_board(scores, {}, parse_ts("2026-03-01T00:00:00Z"), hub.settings, board="tournament", view=view, replicates=200)
    assert len(board) == 2
    assert headline_of(view, board) == score
    _assert_ranked(board, score)
    if score != "overall":  # a one-type view: the overall score is undefined, the view's own is not
        assert board["overall"].isna().all() and board[score].notna().all()


@pytest.mark.parametrize("view", ["dataset", "market"])
def test_cli_ranks_the_dataset_and_market_views(tmp_path: Path, view: str):
    hub = _hub_with_scores(tmp_path)
    common = ("leaderboard", "--hub", str(hub), "--replicates", "50", "--view", view)
    frame = pd.read_csv(pd.io.common.StringIO(run_cli(*common, "--format", "csv").stdout))
    _assert_ranked(frame, view)
    table = run_cli(*common)
    assert table.returncode == 0, table.stderr
    lines = table.stdout.splitlines()
    assert lines[1].split()[:2] == ["rank", "model"]
    assert [line.split()[0] for line in lines[2:]] == ["1", "2"], table.stdout


BLANKISH = [None, np.nan, pd.NaT, "", " ", "\t", "\n", "\r\n", "\u3000", "\u00a0", "a", " a ", "é", '"', ",", 1.0, 0, "2026-01-01T00:00:00Z"]


@pytest.mark.parametrize("seed", range(100))
def test_blank_resolution_times_equal_the_stripped_text_of_every_row(seed):
    from generator.leaderboard.views import is_proxy

    rng = np.random.default_rng(seed)
    cells = [BLANKISH[i] for i in rng.integers(0, len(BLANKISH), rng.integers(0, 20))]
    scores = pd.Series(cells, dtype=object, index=rng.permutation(len(cells)) + 5).to_frame("resolved_at")
    wanted = scores["resolved_at"].isna() | (scores["resolved_at"].astype(str).str.strip() == "")
    pd.testing.assert_series_equal(is_proxy(scores), wanted)
