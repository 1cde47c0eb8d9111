"""What the hub recorded, read back: `leaderboard`, `arena`, `oracle` and `verify`."""

from __future__ import annotations

import argparse
import shutil
import sys

from ..console import print_frame
from ..errors import VERIFY_FAILED, ConfigError, PrescientError, Problem
from ..vocabulary import BOARDS, FB_MIN_DATASET_ROWS, FB_MIN_MARKET_QUESTIONS, PRELIMINARY, REPLICATES
from .common import LEDGERS, add_common, command_time, hub_dir, hub_option, print_warnings, recorded_nothing, run_time


def cmd_leaderboard(args: argparse.Namespace) -> int:
    """A board as of any time: scores recomputed from the ledgers as recorded by ``--as-of`` (when
    given; else the committed score files), the hub's options, and the bootstrap."""
    from ..leaderboard.hub_boards import hub_board
    from ..pipeline.recompute import hub_crowd, scores_as_of
    from ..store import readers
    from ..store.hub import Hub

    hub = Hub.load(hub_dir(args.hub))
    settings = hub.settings
    as_of = command_time(args)
    round_filter = {"min_dataset_rows": FB_MIN_DATASET_ROWS, "min_market_questions": FB_MIN_MARKET_QUESTIONS} if args.fb_round_filter else {}
    name = args.board or settings.leaderboard.boards[0]
    try:
        scores = scores_as_of(hub, as_of) if args.as_of else readers.load_scores(hub)
        _check_view(args.view, scores)
        models = readers.load_models(hub, as_of)
        board = hub_board(
            scores,
            models,
            as_of,
            settings,
            board=name,
            view=args.view,
            replicates=args.replicates,
            seed=args.seed,
            crowd=hub_crowd(hub),
            **round_filter,
        )
    except ValueError as exc:
        raise PrescientError(f"leaderboard: {exc}") from None
    from ..console import board_notes, board_text, empty_board_note
    from ..leaderboard.fb_layout import fb_layout
    from ..leaderboard.fb_rules import orphan_problem

    if board.attrs.get("orphans"):  # never silent: the warning goes to stderr in every format
        print(f"warning: {orphan_problem(board.attrs['orphans'], name)}", file=sys.stderr)
    empty = (
        empty_board_note(
            as_of,
            readers.round_dues(hub),
            settings.rounds.first_due,
            0 if name == PRELIMINARY else settings.scoring.min_age_days,
            readers.load_statements(hub),
            settings.scoring.unresolved_markets == "market_proxy",
        )
        if board.empty
        else ""
    )
    if args.format != "table":
        print_frame(
            fb_layout(board, name, models) if args.format == "forecastbench" else board, "csv" if args.format == "forecastbench" else args.format
        )
        if empty:
            print(f"prescient leaderboard: {empty}", file=sys.stderr)
        return 0
    title = f"{name} board · view {args.view} · as of {as_of:%Y-%m-%dT%H:%M:%SZ} · Brier Index: higher is better"
    sys.stdout.write(f"{title}\n{empty}\n" if empty else board_text(board, title, args.view, args.wide, shutil.get_terminal_size((100, 24)).columns))
    sys.stdout.write(board_notes(board))
    return 0


def _check_view(view: str, scores) -> None:
    """--view source:NAME or category:NAME names one the scores hold (ValueError listing them)."""
    kind, _, arg = view.partition(":")
    if kind in ("source", "category") and kind in scores and arg not in set(scores[kind].dropna().astype(str)):
        have = sorted(set(scores[kind].dropna().astype(str)) - {""})
        raise ValueError(
            f"--view {view!r}: no scored forecast has {kind} {arg!r}; the {kind}s scored are {', '.join(f'{kind}:{h}' for h in have) or 'none yet'}"
        )


def cmd_arena(args: argparse.Namespace) -> int:
    """The Arena view: bet cohorts and simulated portfolios (secondary; never the rank)."""
    from ..arena.gather import load_cohorts
    from ..arena.portfolio import arena_table
    from ..timeutil import parse_ts

    try:
        due = parse_ts(args.round) if args.round else None
    except ValueError as exc:
        raise ConfigError(f"--round {args.round!r}: {exc}") from None
    quarantine: list[Problem] = []
    _print_view(arena_table(load_cohorts(hub_dir(args.hub), command_time(args), due, quarantine)), args, ARENA_COLUMNS)
    print_warnings(quarantine)
    return 0


