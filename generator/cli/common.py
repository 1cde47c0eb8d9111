"""What every command shares: where the hub is, the run's time, the hub opened with its cache,
the common options, and the small outputs (a file or stdout, the quarantined files' warnings)."""

from __future__ import annotations

import argparse
import contextlib
import os
import shlex
import sys
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path

from ..config import HUB_FILE
from ..errors import ConfigError, Problem


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
        raise ConfigError(
            f"no hub found: neither {here} nor any folder above it holds {HUB_FILE}; give --hub DIR, or create a demo hub with `prescient demo`"
        )
    return found


RECORD_READERS = ("leaderboard", "arena", "build", "verify")  # and the `oracle` board: they show what was recorded
LEDGERS = "the latest time its ledgers record"
NEXT_NIGHT = "the night after the latest its ledgers record"
# they record a new night, or a decision for the nights to come: on a replaying hub, the next one
ADVANCING = ("nightly", "fetch", "void", "correct", "exclude")


def not_a_hub(value: str, root: Path) -> ConfigError:
    """``--hub DIR`` at a folder with neither data/hub.toml nor data/ (exit 2): what a hub is, and how to make one."""
    message = (
        f"--hub {value}: {root} is not a hub; a hub is a folder whose {HUB_FILE} holds its settings, with its "
        "ledgers beside it under data/ (`prescient init DIR` starts one, `prescient demo DIR` makes the demo)"
    )
    return ConfigError(message, [Problem(value, None, None, "not-a-hub", f"neither {HUB_FILE} nor data/ in {root}")])


def hub_option(args: argparse.Namespace) -> str:
    """`` --hub DIR`` as the user gave it (empty when the hub was found from here), for the next steps we print."""
    value = getattr(args, "hub", None)
    return f" --hub {shlex.quote(value)}" if value else ""


def shown(path: Path) -> str:
    """``path`` as the user would type it from where they stand: relative when it is below the current folder."""
    here = Path.cwd()
    for candidate in (Path(path).absolute(), Path(path).resolve()):
        if candidate.is_relative_to(here):
            return str(candidate.relative_to(here)) or "."
    return str(path)


def command_time(args: argparse.Namespace) -> datetime:
    """The run's time, resolved once per command by the one rule (``run_time``)."""
    return run_time(args)[0]


def run_time(args: argparse.Namespace) -> tuple[datetime, str | None]:
    """The run's "now" and why (None when --as-of gave it), the same rule for every command:

    1. ``--as-of``; 2. else ``SOURCE_DATE_EPOCH``; 3. else the latest time the hub's ledgers record,
    when either the hub is a replay (every enabled source is the offline ``sim`` world: its time is
    simulated, so this holds even when that time is past the clock: a sim hub started today advances
    one night per ``nightly``) or the command only shows what was recorded (``leaderboard``,
    ``arena``, the ``oracle`` board, ``build``, ``verify``: so that ``build`` and ``verify`` agree) and
    that time is in the past; for ``nightly`` and ``fetch``, which record a new night, and the
    maintainers' ``void``, ``correct`` and ``exclude``, which decide for the nights to come, the night
    after it;
    4. else the UTC clock (a hub's first night). The first line on stderr names the time and the reason."""
    from ..config import resolve_as_of

    if getattr(args, "resolved_as_of", None) is None:
        given = getattr(args, "as_of", None)
        env = os.environ.get("SOURCE_DATE_EPOCH")
        args.resolved_as_of = resolve_as_of(given)
        args.time_reason = None if given else "SOURCE_DATE_EPOCH" if env else "now, by the clock"
        if not given and not env and hasattr(args, "hub"):
            latest, replay = _ledgers_time(args)
            if latest is not None and args.command in ADVANCING:
                latest, reason = latest + timedelta(days=1), NEXT_NIGHT
            else:
                reason = LEDGERS
            if latest is not None and (replay or latest <= args.resolved_as_of):
                args.resolved_as_of, args.time_reason = latest, reason
    return args.resolved_as_of, args.time_reason


