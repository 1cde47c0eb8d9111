"""What every command shares: where the hub is, the run's time, the hub opened with its cache,
the common options, and the small outputs (a file or stdout, the quarantined files' warnings)."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

from ..config import HUB_FILE
from ..errors import ConfigError, PrescientError, Problem


def find_hub(start: Path) -> Path | None:
    """The nearest folder, ``start`` or one above it, that holds data/hub.toml."""
    return next((folder for folder in (start, *start.parents) if (folder / HUB_FILE).is_file()), None)


def hub_dir(value: str | None) -> Path:
    """--hub, else the nearest folder, walking up from the one you stand in, that holds data/hub.toml."""
    if value:
        return Path(value).resolve()
    here = Path.cwd().resolve()
    found = find_hub(here)
    if found is None:
        raise ConfigError(f"no hub found: neither {here} nor any folder above it holds {HUB_FILE}; "
                          "give --hub DIR, or create a demo hub with `prescient demo`")
    return found


def command_time(args: argparse.Namespace):
    """The run's time, resolved once per command (the first line on stderr shows the same value)."""
    from ..config import resolve_as_of

    if getattr(args, "resolved_as_of", None) is None:
        args.resolved_as_of = resolve_as_of(getattr(args, "as_of", None))
    return args.resolved_as_of


@contextlib.contextmanager
def opened(args: argparse.Namespace, command: str, settings: bool = True) -> Iterator:
    """The command's hub with the disk cache kept between commands (``Hub.opened``) unless
    --no-cache; a cache that could not be written is one warning once the command is done."""
    from ..store.hub import Hub

    hub = None
    try:
        with Hub.opened(hub_dir(args.hub), args.cache_dir, disk=not args.no_cache, settings=settings) as hub:
            yield hub
    finally:
        if hub is not None and hub.cache.unkept:
            print(f"prescient {command}: warning: the cache was not kept ({hub.cache.unkept}); "
                  "the next run reads and derives from the files", file=sys.stderr)


def recorded_nothing(root: Path) -> bool:
    """True when the hub's data/ holds no ledger yet (no CSV or JSONL file): a fresh or empty hub."""
    data = root / "data"
    return not any(p.suffix in (".csv", ".jsonl") for p in data.rglob("*") if p.is_file())


def build_time(args: argparse.Namespace, root: Path) -> tuple[datetime, str | None]:
    """The site's time: --as-of, else SOURCE_DATE_EPOCH, else the latest time the ledgers record, so
    that a bare ``prescient build`` shows the data as of its last night and ``prescient verify`` (which
    recomputes the pages at that time) agrees with it; the clock only for a hub that records nothing.
    Second item: why, for the first stderr line (None when the time was given)."""
    from ..audit.verify import EPOCH, latest_run
    from ..store.hub import Hub
    from ..timeutil import format_ts

    if args.as_of or os.environ.get("SOURCE_DATE_EPOCH"):
        return command_time(args), None
    if getattr(args, "resolved_as_of", None) is None:
        latest = latest_run(Hub(root))
        args.resolved_as_of = latest if format_ts(latest) != EPOCH else command_time(args)
        args.build_reason = "the latest time its ledgers record" if format_ts(latest) != EPOCH else None
    return args.resolved_as_of, args.build_reason


def board_time(args: argparse.Namespace, hub) -> tuple[datetime, str] | None:
    """The leaderboard's time when no --as-of is given, and why: the latest night history.csv records
    (the board the site shows), else the latest time the ledgers record (a hub not yet scoring);
    None for a hub that records nothing. Read once per command (the first stderr line shows it)."""
    if not hasattr(args, "board_time"):
        args.board_time = _read_board_time(hub)
    return args.board_time


def _read_board_time(hub) -> tuple[datetime, str] | None:
    from ..store import readers
    from ..timeutil import parse_ts

    history = readers.load_history(hub) if hub.root.joinpath("data", "leaderboard").is_dir() else None
    if history is not None and not history.empty:
        return parse_ts(str(history["as_of"].max())), "the latest night in history.csv"
    latest = readers.latest_recorded(hub)
    return (parse_ts(str(latest[0])), "the latest time the ledgers record") if latest else None


def warn_quarantined(quarantine: list[Problem]) -> None:
    """The submitted files a command could not read and left out (it still succeeds: the site
    deploys without them; the nightly reports the same files and exits 6)."""
    for problem in quarantine:
        print(f"warning: {problem}", file=sys.stderr)


def time_option(option: str, value: str):
    """A UTC time given on the command line; a malformed one is a one-line error naming the option."""
    from ..timeutil import parse_ts

    try:
        return parse_ts(value)
    except ValueError as exc:
        raise PrescientError(f"{option} {value!r}: {exc}") from None


def emit(data: bytes, out: str | None, note: str) -> None:
    """``data`` to standard output, or written atomically to ``out`` with "wrote OUT" + ``note`` on stderr."""
    from ..store.atomic import write_bytes_atomic

    if not out:
        sys.stdout.buffer.write(data)
        return
    write_bytes_atomic(Path(out).resolve(), data)
    print(f"wrote {out}{note}", file=sys.stderr)


def add_common(parser: argparse.ArgumentParser, as_of: bool = True) -> None:
    parser.add_argument("--hub", metavar="DIR", help="the hub (default: the nearest folder, walking up from here, that holds data/hub.toml)")
    if as_of:
        parser.add_argument("--as-of", metavar="ISO-TIMESTAMP",
                            help="the run's time in UTC, e.g. 2026-11-22T00:00:00Z (default: SOURCE_DATE_EPOCH, else now)")


def add_cache_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--cache-dir", metavar="DIR",
                        help="where parsed ledgers and the last derive are kept between runs (default: "
                             "$PRESCIENT_CACHE_DIR/<hub>, else $XDG_CACHE_HOME/prescient/<hub>, else "
                             "~/.cache/prescient/<hub>); never inside the repository")
    parser.add_argument("--no-cache", action="store_true", help="read, check and derive everything from the files alone")
