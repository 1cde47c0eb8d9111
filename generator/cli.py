"""``prescient``: a thin command line over the library.

Each command parses its options, resolves ``as_of`` once, calls one library function and maps
errors to exit codes. Expected failures (PrescientError) print a located, coded report and no
traceback; exit codes are documented in ``prescient --help``.
"""

from __future__ import annotations

import argparse
import functools
import os
import subprocess
import sys
from pathlib import Path
from typing import Sequence

from .console import print_frame, print_sources, progress_bar, requests_progress
from .errors import PrescientError

EPILOG = """exit codes: 0 ok · 1 error · 2 bad configuration · 3 a file does not match its schema ·
4 refused to rewrite history · 5 source error · 6 partial failure (some sources failed; the rest
was written) · 7 another run holds the lock · 8 site build failed · 9 a submission has errors"""


def _hub(value: str | None) -> Path:
    """--hub, else the git repository (or folder) you stand in."""
    if value:
        return Path(value).resolve()
    try:
        top = subprocess.run(["git", "rev-parse", "--show-toplevel"], capture_output=True, text=True, check=True)
        return Path(top.stdout.strip())
    except (OSError, subprocess.CalledProcessError):
        return Path.cwd()


def _as_of(args: argparse.Namespace):
    from .config import resolve_as_of

    return resolve_as_of(getattr(args, "as_of", None))


def cmd_demo(args: argparse.Namespace) -> int:
    from .demo import run_demo

    target = Path(args.dir).resolve()
    with progress_bar("Simulating a season of nightly runs") as advance:
        result = run_demo(target, progress=advance)
    print(f"Demo hub written to {result.root} ({result.nights} nightly runs on the offline sim world).")
    print(f"Site: {result.site / 'index.html'}")
    print(f"Preview it with:  prescient serve --hub {result.root}")
    return 0


def cmd_nightly(args: argparse.Namespace) -> int:
    from .pipeline import nightly

    as_of = _as_of(args)
    try:
        with requests_progress() as progress:
            report = nightly(_hub(args.hub), as_of, progress=progress)
    except PrescientError as exc:
        print_sources(getattr(exc, "nightly_report", None))
        raise
    print_sources(report)
    print(f"nightly {as_of:%Y-%m-%dT%H:%M:%SZ}: rounds opened {report.rounds_opened or 'none'}; "
          f"{len(report.written)} file(s) written")
    return 0


def cmd_fetch(args: argparse.Namespace) -> int:
    from .pipeline import nightly

    with requests_progress() as progress:
        report = nightly(_hub(args.hub), _as_of(args), only=args.source, fetch_only=True, progress=progress)
    print_sources(report)
    return 0


def cmd_sources(args: argparse.Namespace) -> int:
    from .config import load_settings
    from .sources.registry import known_sources

    settings = load_settings(_hub(args.hub))
    configured = {s.name: s for s in settings.sources}
    keys = {"metaculus": "METACULUS_TOKEN", "fred": "FRED_API_KEY"}
    for name in known_sources():
        state = "enabled" if name in configured and configured[name].enabled else "disabled"
        key = keys.get(name)
        note = f"; {key} {'present' if os.environ.get(key) else 'missing'}" if key else "; no key needed"
        print(f"{name:<11} {state}{note}")
    return 0


def cmd_build(args: argparse.Namespace) -> int:
    from .build import build_site

    hub = _hub(args.hub)
    changed = build_site(hub, _as_of(args), run_mkdocs=not args.no_mkdocs)
    print(f"{len(changed)} generated page(s) changed; site in {hub / 'site_src' / 'site'}")
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    import http.server

    site = _hub(args.hub) / "site_src" / "site"
    if not (site / "index.html").is_file():
        raise PrescientError(f"{site}: no built site; run `prescient build` (or `prescient demo`) first")
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(site))
    with http.server.ThreadingHTTPServer((args.bind, args.port), handler) as server:
        print(f"Serving {site} at http://{args.bind}:{server.server_address[1]}/ (Ctrl+C to stop)")
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass
    return 0


def cmd_leaderboard(args: argparse.Namespace) -> int:
    if getattr(args, "replicates", 0) > 0:
        return cmd_fb_leaderboard(args)
    from .build import gather

    print_frame(gather(_hub(args.hub), _as_of(args)).board, args.format)
    return 0


