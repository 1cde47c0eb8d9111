"""``prescient``: a thin command line over the library.

Each command parses its options, resolves ``as_of`` once, calls one library function and maps
errors to exit codes. Expected failures (PrescientError) print a located, coded report and no
traceback; exit codes are documented in ``prescient --help``.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import sys
import time
from collections.abc import Iterator, Sequence
from datetime import datetime
from pathlib import Path

from . import __version__
from .config import HUB_FILE
from .console import demo_summary, print_frame, print_sources, progress_bar, requests_progress
from .errors import (
    EXIT_CODES,
    INTERRUPTED,
    VERIFY_FAILED,
    ConfigError,
    PartialFailure,
    PrescientError,
    Problem,
    SubmissionInvalid,
    storage_error,
)
from .vocabulary import BOARDS, FB_MIN_DATASET_ROWS, FB_MIN_MARKET_QUESTIONS, REPLICATES

EPILOG = "exit codes: " + " · ".join(f"{code} {meaning}" for code, meaning in sorted(EXIT_CODES.items()))

READ_COMMANDS = ("leaderboard", "verify", "arena", "oracle")  # they only read what the hub recorded


def find_hub(start: Path) -> Path | None:
    """The nearest folder, ``start`` or one above it, that holds data/hub.toml."""
    return next((folder for folder in (start, *start.parents) if (folder / HUB_FILE).is_file()), None)


def _hub(value: str | None) -> Path:
    """--hub, else the nearest folder, walking up from the one you stand in, that holds data/hub.toml."""
    if value:
        return Path(value).resolve()
    here = Path.cwd().resolve()
    found = find_hub(here)
    if found is None:
        raise ConfigError(f"no hub found: neither {here} nor any folder above it holds {HUB_FILE}; "
                          "give --hub DIR, or create a demo hub with `prescient demo`")
    return found


def _as_of(args: argparse.Namespace):
    """The run's time, resolved once per command (the first line on stderr shows the same value)."""
    from .config import resolve_as_of

    if getattr(args, "resolved_as_of", None) is None:
        args.resolved_as_of = resolve_as_of(getattr(args, "as_of", None))
    return args.resolved_as_of


def _announce(args: argparse.Namespace) -> Path | None:
    """The first line on stderr: the hub and the as-of time the command uses (stdout stays data)."""
    from .store.layout import Layout
    from .timeutil import format_ts

    if args.command == "demo":
        print(f"prescient: demo hub {Path(args.dir).resolve()}", file=sys.stderr)
        return None
    if not hasattr(args, "hub"):
        return None
    root = _hub(args.hub)
    line = f"prescient: hub {root}"
    if args.command == "validate":
        line += f" · at {args.at}" if args.at else f" · at {format_ts(_as_of(args))}"
    elif hasattr(args, "as_of"):
        default = _board_time(args, Layout(root)) if args.command == "leaderboard" and not args.as_of else None
        if args.command == "build":
            when, why = _build_time(args, root)
            default = (when, why) if why else None
        if args.command == "verify" and not args.as_of:
            line += " · as of the latest time its ledgers record"
        elif default is not None:
            line += f" · as of {format_ts(default[0])} ({default[1]})"
        else:
            line += f" · as of {format_ts(_as_of(args))}"
    print(line, file=sys.stderr)
    return root


def _recorded_nothing(root: Path) -> bool:
    """True when the hub's data/ holds no ledger yet (no CSV or JSONL file): a fresh or empty hub."""
    data = root / "data"
    return not any(p.suffix in (".csv", ".jsonl") for p in data.rglob("*") if p.is_file())


def cmd_demo(args: argparse.Namespace) -> int:
    from .pipeline.demo import SEASON_START, run_demo, season
    from .site.build import build_site

    target, started = Path(args.dir).resolve(), time.monotonic()
    end = _demo_until(args.until)
    nights = season(end=end)
    with progress_bar("Simulating a season of nightly runs") as advance:
        result = run_demo(target, progress=advance, nights=nights, build=False)
    print("Building the site (mkdocs build --strict) ...", file=sys.stderr)
    build_site(result.root, end)
    print(demo_summary(result, SEASON_START, time.monotonic() - started, _shown(result.root), _program()))
    return 0


def _demo_until(until: str | None):
    from .pipeline.demo import SEASON_END, SEASON_START
    from .timeutil import days, format_date, parse_ts

    try:
        end = SEASON_END if until is None else min(parse_ts(until), SEASON_END)
    except ValueError as exc:
        raise ConfigError(f"--until {until!r}: {exc}; write a date such as {format_date(SEASON_START + days(21))}") from None
    if end < SEASON_START:
        raise ConfigError(f"--until {until}: the demo season runs from {format_date(SEASON_START)} "
                          f"to {format_date(SEASON_END)}; give a night in it")
    return end


def _shown(path: Path) -> str:
    """``path`` as the user would type it from here: relative when it is below the current folder."""
    try:
        return str(path.relative_to(Path.cwd())) or "."
    except ValueError:
        return str(path)


def _program() -> str:
    """How the user called this program, so the commands we suggest can be pasted as they are."""
    script = Path(sys.argv[0]).absolute()
    if script.name == "__main__.py":
        return "python -m generator"
    on_path = shutil.which(script.name)
    return script.name if on_path and Path(on_path).absolute() == script else _shown(script)


def cmd_nightly(args: argparse.Namespace) -> int:
    from .pipeline.nightly import nightly

    as_of = _as_of(args)
    hub = _cached_hub(_hub(args.hub), args)
    try:
        with requests_progress() as progress, _walker(hub, args) as walk:
            report = nightly(hub, as_of, progress=progress, walk=walk)
    except PartialFailure as exc:
        print_sources(exc.run_report)
        raise
    finally:
        _keep_cache(hub.cache, "nightly")
    print_sources(report)
    print(f"nightly {as_of:%Y-%m-%dT%H:%M:%SZ}: rounds opened {report.rounds_opened or 'none'}; "
          f"{len(report.written)} file(s) written")
    for line in report.unranked:  # the imputation rule is never silent
        print(f"unranked: {line}")
    for found in report.sealing:
        print(f"{found.severity}: {found}", file=sys.stderr)
    return 0


