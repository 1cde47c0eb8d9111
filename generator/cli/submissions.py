"""Pull requests: `validate` and `receipts`; a commit–reveal round's `commit` and `reveal`."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Iterator
from pathlib import Path

from ..errors import ConfigError, PartialFailure, PrescientError, SubmissionInvalid
from .common import add_common, command_time, hub_dir, hub_option, shown


def cmd_validate(args: argparse.Namespace) -> int:
    from ..submissions import render, validate_pr
    from ..submissions.own import validate_local
    from ..timeutil import parse_ts

    pr_mode = bool(args.base or args.head or args.author)
    if pr_mode and not (args.base and args.head and args.author and args.at):
        raise ConfigError("a pull request is validated with all of --base, --head, --author and --as-of (or --at)")
    if not pr_mode and not args.files:
        raise ConfigError("give FILE... to check, or --base/--head/--author/--as-of for a pull request")
    try:
        at = parse_ts(args.at) if args.at else command_time(args)
    except ValueError as exc:
        raise ConfigError(f"--as-of {args.at!r}: {exc}") from None
    hub = hub_dir(args.hub)
    report = (
        validate_pr(hub, args.base, args.head, args.author, at, _receipts(hub, args.receipts_rev, args.receipts_from), _hub_maintainers(hub))
        if pr_mode
        else validate_local(hub, [Path(os.path.abspath(f)) for f in args.files], at, at_given=bool(args.at))
    )
    text = render(report, args.format, *_report_identity(hub))
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
    sys.stdout.write(text)
    return 0 if report.ok else SubmissionInvalid.exit_code


def _report_identity(hub: Path) -> tuple[str, str]:
    """The Submit page a report names (hub.toml's site_url, else the page's source) and the hub's title
    that heads it. A hub.toml that does not load leaves the report as it is (check-config reports it)."""
    from ..config import SUBMIT_DOCS
    from ..store.files import load_settings

    try:
        settings = load_settings(hub)
    except ConfigError:
        return SUBMIT_DOCS, "Prescient"
    return settings.submit_page, settings.title


@contextlib.contextmanager
def github_api(repo: str | None) -> Iterator:
    """GitHub's API for ``repo`` (else GITHUB_REPOSITORY), with GITHUB_TOKEN and GITHUB_API_URL from the environment."""
    from ..sources.github import API_URL, GitHub, headers
    from ..sources.http import http_for, open_client

    repo = repo or os.environ.get("GITHUB_REPOSITORY", "")
    if not repo.count("/") == 1:
        raise ConfigError("give the repository as --repo OWNER/NAME (or set GITHUB_REPOSITORY, as Actions does)")
    with open_client({}) as client:
        http = http_for(client, {}, headers=headers(os.environ.get("GITHUB_TOKEN")))
        yield GitHub(http, repo, os.environ.get("GITHUB_API_URL") or API_URL)


def branch_rows(root: Path, rev: str | None):
    """The receipts branch's file for a run (``--receipts-from``), when the branch is here."""
    from ..store import receipts
    from ..store.git import resolve_commit

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
    from ..pipeline.receipts import record_run, walk
    from ..store.hub import Hub

    as_of, hub = command_time(args), Hub.load(hub_dir(args.hub))
    with github_api(args.repo) as github:
        if args.receipts_command == "record":
            done = record_run(hub, github, args.run_id, as_of, out=Path(args.out) if args.out else None)
        else:
            done = walk(hub, github, as_of, branch_rows=branch_rows(hub.root, args.receipts_from))
    for note in done.notes:
        print(f"note: {note}", file=sys.stderr)
    print(
        f"{len(done.added)} receipt row(s) {'written' if getattr(args, 'out', None) else 'added'} "
        f"({done.added['head_sha'].nunique()} head commit(s))" + ("" if done.complete else "; some runs could not be read")
    )
    return 0 if done.complete else PartialFailure.exit_code


def _receipts(root: Path, rev: str | None, branch: str | None = None):
    """The receipts ledger, from the hub's files or from commit ``rev``, with the receipts branch's
    runs at ``branch`` (recorded there when each run completed; the nightly copies them later)."""
    import pandas as pd

    from ..store import receipts
    from ..store.git import resolve_commit
    from ..store.hub import Hub

    ledger = receipts.load_receipts_at(root, resolve_commit(root, rev)) if rev else receipts.load_receipts(Hub(root))
    if not branch:
        return ledger
    runs = receipts.load_branch_at(root, resolve_commit(root, branch))
    return pd.concat([ledger, runs], ignore_index=True).drop_duplicates(["head_sha", "path"]) if len(runs) else ledger


def _hub_maintainers(root: Path) -> tuple[str, ...]:
    """``[hub] maintainers`` of the hub (of the base commit's checkout, in the workflow); none when it does not load."""
    from ..store.files import load_settings

    try:
        return load_settings(root).maintainers
    except ConfigError:
        return ()


