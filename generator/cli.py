"""``prescient``: a thin command line over the library.

Each command parses its options, resolves ``as_of`` once, calls one library function and maps
errors to exit codes. Expected failures (PrescientError) print a located, coded report and no
traceback; exit codes are documented in ``prescient --help``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Callable, Sequence

from .errors import PrescientError

EPILOG = """exit codes: 0 ok · 1 error · 2 bad configuration · 3 a file does not match its schema ·
4 refused to rewrite history · 5 source error · 6 partial failure (some sources failed; the rest
was written) · 7 another run holds the lock · 8 site build failed"""


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
    with _progress("Simulating a season of nightly runs") as advance:
        result = run_demo(target, progress=advance)
    print(f"Demo hub written to {result.root} ({result.nights} nightly runs on the offline sim world).")
    print(f"Site: {result.site / 'index.html'}")
    print(f"Preview it with:  prescient serve --hub {result.root}")
    return 0


def cmd_nightly(args: argparse.Namespace) -> int:
    from .pipeline import nightly

    as_of = _as_of(args)
    try:
        report = nightly(_hub(args.hub), as_of)
    except PrescientError as exc:
        _print_sources(getattr(exc, "report", None))
        raise
    _print_sources(report)
    print(f"nightly {as_of:%Y-%m-%dT%H:%M:%SZ}: rounds opened {report.rounds_opened or 'none'}; "
          f"{len(report.written)} file(s) written")
    return 0


def cmd_fetch(args: argparse.Namespace) -> int:
    from .pipeline import nightly

    report = nightly(_hub(args.hub), _as_of(args), only=args.source, fetch_only=True)
    _print_sources(report)
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
    import functools
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
    from .build import gather

    board = gather(_hub(args.hub), _as_of(args)).board
    if args.format == "csv":
        board.to_csv(sys.stdout, index=False, lineterminator="\n")
    elif args.format == "json":
        print(json.dumps(board.to_dict("records"), indent=2, default=str))
    else:
        print(board.to_string(index=False))
    return 0


def _print_sources(report) -> None:
    for s in getattr(report, "sources", []):
        if s.skipped:
            print(f"{s.name}: skipped ({s.skipped})")
            continue
        status = f"FAILED: {s.error}" if s.error else "ok"
        print(f"{s.name}: {status}; new questions {s.new_questions}, new observations {s.new_observations}, "
              f"resolved {s.resolved}, voided {s.voided}, item failures {len(s.failures)}")
        for failure in s.failures[:20]:
            print(f"  - {failure}")


class _progress:
    """A rich progress bar on a terminal, plain lines otherwise."""

    def __init__(self, title: str):
        self.title, self.bar, self.task = title, None, None

    def __enter__(self) -> Callable[[int, int, str], None]:
        if sys.stderr.isatty():
            from rich.progress import Progress

            self.bar = Progress(transient=False)
            self.bar.start()
            self.task = self.bar.add_task(self.title, total=None)
        return self.advance

    def advance(self, done: int, total: int, message: str) -> None:
        if self.bar is not None:
            self.bar.update(self.task, completed=done, total=total, description=f"{self.title}: {message}")
        elif done == total or done % 30 == 0:
            print(f"{self.title}: {done}/{total} ({message})", file=sys.stderr)

    def __exit__(self, *exc) -> None:
        if self.bar is not None:
            self.bar.stop()


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
    board.set_defaults(func=cmd_leaderboard)
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