@contextlib.contextmanager
def _walker(hub, args: argparse.Namespace) -> Iterator:
    """Under [hub] receipts = "github" with GITHUB_REPOSITORY set: the nightly's walk of the validation runs."""
    from .pipeline.receipts import walk

    if hub.settings.receipts != "github" or not os.environ.get("GITHUB_REPOSITORY"):
        yield None
        return
    with _github(None) as github:
        def run(the_hub, as_of) -> bool:
            done = walk(the_hub, github, as_of, branch_rows=_branch_rows(the_hub.root, args.receipts_from))
            for note in done.notes:
                print(f"note: receipts: {note}", file=sys.stderr)
            return done.complete
        yield run


def _cached_hub(root: Path, args: argparse.Namespace):
    """The hub with the disk cache kept between commands (``store.diskcache``) unless --no-cache."""
    from .store.hub import Hub

    return Hub.load(root, _cached_layout(root, args))


def _cached_layout(root: Path, args: argparse.Namespace):
    from .store.csvio import ReadCache
    from .store.diskcache import DiskCache, default_dir
    from .store.layout import Layout

    if args.no_cache:
        return Layout(root)
    folder = Path(args.cache_dir) if args.cache_dir else default_dir(root)
    return Layout(root, ReadCache(disk=DiskCache.open(folder, root)))


def _keep_cache(cache, command: str) -> None:
    """Write what the command kept for the next one; a cache that cannot be written is one warning."""
    if cache.disk is not None:
        cache.disk.flush()
        if cache.disk.unwritable:
            print(f"prescient {command}: warning: the cache was not kept ({cache.disk.unwritable}); "
                  "the next run reads and derives from the files", file=sys.stderr)


def cmd_fetch(args: argparse.Namespace) -> int:
    from .pipeline.nightly import nightly
    from .store.hub import Hub

    hub, as_of = Hub.load(_hub(args.hub)), _as_of(args)
    if args.source:
        _check_source(args.source, hub.settings)
    with requests_progress() as progress:
        report = nightly(hub, as_of, only=args.source, fetch_only=True, progress=progress)
    print_sources(report)
    return 0


def _check_source(name: str, settings) -> None:
    """--source NAME: a source this program knows, and one data/hub.toml enables (ConfigError, exit 2)."""
    from .vocabulary import known_sources

    if name not in known_sources():
        raise ConfigError(f"--source {name!r}: no such source; the sources are {', '.join(known_sources())} "
                          "(`prescient sources` shows which are enabled)")
    enabled = [s.name for s in settings.enabled_sources]
    if name not in enabled:
        raise ConfigError(f"--source {name!r}: this source is disabled in data/hub.toml (enable it with "
                          f"[sources.{name}] enabled = true); enabled: {', '.join(enabled) or 'none'}")


def cmd_sources(args: argparse.Namespace) -> int:
    from .config import load_settings
    from .vocabulary import known_sources

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
    from .site.build import build_site

    hub = _hub(args.hub)
    as_of = _build_time(args, hub)[0]
    quarantine: list[Problem] = []
    loaded = _cached_hub(hub, args)  # the checked frames the nightly kept: the build need not parse them again
    try:
        changed = build_site(loaded, as_of, run_mkdocs=not args.no_mkdocs, quarantine=quarantine)
    finally:
        _keep_cache(loaded.cache, "build")
    _warn_quarantined(quarantine)
    print(f"{len(changed)} generated page(s) changed; site in {hub / 'site_src' / 'site'}")
    return 0


def _build_time(args: argparse.Namespace, root: Path) -> tuple[datetime, str | None]:
    """The site's time: --as-of, else SOURCE_DATE_EPOCH, else the latest time the ledgers record, so
    that a bare ``prescient build`` shows the data as of its last night and ``prescient verify`` (which
    recomputes the pages at that time) agrees with it; the clock only for a hub that records nothing.
    Second item: why, for the first stderr line (None when the time was given)."""
    from .audit.verify import EPOCH, latest_run
    from .store.layout import Layout
    from .timeutil import format_ts

    if args.as_of or os.environ.get("SOURCE_DATE_EPOCH"):
        return _as_of(args), None
    if getattr(args, "resolved_as_of", None) is None:
        latest = latest_run(Layout(root))
        args.resolved_as_of = latest if format_ts(latest) != EPOCH else _as_of(args)
        args.build_reason = "the latest time its ledgers record" if format_ts(latest) != EPOCH else None
    return args.resolved_as_of, args.build_reason


def _warn_quarantined(quarantine: list[Problem]) -> None:
    """The submitted files a command could not read and left out (it still succeeds: the site
    deploys without them; the nightly reports the same files and exits 6)."""
    for problem in quarantine:
        print(f"warning: {problem}", file=sys.stderr)


def cmd_serve(args: argparse.Namespace) -> int:
    from .site.serve import site_server

    site = _hub(args.hub) / "site_src" / "site"
    if not (site / "index.html").is_file():
        raise PrescientError(f"{site}: no built site; run `prescient build` (or `prescient demo`) first")
    try:
        server = site_server(site, args.bind, args.port)
    except (OSError, OverflowError) as exc:  # busy port, an address not of this machine, no permission
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise PrescientError(f"cannot listen on {args.bind}:{args.port}: {reason} "
                             "(choose another with --port N, or --port 0 for any free port)") from None
    with server:
        print(f"Serving {site} at http://{args.bind}:{server.server_address[1]}/ (Ctrl+C to stop)", flush=True)
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass
    return 0


