"""Pull requests: `validate` and `receipts`."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from ..errors import ConfigError, PrescientError, SubmissionInvalid
from .common import add_common, command_time, hub_dir


def cmd_validate(args: argparse.Namespace) -> int:
    from ..submissions import render, validate_files, validate_pr
    from ..timeutil import parse_ts

    pr_mode = bool(args.base or args.head or args.author)
    if pr_mode and not (args.base and args.head and args.author and args.at):
        raise PrescientError("a pull request is validated with all of --base, --head, --author and --at")
    if not pr_mode and not args.files:
        raise PrescientError("give FILE... to check, or --base/--head/--author/--at for a pull request")
    try:
        at = parse_ts(args.at) if args.at else command_time(args)
    except ValueError as exc:
        raise PrescientError(f"--at {args.at!r}: {exc}") from None
    hub = hub_dir(args.hub)
    report = validate_pr(hub, args.base, args.head, args.author, at, _attested(hub, args.receipts_rev)) if pr_mode else \
        validate_files(hub, [Path(f) for f in args.files], at)
    text = render(report, args.format, _submit_page(hub))
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
    sys.stdout.write(text)
    return 0 if report.ok else SubmissionInvalid.exit_code


def _submit_page(hub: Path) -> str:
    """The Submit page a report names: hub.toml's site_url, else the page's source. A hub.toml that does not
    load leaves the report as it is (the check of hub.toml itself is `prescient verify`'s)."""
    from ..config import SUBMIT_DOCS, load_settings

    try:
        return load_settings(hub).submit_page
    except ConfigError:
        return SUBMIT_DOCS


def cmd_receipts(args: argparse.Namespace) -> int:
    """Record when GitHub attests the submitted files' bytes: one run (record), or every open pull request (catch-up)."""
    from ..pipeline.receipts import catch_up, record_run
    from ..sources.github import API_URL, GitHub, headers
    from ..sources.http import http_for, open_client
    from ..store.hub import Hub

    repo = args.repo or os.environ.get("GITHUB_REPOSITORY", "")
    if not repo.count("/") == 1:
        raise ConfigError("give the repository as --repo OWNER/NAME (or set GITHUB_REPOSITORY, as Actions does)")
    as_of, hub = command_time(args), Hub.load(hub_dir(args.hub))
    with open_client({}) as client:
        http = http_for(client, {}, headers=headers(os.environ.get("GITHUB_TOKEN")))
        github = GitHub(http, repo, os.environ.get("GITHUB_API_URL") or API_URL)
        done = record_run(hub, github, args.run_id, as_of) if args.receipts_command == "record" else catch_up(hub, github, as_of)
    for note in done.notes:
        print(f"note: {note}", file=sys.stderr)
    print(f"{len(done.added)} receipt row(s) added ({done.added['head_sha'].nunique()} head commit(s))")
    return 0


def _attested(root: Path, rev: str | None):
    """The receipts (path, blob) → earliest attested time, from the hub's files or from commit ``rev``."""
    from ..store import receipts
    from ..store.git import resolve_commit
    from ..store.hub import Hub

    frame = receipts.load_receipts_at(root, resolve_commit(root, rev)) if rev else receipts.load_receipts(Hub(root))
    return receipts.attested(frame)


def add_validate(sub) -> None:
    validate = sub.add_parser("validate", help="check forecast files, or a pull request's changes (exit 9 on errors)")
    add_common(validate, as_of=False)
    validate.add_argument("files", nargs="*", metavar="FILE", help="forecast or model files in the hub to check")
    validate.add_argument("--at", metavar="ISO-TIMESTAMP", help="judge the deadline at this UTC time (default: SOURCE_DATE_EPOCH, else now)")
    validate.add_argument("--base", metavar="SHA", help="the pull request's base commit")
    validate.add_argument("--head", metavar="SHA", help="the pull request's head commit")
    validate.add_argument("--author", metavar="LOGIN", help="the pull request author's GitHub login")
    validate.add_argument("--format", choices=("text", "markdown", "json"), default="text",
                          help="the report as text, Markdown (a pull-request comment) or JSON (default text)")
    validate.add_argument("--output", metavar="FILE", help="also write the report to FILE")
    validate.add_argument("--receipts-rev", metavar="REV", help="read the receipts ledger from this commit (the default "
                                                                "branch's latest) instead of the hub's files")
    validate.set_defaults(func=cmd_validate)


def add_receipts(sub) -> None:
    receipts = sub.add_parser("receipts", help="record when GitHub attests a pull request's submitted files (the workflows run it)")
    actions = receipts.add_subparsers(dest="receipts_command", required=True, metavar="ACTION")
    record = actions.add_parser("record", help="the receipt of one validation run (the receipts workflow, on workflow_run)")
    catch = actions.add_parser("catch-up", help="receipts for every open pull request whose head has none yet (the nightly)")
    record.add_argument("--run-id", required=True, type=int, metavar="ID", help="the workflow run's id (github.event.workflow_run.id)")
    for parser in (record, catch):
        add_common(parser)
        parser.add_argument("--repo", metavar="OWNER/NAME", help="the GitHub repository (default: GITHUB_REPOSITORY); "
                                                                 "GITHUB_TOKEN and GITHUB_API_URL are read from the environment")
        parser.set_defaults(func=cmd_receipts)
