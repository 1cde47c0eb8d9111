"""A team's loop, without a clone of the hub: `round fetch` (the open rounds from the hub's site) and
`submit` (the files to the hub by pull request, and the verdict of its check)."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shlex
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

from ..errors import ConfigError, SubmissionInvalid, Unreachable
from .common import command_time, hub_dir, shown

TOKEN_VARIABLES = ("GITHUB_TOKEN", "GH_TOKEN")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")  # never to the terminal


def _token() -> str:
    token = next((os.environ[name] for name in TOKEN_VARIABLES if os.environ.get(name)), "")
    if not token:
        raise ConfigError("submit needs a GitHub token in GITHUB_TOKEN (or GH_TOKEN) that may fork the hub and open pull requests")
    return token


@contextlib.contextmanager
def _submitter(repo: str, token: str) -> Iterator:
    from ..sources.github import API_URL, headers
    from ..sources.github_submit import Submitter
    from ..sources.http import http_for, open_client

    if repo.count("/") != 1:
        raise ConfigError(f"--repo {repo!r}: give the hub's repository as OWNER/NAME")
    with open_client({}) as client:
        yield Submitter(http_for(client, {}, headers=headers(token)), repo, os.environ.get("GITHUB_API_URL") or API_URL)


@contextlib.contextmanager
def _reached(what: str) -> Iterator[None]:
    """A request that failed for good is exit 6 (unreachable, or a refused token), said in one line."""
    from ..sources._util import ParseError
    from ..sources.http import FetchError

    try:
        yield
    except FetchError as exc:
        if exc.status in (401, 403):
            raise ConfigError(f"{what} refused the token (HTTP {exc.status}): {exc}") from None
        raise Unreachable(f"{what} could not be reached: {exc}") from None
    except ParseError as exc:
        raise Unreachable(f"{what} answered with something unexpected: {exc}") from None


def cmd_round_fetch(args: argparse.Namespace) -> int:
    """The open rounds of a hub, from its published site, into this folder."""
    from ..pipeline.round_fetch import write_rounds
    from ..sources.http import http_for, open_client
    from ..sources.hubsite import fetch_open_rounds

    if not (args.site or args.repo):
        raise ConfigError("give the hub's site as --site URL (or its repository as --repo OWNER/NAME)")
    root, as_of = Path(args.dir).resolve(), command_time(args)
    site = args.site
    if not site:
        with _submitter(args.repo, os.environ.get("GITHUB_TOKEN") or os.environ.get("GH_TOKEN") or "") as github, _reached("GitHub's API"):
            site = github.pages_url()
    with open_client({}) as client, _reached(site):
        fetched = fetch_open_rounds(http_for(client, {}), site)
    done = write_rounds(root, site, fetched, as_of, args.model, args.format)
    for note in done.notes:
        print(f"note: {note}", file=sys.stderr)
    if not done.rounds:
        print(f"no round is open on {site} as of {as_of:%Y-%m-%dT%H:%M:%SZ}")
        return 0
    print(f"round(s) open: {', '.join(done.rounds)}; each file matched the sha256 the site publishes")
    for path in done.written:
        print(f"wrote {shown(root / path)}")
    hub = "" if root == Path.cwd().resolve() else f" --hub {shlex.quote(shown(root))}"
    for path in done.templates:
        print(
            f"wrote {shown(root / path)}: fill in every probability, then `prescient submit{hub} {shlex.quote(shown(root / path))} --repo OWNER/NAME`"
        )
    return 0


def cmd_submit(args: argparse.Namespace) -> int:
    """Check, push and open (or update) the pull request of each (round, model); with --wait, its verdict."""
    from ..pipeline import submit
    from ..store.gitpush import Scratch
    from ..submissions import render

    token, root, at = _token(), hub_dir(args.hub), command_time(args)
    planned = submit.plan(root, [Path(os.path.abspath(f)) for f in args.files], args.model)
    flags = submit.MetadataFlags(args.name or "", args.organization or "", args.kind or "", args.release_date or "")
    report = submit.check_locally(root, planned, at)
    if not report.ok:
        return _refused_here(render(report, "text"))
    print(f"checked here: {report.summary()}", file=sys.stderr)
    with _submitter(args.repo, token) as github, tempfile.TemporaryDirectory(prefix="prescient-submit-") as tmp, _reached("GitHub"):
        login = github.login()
        if flags.given():
            written, notes = submit.write_metadata(root, planned, flags, login)
            for path in written:
                print(f"wrote {shown(root / path)} (the model's metadata, with you, {login}, as its maintainer)", file=sys.stderr)
            for note in notes:
                print(f"note: {note}", file=sys.stderr)
            report = submit.check_locally(root, planned, at, tuple(written))
            if not report.ok:
                return _refused_here(render(report, "text"))
        sender = submit.Sender(github, Scratch(Path(tmp) / "scratch.git", token), login)
        sender.look()
        _metadata_somewhere(root, planned, sender)
        if not _claimed(root, planned, sender, login, at):
            return SubmissionInvalid.exit_code
        sender.prepare()
        outcomes = [submit.Outcome(p, submit.sha256_of(root, p)) for p in planned]
        for outcome in outcomes:
            sender.send(root, outcome.planned, outcome)
            _print_sent(outcome, sender)
        if args.wait:
            submit.wait(github, outcomes, args.timeout)
    return _verdicts(outcomes, args.format, token) if args.wait else 0


def _refused_here(text: str) -> int:
    sys.stdout.write(text)
    print("nothing was sent: fix the errors above, then run `prescient submit` again", file=sys.stderr)
    return SubmissionInvalid.exit_code


def _metadata_somewhere(root: Path, planned, sender) -> None:
    """A model with no metadata here nor in the hub: refused before anything is sent."""
    from ..codes import problem
    from ..submissions import paths

    missing = sorted({p.model for p in planned if not (root / paths.model_path(p.model)).is_file() and not sender.hub_has(paths.model_path(p.model))})
    if missing:
        found = [
            problem(
                "missing-model-metadata",
                paths.model_path(m),
                None,
                None,
                "the hub has no metadata for this model yet: on its first submission give --name, --organization and --kind (and --release-date)",
            )
            for m in missing
        ]
        raise SubmissionInvalid("nothing was sent", found)


def _claimed(root: Path, planned, sender, login: str, at) -> bool:
    """The metadata this submission brings to the hub lists the token's account (``claim_metadata``),
    checked again when it was written: False (the report printed, nothing sent) when it does not."""
    from ..pipeline import submit
    from ..submissions import Report, paths, render
    from ..timeutil import format_ts

    new = sorted({p.model for p in planned if not sender.hub_has(paths.model_path(p.model))})
    written, found = submit.claim_metadata(root, new, login)
    for path in written:
        print(f"wrote {shown(root / path)}: you, {login}, are its maintainer (it listed none)", file=sys.stderr)
    report = submit.check_locally(root, planned, at, tuple(written)) if written else None
    if report is not None and not report.ok:
        found += report.errors
    if found:
        _refused_here(render(Report(format_ts(at), tuple(p.file for p in found), tuple(found)), "text"))
        return False
    return True


def _print_sent(outcome, sender) -> None:
    item, pull = outcome.planned, outcome.pull
    where = f"{sender.fork.full_name} {item.branch}"
    done = f"pushed {outcome.head[:12]} to {where}" if outcome.pushed else f"{where} already at {outcome.head[:12]}"
    verb = "opened" if outcome.opened else "updated"
    print(f"{item.model} round {item.due}: {done}; {verb} pull request #{pull.number} {pull.html_url}".rstrip())
    for note in outcome.notes:
        print(f"note: {note}", file=sys.stderr)


def _verdicts(outcomes, fmt: str, token: str) -> int:
    from ..pipeline.submit import PASSED, REFUSED

    def clean(text: str) -> str:
        return _CONTROL.sub("", text.replace(token, "***"))

    if fmt == "json":
        rows = [
            {
                "round": o.planned.due,
                "model": o.planned.model,
                "verdict": o.verdict,
                "run_id": o.run.id if o.run else None,
                "created_at": o.run.created_at if o.run else None,
                "url": o.run.html_url if o.run else None,
                "head": o.head,
                "pull_request": o.pull.number if o.pull else None,
                "notes": [clean(n) for n in o.notes],
            }
            for o in outcomes
        ]
        print(json.dumps(rows, indent=1))
    for o in outcomes:
        out = sys.stderr if fmt == "json" else sys.stdout
        if o.run is not None and o.verdict in (PASSED, REFUSED):
            print(
                f"{o.verdict}: {o.planned.model} round {o.planned.due}, validation run {o.run.id} of {o.head[:12]} created "
                f"{o.run.created_at} (the time the seal attests for these bytes) {o.run.html_url}".rstrip(),
                file=out,
            )
        else:
            print(f"no verdict: {o.planned.model} round {o.planned.due}: {clean('; '.join(o.notes))}", file=out)
        if o.verdict == REFUSED:
            print(clean(o.report) if o.report.strip() else "(the run uploaded no report; its link above shows the log)", file=out)
    if any(o.verdict == REFUSED for o in outcomes):
        return SubmissionInvalid.exit_code
    return Unreachable.exit_code if any(o.verdict != PASSED for o in outcomes) else 0


def add_round_fetch(round_sub) -> None:
    fetch = round_sub.add_parser("fetch", help="the hub's open rounds from its published site, each file checked against its sha256; no clone")
    fetch.add_argument("--site", metavar="URL", help="the hub's site, e.g. https://acme.github.io/hub/ (its /api/rounds.json)")
    fetch.add_argument("--repo", metavar="OWNER/NAME", help="the hub's repository instead: its GitHub Pages site (GITHUB_API_URL, GITHUB_TOKEN)")
    fetch.add_argument("--dir", default=".", metavar="DIR", help="write into DIR's data/ (default: here): data/rounds/<due>/, and the templates")
    fetch.add_argument("--model", metavar="TEAM.MODEL", help="also a ready-to-fill forecast file per open round, as `round template` writes it")
    fetch.add_argument("--format", choices=("csv", "json"), default="csv", help="the template's format (default csv)")
    fetch.add_argument("--as-of", metavar="ISO-TIMESTAMP", help="the time a round must still be open at (default: SOURCE_DATE_EPOCH, else now)")
    fetch.set_defaults(func=cmd_round_fetch)


def add_submit(sub) -> None:
    from .common import add_common

    submit = sub.add_parser(
        "submit",
        help="send forecast files to the hub by pull request, one branch and pull request per round and model, "
        "checked here first (exit 9, nothing sent); GITHUB_TOKEN or GH_TOKEN",
    )
    submit.add_argument(
        "files", nargs="+", metavar="FILE", help="forecast files at data/forecasts/<due>/<team>.<model>.csv (or .json) of this folder"
    )
    submit.add_argument("--repo", required=True, metavar="OWNER/NAME", help="the hub's GitHub repository")
    submit.add_argument("--model", metavar="TEAM.MODEL", help="refuse a file of any other model")
    submit.add_argument(
        "--wait", action="store_true", help="wait for the validation run of the pushed commit: exit 0 passed, 9 refused, 6 no verdict"
    )
    submit.add_argument("--timeout", type=float, default=1200.0, metavar="SECONDS", help="how long --wait waits (default 1200)")
    submit.add_argument("--format", choices=("text", "json"), default="text", help="the verdicts as text or JSON (default text)")
    submit.add_argument("--name", metavar="TEXT", help="first submission: the model's display name, for data/models/<team>.<model>.yml")
    submit.add_argument("--organization", metavar="TEXT", help="first submission: who built or runs the model")
    submit.add_argument("--kind", choices=("llm", "human", "team"), help="first submission: the model's kind")
    submit.add_argument("--release-date", metavar="YYYY-MM-DD", help="first submission: the model's release date, if known")
    add_common(submit)
    submit.set_defaults(func=cmd_submit)
