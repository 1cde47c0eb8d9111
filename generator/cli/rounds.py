"""Rounds and the hub's own forecasters: `round open`, `round template`, `rounds` and `forecast llm` (`round fetch` is in ``team``)."""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from pathlib import Path

from ..console import progress_bar
from ..errors import ConfigError, PartialFailure, PrescientError
from .common import add_common, command_time, emit, hub_dir, hub_option, shown, time_option
from .team import add_round_fetch


def cmd_round(args: argparse.Namespace) -> int:
    from ..pipeline.rounds import open_round
    from ..store.hub import Hub

    due = time_option("--due", args.due)
    report = open_round(Hub.load(hub_dir(args.hub)), due, command_time(args))
    print(f"round {report.rounds_opened[0]} opened; wrote {', '.join(report.written)}")
    return 0


def cmd_rounds(args: argparse.Namespace) -> int:
    """Every published round with its status and time left as of --as-of."""
    from ..pipeline.forecaster import round_statuses
    from ..store.hub import Hub

    as_of = command_time(args)
    shown = [r for r in round_statuses(Hub(hub_dir(args.hub)), as_of) if r.is_open or not args.open]
    if not shown:
        print(f"no round is {'open' if args.open else 'published'} as of {as_of:%Y-%m-%dT%H:%M:%SZ}")
    for r in shown:
        print(f"{r.due:%Y-%m-%d}  {r.units:>4} question(s) × date  {r.status}")
    if any(r.void for r in shown):
        print(
            "void: a question cancelled, annulled or resolved ambiguously by its source, or resolving on or before the "
            "round's due time, is dropped from scoring; a round is scored once every other question is resolved"
        )
    closed = [r for r in shown if not r.is_open]
    if closed and not any(r.status.startswith("scored") for r in closed):  # none scored yet: say what the oldest waits for
        oldest = closed[-1]
        print(
            "scored: a round is scored once every question × date is resolved or void (the Rounds page's rule); none is yet: "
            f"the oldest closed round, {oldest.due:%Y-%m-%d}, waits for {oldest.units - oldest.resolved - oldest.void} of its "
            f"{oldest.units - oldest.void}, whose markets or dates have not resolved by {as_of:%Y-%m-%d}; its provisional "
            "scores count what has resolved"
        )
    return 0


def cmd_round_template(args: argparse.Namespace) -> int:
    """A ready-to-fill forecast file for one round, to stdout or --out."""
    from ..pipeline.forecaster import forecast_template
    from ..store.hub import Hub
    from ..timeutil import format_ts

    due = time_option("--due", args.due)
    root = hub_dir(args.hub)
    data = forecast_template(Hub(root), due, args.format, args.model)
    as_of = command_time(args)
    if as_of >= due:  # the file is still written: a reader may want the round's rows; a submission would be late
        print(
            f"warning: the round due {due:%Y-%m-%d} is past its due time ({format_ts(due)}) at {format_ts(as_of)}: "
            "a forecast file submitted now does not count (round-closed)",
            file=sys.stderr,
        )
    if args.out and not Path(args.out).resolve().is_relative_to(root.resolve()):  # named from here: outside the hub
        inside = shown(root / "data" / "forecasts" / f"{due:%Y-%m-%d}" / Path(args.out).name)
        raise ConfigError(
            f"--out {args.out} is outside the hub at {shown(root)}: files are named from where you stand, and only a file in "
            f"the hub is checked and submitted; nothing was written. Write it inside, e.g. --out {inside}, or leave out --out "
            "to print it (`> FILE` keeps a file out of the hub, as a commit–reveal round's is before its due time)"
        )
    emit(data, args.out, f": fill in probability (0 to 1) on every row, then `prescient validate{hub_option(args)} {shlex.quote(args.out or '')}`")
    return 0


def cmd_forecast_llm(args: argparse.Namespace) -> int:
    """The hub's LLM forecaster over one round, or every round open at --as-of."""
    from ..forecasters import llm
    from ..store.files import load_settings
    from ..timeutil import parse_ts

    hub, as_of = hub_dir(args.hub), command_time(args)
    args.team = args.team or load_settings(hub).own_prefix  # the hub's own forecaster unless told
    endpoint = llm.endpoint_from_env(os.environ)
    options = llm.Options(
        model=args.model or os.environ.get("PRESCIENT_LLM_MODEL", ""),
        variant=args.variant,
        with_crowd=args.with_crowd,
        team=args.team,
        concurrency=args.concurrency,
        knowledge_cutoff=args.knowledge_cutoff or "",
    )
    try:
        dues = [parse_ts(args.round)] if args.round else llm.open_dues(hub, as_of)
    except ValueError as exc:
        raise PrescientError(f"--round {args.round!r}: {exc}") from None
    if not dues:
        print(f"no round is open at {as_of:%Y-%m-%dT%H:%M:%SZ}; nothing to forecast")
    if args.bets:
        return _forecast_bets(args, hub, as_of, endpoint, dues)
    for due in dues:
        with progress_bar(f"{llm.model_id(options)} round {due:%Y-%m-%d}") as advance:
            try:
                report = llm.run_llm(hub, due, as_of, endpoint, options, progress=advance)
            except PrescientError as exc:
                print("\n".join(llm.describe(exc.run_report if isinstance(exc, PartialFailure) else None)))
                raise
        print("\n".join(llm.describe(report)))
    return 0