def cmd_validate(args: argparse.Namespace) -> int:
    from .submissions import render, validate_files, validate_pr
    from .timeutil import parse_ts

    pr_mode = bool(args.base or args.head or args.author)
    if pr_mode and not (args.base and args.head and args.author and args.at):
        raise PrescientError("a pull request is validated with all of --base, --head, --author and --at")
    if not pr_mode and not args.files:
        raise PrescientError("give FILE... to check, or --base/--head/--author/--at for a pull request")
    try:
        at = parse_ts(args.at) if args.at else _as_of(args)
    except ValueError as exc:
        raise PrescientError(f"--at {args.at!r}: {exc}") from None
    hub = _hub(args.hub)
    report = validate_pr(hub, args.base, args.head, args.author, at) if pr_mode else \
        validate_files(hub, [Path(f) for f in args.files], at)
    text = render(report, args.format)
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
    sys.stdout.write(text)
    return 0 if report.ok else 9


def cmd_round(args: argparse.Namespace) -> int:
    from .rounds_io import open_round
    from .timeutil import parse_ts

    try:
        due = parse_ts(args.due)
    except ValueError as exc:
        raise PrescientError(f"--due {args.due!r}: {exc}") from None
    report = open_round(_hub(args.hub), due, _as_of(args))
    print(f"round {report.rounds_opened[0]} opened; wrote {', '.join(report.written)}")
    return 0


def cmd_import_forecastbench(args: argparse.Namespace) -> int:
    """Import FB question/resolution/forecast sets, then score every round (issue 5)."""
    from .config import load_settings
    from .importers.forecastbench import import_forecastbench
    from .pipeline import hub_view, score_rounds
    from .store import readers
    from .store.layout import Layout

    hub, as_of = _hub(args.hub), _as_of(args)
    report = import_forecastbench(hub, Path(args.dir), Path(args.forecasts) if args.forecasts else None, as_of=as_of)
    for warning in report.warnings[:20]:
        print(f"warning: {warning}", file=sys.stderr)
    layout = Layout(hub)
    view = hub_view(layout, readers.load_observations(layout), as_of)
    scores, written = score_rounds(layout, view, load_settings(hub).scoring.impute_value)
    print(f"imported {len(report.rounds)} round(s); {report.questions_added} question version(s), "
          f"{report.statements_added} stated resolution(s), {report.forecast_files} forecast file(s) added; "
          f"{len(scores)} forecast(s) scored, {len(report.written) + len(written)} file(s) written")
    return 0


def cmd_fb_leaderboard(args: argparse.Namespace) -> int:
    """The ForecastBench-style board: difficulty-adjusted Brier Index with bootstrap statistics."""
    import numpy as np

    from .config import load_settings
    from .leaderboard.fb_board import FBOptions, fb_board
    from .store import readers
    from .store.layout import Layout

    hub, as_of = _hub(args.hub), _as_of(args)
    settings, layout = load_settings(hub), Layout(hub)
    round_filter = {"min_dataset_rows": 225, "min_market_questions": 50} if args.fb_round_filter else {}
    options = FBOptions(board=args.board, replicates=args.replicates, min_round_age_days=settings.scoring.min_age_days,
                        max_imputed_share=settings.scoring.max_imputed_share, **round_filter)
    try:
        board = fb_board(readers.load_scores(layout), readers.load_models(layout), as_of, np.random.default_rng(args.seed), options)
    except ValueError as exc:
        raise PrescientError(f"leaderboard: {exc}") from None
    print_frame(board, args.format, hide=("p_value", "in_estimation"), digits=1)
    return 0