def cmd_leaderboard(args: argparse.Namespace) -> int:
    """A board as of any time: scores recomputed from the ledgers as recorded by ``--as-of`` (when
    given; else the committed score files), the hub's options, and the bootstrap."""
    import pandas as pd

    from .leaderboard.fb_board import crowd_from_rounds
    from .leaderboard.hub_boards import board_for
    from .pipeline.recompute import scores_as_of
    from .store import readers
    from .store.hub import Hub

    hub = Hub.load(_hub(args.hub))
    settings, layout = hub.settings, hub.layout
    default = None if args.as_of else _board_time(args, layout)
    as_of = default[0] if default else _as_of(args)
    round_filter = {"min_dataset_rows": FB_MIN_DATASET_ROWS, "min_market_questions": FB_MIN_MARKET_QUESTIONS} \
        if args.fb_round_filter else {}
    try:
        dues = readers.round_dues(layout)
        crowd = crowd_from_rounds(pd.concat([readers.load_round(layout, d) for d in dues]), readers.load_observations(layout)) \
            if settings.leaderboard.market_difficulty == "crowd" and dues else None
        scores = scores_as_of(hub, as_of) if args.as_of else readers.load_scores(layout)
        _check_view(args.view, scores)
        board = board_for(scores, readers.load_models(layout, as_of), as_of, settings, board=args.board or settings.leaderboard.boards[0],
                          view=args.view, replicates=args.replicates, seed=args.seed, crowd=crowd, **round_filter)
    except ValueError as exc:
        raise PrescientError(f"leaderboard: {exc}") from None
    from .console import board_notes, board_text, empty_board_note

    empty = empty_board_note(as_of, readers.round_dues(layout), settings.rounds.first_due,
                             settings.scoring.min_age_days) if board.empty else ""
    if args.format != "table":
        print_frame(board, args.format)
        if empty:
            print(f"prescient leaderboard: {empty}", file=sys.stderr)
        return 0
    title = (f"{args.board or settings.leaderboard.boards[0]} board · view {args.view} · as of "
             f"{as_of:%Y-%m-%dT%H:%M:%SZ} · Brier Index: higher is better")
    sys.stdout.write(f"{title}\n{empty}\n" if empty else
                     board_text(board, title, args.view, args.wide, shutil.get_terminal_size((100, 24)).columns))
    sys.stdout.write(board_notes(board))
    return 0


def _board_time(args: argparse.Namespace, layout) -> tuple[datetime, str] | None:
    """The leaderboard's time when no --as-of is given, and why: the latest night history.csv records
    (the board the site shows), else the latest time the ledgers record (a hub not yet scoring);
    None for a hub that records nothing. Read once per command (the first stderr line shows it)."""
    if not hasattr(args, "board_time"):
        args.board_time = _read_board_time(layout)
    return args.board_time


def _read_board_time(layout) -> tuple[datetime, str] | None:
    from .store import readers
    from .timeutil import parse_ts

    history = readers.load_history(layout) if layout.root.joinpath("data", "leaderboard").is_dir() else None
    if history is not None and not history.empty:
        return parse_ts(str(history["as_of"].max())), "the latest night in history.csv"
    latest = readers.latest_recorded(layout)
    return (parse_ts(str(latest[0])), "the latest time the ledgers record") if latest else None


def _check_view(view: str, scores) -> None:
    """--view source:NAME or category:NAME names one the scores hold (ValueError listing them)."""
    kind, _, arg = view.partition(":")
    if kind in ("source", "category") and kind in scores and arg not in set(scores[kind].dropna().astype(str)):
        have = sorted(set(scores[kind].dropna().astype(str)) - {""})
        raise ValueError(f"--view {view!r}: no scored forecast has {kind} {arg!r}; the {kind}s scored are "
                         f"{', '.join(f'{kind}:{h}' for h in have) or 'none yet'}")


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
    report = validate_pr(hub, args.base, args.head, args.author, at, _receipts(hub, args.receipts_rev, args.receipts_from),
                         _hub_maintainers(hub)) if pr_mode else validate_files(hub, [Path(f) for f in args.files], at)
    text = render(report, args.format, _submit_page(hub))
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
    sys.stdout.write(text)
    return 0 if report.ok else SubmissionInvalid.exit_code


def _submit_page(hub: Path) -> str:
    """The Submit page a report names: hub.toml's site_url, else the page's source. A hub.toml that does not
    load leaves the report as it is (the check of hub.toml itself is `prescient verify`'s)."""
    from .config import SUBMIT_DOCS, load_settings

    try:
        return load_settings(hub).submit_page
    except ConfigError:
        return SUBMIT_DOCS


@contextlib.contextmanager
def _github(repo: str | None) -> Iterator:
    """GitHub's API for ``repo`` (else GITHUB_REPOSITORY), with GITHUB_TOKEN and GITHUB_API_URL from the environment."""
    from .sources.github import API_URL, GitHub, headers
    from .sources.http import http_for, open_client

    repo = repo or os.environ.get("GITHUB_REPOSITORY", "")
    if not repo.count("/") == 1:
        raise ConfigError("give the repository as --repo OWNER/NAME (or set GITHUB_REPOSITORY, as Actions does)")
    with open_client({}) as client:
        http = http_for(client, {}, headers=headers(os.environ.get("GITHUB_TOKEN")))
        yield GitHub(http, repo, os.environ.get("GITHUB_API_URL") or API_URL)


def _branch_rows(root: Path, rev: str | None):
    """The receipts branch's file for a run (``--receipts-from``), when the branch is here."""
    from .store import receipts
    from .store.git import resolve_commit

    if not rev:
        return lambda _run: None
    try:
        commit = resolve_commit(root, rev)
    except PrescientError:
        print(f"note: {rev} is not in this repository; runs whose head is gone are recorded as unreadable", file=sys.stderr)
        return lambda _run: None
    return lambda run_id: receipts.load_run_at(root, commit, run_id)


def cmd_receipts(args: argparse.Namespace) -> int:
    """Record when GitHub attests the submitted files' bytes: one run (record), or every run since the oldest unsealed round (catch-up)."""
    from .pipeline.receipts import record_run, walk
    from .store.hub import Hub

    as_of, hub = _as_of(args), Hub.load(_hub(args.hub))
    with _github(args.repo) as github:
        if args.receipts_command == "record":
            done = record_run(hub, github, args.run_id, as_of, out=Path(args.out) if args.out else None)
        else:
            done = walk(hub, github, as_of, branch_rows=_branch_rows(hub.root, args.receipts_from))
    for note in done.notes:
        print(f"note: {note}", file=sys.stderr)
    print(f"{len(done.added)} receipt row(s) {'written' if getattr(args, 'out', None) else 'added'} "
          f"({done.added['head_sha'].nunique()} head commit(s))" + ("" if done.complete else "; some runs could not be read"))
    return 0 if done.complete else PartialFailure.exit_code