def _ledgers_time(args: argparse.Namespace) -> tuple[datetime | None, bool]:
    """The latest time the hub's ledgers record (``audit.verify.latest_run``, the time ``verify``
    checks at) when the rule's third step applies to this command and hub, else None; and whether
    the hub is a replay (``is_replay``: its time is its ledgers', past the clock too)."""
    from ..audit.verify import EPOCH, latest_run
    from ..store.files import load_settings
    from ..store.hub import Hub
    from ..timeutil import format_ts

    root = hub_dir(args.hub)
    if not (root / HUB_FILE).is_file() or getattr(args, "catch_up", False):
        return None, False
    reader = args.command in RECORD_READERS or (args.command == "oracle" and not getattr(args, "oracle_command", None))
    replay = is_replay(load_settings(root))
    if not reader and not replay:
        return None, False
    hub = Hub(root)
    latest = latest_run(hub)
    args.ledgers_read = hub.cache.tables  # the ledgers parsed for it: the command's hub takes them (``opened``)
    return (None if format_ts(latest) == EPOCH else latest), replay


def is_replay(settings) -> bool:
    """A hub whose every enabled source is the offline sim world (the demo): its clock is its ledgers."""
    enabled = settings.enabled_sources
    return bool(enabled) and all(source.name == "sim" for source in enabled)


@contextlib.contextmanager
def opened(args: argparse.Namespace, command: str, settings: bool = True) -> Iterator:
    """The command's hub with the disk cache kept between commands (``Hub.opened``) unless
    --no-cache; a cache that could not be written is one warning once the command is done. The files
    parsed to find the run's time (``run_time``: every observation ledger) are not parsed again."""
    from ..store.hub import Hub

    hub = None
    try:
        with Hub.opened(
            hub_dir(args.hub), args.cache_dir, disk=not args.no_cache, settings=settings, parsed=getattr(args, "ledgers_read", None)
        ) as hub:
            yield hub
    finally:
        if hub is not None and hub.cache.unkept:
            print(
                f"prescient {command}: warning: the cache was not kept ({hub.cache.unkept}); the next run reads and derives from the files",
                file=sys.stderr,
            )


def recorded_nothing(root: Path) -> bool:
    """True when the hub's data/ holds no ledger yet (no CSV or JSONL file): a fresh or empty hub."""
    data = root / "data"
    return not any(p.suffix in (".csv", ".jsonl") for p in data.rglob("*") if p.is_file())


def print_warnings(problems: list[Problem]) -> None:
    """Warnings a command gives and goes on: the submitted files it could not read and left out (it
    still succeeds: the site deploys without them; the nightly reports the same files and exits 6), a
    hub skeleton of another version."""
    for problem in problems:
        print(f"warning: {problem}", file=sys.stderr)


def time_option(option: str, value: str):
    """A UTC time given on the command line; a malformed one is a one-line error naming the option."""
    from ..timeutil import parse_ts

    try:
        return parse_ts(value)
    except ValueError as exc:
        raise ConfigError(f"{option} {value!r}: {exc}") from None


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
        parser.add_argument(
            "--as-of",
            metavar="ISO-TIMESTAMP",
            help="the run's time in UTC, e.g. 2026-11-22T00:00:00Z (default: SOURCE_DATE_EPOCH, else the "
            "latest time the ledgers record on a sim hub or for a command that reads them back, "
            "else now; the first line on stderr names it)",
        )


def add_cache_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--cache-dir",
        metavar="DIR",
        help="where parsed ledgers and the last derive are kept between runs (default: "
        "$PRESCIENT_CACHE_DIR/<hub>, else $XDG_CACHE_HOME/prescient/<hub>, else "
        "~/.cache/prescient/<hub>); never inside the repository",
    )
    parser.add_argument("--no-cache", action="store_true", help="read, check and derive everything from the files alone")
