"""A hub maintainer's decisions: ``void``, ``correct``, ``exclude`` (one row of the maintainers' ledger each)."""

from __future__ import annotations

import argparse
import os

from ..errors import ConfigError, PrescientError
from .common import add_common, command_time, hub_dir, time_option


def cmd_decide(args: argparse.Namespace) -> int:
    from ..pipeline.maintainer import Decision, record
    from ..schemas import EXCLUDE
    from ..store.hub import Hub
    from ..timeutil import is_iso_date

    as_of, hub = command_time(args), Hub.load(hub_dir(args.hub))
    outcome = getattr(args, "outcome", None)
    date = getattr(args, "resolution_date", None) or ""
    if date and not is_iso_date(date):
        raise PrescientError(f"--resolution-date {date!r}: give the date as YYYY-MM-DD")
    decision = Decision(
        args.command,
        args.model if args.command == EXCLUDE else args.question,
        args.reason,
        _by(args, hub.settings.maintainers),
        time_option("--from", args.effective) if args.effective else None,
        date,
        outcome,
    )
    done = record(hub, decision, as_of)
    print(f"{args.command}: {done.summary}")
    print(
        f"appended a row to {done.path}; next: commit it on a branch and open a pull request "
        f"(git checkout -b {args.command}-{_slug(decision.target)} && git add {done.path} && "
        f'git commit -m "{args.command} {decision.target}"); the validator checks it, and the first nightly '
        "after it is merged scores and ranks with it"
    )
    return 0


def _by(args: argparse.Namespace, maintainers: tuple[str, ...]) -> str:
    """--by, else GITHUB_ACTOR, else the hub's one maintainer login."""
    logins = [m for m in maintainers if not m.startswith("@")]
    by = args.by or os.environ.get("GITHUB_ACTOR") or (logins[0] if len(logins) == 1 else "")
    if not by:
        raise ConfigError("give --by LOGIN: your GitHub login, one of [hub] maintainers in data/hub.toml")
    return by


SLUG = 40  # characters of the target in the suggested branch name


def _slug(text: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-." else "-" for ch in text)[:SLUG]


def _outcome(value: str) -> float:
    """--outcome: 1 (yes), 0 (no) or a value in [0, 1]; anything else is a usage error (exit 2)."""
    try:
        outcome = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a number (1: yes, 0: no)") from None
    if not 0 <= outcome <= 1:  # NaN too
        raise argparse.ArgumentTypeError(f"{value}: give 1 (yes), 0 (no), or a value in [0, 1]")
    return outcome


def add_decisions(sub) -> None:
    """`void`, `correct`, `exclude`."""
    void = sub.add_parser(
        "void",
        help="void a question: it drops out of scoring in every round that asks it, from --from on "
        "(a row of data/maintainer/actions.csv, merged by pull request)",
    )
    void.add_argument("question", help="the question id, e.g. manifold:abc123")
    void.add_argument("--resolution-date", metavar="YYYY-MM-DD", help="a dataset question: void this resolution date only (default: every one)")
    correct = sub.add_parser(
        "correct",
        help="correct a question's resolution: the outcome stated from --from on (a row of data/maintainer/actions.csv, shown on the Changes page)",
    )
    correct.add_argument("question", help="the question id, e.g. manifold:abc123")
    correct.add_argument("--outcome", required=True, type=_outcome, metavar="X", help="the outcome: 1 (yes), 0 (no) or a value in [0, 1]")
    correct.add_argument("--resolution-date", metavar="YYYY-MM-DD", help="a dataset question: the resolution date corrected (required for one)")
    exclude = sub.add_parser(
        "exclude", help="take a model off every board from --from on; its forecasts, scores and the boards of earlier nights stay as they are"
    )
    exclude.add_argument("model", help="the model id, <team>.<model>")
    for parser in (void, correct, exclude):
        parser.add_argument("--reason", required=True, metavar="TEXT", help="why, in a sentence (published with the decision)")
        parser.add_argument(
            "--from",
            dest="effective",
            metavar="ISO-TIMESTAMP",
            help="when it takes effect (default: the command's time); later than the last night the "
            "history recorded, since no decision may change a past night",
        )
        parser.add_argument(
            "--by", metavar="LOGIN", help="your GitHub login, one of [hub] maintainers (default: GITHUB_ACTOR, else the hub's only maintainer)"
        )
        add_common(parser)
        parser.set_defaults(func=cmd_decide)
