"""``prescient``: a thin command line over the library, one module per group of commands.

Each command parses its options, resolves ``as_of`` once, calls one library function and maps
errors to exit codes. Expected failures (PrescientError) print a located, coded report and no
traceback; exit codes are documented in ``prescient --help``.

- ``common``: what every command shares: the hub (found, or opened with its cache: ``opened``), the
  run's time, the common options, output to a file or stdout
- ``run``: the hub's own runs: ``demo``, ``nightly``, ``fetch``, ``sources``, ``build``, ``serve``; and
  starting and checking one: ``init``, ``check-config``
- ``boards``: what the hub recorded, read back: ``leaderboard``, ``arena``, ``oracle``, ``verify``
- ``rounds``: ``round open``, ``round template``, ``rounds``, ``forecast llm``
- ``team``: a team's loop without a clone: ``round fetch`` (from the hub's site), ``submit`` (by pull request, and its verdict)
- ``submissions``: pull requests: ``validate``, ``receipts``; a commit–reveal round's ``commit``, ``reveal``
- ``maintain``: a hub maintainer's decisions: ``void``, ``correct``, ``exclude``
- ``oracle``: the Daily Oracle's actions: ``oracle fetch-news``, ``oracle generate``, ``oracle answer``
- ``interop``: other benchmarks' files: ``import forecastbench``, ``import oracle``, ``export forecastbench``
- this module: ``build_parser`` (the commands in the order ``--help`` lists them) and ``main``
"""

from __future__ import annotations

import argparse
import difflib
import os
import re
import sys
from collections.abc import Sequence
from pathlib import Path

from .. import __version__
from ..config import HUB_FILE
from ..errors import EXIT_CODES, INTERRUPTED, ConfigError, PrescientError, storage_error
from ..store.files import load_settings
from . import boards, interop, maintain, rounds, run, submissions, team
from .common import find_hub, hub_dir, not_a_hub, recorded_nothing, run_time, shown

__all__ = ["EPILOG", "build_parser", "find_hub", "main"]

EPILOG = "exit codes: " + " · ".join(f"{code} {meaning}" for code, meaning in sorted(EXIT_CODES.items()))

READ_COMMANDS = ("leaderboard", "verify", "arena", "oracle")  # they only read what the hub recorded


class Parser(argparse.ArgumentParser):
    """argparse, with a usage error told as the command's own usage, a "did you mean" for a mistyped
    command or option, and the documented exit code of a usage error (``ConfigError``: 2)."""

    def error(self, message: str):
        self.print_usage(sys.stderr)
        self.exit(ConfigError.exit_code, f"{self.prog}: error: {message}{self._suggestion(message)}\n(`{self.prog} --help` lists every option)\n")

    def _suggestion(self, message: str) -> str:
        choice = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)", message)
        if choice:
            close = difflib.get_close_matches(choice.group(1), re.findall(r"'([^']*)'", choice.group(2)), n=1)
        else:
            typed = re.findall(r"(--?[\w-]+)", message.partition("unrecognized arguments:")[2])
            options = [o for action in self._actions for o in action.option_strings]
            close = [m for t in typed for m in difflib.get_close_matches(t.split("=")[0], options, n=1)][:1]
        return f"; did you mean {close[0]}?" if close else ""

    def command_parser(self, args: argparse.Namespace) -> Parser:
        """The parser of the (sub)command ``args`` ran: its usage is the one a mistake there shows."""
        for action in self._actions:
            if isinstance(action, argparse._SubParsersAction) and getattr(args, action.dest, None) in action.choices:
                chosen = action.choices[getattr(args, action.dest)]
                return chosen.command_parser(args) if isinstance(chosen, Parser) else self
        return self


def parse(argv: Sequence[str] | None) -> argparse.Namespace:
    """The options; an option no parser knows is reported by the subcommand's parser, with its usage."""
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if extra:
        parser.command_parser(args).error(f"unrecognized arguments: {' '.join(extra)}")
    return args