def cmd_oracle(args: argparse.Namespace) -> int:
    """Per-model accuracy, Brier, N and the YoY summary of the oracle sets, or (--months) the view by month."""
    from ..oracle import oracle_board, oracle_scores, temporal_view
    from ..store import readers
    from ..store.hub import Hub

    hub = Hub(hub_dir(args.hub))
    layout = hub.layout
    if args.set and args.set not in layout.oracle_sets():
        raise PrescientError(f"--set {args.set!r}: no such oracle set (have: {', '.join(layout.oracle_sets()) or 'none'})")
    quarantine: list[Problem] = []
    scores = oracle_scores(hub, command_time(args), [args.set] if args.set else None, quarantine)
    print_warnings(quarantine)
    cutoffs = {m: meta.knowledge_cutoff for m, meta in readers.load_models(hub).items()}
    print(
        f"oracle board: run_by hub rows are the hub's own runs ({hub.settings.own_prefix}.*, every call logged); every other row is "
        "self-reported (the answers are in the repository and oracle files have no deadline)",
        file=sys.stderr,
    )
    by = ("set", "model", "kind") if args.by_kind else ("set", "model")
    if args.months:
        _print_view(temporal_view(scores, cutoffs, by=by), args, MONTH_COLUMNS)
    else:
        _print_view(oracle_board(scores, cutoffs, hub.settings.own_prefix), args, ORACLE_COLUMNS)
    return 0


ARENA_COLUMNS = ("cohort", "model", "view", "n_bets", "total_value", "return_pct", "win_rate", "bet_brier")
ORACLE_COLUMNS = ("set", "model", "n", "accuracy", "brier", "accuracy_tf", "accuracy_mc", "run_by")
MONTH_COLUMNS = ("set", "model", "kind", "month", "n", "accuracy", "brier", "accuracy_ma5", "months_from_cutoff")


def _print_view(frame, args: argparse.Namespace, compact: tuple[str, ...]) -> None:
    """A secondary view as a table like the leaderboard's (``--wide``: every column), or CSV or JSON."""
    from ..console import frame_text

    if args.format != "table":
        print_frame(frame, args.format)
        return
    sys.stdout.write(frame_text(frame, compact, args.wide, shutil.get_terminal_size((100, 24)).columns))


def cmd_verify(args: argparse.Namespace) -> int:
    """Recompute the derived files and compare them byte for byte; optionally audit the git history."""
    import json

    from ..audit.verify import record_checkpoint, render_text, stale_pages, to_json, verify
    from ..store.hub import Hub

    if args.record_checkpoint and not (args.git and args.full):
        raise ConfigError("--record-checkpoint records what a full walk found: give it with --git and --full")
    if args.anchor and not args.git:
        args.git = "HEAD"  # an anchor is checked against a history: the checked-out one unless --git names another
    when, why = run_time(args)
    as_of = None if why == LEDGERS else when  # verify finds the same latest time itself
    root = hub_dir(args.hub)
    hub = Hub.load(root)
    report = verify(hub, as_of, git_rev=args.git, all_nights=args.all, full=args.full, anchor=args.anchor)
    text = render_text(report, args.details)
    stale = stale_pages(report)
    if stale:  # the pages are git-ignored, built here: a build older than the ledgers, or made at another --as-of
        text += (
            f"{stale} generated page(s) under site_src/docs/generated differ from a build as of {report.as_of}: they were built "
            f"from other ledgers or at another time; run `prescient build{hub_option(args)}` and verify again\n"
        )
    if args.record_checkpoint:
        written = record_checkpoint(hub, report, args.git)
        text += (
            f"checkpoint recorded in {written[0]} for {args.git}\n"
            if written
            else f"no checkpoint recorded: {stale} page(s) differ (run `prescient build`, then verify again)\n"
            if stale
            else "no checkpoint recorded (the git check failed, or nothing under data/ changed since the last one)\n"
        )
    if recorded_nothing(root):  # only the git history was checked: never "verified" on an empty hub
        text = text.replace("verified: every check passed", "nothing recorded yet: no ledger to recompute; the git history's checks passed")
    sys.stdout.write(json.dumps(to_json(report), indent=2) + "\n" if args.format == "json" else text)
    return 0 if report.ok else VERIFY_FAILED


def _count(text: str) -> int:
    """A whole number of at least 0 (a usage error otherwise)."""
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"{text!r}: give a whole number, 0 or more")
    return int(text)