def _add_receipts(sub) -> None:
    receipts = sub.add_parser("receipts", help="record when GitHub attests a pull request's submitted files (the workflows run it)")
    actions = receipts.add_subparsers(dest="receipts_command", required=True, metavar="ACTION")
    record = actions.add_parser("record", help="the receipt of one validation run (the receipts workflow, on workflow_run)")
    catch = actions.add_parser("catch-up", help="receipts for every validation run since the oldest round still open or unsealed "
                                                "that none records yet (the nightly does this itself under [hub] receipts = \"github\")")
    record.add_argument("--run-id", required=True, type=int, metavar="ID", help="the workflow run's id (github.event.workflow_run.id)")
    record.add_argument("--out", metavar="DIR", help="write the rows to DIR/<run id>.csv (the receipts branch's runs/ folder) "
                                                     "instead of appending them to the hub's ledger")
    catch.add_argument("--receipts-from", metavar="REV", help="the receipts branch (e.g. refs/prescient/receipts): a run whose "
                                                              "head commit is gone is recorded from its file there")
    for parser in (record, catch):
        _add_common(parser)
        parser.add_argument("--repo", metavar="OWNER/NAME", help="the GitHub repository (default: GITHUB_REPOSITORY); "
                                                                 "GITHUB_TOKEN and GITHUB_API_URL are read from the environment")
        parser.set_defaults(func=cmd_receipts)


def _receipts(root: Path, rev: str | None, branch: str | None = None):
    """The receipts ledger, from the hub's files or from commit ``rev``, with the receipts branch's
    runs at ``branch`` (recorded there when each run completed; the nightly copies them later)."""
    import pandas as pd

    from .store import receipts
    from .store.git import resolve_commit
    from .store.layout import Layout

    ledger = receipts.load_receipts_at(root, resolve_commit(root, rev)) if rev else receipts.load_receipts(Layout(root))
    if not branch:
        return ledger
    runs = receipts.load_branch_at(root, resolve_commit(root, branch))
    return pd.concat([ledger, runs], ignore_index=True).drop_duplicates(["head_sha", "path"]) if len(runs) else ledger


def _hub_maintainers(root: Path) -> tuple[str, ...]:
    """``[hub] maintainers`` of the hub (of the base commit's checkout, in the workflow); none when it does not load."""
    from .config import load_settings

    try:
        return load_settings(root).maintainers
    except ConfigError:
        return ()


def cmd_forecast_llm(args: argparse.Namespace) -> int:
    """The hub's LLM forecaster over one round, or every round open at --as-of (issue 6)."""
    from .forecasters import llm
    from .timeutil import parse_ts

    hub, as_of = _hub(args.hub), _as_of(args)
    endpoint = llm.endpoint_from_env(os.environ)
    options = llm.Options(model=args.model or os.environ.get("PRESCIENT_LLM_MODEL", ""), variant=args.variant,
                          with_crowd=args.with_crowd, team=args.team, concurrency=args.concurrency,
                          knowledge_cutoff=args.knowledge_cutoff or "")
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
    """``forecast llm --bets``: the hub's LLM agent trades each round (issue 38)."""
    from .forecasters import agents

    options = agents.AgentOptions(model=args.model or os.environ.get("PRESCIENT_LLM_MODEL", ""), team=args.team,
                                  knowledge_cutoff=args.knowledge_cutoff or "")
    for due in dues:
        try:
            report = agents.run_agent(hub, due, as_of, endpoint, options)
        except PartialFailure as exc:
            print("\n".join(agents.describe(exc.run_report)))
            raise
        print("\n".join(agents.describe(report)))
    return 0


def _add_forecast_commands(sub) -> None:
    forecast = sub.add_parser("forecast", help="run one of the hub's own forecasters")
    kinds = forecast.add_subparsers(dest="forecaster", required=True, metavar="FORECASTER")
    llm = kinds.add_parser("llm", help="ask an OpenAI-compatible chat endpoint (PRESCIENT_LLM_API_KEY, _BASE_URL)")
    llm.add_argument("--model", metavar="NAME", help="the endpoint's model name (default: $PRESCIENT_LLM_MODEL)")
    llm.add_argument("--round", metavar="DUE", help="the round's due date, e.g. 2026-02-08 (default: every open round)")
    llm.add_argument("--variant", choices=("zero-shot", "scratchpad"), default="zero-shot", help="the prompt (default zero-shot)")
    llm.add_argument("--with-crowd", action="store_true", help="show the market's probability at the freeze time")
    llm.add_argument("--team", default="prescient", help="the team part of the forecaster id (default prescient)")
    llm.add_argument("--concurrency", type=int, default=4, metavar="N", help="calls in flight at once (default 4)")
    llm.add_argument("--knowledge-cutoff", metavar="YYYY-MM-DD", help="the model's training cutoff, for its metadata")
    llm.add_argument("--bets", action="store_true", help="trade in the Arena instead: write a bet file per round "
                     "(<team>.<model>-arena), the agent's portfolio carried over its cohort")
    _add_common(llm)
    llm.set_defaults(func=cmd_forecast_llm)


def cmd_arena(args: argparse.Namespace) -> int:
    """The Arena view: bet cohorts and simulated portfolios (secondary; never the rank)."""
    from .arena.gather import load_cohorts
    from .arena.portfolio import arena_table
    from .timeutil import parse_ts

    try:
        due = parse_ts(args.round) if args.round else None
    except ValueError as exc:
        raise PrescientError(f"--round {args.round!r}: {exc}") from None
    quarantine: list[Problem] = []
    print_frame(arena_table(load_cohorts(_hub(args.hub), _as_of(args), due, quarantine)), args.format)
    _warn_quarantined(quarantine)
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    """Recompute the derived files and compare them byte for byte; optionally audit the git history."""
    import json

    from .audit.verify import render_text, to_json, verify
    from .store.hub import Hub

    as_of = _as_of(args) if args.as_of else None
    root = _hub(args.hub)
    report = verify(Hub.load(root), as_of, git_rev=args.git, all_nights=args.all)
    text = render_text(report)
    if _recorded_nothing(root):  # only the git history was checked: never "verified" on an empty hub
        text = text.replace("verified: every check passed", "nothing recorded yet: no ledger to recompute; "
                                                             "the git history's checks passed")
    sys.stdout.write(json.dumps(to_json(report), indent=2) + "\n" if args.format == "json" else text)
    return 0 if report.ok else VERIFY_FAILED


def _add_verify(sub) -> None:
    verify = sub.add_parser("verify", help="recompute scores, history and pages from the ledgers and compare "
                                           "byte for byte (exit 10 on any difference)",
                            description="Without --as-of, scores and pages are recomputed as of the latest time the "
                                        "ledgers record (observations, resolutions, history, manifest). Exit 0: "
                                        "verified; 10: a difference or a history violation; warnings do not fail.")
    _add_common(verify)
    verify.add_argument("--git", nargs="?", const="HEAD", metavar="REF",
                        help="also audit the history of REF (default HEAD): append-only ledgers, forecast timing")
    verify.add_argument("--all", action="store_true", help="recompute every night of history.csv, not the latest 7")
    verify.add_argument("--format", choices=("text", "json"), default="text", help="the report as text or JSON (default text)")
    verify.set_defaults(func=cmd_verify)


