"""The hub's own runs: `demo`, `nightly`, `fetch`, `sources`, `build` and `serve`; and starting and
checking a hub: `init` (and `init --upgrade`) and `check-config`."""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from ..console import demo_summary, init_summary, print_sources, progress_bar, requests_progress, settings_summary
from ..errors import ConfigError, PartialFailure, PrescientError, Problem
from .common import NEXT_NIGHT, add_cache_options, add_common, command_time, hub_dir, hub_option, is_replay, opened, print_warnings, run_time, shown


def cmd_demo(args: argparse.Namespace) -> int:
    from ..pipeline.demo import SEASON_START, commit_site, run_demo, season
    from ..site.build import build_site

    target, started = Path(args.dir).resolve(), time.monotonic()
    end = _demo_until(args.until)
    nights = season(end=end)
    with progress_bar("Simulating a season of nightly runs") as advance:
        result = run_demo(target, progress=advance, nights=nights, build=False)
    print("Building the site (mkdocs build --strict) ...", file=sys.stderr)
    build_site(result.root, end)
    commit_site(result.root, end)
    print(demo_summary(result, SEASON_START, time.monotonic() - started, shown(result.root), _program()))
    _say_unscored(result.root, end, shown(result.root))
    return 0


def _say_unscored(root: Path, end, hub: str) -> None:
    """A demo stopped before its first scores says so, and how long a season shows a board."""
    from ..console import empty_board_note
    from ..store import readers
    from ..store.hub import Hub

    the_hub = Hub.load(root)
    if not readers.load_history(the_hub).empty:
        return
    settings = the_hub.settings
    note = empty_board_note(end, readers.round_dues(the_hub), settings.rounds.first_due, settings.scoring.min_age_days)
    print(
        f"\nNo leaderboard yet: {note}. The site shows the rounds and questions, but its boards are empty; "
        f"go on with `{_program()} nightly --hub {hub} --catch-up --as-of DATE`, or make a longer demo with --until."
    )


def _demo_until(until: str | None):
    from ..pipeline.demo import SEASON_END, SEASON_START
    from ..timeutil import days, format_date, parse_ts

    try:
        end = SEASON_END if until is None else min(parse_ts(until), SEASON_END)
    except ValueError as exc:
        raise ConfigError(f"--until {until!r}: {exc}; write a date such as {format_date(SEASON_START + days(21))}") from None
    if end < SEASON_START:
        raise ConfigError(f"--until {until}: the demo season runs from {format_date(SEASON_START)} to {format_date(SEASON_END)}; give a night in it")
    return end


def _program() -> str:
    """How the user called this program, so the commands we suggest can be pasted as they are."""
    script = Path(sys.argv[0]).absolute()
    if script.name == "__main__.py":
        return "python -m generator"
    on_path = shutil.which(script.name)
    return script.name if on_path and Path(on_path).absolute() == script else shown(script)


def cmd_nightly(args: argparse.Namespace) -> int:
    from ..pipeline.nightly import nightly

    as_of, why = run_time(args)
    with opened(args, "nightly") as hub:
        previous = _latest(hub)
        nights = _catch_up_nights(hub, as_of, previous, args) if args.catch_up else [as_of]
        if not args.catch_up and why != NEXT_NIGHT:
            _say_skipped(hub, as_of, previous, args)
        for night in nights:
            try:
                with requests_progress() as progress, _walker(hub, args) as walk:
                    report = nightly(hub, night, progress=progress, walk=walk)
            except PartialFailure as exc:
                print_sources(exc.run_report)
                raise
            print_sources(report)
            print(f"nightly {night:%Y-%m-%dT%H:%M:%SZ}: rounds opened {report.rounds_opened or 'none'}; {len(report.written)} file(s) written")
            for line in report.unranked:  # the imputation rule is never silent
                print(f"unranked: {line}")
            for found in report.sealing:
                print(f"{found.severity}: {found}", file=sys.stderr)
        if why == NEXT_NIGHT:
            _say_behind(as_of, args)
        if len(nights) > 1:
            print(
                f"note: {len(nights)} nights run; commit them in one commit or one commit a night: the audit checks every "
                "night's ledger digest either way (an earlier night's ledgers are the rows recorded by then)",
                file=sys.stderr,
            )
    return 0


def _latest(hub):
    """The latest time the hub's ledgers record (None for a new hub)."""
    from ..store import readers
    from ..timeutil import parse_ts

    latest = readers.latest_recorded(hub)
    return parse_ts(latest[0]) if latest else None