def add_leaderboard(sub) -> None:
    """`leaderboard`, with the ForecastBench options of its board."""
    board = sub.add_parser("leaderboard", help="print the leaderboard")
    add_common(board)
    board.add_argument(
        "--format",
        choices=("table", "csv", "json", "forecastbench"),
        default="table",
        help="how to print the board (default table; forecastbench: CSV with the columns and rounding of "
        "ForecastBench's published leaderboard of that board)",
    )
    board.add_argument("--wide", action="store_true", help="the table with every column, not only rank, model, Brier Index, N and rank interval")
    board.add_argument(
        "--board",
        choices=BOARDS,
        default=None,
        help="tournament: every forecaster; baseline: those that saw no crowd value; preliminary: every "
        "forecaster on dataset questions, without the 50-day rule (ForecastBench's) "
        "(default: the first of hub.toml [leaderboard] boards)",
    )
    board.add_argument(
        "--replicates",
        type=_count,
        default=None,
        metavar="N",
        help=f"bootstrap replicates (default: hub.toml [leaderboard] replicates, {REPLICATES}; "
        "0: point estimates and ranks only, as history.csv records them)",
    )
    board.add_argument("--seed", type=int, default=None, metavar="S", help="bootstrap seed (default: hub.toml, 0)")
    board.add_argument(
        "--view",
        default="overall",
        metavar="VIEW",
        help="rows to rank: overall, market, dataset, resolved-only, source:NAME, category:NAME or horizon:DAYS (default overall)",
    )
    board.add_argument(
        "--fb-round-filter",
        action="store_true",
        help=f"keep only rounds with >={FB_MIN_DATASET_ROWS} resolved dataset rows and >={FB_MIN_MARKET_QUESTIONS} resolved markets (ForecastBench)",
    )
    board.set_defaults(func=cmd_leaderboard)


def add_oracle(sub) -> None:
    """`oracle`: the oracle board (Daily Oracle)."""
    from .oracle import add_oracle_actions

    oracle = sub.add_parser(
        "oracle",
        help="the oracle board: accuracy, Brier, N and year-on-year change around the cutoff; "
        "its actions make the questions from the news and answer them",
    )
    add_common(oracle)
    oracle.add_argument("--set", metavar="NAME", help="only this question set (default: every set)")
    oracle.add_argument("--months", action="store_true", help="print the view by resolution month instead")
    oracle.add_argument("--by-kind", action="store_true", help="with --months: true/false (tf) and multiple-choice (mc) apart")
    oracle.add_argument("--wide", action="store_true", help="the table with every column, not only the main ones")
    oracle.add_argument("--format", choices=("table", "csv", "json"), default="table", help="how to print the board (default table)")
    oracle.set_defaults(func=cmd_oracle)
    add_oracle_actions(oracle.add_subparsers(dest="oracle_command", required=False, metavar="ACTION"))


def add_verify(sub) -> None:
    verify = sub.add_parser(
        "verify",
        help="recompute scores, history and pages from the ledgers and compare byte for byte (exit 10 on any difference)",
        description="Without --as-of, scores and pages are recomputed as of the latest time the "
        "ledgers record (observations, resolutions, history, manifest). Exit 0: "
        "verified; 10: a difference or a history violation; warnings do not fail.",
    )
    add_common(verify)
    verify.add_argument(
        "--git",
        nargs="?",
        const="HEAD",
        metavar="REF",
        help="also audit the history of REF (default HEAD): append-only ledgers, forecast timing; from the "
        "newest checkpoint the nightly recorded that can be checked (the first line says which), "
        "else from the first commit",
    )
    verify.add_argument(
        "--full", action="store_true", help="with --git: walk the whole history from the first commit, whatever the checkpoints (the nightly's audit)"
    )
    verify.add_argument(
        "--record-checkpoint",
        action="store_true",
        help="with --git --full: when the walk finds no error, append its checkpoint to "
        "data/metadata/checkpoints.csv (the nightly does this; commit it with the night)",
    )
    verify.add_argument(
        "--anchor",
        metavar="COMMIT",
        help="with --git (implied): prove COMMIT (the id a page's footer named) an ancestor of the audited head and every ledger "
        "row and published history row as of it unchanged, then walk the history from it (time grows with the commits since it)",
    )
    verify.add_argument("--all", action="store_true", help="recompute every night of history.csv, not the latest 7")
    verify.add_argument("--details", action="store_true", help="list every problem: the pages that follow from a cause, every warning")
    verify.add_argument("--format", choices=("text", "json"), default="text", help="the report as text or JSON (default text)")
    verify.set_defaults(func=cmd_verify)


def add_arena(sub) -> None:
    arena = sub.add_parser("arena", help="the Arena view: bet P/L per cohort and simulated portfolios (never the rank)")
    add_common(arena)
    arena.add_argument("--round", metavar="DUE", help="only the round due on this date (YYYY-MM-DD)")
    arena.add_argument("--wide", action="store_true", help="the table with every column, not only the main ones")
    arena.add_argument("--format", choices=("table", "csv", "json"), default="table", help="how to print the view (default table)")
    arena.set_defaults(func=cmd_arena)