def _time_option(option: str, value: str):
    """A UTC time given on the command line; a malformed one is a one-line error naming the option."""
    from .timeutil import parse_ts

    try:
        return parse_ts(value)
    except ValueError as exc:
        raise PrescientError(f"{option} {value!r}: {exc}") from None


def _emit(data: bytes, out: str | None, note: str) -> None:
    """``data`` to standard output, or written atomically to ``out`` with "wrote OUT" + ``note`` on stderr."""
    from .store.csvio import write_bytes_atomic

    if not out:
        sys.stdout.buffer.write(data)
        return
    write_bytes_atomic(Path(out).resolve(), data)
    print(f"wrote {out}{note}", file=sys.stderr)


def cmd_round(args: argparse.Namespace) -> int:
    from .pipeline.rounds import open_round
    from .store.hub import Hub

    due = _time_option("--due", args.due)
    report = open_round(Hub.load(_hub(args.hub)), due, _as_of(args))
    print(f"round {report.rounds_opened[0]} opened; wrote {', '.join(report.written)}")
    return 0


def cmd_rounds(args: argparse.Namespace) -> int:
    """Every published round with its status and time left as of --as-of (issue 19)."""
    from .pipeline.forecaster import round_statuses
    from .store.layout import Layout

    as_of = _as_of(args)
    shown = [r for r in round_statuses(Layout(_hub(args.hub)), as_of) if r.is_open or not args.open]
    if not shown:
        print(f"no round is {'open' if args.open else 'published'} as of {as_of:%Y-%m-%dT%H:%M:%SZ}")
    for r in shown:
        print(f"{r.due:%Y-%m-%d}  {r.units:>4} question(s) × date  {r.status}")
    return 0


def cmd_round_template(args: argparse.Namespace) -> int:
    """A ready-to-fill forecast file for one round, to stdout or --out (issue 19)."""
    from .pipeline.forecaster import forecast_template
    from .store.layout import Layout

    due = _time_option("--due", args.due)
    data = forecast_template(Layout(_hub(args.hub)), due, args.format, args.model)
    _emit(data, args.out, f": fill in probability (0 to 1) on every row, then `prescient validate {args.out}`")
    return 0


def cmd_commit(args: argparse.Namespace) -> int:
    """A commit–reveal round's first step: the commitment into the hub, the salt next to the file."""
    from .pipeline.commitments import commit
    from .store.hub import Hub

    done = commit(Hub.load(_hub(args.hub)), Path(args.file), args.round, args.model, os.urandom(32).hex().encode("ascii") + b"\n")
    print(f"wrote {done.commitment} (push it now, in a pull request) and {done.salt} (keep it, and {args.file}, "
          f"secret until the due time; then run `prescient reveal {args.file} --round {args.round} --model {args.model}`)")
    return 0


def cmd_reveal(args: argparse.Namespace) -> int:
    """A commit–reveal round's second step: the file and its salt into the hub, checked against the commitment."""
    from .pipeline.commitments import reveal
    from .store.hub import Hub

    written = reveal(Hub.load(_hub(args.hub)), Path(args.file), args.round, args.model)
    print("wrote " + " and ".join(map(str, written)) + ": open a pull request with both before the round's reveal_by")
    return 0


def _add_commit_reveal(sub) -> None:
    for name, func, text in (("commit", cmd_commit, "a commit–reveal round, before its due time: write the commitment of FILE "
                                                    "into the hub and its salt to FILE.salt"),
                             ("reveal", cmd_reveal, "a commit–reveal round, after its due time: copy FILE and FILE.salt into "
                                                    "the hub, checked against the commitment")):
        p = sub.add_parser(name, help=text)
        p.add_argument("file", metavar="FILE", help="the forecast file (keep it outside the hub until you reveal it)")
        p.add_argument("--round", required=True, metavar="DUE", help="the round's due date (YYYY-MM-DD)")
        p.add_argument("--model", required=True, metavar="TEAM.MODEL", help="the model the file is for")
        _add_common(p, as_of=False)
        p.set_defaults(func=func)


def cmd_import_forecastbench(args: argparse.Namespace) -> int:
    """Import FB question/resolution/forecast sets, then score every round (issue 5)."""
    from .interop.forecastbench.importer import collector_spared, import_forecastbench
    from .pipeline.forked import default_processes
    from .pipeline.recompute import hub_view, score_counts
    from .store import readers
    from .store.hub import Hub

    root, as_of = _hub(args.hub), _as_of(args)
    layout = _cached_layout(root, args)  # its read cache takes the forecast files as the import writes them
    try:
        report = import_forecastbench(layout, Path(args.dir), Path(args.forecasts) if args.forecasts else None, as_of=as_of)
        for warning in report.warnings[:20]:
            print(f"warning: {warning}", file=sys.stderr)
        with collector_spared():  # the frames the import handed over live until the end
            hub = Hub.load(root, layout)  # data/hub.toml may be the import's own
            view = hub_view(hub, readers.load_observations(layout), as_of)
            scored, written = score_counts(layout, view, hub.settings.scoring.impute_value, default_processes())
    finally:
        _keep_cache(layout.cache, "import")
    print(f"imported {len(report.rounds)} round(s); {report.questions_added} question version(s), "
          f"{report.statements_added} stated resolution(s), {report.forecast_files} forecast file(s) added; "
          f"{scored} forecast(s) scored, {len(report.written) + len(written)} file(s) written")
    return 0


def cmd_export_forecastbench(args: argparse.Namespace) -> int:
    """A round's question set in ForecastBench question-set JSON, to stdout or --out (issue 5)."""
    from .interop.forecastbench.export import export_forecastbench

    due = _time_option("--round", args.round)
    data = export_forecastbench(_hub(args.hub), due)
    _emit(data, args.out, f" ({len(data)} bytes)")
    return 0


def cmd_import_oracle(args: argparse.Namespace) -> int:
    """Load a Daily Oracle-style question file (.csv or .jsonl) into data/oracle/<set>/ (issue 6)."""
    from .oracle import import_oracle

    report = import_oracle(_hub(args.hub), Path(args.file), args.set, _as_of(args))
    for warning in report.warnings[:20]:
        print(f"warning: {warning}", file=sys.stderr)
    print(f"oracle set {report.qset}: {report.questions} question(s) read; "
          f"{report.added} new or changed version(s) added to {report.path}")
    return 0