def _catch_up_nights(hub, until, latest, args: argparse.Namespace) -> list:
    """--catch-up: one night a day from the one after the ledgers' latest up to ``until``; only on a
    hub that replays (every source the offline sim world): a live source reports today's values only."""
    from ..timeutil import days, format_ts

    if not is_replay(hub.settings):
        raise ConfigError(
            "--catch-up replays past nights, which only the offline sim world can: a live source reports "
            "today's values only; run `prescient nightly` without it"
        )
    night = latest + days(1) if latest else until
    nights = []
    while night <= until:
        nights.append(night)
        night += days(1)
    if not nights:
        print(f"prescient nightly: nothing to catch up: the ledgers already record {format_ts(latest) if latest else 'nothing'}", file=sys.stderr)
    return nights


def _say_behind(as_of, args: argparse.Namespace) -> None:
    """On a replaying hub, run at the night after its ledgers' latest: how far that is behind (or ahead of) the clock."""
    from ..config import resolve_as_of
    from ..timeutil import format_date

    clock = resolve_as_of(None)
    behind = (clock.date() - as_of.date()).days
    if behind > 0:
        print(
            f"note: this hub replays the offline sim world, so its time follows its ledgers: this run was the night "
            f"after their latest ({format_date(as_of)}), {behind} day(s) before the clock ({format_date(clock)}); "
            f"`prescient nightly{hub_option(args)} --catch-up` runs every night up to today",
            file=sys.stderr,
        )
    elif behind < 0:  # a sim hub started today: its nights are simulated, one a run
        print(
            f"note: this hub runs the offline sim world, whose time is simulated: each `prescient nightly` runs the night "
            f"after its ledgers' latest, so this run was {format_date(as_of)}, {-behind} day(s) ahead of the clock ({format_date(clock)})",
            file=sys.stderr,
        )


def _say_skipped(hub, as_of, previous, args: argparse.Namespace) -> None:
    """Never silent about a gap, said before the run: the nights between the ledgers' latest and this run's time."""
    from ..timeutil import days, format_date, format_ts

    if previous is None or (as_of.date() - previous.date()).days <= 1:
        return
    skipped = (as_of.date() - previous.date()).days - 1
    print(
        f"warning: the ledgers end at {format_ts(previous)}: this run at {format_ts(as_of)} skips {skipped} night(s) "
        f"({format_date(previous + days(1))} to {format_date(as_of - days(1))}): no market is observed and no round "
        "opened on them"
        + (
            f"; `prescient nightly{hub_option(args)} --catch-up --as-of {format_ts(as_of)}` runs each of them instead"
            if is_replay(hub.settings)
            else " (a live source reports today's values only, so they cannot be replayed)"
        ),
        file=sys.stderr,
    )


@contextlib.contextmanager
def _walker(hub, args: argparse.Namespace) -> Iterator:
    """Under [hub] receipts = "github" with GITHUB_REPOSITORY set: the nightly's walk of the validation runs."""
    from ..pipeline.receipts import walk
    from .submissions import branch_rows, github_api

    if hub.settings.receipts != "github" or not os.environ.get("GITHUB_REPOSITORY"):
        yield None
        return
    with github_api(None) as github:

        def run(the_hub, as_of) -> bool:
            done = walk(the_hub, github, as_of, branch_rows=branch_rows(the_hub.root, args.receipts_from))
            for note in done.notes:
                print(f"note: receipts: {note}", file=sys.stderr)
            return done.complete

        yield run


def cmd_fetch(args: argparse.Namespace) -> int:
    from ..pipeline.nightly import nightly
    from ..store.hub import Hub

    hub, as_of = Hub.load(hub_dir(args.hub)), command_time(args)
    if args.source:
        _check_source(args.source, hub.settings)
    with requests_progress() as progress:
        report = nightly(hub, as_of, only=args.source, fetch_only=True, progress=progress)
    print_sources(report)
    return 0


def _check_source(name: str, settings) -> None:
    """--source NAME: a source this program knows, and one data/hub.toml enables (ConfigError, exit 2)."""
    from ..vocabulary import known_sources

    if name not in known_sources():
        raise ConfigError(
            f"--source {name!r}: no such source; the sources are {', '.join(known_sources())} (`prescient sources` shows which are enabled)"
        )
    enabled = [s.name for s in settings.enabled_sources]
    if name not in enabled:
        raise ConfigError(
            f"--source {name!r}: this source is disabled in data/hub.toml (enable it with "
            f"[sources.{name}] enabled = true); enabled: {', '.join(enabled) or 'none'}"
        )