def _forecast_bets(args: argparse.Namespace, hub, as_of, endpoint, dues) -> int:
    """``forecast llm --bets``: the hub's LLM agent trades each round."""
    from ..forecasters import agents

    options = agents.AgentOptions(
        model=args.model or os.environ.get("PRESCIENT_LLM_MODEL", ""), team=args.team, knowledge_cutoff=args.knowledge_cutoff or ""
    )
    for due in dues:
        try:
            report = agents.run_agent(hub, due, as_of, endpoint, options)
        except PartialFailure as exc:
            print("\n".join(agents.describe(exc.run_report)))
            raise
        print("\n".join(agents.describe(report)))
    return 0


def add_rounds(sub) -> None:
    """`round open`, `round template` and `rounds`."""
    round_ = sub.add_parser("round", help="manage rounds")
    round_sub = round_.add_subparsers(dest="round_command", required=True, metavar="ACTION")
    round_open = round_sub.add_parser("open", help="freeze and publish the round due at --due (refuses an existing round)")
    add_common(round_open)
    round_open.add_argument(
        "--due",
        required=True,
        metavar="ISO-TIMESTAMP",
        help="the round's due time, a day at 00:00 UTC, e.g. 2026-02-08T00:00:00Z (any other time is refused: due-not-midnight)",
    )
    round_open.set_defaults(func=cmd_round)
    template = round_sub.add_parser(
        "template", help="write a ready-to-fill forecast file for the round due at --due: every question and resolution date, probability empty"
    )
    add_common(template)
    template.add_argument("--due", required=True, metavar="DUE", help="the round's due date, e.g. 2026-02-08")
    template.add_argument(
        "--format", choices=("csv", "json"), default="csv", help="CSV with the forecast columns, or a ForecastBench forecast-set JSON (default csv)"
    )
    template.add_argument("--model", metavar="TEAM.MODEL", help="your forecaster id, for the JSON's organization and model")
    template.add_argument(
        "--out",
        metavar="FILE",
        help="write here instead of to standard output (named from where you "
        "stand, e.g. demo/data/forecasts/<due>/<team>.<model>.csv with --hub demo)",
    )
    template.set_defaults(func=cmd_round_template)
    add_round_fetch(round_sub)
    rounds = sub.add_parser("rounds", help="list the rounds with their status (open, closed and resolving, scored) and time left")
    add_common(rounds)
    rounds.add_argument("--open", action="store_true", help="only the rounds still open for forecasts")
    rounds.set_defaults(func=cmd_rounds)


def add_forecast(sub) -> None:
    forecast = sub.add_parser("forecast", help="run one of the hub's own forecasters")
    kinds = forecast.add_subparsers(dest="forecaster", required=True, metavar="FORECASTER")
    llm = kinds.add_parser("llm", help="ask an OpenAI-compatible chat endpoint (PRESCIENT_LLM_API_KEY, _BASE_URL)")
    llm.add_argument("--model", metavar="NAME", help="the endpoint's model name (default: $PRESCIENT_LLM_MODEL)")
    llm.add_argument("--round", metavar="DUE", help="the round's due date, e.g. 2026-02-08 (default: every open round)")
    llm.add_argument("--variant", choices=("zero-shot", "scratchpad"), default="zero-shot", help="the prompt (default zero-shot)")
    llm.add_argument("--with-crowd", action="store_true", help="show the market's probability at the freeze time")
    llm.add_argument("--team", help="the team part of the forecaster id (default: the hub's [hub] own_prefix, prescient unless set)")
    llm.add_argument("--concurrency", type=int, default=4, metavar="N", help="calls in flight at once (default 4)")
    llm.add_argument("--knowledge-cutoff", metavar="YYYY-MM-DD", help="the model's training cutoff, for its metadata")
    llm.add_argument(
        "--bets",
        action="store_true",
        help="trade in the Arena instead: write a bet file per round (<team>.<model>-arena), the agent's portfolio carried over its cohort",
    )
    add_common(llm)
    llm.set_defaults(func=cmd_forecast_llm)