def cmd_oracle(args: argparse.Namespace) -> int:
    """Per-model accuracy, Brier, N and the YoY summary of the oracle sets, or (--months) the view by month."""
    from .oracle import load_scores, oracle_board, temporal_view
    from .store import readers
    from .store.layout import Layout

    layout = Layout(_hub(args.hub))
    if args.set and args.set not in layout.oracle_sets():
        raise PrescientError(f"--set {args.set!r}: no such oracle set (have: {', '.join(layout.oracle_sets()) or 'none'})")
    quarantine: list[Problem] = []
    scores = load_scores(layout, _as_of(args), [args.set] if args.set else None, quarantine)
    _warn_quarantined(quarantine)
    cutoffs = {m: meta.knowledge_cutoff for m, meta in readers.load_models(layout).items()}
    print("oracle board: run_by hub rows are the hub's own runs (prescient.*, every call logged); every other row is "
          "self-reported (the answers are in the repository and oracle files have no deadline)", file=sys.stderr)
    by = ("set", "model", "kind") if args.by_kind else ("set", "model")
    print_frame(temporal_view(scores, cutoffs, by=by) if args.months else oracle_board(scores, cutoffs), args.format)
    return 0


def _add_oracle_commands(sub, import_kinds) -> None:
    """`prescient import oracle FILE --set NAME` and `prescient oracle` (issue 6, Daily Oracle)."""
    imp = import_kinds.add_parser("oracle", help="Daily Oracle-style questions (.csv or .jsonl; see the Data page)")
    imp.add_argument("file", metavar="FILE", help="the question file")
    imp.add_argument("--set", required=True, metavar="NAME", help="the question set to load it into, e.g. daily-oracle")
    _add_common(imp)
    imp.set_defaults(func=cmd_import_oracle)
    oracle = sub.add_parser("oracle", help="the oracle board: accuracy, Brier, N and year-on-year change around the cutoff; "
                                           "its actions make the questions from the news and answer them")
    _add_common(oracle)
    oracle.add_argument("--set", metavar="NAME", help="only this question set (default: every set)")
    oracle.add_argument("--months", action="store_true", help="print the view by resolution month instead")
    oracle.add_argument("--by-kind", action="store_true", help="with --months: true/false (tf) and multiple-choice (mc) apart")
    oracle.add_argument("--format", choices=("table", "csv", "json"), default="table", help="how to print the board (default table)")
    oracle.set_defaults(func=cmd_oracle)
    _add_oracle_actions(oracle.add_subparsers(dest="oracle_command", required=False, metavar="ACTION"))


def _add_oracle_actions(actions) -> None:
    """`prescient oracle fetch-news | generate | answer` (issue 33: Daily Oracle, living)."""
    fetch = actions.add_parser("fetch-news", help="read the [oracle] feeds and record the new articles in the news ledger")
    generate = actions.add_parser("generate", help="select each news day's articles and make their questions "
                                                   "(the [oracle] maker: the LLM, or the demo's template maker)")
    generate.add_argument("--day", action="append", metavar="YYYY-MM-DD",
                          help="make this news day's questions (repeatable; default: the [oracle] lookback_days before today)")
    generate.add_argument("--model", metavar="NAME", help="the endpoint's model (default: [oracle] model, else $PRESCIENT_LLM_MODEL)")
    answer = actions.add_parser("answer", help="the hub's own LLM answers an oracle set's unanswered questions")
    answer.add_argument("--model", required=True, metavar="NAME", help="the endpoint's model name")
    answer.add_argument("--set", metavar="NAME", help="the oracle set (default: [oracle] question_set)")
    answer.add_argument("--setting", choices=("closed-book", "open-book"), default="closed-book",
                        help="closed-book (the question only; default) or open-book (with articles retrieved from the news ledger)")
    answer.add_argument("--cutoff", metavar="YYYY-MM-DD", help="open-book: retrieve only articles published before this date")
    answer.add_argument("--knowledge-cutoff", metavar="YYYY-MM-DD", help="the model's training cutoff, for its metadata")
    answer.add_argument("--concurrency", type=int, default=4, metavar="N", help="calls in flight at once (default 4)")
    for parser, func in ((fetch, cmd_oracle_fetch_news), (generate, cmd_oracle_generate), (answer, cmd_oracle_answer)):
        _add_common(parser)
        parser.add_argument("--cache-dir", metavar="DIR", help="where the articles' full texts are kept (default: the "
                                                               "nightly's cache folder; never inside the repository)")
        parser.set_defaults(func=func)


def _news_texts(args: argparse.Namespace):
    from .store.newstexts import NewsTexts

    root = _hub(args.hub)
    return NewsTexts.for_hub(root, Path(args.cache_dir) if args.cache_dir else None)


def cmd_oracle_fetch_news(args: argparse.Namespace) -> int:
    """Read the feeds, record the new articles (issue 33)."""
    from .oracle.describe import news_lines
    from .oracle.news import fetch_news
    from .store.hub import Hub

    report = fetch_news(Hub.load(_hub(args.hub)), _as_of(args), _news_texts(args))
    print("\n".join(news_lines(report)))
    return _problems_exit(report.problems)


def cmd_oracle_generate(args: argparse.Namespace) -> int:
    """Select and make the questions of the window's news days (issue 33)."""
    from .llm import endpoint_from_env
    from .oracle.describe import generate_lines
    from .oracle.generate import generate
    from .store.hub import Hub

    hub = Hub.load(_hub(args.hub))
    oracle = hub.settings.oracle
    endpoint = endpoint_from_env(os.environ, "the oracle's question maker") if oracle and oracle.maker == "llm" else None
    model = args.model or (oracle.model if oracle else "") or os.environ.get("PRESCIENT_LLM_MODEL", "")
    days = [_day_option("--day", d) for d in args.day or []] or None
    report = generate(hub, _as_of(args), _news_texts(args), endpoint=endpoint, model=model, news_days=days)
    print("\n".join(generate_lines(report)))
    return _problems_exit(report.problems)