def cmd_sources(args: argparse.Namespace) -> int:
    from ..store.files import load_settings
    from ..vocabulary import known_sources

    settings = load_settings(hub_dir(args.hub))
    configured = {s.name: s for s in settings.sources}
    keys = {"metaculus": "METACULUS_TOKEN", "fred": "FRED_API_KEY"}
    for name in known_sources():
        state = "enabled" if name in configured and configured[name].enabled else "disabled"
        key = keys.get(name)
        note = f"; {key} {'present' if os.environ.get(key) else 'missing'}" if key else "; no key needed"
        print(f"{name:<11} {state}{note}")
    return 0


def cmd_build(args: argparse.Namespace) -> int:
    from ..pipeline.hubinit import version_problems
    from ..site.build import build_site

    root = hub_dir(args.hub)
    print_warnings(version_problems(root))  # an older site skeleton: said first, the build goes on
    as_of = command_time(args)
    quarantine: list[Problem] = []
    with opened(args, "build") as hub:  # the checked frames the nightly kept: the build need not parse them again
        changed = build_site(hub, as_of, run_mkdocs=not args.no_mkdocs, quarantine=quarantine)
    print_warnings(quarantine)
    print(f"{len(changed)} generated page(s) changed; site in {root / 'site_src' / 'site'}")
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    from ..site.serve import site_server

    site = hub_dir(args.hub) / "site_src" / "site"
    if not (site / "index.html").is_file():
        raise PrescientError(f"{site}: no built site; run `prescient build` (or `prescient demo`) first")
    try:
        server = site_server(site, args.bind, args.port, args.verbose)
    except (OSError, OverflowError) as exc:  # busy port, an address not of this machine, no permission
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise PrescientError(
            f"cannot listen on {args.bind}:{args.port}: {reason} (choose another with --port N, or --port 0 for any free port)"
        ) from None
    with server:
        print(f"Serving {site} at http://{args.bind}:{server.server_address[1]}/ (Ctrl+C to stop)", flush=True)
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass
    return 0


def _port(text: str) -> int:
    """--port: a whole number from 0 to 65535 (a usage error otherwise)."""
    if not text.isdigit() or int(text) > 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port: give a whole number from 0 to 65535")
    return int(text)


def cmd_init(args: argparse.Namespace) -> int:
    """A new hub repository in DIR (or, with --upgrade, the hub in DIR refreshed for this version)."""
    from ..pipeline.hubinit import DEFAULT_SOURCES, init_hub, upgrade_hub

    root = Path(args.dir).resolve()
    if args.force and not args.upgrade:
        raise ConfigError("--force goes with --upgrade (it lets an upgrade downgrade a hub)")
    if args.upgrade:
        result = upgrade_hub(root, package=args.package or "", force=args.force)
    else:
        sources = [s.strip() for s in args.sources.split(",") if s.strip()] if args.sources is not None else DEFAULT_SOURCES
        result = init_hub(
            root, command_time(args), title=args.title or "", maintainers=args.maintainer or (), sources=sources, package=args.package or ""
        )
    print(init_summary(result, shown(root), _program()))
    return 0


def cmd_check_config(args: argparse.Namespace) -> int:
    """Every table and key of data/hub.toml against the schema, and the files written from it (CODEOWNERS)."""
    from ..config import HUB_FILE
    from ..pipeline.hubinit import check_hub_files, receipts_problems, version_problems
    from ..store.files import load_settings

    root = hub_dir(args.hub)
    settings = load_settings(root)
    problems = check_hub_files(root, settings)
    if problems:
        raise ConfigError(f"{root / HUB_FILE}: the files written from it are out of step", problems)
    print_warnings(version_problems(root) + receipts_problems(root, settings))
    print(settings_summary(settings, command_time(args)))
    return 0


