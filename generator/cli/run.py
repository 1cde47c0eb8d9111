"""The hub's own runs: `demo`, `nightly`, `fetch`, `sources`, `build` and `serve`."""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from ..console import demo_summary, print_sources, progress_bar, requests_progress
from ..errors import ConfigError, PartialFailure, PrescientError, Problem
from .common import add_cache_options, add_common, build_time, command_time, hub_dir, opened, warn_quarantined


def cmd_demo(args: argparse.Namespace) -> int:
    from ..pipeline.demo import SEASON_START, run_demo, season
    from ..site.build import build_site

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
    from ..pipeline.demo import SEASON_END, SEASON_START
    from ..timeutil import days, format_date, parse_ts

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
    from ..pipeline.nightly import nightly

    as_of = command_time(args)
    with opened(args, "nightly") as hub:
        try:
            with requests_progress() as progress, _walker(hub, args) as walk:
                report = nightly(hub, as_of, progress=progress, walk=walk)
        except PartialFailure as exc:
            print_sources(exc.run_report)
            raise
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
        raise ConfigError(f"--source {name!r}: no such source; the sources are {', '.join(known_sources())} "
                          "(`prescient sources` shows which are enabled)")
    enabled = [s.name for s in settings.enabled_sources]
    if name not in enabled:
        raise ConfigError(f"--source {name!r}: this source is disabled in data/hub.toml (enable it with "
                          f"[sources.{name}] enabled = true); enabled: {', '.join(enabled) or 'none'}")


def cmd_sources(args: argparse.Namespace) -> int:
    from ..config import load_settings
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
    from ..site.build import build_site

    root = hub_dir(args.hub)
    as_of = build_time(args, root)[0]
    quarantine: list[Problem] = []
    with opened(args, "build") as hub:  # the checked frames the nightly kept: the build need not parse them again
        changed = build_site(hub, as_of, run_mkdocs=not args.no_mkdocs, quarantine=quarantine)
    warn_quarantined(quarantine)
    print(f"{len(changed)} generated page(s) changed; site in {root / 'site_src' / 'site'}")
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    from ..site.serve import site_server

    site = hub_dir(args.hub) / "site_src" / "site"
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


def _port(text: str) -> int:
    """--port: a whole number from 0 to 65535 (a usage error otherwise)."""
    if not text.isdigit() or int(text) > 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port: give a whole number from 0 to 65535")
    return int(text)


def add_run(sub) -> None:
    """`demo`, `nightly`, `fetch`, `sources`, `build` and `serve`."""
    demo = sub.add_parser("demo", help="create a complete demo hub on the offline sim world and build its site")
    demo.add_argument("dir", nargs="?", default="demo", help="where to create it (default: ./demo)")
    demo.add_argument("--until", metavar="DATE", help="end the season early, at this night (default: the whole season, "
                                                       "2026-01-04 to 2026-07-19)")
    demo.set_defaults(func=cmd_demo)
    for name, func, text in (("nightly", cmd_nightly, "one nightly run: fetch, open rounds, baselines, score"),
                             ("fetch", cmd_fetch, "run only the fetch stage")):
        p = sub.add_parser(name, help=text)
        add_common(p)
        p.set_defaults(func=func)
    sub.choices["fetch"].add_argument("--source", help="fetch only this source")
    add_cache_options(sub.choices["nightly"])
    sub.choices["nightly"].add_argument("--receipts-from", metavar="REV", help="under [hub] receipts = \"github\": the receipts "
                                        "branch (e.g. refs/prescient/receipts), whose file records a run whose head commit is gone")
    sources = sub.add_parser("sources", help="list the sources with their status")
    add_common(sources, as_of=False)
    sources.set_defaults(func=cmd_sources)
    build = sub.add_parser("build", help="generate the pages, then mkdocs build --strict")
    add_common(build, as_of=False)
    build.add_argument("--as-of", metavar="ISO-TIMESTAMP",
                       help="the site's time in UTC (default: SOURCE_DATE_EPOCH, else the latest time the ledgers "
                            "record, the time `prescient verify` checks the pages at)")
    build.add_argument("--no-mkdocs", action="store_true", help="only write site_src/docs/generated")
    add_cache_options(build)
    build.set_defaults(func=cmd_build)
    serve = sub.add_parser("serve", help="preview the built site locally")
    add_common(serve, as_of=False)
    serve.add_argument("--port", type=_port, default=8000, metavar="N", help="the port to listen on (default 8000; 0: any free port)")
    serve.add_argument("--bind", default="127.0.0.1", metavar="ADDR", help="the address to listen on (default 127.0.0.1, this machine only)")
    serve.set_defaults(func=cmd_serve)