def cmd_oracle_answer(args: argparse.Namespace) -> int:
    """The hub's LLM answers an oracle set (issue 33)."""
    from .llm import endpoint_from_env
    from .oracle.answer import AnswerOptions, answer_set
    from .oracle.describe import answer_lines
    from .store.hub import Hub

    hub = Hub.load(_hub(args.hub))
    qset = args.set or (hub.settings.oracle.question_set if hub.settings.oracle else "")
    if not qset:
        raise ConfigError("give --set NAME (no [oracle] question_set in data/hub.toml)")
    options = AnswerOptions(args.model, args.setting, args.cutoff or "", args.knowledge_cutoff or "", args.concurrency)
    try:
        report = answer_set(hub, _as_of(args), endpoint_from_env(os.environ, "the oracle's answerer"), options, qset,
                            _news_texts(args))
    except PartialFailure as exc:
        print("\n".join(answer_lines(exc.run_report)))
        raise
    print("\n".join(answer_lines(report)))
    return 0


def _day_option(option: str, value: str) -> str:
    from .timeutil import is_iso_date

    if not is_iso_date(value):
        raise ConfigError(f"{option} {value!r}: write a date as YYYY-MM-DD")
    return value


def _problems_exit(problems: list[Problem]) -> int:
    """Every problem on stderr with its code; exit 6 when one is an error (the rest was written)."""
    for problem in problems:
        print(f"{problem.severity}: {problem}", file=sys.stderr)
    return PartialFailure.exit_code if any(p.severity == "error" for p in problems) else 0


def _add_fb_commands(sub, board: argparse.ArgumentParser) -> None:
    """`prescient import forecastbench` and the FB options of `prescient leaderboard` (issue 5)."""
    board.add_argument("--board", choices=BOARDS, default=None,
                       help="tournament: every forecaster; baseline: those that saw no crowd value "
                            "(default: the first of hub.toml [leaderboard] boards)")
    board.add_argument("--replicates", type=_count, default=None, metavar="N",
                       help=f"bootstrap replicates (default: hub.toml [leaderboard] replicates, {REPLICATES}; "
                            "0: point estimates and ranks only, as history.csv records them)")
    board.add_argument("--seed", type=int, default=None, metavar="S", help="bootstrap seed (default: hub.toml, 0)")
    board.add_argument("--view", default="overall", metavar="VIEW",
                       help="rows to rank: overall, market, dataset, resolved-only, source:NAME, category:NAME "
                            "or horizon:DAYS (default overall)")
    board.add_argument("--fb-round-filter", action="store_true",
                       help=f"keep only rounds with >={FB_MIN_DATASET_ROWS} resolved dataset rows "
                            f"and >={FB_MIN_MARKET_QUESTIONS} resolved markets (ForecastBench)")
    importer = sub.add_parser("import", help="import another benchmark's files into the hub")
    kinds = importer.add_subparsers(dest="importer", required=True, metavar="FORMAT")
    fb = kinds.add_parser("forecastbench", help="ForecastBench question, resolution and forecast sets (JSON)")
    fb.add_argument("dir", help="folder holding datasets/question_sets and datasets/resolution_sets (or datasets/ itself)")
    fb.add_argument("--forecasts", metavar="DIR", help="folder of FB forecast-set JSON files (any depth)")
    _add_common(fb)
    _add_cache_options(fb)  # the files it writes, checked, are kept for the next nightly
    fb.set_defaults(func=cmd_import_forecastbench)
    _add_oracle_commands(sub, kinds)
    exporter = sub.add_parser("export", help="write a round in another benchmark's format")
    out_kinds = exporter.add_subparsers(dest="exporter", required=True, metavar="FORMAT")
    fb_out = out_kinds.add_parser("forecastbench", help="a round's question set as ForecastBench question-set JSON")
    fb_out.add_argument("--round", required=True, metavar="DUE", help="the round's due date, e.g. 2026-02-08")
    fb_out.add_argument("--out", metavar="FILE", help="write here instead of to standard output")
    _add_common(fb_out, as_of=False)
    fb_out.set_defaults(func=cmd_export_forecastbench)


def _add_cache_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--cache-dir", metavar="DIR",
                        help="where parsed ledgers and the last derive are kept between runs (default: "
                             "$PRESCIENT_CACHE_DIR/<hub>, else $XDG_CACHE_HOME/prescient/<hub>, else "
                             "~/.cache/prescient/<hub>); never inside the repository")
    parser.add_argument("--no-cache", action="store_true", help="read, check and derive everything from the files alone")


def _add_common(parser: argparse.ArgumentParser, as_of: bool = True) -> None:
    parser.add_argument("--hub", metavar="DIR", help="the hub (default: the nearest folder, walking up from here, that holds data/hub.toml)")
    if as_of:
        parser.add_argument("--as-of", metavar="ISO-TIMESTAMP",
                            help="the run's time in UTC, e.g. 2026-11-22T00:00:00Z (default: SOURCE_DATE_EPOCH, else now)")


def _port(text: str) -> int:
    """--port: a whole number from 0 to 65535 (a usage error otherwise)."""
    if not text.isdigit() or int(text) > 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port: give a whole number from 0 to 65535")
    return int(text)