def add_run(sub) -> None:
    """`demo`, `nightly`, `fetch`, `sources`, `build` and `serve`."""
    demo = sub.add_parser("demo", help="create a complete demo hub on the offline sim world and build its site")
    demo.add_argument("dir", nargs="?", default="demo", help="where to create it (default: ./demo)")
    demo.add_argument("--until", metavar="DATE", help="end the season early, at this night (default: the whole season, 2026-01-04 to 2026-07-19)")
    demo.set_defaults(func=cmd_demo)
    for name, func, text in (
        ("nightly", cmd_nightly, "one nightly run: fetch, open rounds, baselines, score"),
        ("fetch", cmd_fetch, "run only the fetch stage"),
    ):
        p = sub.add_parser(name, help=text)
        add_common(p)
        p.set_defaults(func=func)
    sub.choices["fetch"].add_argument("--source", help="fetch only this source")
    add_cache_options(sub.choices["nightly"])
    sub.choices["nightly"].add_argument(
        "--catch-up",
        action="store_true",
        help="a hub on the offline sim world (the demo): run every night from the one after "
        "the ledgers' latest up to --as-of (default: today), one nightly each",
    )
    sub.choices["nightly"].add_argument(
        "--receipts-from",
        metavar="REV",
        help='under [hub] receipts = "github": the receipts '
        "branch (e.g. refs/prescient/receipts), whose file records a run whose head commit is gone",
    )
    sources = sub.add_parser("sources", help="list the sources with their status")
    add_common(sources, as_of=False)
    sources.set_defaults(func=cmd_sources)
    build = sub.add_parser("build", help="generate the pages, then mkdocs build --strict")
    add_common(build, as_of=False)
    build.add_argument(
        "--as-of",
        metavar="ISO-TIMESTAMP",
        help="the site's time in UTC (default: SOURCE_DATE_EPOCH, else the latest time the ledgers "
        "record, the time `prescient verify` checks the pages at)",
    )
    build.add_argument("--no-mkdocs", action="store_true", help="only write site_src/docs/generated")
    add_cache_options(build)
    build.set_defaults(func=cmd_build)
    serve = sub.add_parser("serve", help="preview the built site locally")
    add_common(serve, as_of=False)
    serve.add_argument("--port", type=_port, default=8000, metavar="N", help="the port to listen on (default 8000; 0: any free port)")
    serve.add_argument("--bind", default="127.0.0.1", metavar="ADDR", help="the address to listen on (default 127.0.0.1, this machine only)")
    serve.add_argument("--verbose", action="store_true", help="log every request on stderr (default: quiet)")
    serve.set_defaults(func=cmd_serve)
    _add_hub_commands(sub)


def _add_hub_commands(sub) -> None:
    """`init` and `check-config`."""
    init = sub.add_parser(
        "init",
        help="create a new hub repository in DIR: a commented data/hub.toml, the workflows "
        "pinned to this Prescient version, the site skeleton, CODEOWNERS, .gitignore, a README",
    )
    init.add_argument("dir", nargs="?", default=".", help="the new hub's folder, empty or new (default: the current one)")
    init.add_argument("--title", help="the hub's name (default: the folder's name)")
    init.add_argument(
        "--maintainer",
        action="append",
        metavar="LOGIN",
        help="a GitHub login or @org/team who reviews every change outside the submission areas (repeatable)",
    )
    init.add_argument(
        "--sources",
        metavar="NAME,...",
        help="the sources enabled (default: manifold,polymarket,kalshi,dbnomics; every other one is listed, disabled)",
    )
    init.add_argument(
        "--package",
        metavar="REQUIREMENT",
        help="what the hub installs Prescient from, pinned so nobody can move it: a commit (prescient @ git+URL@<commit id>), "
        "a wheel file (kept in the hub under .github/wheels/, pinned by its sha256) or a wheel's https address with "
        "--hash=sha256:<hex>; a tag is refused (default: the commit or wheel this Prescient was installed from; "
        "with --upgrade: the hub's own pin is kept)",
    )
    init.add_argument(
        "--upgrade",
        action="store_true",
        help="refresh the workflows, .ci/run and site skeleton of the hub in DIR for this version; files the hub changed are kept "
        "and named, with this version's copy beside each (FILE.new); an older version than the hub's is refused",
    )
    init.add_argument("--force", action="store_true", help="with --upgrade: downgrade a hub whose files a newer Prescient wrote")
    init.add_argument("--as-of", metavar="ISO-TIMESTAMP", help="the time the first round is scheduled from (default: SOURCE_DATE_EPOCH, else now)")
    init.set_defaults(func=cmd_init)
    check = sub.add_parser(
        "check-config",
        help="check data/hub.toml against the schema (every table, key, type and range; "
        "exit 2 on any mistake) and CODEOWNERS against its maintainers",
    )
    add_common(check)
    check.set_defaults(func=cmd_check_config)
