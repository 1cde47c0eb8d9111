"""The hub's words, defined once: question kinds, statuses, boards, leaderboard views, source names,
and the leaderboard's fixed numbers (bootstrap replicates, ForecastBench's round filter)."""

from __future__ import annotations

MARKET = "binary"
DATASET = "dataset"
KINDS = (MARKET, DATASET)
STATUSES = ("open", "resolved", "void")

# tournament: every forecaster; baseline: those that saw no crowd value (model metadata saw_crowd);
# preliminary: every forecaster on dataset questions only, without the 50-day rule (ForecastBench's).
TOURNAMENT, BASELINE, PRELIMINARY = "tournament", "baseline", "preliminary"
BOARDS = (TOURNAMENT, BASELINE, PRELIMINARY)
DEFAULT_BOARDS = (TOURNAMENT, BASELINE)  # hub.toml [leaderboard] boards' default: a hub adds preliminary itself
REPLICATES = 1999  # bootstrap replicates of a board: hub.toml [leaderboard] replicates' default
# ForecastBench's per-round filter (its tournament board): a round counts when it has at least this
# many resolved dataset rows and resolved markets (leaderboard.fb_board.FB_TOURNAMENT).
FB_MIN_DATASET_ROWS, FB_MIN_MARKET_QUESTIONS = 225, 50


PLAIN_VIEWS = ("overall", "market", "dataset", "resolved-only")
PREFIXED_VIEWS = ("source", "category", "horizon")


def parse_view(view: str) -> tuple[str, str]:
    """(kind, argument) of a view name; ValueError naming the accepted forms otherwise."""
    if view in PLAIN_VIEWS:
        return view, ""
    kind, sep, arg = view.partition(":")
    if sep and kind in PREFIXED_VIEWS and arg:
        if kind == "horizon" and not (arg.isdigit() and int(arg) > 0):
            raise ValueError(f"view {view!r}: a horizon is a positive number of days, e.g. horizon:30")
        return kind, arg
    raise ValueError(f"unknown view {view!r}; expected one of {', '.join(PLAIN_VIEWS)}, source:<name>, category:<name> or horizon:<days>")


# name -> "module:Class"; the class is built as Class(options) with the [sources.<name>] table.
FACTORIES: dict[str, str] = {
    "sim": "generator.sources.sim:SimSource",
    "manifold": "generator.sources.manifold:ManifoldSource",
    "polymarket": "generator.sources.polymarket:PolymarketSource",
    "kalshi": "generator.sources.kalshi:KalshiSource",
    "metaculus": "generator.sources.metaculus:MetaculusSource",
    "fred": "generator.sources.fred:FredSource",
    "dbnomics": "generator.sources.dbnomics:DbnomicsSource",
}


def known_sources() -> tuple[str, ...]:
    return tuple(sorted(FACTORIES))


# ForecastBench's question sources: the questions of a round imported from it carry these names.
FORECASTBENCH_MARKET_SOURCES = ("infer", "manifold", "metaculus", "polymarket")
FORECASTBENCH_DATASET_SOURCES = ("acled", "dbnomics", "fred", "wikipedia", "yfinance")


def view_sources() -> tuple[str, ...]:
    """The names a ``source:<name>`` view may give: a question's source, fetched or imported."""
    return tuple(sorted({*FACTORIES, *FORECASTBENCH_MARKET_SOURCES, *FORECASTBENCH_DATASET_SOURCES}))