def _count(text: str) -> int:
    """A whole number of at least 0 (a usage error otherwise)."""
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"{text!r}: give a whole number, 0 or more")
    return int(text)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="prescient", description="A forecasting benchmark that lives in a git repository.",
                                     epilog=EPILOG)
    parser.add_argument("--version", action="version", version=f"prescient {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    demo = sub.add_parser("demo", help="create a complete demo hub on the offline sim world and build its site")
    demo.add_argument("dir", nargs="?", default="demo", help="where to create it (default: ./demo)")
    demo.add_argument("--until", metavar="DATE", help="end the season early, at this night (default: the whole season, "
                                                       "2026-01-04 to 2026-07-19)")
    demo.set_defaults(func=cmd_demo)
    for name, func, text in (("nightly", cmd_nightly, "one nightly run: fetch, open rounds, baselines, score"),
                             ("fetch", cmd_fetch, "run only the fetch stage")):
        p = sub.add_parser(name, help=text)
        _add_common(p)
        p.set_defaults(func=func)
    sub.choices["fetch"].add_argument("--source", help="fetch only this source")
    _add_cache_options(sub.choices["nightly"])
    sub.choices["nightly"].add_argument("--receipts-from", metavar="REV", help="under [hub] receipts = \"github\": the receipts "
                                        "branch (e.g. refs/prescient/receipts), whose file records a run whose head commit is gone")
    sources = sub.add_parser("sources", help="list the sources with their status")
    _add_common(sources, as_of=False)
    sources.set_defaults(func=cmd_sources)
    build = sub.add_parser("build", help="generate the pages, then mkdocs build --strict")
    _add_common(build, as_of=False)
    build.add_argument("--as-of", metavar="ISO-TIMESTAMP",
                       help="the site's time in UTC (default: SOURCE_DATE_EPOCH, else the latest time the ledgers "
                            "record, the time `prescient verify` checks the pages at)")
    build.add_argument("--no-mkdocs", action="store_true", help="only write site_src/docs/generated")
    _add_cache_options(build)
    build.set_defaults(func=cmd_build)
    serve = sub.add_parser("serve", help="preview the built site locally")
    _add_common(serve, as_of=False)
    serve.add_argument("--port", type=_port, default=8000, metavar="N", help="the port to listen on (default 8000; 0: any free port)")
    serve.add_argument("--bind", default="127.0.0.1", metavar="ADDR", help="the address to listen on (default 127.0.0.1, this machine only)")
    serve.set_defaults(func=cmd_serve)
    board = sub.add_parser("leaderboard", help="print the leaderboard")
    _add_common(board)
    board.add_argument("--format", choices=("table", "csv", "json"), default="table", help="how to print the board (default table)")
    board.add_argument("--wide", action="store_true", help="the table with every column, not only rank, model, "
                                                           "Brier Index, N and rank interval")
    _add_fb_commands(sub, board)
    board.set_defaults(func=cmd_leaderboard)
    validate = sub.add_parser("validate", help="check forecast files, or a pull request's changes (exit 9 on errors)")
    _add_common(validate, as_of=False)
    validate.add_argument("files", nargs="*", metavar="FILE", help="forecast or model files in the hub to check")
    validate.add_argument("--at", metavar="ISO-TIMESTAMP", help="judge the deadline at this UTC time (default: SOURCE_DATE_EPOCH, else now)")
    validate.add_argument("--base", metavar="SHA", help="the pull request's base commit")
    validate.add_argument("--head", metavar="SHA", help="the pull request's head commit")
    validate.add_argument("--author", metavar="LOGIN", help="the pull request author's GitHub login")
    validate.add_argument("--format", choices=("text", "markdown", "json"), default="text",
                          help="the report as text, Markdown (a pull-request comment) or JSON (default text)")
    validate.add_argument("--output", metavar="FILE", help="also write the report to FILE")
    validate.add_argument("--receipts-from", metavar="REV", help="also the receipts branch's runs at REV (e.g. "
                                                                "refs/prescient/receipts): what counts for a round past its due time "
                                                                "before the nightly has copied them")
    validate.add_argument("--receipts-rev", metavar="REV", help="read the receipts ledger from this commit (the default "
                                                                "branch's latest) instead of the hub's files")
    validate.set_defaults(func=cmd_validate)
    round_ = sub.add_parser("round", help="manage rounds")
    round_sub = round_.add_subparsers(dest="round_command", required=True, metavar="ACTION")
    round_open = round_sub.add_parser("open", help="freeze and publish the round due at --due (refuses an existing round)")
    _add_common(round_open)
    round_open.add_argument("--due", required=True, metavar="ISO-TIMESTAMP", help="the round's due time in UTC, e.g. 2026-02-08T00:00:00Z")
    round_open.set_defaults(func=cmd_round)
    template = round_sub.add_parser("template", help="write a ready-to-fill forecast file for the round due at --due: "
                                                     "every question and resolution date, probability empty")
    _add_common(template, as_of=False)
    template.add_argument("--due", required=True, metavar="DUE", help="the round's due date, e.g. 2026-02-08")
    template.add_argument("--format", choices=("csv", "json"), default="csv",
                          help="CSV with the forecast columns, or a ForecastBench forecast-set JSON (default csv)")
    template.add_argument("--model", metavar="TEAM.MODEL", help="your forecaster id, for the JSON's organization and model")
    template.add_argument("--out", metavar="FILE", help="write here instead of to standard output")
    template.set_defaults(func=cmd_round_template)
    rounds = sub.add_parser("rounds", help="list the rounds with their status (open, closed and resolving, scored) and time left")
    _add_common(rounds)
    rounds.add_argument("--open", action="store_true", help="only the rounds still open for forecasts")
    rounds.set_defaults(func=cmd_rounds)
    _add_verify(sub)
    arena = sub.add_parser("arena", help="the Arena view: bet P/L per cohort and simulated portfolios (never the rank)")
    _add_common(arena)
    arena.add_argument("--round", metavar="DUE", help="only the round due on this date (YYYY-MM-DD)")
    arena.add_argument("--format", choices=("table", "csv", "json"), default="table", help="how to print the view (default table)")
    arena.set_defaults(func=cmd_arena)
    _add_forecast_commands(sub)
    _add_receipts(sub)
    _add_commit_reveal(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    root: Path | None = None
    try:
        root = _announce(args)
        if root is not None and args.command in READ_COMMANDS and not getattr(args, "git", None) \
                and not getattr(args, "oracle_command", None) and _recorded_nothing(root):
            print(f"prescient {args.command}: nothing recorded yet in {root / 'data'} (no questions, forecasts or "
                  "scores); `prescient nightly` records the first ones", file=sys.stderr)
            return 0
        code = args.func(args)
        sys.stdout.flush()  # a closed pipe (`prescient leaderboard | head -1`) shows here, not at exit
        return code
    except BrokenPipeError:  # the reader stopped reading: not an error, and no traceback at exit
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except PrescientError as exc:
        print(f"prescient {args.command}: {exc.report()}", file=sys.stderr)
        return exc.exit_code
    except OSError as exc:  # disk full, read-only, permission: one coded line, never a traceback
        error = storage_error(exc, _failed_path(exc), root)
        print(f"prescient {args.command}: {error}", file=sys.stderr)
        return error.exit_code
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return INTERRUPTED


def _failed_path(exc: BaseException) -> str | None:
    """The file an OSError was about when it does not say (a write on an open descriptor): the
    ``path`` of the innermost frame that has one (``csvio.write_bytes_atomic``, the readers)."""
    tb, found = exc.__traceback__, None
    while tb is not None:
        path = tb.tb_frame.f_locals.get("path")
        found = str(path) if isinstance(path, Path) else found
        tb = tb.tb_next
    return found
