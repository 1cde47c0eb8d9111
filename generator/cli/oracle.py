"""The Daily Oracle's actions (Daily Oracle, living): `oracle fetch-news`, `oracle generate`
and `oracle answer`. The `oracle` board itself is in ``boards``."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from ..errors import ConfigError, PartialFailure, Problem
from .common import add_common, command_time, hub_dir


def add_oracle_actions(actions) -> None:
    """`prescient oracle fetch-news | generate | answer`."""
    fetch = actions.add_parser("fetch-news", help="read the [oracle] feeds and record the new articles in the news ledger")
    generate = actions.add_parser(
        "generate", help="select each news day's articles and make their questions (the [oracle] maker: the LLM, or the demo's template maker)"
    )
    generate.add_argument(
        "--day",
        action="append",
        metavar="YYYY-MM-DD",
        help="make this news day's questions (repeatable; default: the [oracle] lookback_days before today)",
    )
    generate.add_argument("--model", metavar="NAME", help="the endpoint's model (default: [oracle] model, else $PRESCIENT_LLM_MODEL)")
    answer = actions.add_parser("answer", help="the hub's own LLM answers an oracle set's unanswered questions")
    answer.add_argument("--model", required=True, metavar="NAME", help="the endpoint's model name")
    answer.add_argument("--set", metavar="NAME", help="the oracle set (default: [oracle] question_set)")
    answer.add_argument(
        "--setting",
        choices=("closed-book", "open-book"),
        default="closed-book",
        help="closed-book (the question only; default) or open-book (with articles retrieved from the news ledger)",
    )
    answer.add_argument("--cutoff", metavar="YYYY-MM-DD", help="open-book: retrieve only articles published before this date")
    answer.add_argument("--knowledge-cutoff", metavar="YYYY-MM-DD", help="the model's training cutoff, for its metadata")
    answer.add_argument("--concurrency", type=int, default=4, metavar="N", help="calls in flight at once (default 4)")
    for parser, func in ((fetch, cmd_oracle_fetch_news), (generate, cmd_oracle_generate), (answer, cmd_oracle_answer)):
        add_common(parser)
        parser.add_argument(
            "--cache-dir",
            metavar="DIR",
            help="where the articles' full texts are kept (default: the nightly's cache folder; never inside the repository)",
        )
        parser.set_defaults(func=func)


def _news_texts(args: argparse.Namespace):
    from ..store.newstexts import NewsTexts

    return NewsTexts.for_hub(hub_dir(args.hub), Path(args.cache_dir) if args.cache_dir else None)


def cmd_oracle_fetch_news(args: argparse.Namespace) -> int:
    """Read the feeds, record the new articles."""
    from ..oracle.describe import news_lines
    from ..oracle.news import fetch_news
    from ..sources.addresses import allowed_from
    from ..store.hub import Hub

    report = fetch_news(Hub.load(hub_dir(args.hub)), command_time(args), _news_texts(args), allow=allowed_from(os.environ))
    print("\n".join(news_lines(report)))
    return _problems_exit(report.problems)


def cmd_oracle_generate(args: argparse.Namespace) -> int:
    """Select and make the questions of the window's news days."""
    from ..llm import endpoint_from_env
    from ..oracle.describe import generate_lines
    from ..oracle.generate import generate
    from ..store.hub import Hub

    hub = Hub.load(hub_dir(args.hub))
    oracle = hub.settings.oracle
    endpoint = endpoint_from_env(os.environ, "the oracle's question maker") if oracle and oracle.maker == "llm" else None
    model = args.model or (oracle.model if oracle else "") or os.environ.get("PRESCIENT_LLM_MODEL", "")
    days = [_day_option("--day", d) for d in args.day or []] or None
    report = generate(hub, command_time(args), _news_texts(args), endpoint=endpoint, model=model, news_days=days)
    print("\n".join(generate_lines(report)))
    return _problems_exit(report.problems)


def cmd_oracle_answer(args: argparse.Namespace) -> int:
    """The hub's LLM answers an oracle set."""
    from ..llm import endpoint_from_env
    from ..oracle.answer import AnswerOptions, answer_set
    from ..oracle.describe import answer_lines
    from ..store.hub import Hub

    hub = Hub.load(hub_dir(args.hub))
    qset = args.set or (hub.settings.oracle.question_set if hub.settings.oracle else "")
    if not qset:
        raise ConfigError("give --set NAME (no [oracle] question_set in data/hub.toml)")
    options = AnswerOptions(args.model, args.setting, args.cutoff or "", args.knowledge_cutoff or "", args.concurrency, hub.settings.own_prefix)
    try:
        report = answer_set(hub, command_time(args), endpoint_from_env(os.environ, "the oracle's answerer"), options, qset, _news_texts(args))
    except PartialFailure as exc:
        print("\n".join(answer_lines(exc.run_report)))
        raise
    print("\n".join(answer_lines(report)))
    return 0


def _day_option(option: str, value: str) -> str:
    from ..timeutil import is_iso_date

    if not is_iso_date(value):
        raise ConfigError(f"{option} {value!r}: write a date as YYYY-MM-DD")
    return value


def _problems_exit(problems: list[Problem]) -> int:
    """Every problem on stderr with its code; exit 6 when one is an error (the rest was written)."""
    for problem in problems:
        print(f"{problem.severity}: {problem}", file=sys.stderr)
    return PartialFailure.exit_code if any(p.severity == "error" for p in problems) else 0