def build_parser() -> Parser:
    parser = Parser(prog="prescient", description="A forecasting benchmark that lives in a git repository.", epilog=EPILOG)
    parser.add_argument("--version", action="version", version=f"prescient {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    run.add_run(sub)
    boards.add_leaderboard(sub)
    interop.add_import_oracle(interop.add_import(sub))
    boards.add_oracle(sub)
    interop.add_export(sub)
    submissions.add_validate(sub)
    team.add_submit(sub)
    rounds.add_rounds(sub)
    boards.add_verify(sub)
    boards.add_arena(sub)
    rounds.add_forecast(sub)
    submissions.add_receipts(sub)
    submissions.add_commit_reveal(sub)
    maintain.add_decisions(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = parse(argv)
    root: Path | None = None
    try:
        root = _announce(args)
        if (
            root is not None
            and args.command in READ_COMMANDS
            and not getattr(args, "git", None)
            and not getattr(args, "oracle_command", None)
            and recorded_nothing(root)
        ):
            print(
                f"prescient {args.command}: nothing recorded yet in {root / 'data'} (no questions, forecasts or scores); {_first_steps(args, root)}",
                file=sys.stderr,
            )
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


def _announce(args: argparse.Namespace) -> Path | None:
    """The first line on stderr: the hub and the as-of time the command uses (stdout stays data)."""
    from ..timeutil import format_ts

    if args.command in ("demo", "init"):
        print(f"prescient: {'demo hub' if args.command == 'demo' else 'hub'} {Path(args.dir).resolve()}", file=sys.stderr)
        return None
    if not hasattr(args, "hub"):
        return None
    root = hub_dir(args.hub)
    if not (root / HUB_FILE).is_file() and not (root / "data").is_dir() and not _makes_its_hub(args):
        raise not_a_hub(args.hub, root)
    line = f"prescient: hub {root}"
    if (root / HUB_FILE).is_file():
        try:
            settings = load_settings(root)  # every command's first step: a hub.toml with a mistake stops it here (exit 2)
            _check_hub_files(root, settings)  # and so does CODEOWNERS out of step with its maintainers
        except ConfigError:
            print(line, file=sys.stderr)
            raise
    if args.command == "validate" and args.at:
        line += f" · at {args.at}"
    elif hasattr(args, "as_of") or args.command == "validate":
        when, why = run_time(args)
        line += f" · {'at' if args.command == 'validate' else 'as of'} {format_ts(when)}" + (f" ({why})" if why else "")
    print(line, file=sys.stderr)
    return root


def _check_hub_files(root: Path, settings) -> None:
    from ..pipeline.hubinit import check_hub_files

    problems = check_hub_files(root, settings)
    if problems:
        raise ConfigError(f"{root / HUB_FILE}: the files written from it are out of step", problems)


def _first_steps(args: argparse.Namespace, root: Path) -> str:
    """What to do on a hub that records nothing: a hub with data in a folder below it (the demo made in a
    clone of this repository) is named first; else the nightly, which fetches this hub's sources."""
    below = [p for p in sorted(root.iterdir()) if p.is_dir() and (p / HUB_FILE).is_file() and not recorded_nothing(p)]
    if below:
        return f"the hub in {shown(below[0])} has data: `prescient {args.command} --hub {shown(below[0])}`"
    live = [s.name for s in load_settings(root).enabled_sources if s.name != "sim"]
    return "`prescient nightly` records the first ones" + (f" (it fetches {', '.join(live)} from the network)" if live else "")


def _makes_its_hub(args: argparse.Namespace) -> bool:
    """`import forecastbench` into an empty folder writes the hub's data/hub.toml itself."""
    return args.command == "import" and getattr(args, "importer", None) == "forecastbench"


def _failed_path(exc: BaseException) -> str | None:
    """The file an OSError was about when it does not say (a write on an open descriptor): the
    ``path`` of the innermost frame that has one (``atomic.write_bytes_atomic``, the readers)."""
    tb, found = exc.__traceback__, None
    while tb is not None:
        path = tb.tb_frame.f_locals.get("path")
        found = str(path) if isinstance(path, Path) else found
        tb = tb.tb_next
    return found