def cmd_commit(args: argparse.Namespace) -> int:
    """A commit–reveal round's first step: the commitment into the hub, the salt next to the file."""
    from ..pipeline.commitments import commit
    from ..store.hub import Hub

    done = commit(Hub.load(hub_dir(args.hub)), Path(args.file), args.round, args.model, os.urandom(32).hex().encode("ascii") + b"\n")
    salt = f"kept the salt already at {shown(done.salt)} (a salt is never overwritten)" if done.kept else f"wrote the salt to {shown(done.salt)}"
    print(
        f"wrote {shown(done.commitment)}: push it now, in a pull request.\n{salt}: keep it, and {args.file}, private until the "
        f"due time (outside the hub's data/, out of every pull request); after the due time run `prescient "
        f"reveal{hub_option(args)} {args.file} --round {args.round} --model {args.model}`"
    )
    return 0


def cmd_reveal(args: argparse.Namespace) -> int:
    """A commit–reveal round's second step: the file and its salt into the hub, checked against the commitment."""
    from ..pipeline.commitments import reveal
    from ..store.hub import Hub

    written = reveal(Hub.load(hub_dir(args.hub)), Path(args.file), args.round, args.model)
    print("wrote " + " and ".join(map(shown, written)) + ": open a pull request with both before the round's reveal_by")
    return 0


def add_validate(sub) -> None:
    validate = sub.add_parser("validate", help="check forecast files, or a pull request's changes (exit 9 on errors)")
    add_common(validate, as_of=False)
    validate.add_argument(
        "files",
        nargs="*",
        metavar="FILE",
        help="forecast, bet or model files in the hub to check, named from where you stand (e.g. demo/data/forecasts/... with "
        "--hub demo); the hub's own forecasters' files (<own_prefix>.*, [hub] own_prefix) are checked by the rules the nightly applies to them",
    )
    validate.add_argument(
        "--as-of",
        "--at",
        dest="at",
        metavar="ISO-TIMESTAMP",
        help="judge the deadline at this UTC time, as the other commands' --as-of (--at: the same; default: "
        "SOURCE_DATE_EPOCH, else the ledgers' latest time on a sim hub such as the demo, else now)",
    )
    validate.add_argument("--base", metavar="SHA", help="the pull request's base commit")
    validate.add_argument("--head", metavar="SHA", help="the pull request's head commit")
    validate.add_argument("--author", metavar="LOGIN", help="the pull request author's GitHub login")
    validate.add_argument(
        "--format",
        choices=("text", "markdown", "json"),
        default="text",
        help="the report as text, Markdown (a pull-request comment) or JSON (default text)",
    )
    validate.add_argument("--output", metavar="FILE", help="also write the report to FILE")
    validate.add_argument(
        "--receipts-from",
        metavar="REV",
        help="also the receipts branch's runs at REV (e.g. "
        "refs/prescient/receipts): what counts for a round past its due time "
        "before the nightly has copied them",
    )
    validate.add_argument(
        "--receipts-rev", metavar="REV", help="read the receipts ledger from this commit (the default branch's latest) instead of the hub's files"
    )
    validate.set_defaults(func=cmd_validate)


def add_receipts(sub) -> None:
    receipts = sub.add_parser("receipts", help="record when GitHub attests a pull request's submitted files (the workflows run it)")
    actions = receipts.add_subparsers(dest="receipts_command", required=True, metavar="ACTION")
    record = actions.add_parser("record", help="the receipt of one validation run (the receipts workflow, on workflow_run)")
    catch = actions.add_parser(
        "catch-up",
        help="receipts for every validation run since the oldest round still open or unsealed "
        'that none records yet (the nightly does this itself under [hub] receipts = "github")',
    )
    record.add_argument("--run-id", required=True, type=int, metavar="ID", help="the workflow run's id (github.event.workflow_run.id)")
    record.add_argument(
        "--out",
        metavar="DIR",
        help="write the rows to DIR/<run id>.csv (the receipts branch's runs/ folder) instead of appending them to the hub's ledger",
    )
    catch.add_argument(
        "--receipts-from",
        metavar="REV",
        help="the receipts branch (e.g. refs/prescient/receipts): a run whose head commit is gone is recorded from its file there",
    )
    for parser in (record, catch):
        add_common(parser)
        parser.add_argument(
            "--repo",
            metavar="OWNER/NAME",
            help="the GitHub repository (default: GITHUB_REPOSITORY); GITHUB_TOKEN and GITHUB_API_URL are read from the environment",
        )
        parser.set_defaults(func=cmd_receipts)


def add_commit_reveal(sub) -> None:
    for name, func, text in (
        (
            "commit",
            cmd_commit,
            "a commit–reveal round, before its due time: write the commitment of FILE into the hub, and keep its salt beside FILE",
        ),
        ("reveal", cmd_reveal, "a commit–reveal round, after its due time: copy FILE and its salt into the hub, checked against the commitment"),
    ):
        p = sub.add_parser(name, help=text)
        p.add_argument("file", metavar="FILE", help="the forecast file (keep it outside the hub until you reveal it)")
        p.add_argument("--round", required=True, metavar="DUE", help="the round's due date (YYYY-MM-DD)")
        p.add_argument("--model", required=True, metavar="TEAM.MODEL", help="the model the file is for")
        add_common(p, as_of=False)
        p.set_defaults(func=func)