def _add_fb_commands(sub, board: argparse.ArgumentParser) -> None:
    """`prescient import forecastbench` and the FB options of `prescient leaderboard` (issue 5)."""
    board.add_argument("--board", choices=("tournament", "baseline"), default="tournament",
                       help="tournament: every forecaster; baseline: those that saw no crowd value")
    board.add_argument("--replicates", type=int, default=1999, metavar="N",
                       help="bootstrap replicates for the difficulty-adjusted board (default 1999; 0: the mean-Brier board)")
    board.add_argument("--seed", type=int, default=0, metavar="S", help="bootstrap seed (default 0)")
    board.add_argument("--fb-round-filter", action="store_true",
                       help="keep only rounds with >=225 resolved dataset rows and >=50 resolved markets (ForecastBench)")
    importer = sub.add_parser("import", help="import another benchmark's files into the hub")
    kinds = importer.add_subparsers(dest="importer", required=True, metavar="FORMAT")
    fb = kinds.add_parser("forecastbench", help="ForecastBench question, resolution and forecast sets (JSON)")
    fb.add_argument("dir", help="folder holding datasets/question_sets and datasets/resolution_sets (or datasets/ itself)")
    fb.add_argument("--forecasts", metavar="DIR", help="folder of FB forecast-set JSON files (any depth)")
    _add_common(fb)
    fb.set_defaults(func=cmd_import_forecastbench)


def _add_common(parser: argparse.ArgumentParser, as_of: bool = True) -> None:
    parser.add_argument("--hub", metavar="DIR", help="the hub (default: the git repository you stand in)")
    if as_of:
        parser.add_argument("--as-of", metavar="ISO-TIMESTAMP",
                            help="the run's time in UTC, e.g. 2026-11-22T00:00:00Z (default: SOURCE_DATE_EPOCH, else now)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="prescient", description="A forecasting benchmark that lives in a git repository.",
                                     epilog=EPILOG)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    demo = sub.add_parser("demo", help="create a complete demo hub on the offline sim world and build its site")
    demo.add_argument("dir", nargs="?", default="demo", help="where to create it (default: ./demo)")
    demo.set_defaults(func=cmd_demo)
    for name, func, text in (("nightly", cmd_nightly, "one nightly run: fetch, open rounds, baselines, score"),
                             ("fetch", cmd_fetch, "run only the fetch stage")):
        p = sub.add_parser(name, help=text)
        _add_common(p)
        p.set_defaults(func=func)
    sub.choices["fetch"].add_argument("--source", help="fetch only this source")
    sources = sub.add_parser("sources", help="list the sources with their status")
    _add_common(sources, as_of=False)
    sources.set_defaults(func=cmd_sources)
    build = sub.add_parser("build", help="generate the pages, then mkdocs build --strict")
    _add_common(build)
    build.add_argument("--no-mkdocs", action="store_true", help="only write site_src/docs/generated")
    build.set_defaults(func=cmd_build)
    serve = sub.add_parser("serve", help="preview the built site locally")
    _add_common(serve, as_of=False)
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument("--bind", default="127.0.0.1")
    serve.set_defaults(func=cmd_serve)
    board = sub.add_parser("leaderboard", help="print the leaderboard")
    _add_common(board)
    board.add_argument("--format", choices=("table", "csv", "json"), default="table")
    _add_fb_commands(sub, board)
    board.set_defaults(func=cmd_leaderboard)
    validate = sub.add_parser("validate", help="check forecast files, or a pull request's changes (exit 9 on errors)")
    _add_common(validate, as_of=False)
    validate.add_argument("files", nargs="*", metavar="FILE", help="forecast or model files in the hub to check")
    validate.add_argument("--at", metavar="ISO-TIMESTAMP", help="judge the deadline at this UTC time (default: SOURCE_DATE_EPOCH, else now)")
    validate.add_argument("--base", metavar="SHA", help="the pull request's base commit")
    validate.add_argument("--head", metavar="SHA", help="the pull request's head commit")
    validate.add_argument("--author", metavar="LOGIN", help="the pull request author's GitHub login")
    validate.add_argument("--format", choices=("text", "markdown", "json"), default="text")
    validate.add_argument("--output", metavar="FILE", help="also write the report to FILE")
    validate.set_defaults(func=cmd_validate)
    round_ = sub.add_parser("round", help="manage rounds")
    round_sub = round_.add_subparsers(dest="round_command", required=True, metavar="ACTION")
    round_open = round_sub.add_parser("open", help="freeze and publish the round due at --due (refuses an existing round)")
    _add_common(round_open)
    round_open.add_argument("--due", required=True, metavar="ISO-TIMESTAMP", help="the round's due time in UTC, e.g. 2026-02-08T00:00:00Z")
    round_open.set_defaults(func=cmd_round)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except PrescientError as exc:
        print(f"prescient {args.command}: {exc.report()}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
