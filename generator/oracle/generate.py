"""``prescient oracle generate``: each news day's questions, made from its selected articles.

For every news day of the window (the ``[oracle] lookback_days`` days before the run's date, or
the days given), in date order:
1. **select** the day's articles once (``selection.select_day`` over the news ledger's articles
   published that day, their texts read from ``store.newstexts``) and record them in
   ``data/oracle/<set>/articles.csv``; a day already selected keeps its selection;
2. **make** the questions of each selected article not yet made, with the configured maker: the
   LLM (``llm_maker``: four calls, logged, resumable, within the daily budget) or the demo's
   ``template`` maker (``template_maker``: no call, deterministic);
3. **write**, for every article made: its four questions with their filter scores to
   ``generated.csv``, the questions kept (``[oracle] min_score``) to the set's ``questions.csv``
   (the import format, resolution date = publication date, url = the article), and last its
   summary, as a new version of its row in the news ledger. That version marks the article done.
Nothing is written for an article still pending (a failed or malformed call, the budget spent): the
next run takes it up where the call log left it, even once its day has left the window. An article
whose step failed for good (refused, or malformed three times) yields no question; its summary
version, written all the same, marks it done.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime

import httpx
import pandas as pd

from ..errors import ConfigError, Problem
from ..llm import Budget, CallOptions, Endpoint, session
from ..schemas import NEWS, ORACLE_ARTICLES, ORACLE_GENERATED, ORACLE_QUESTIONS
from ..sources.sim import SimWorld, world_from_options
from ..store import calllog, ledger, readers
from ..store.hub import Hub
from ..store.layout import Layout
from ..store.lock import hub_lock
from ..store.newstexts import NewsTexts
from ..timeutil import days, format_date, format_ts, parse_ts
from . import llm_maker, template_maker
from .candidates import Article, Outcome, kept
from .importer import changed_versions
from .ledgers import current_news, oracle_settings, typed
from .selection import select_day


@dataclass
class GenerateReport:
    as_of: datetime
    question_set: str
    maker: str
    days: list[str] = field(default_factory=list)
    selected: int = 0  # articles selected this run (days selected before keep theirs)
    made: int = 0  # articles whose questions were made (or found to report no new event) this run
    no_event: int = 0
    pending: int = 0
    kept: int = 0
    dropped: int = 0
    calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float | None = None
    budget_spent: bool = False
    problems: list[Problem] = field(default_factory=list)
    written: list[str] = field(default_factory=list)


def window(as_of: datetime, lookback: int) -> list[str]:
    """The news days a run at ``as_of`` looks at: the ``lookback`` days before its date, oldest first."""
    today = parse_ts(format_date(as_of))
    return [format_date(today - days(n)) for n in range(lookback, 0, -1)]


def generate(
    hub: Hub,
    as_of: datetime,
    texts: NewsTexts,
    *,
    endpoint: Endpoint | None = None,
    model: str = "",
    news_days: list[str] | None = None,
    client: httpx.Client | None = None,
    world: SimWorld | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> GenerateReport:
    """Select and make the questions of the window's news days at ``as_of`` (module docstring)."""
    settings = oracle_settings(hub.settings)
    layout, qset = hub.layout, settings.question_set
    maker = _template(hub, world) if settings.maker == template_maker.NAME else None
    name = template_maker.NAME if maker is not None else _model(endpoint, model or settings.model)
    report = GenerateReport(as_of, qset, name)
    report.days = sorted(news_days) if news_days is not None else window(as_of, settings.lookback_days)
    if any(d >= format_date(as_of) for d in report.days):
        raise ConfigError(f"news day {max(report.days)} is not over at {format_ts(as_of)}: a day's questions are made once it has ended")
    with hub_lock(layout.data, f"prescient oracle generate --as-of {format_ts(as_of)}"):
        readers.check_as_of(hub, format_ts(as_of))
        news = current_news(readers.load_news(hub))
        articles = _select(hub, qset, news, report, texts, settings.random_articles, settings.hot_topics)
        todo = _todo(news, articles)
        if maker is not None:
            outcomes = [maker.make(a) for a in todo]
        else:
            todo = [replace(a, text=texts.get(a.text_sha256) or a.title) for a in todo]  # the title when the text is lost
            outcomes = _llm(layout, qset, name, todo, endpoint, settings, report, client, sleep)
        if todo:
            _write(hub, qset, news, todo, outcomes, settings.min_score, report)
    return report


def _template(hub: Hub, world: SimWorld | None) -> template_maker.TemplateMaker:
    if world is None:
        world = world_from_options(next((dict(s.options) for s in hub.settings.sources if s.name == "sim"), {}))
    return template_maker.TemplateMaker(world)


def _model(endpoint: Endpoint | None, model: str) -> str:
    if endpoint is None:
        raise ConfigError("the oracle's question maker is off: set PRESCIENT_LLM_API_KEY (and PRESCIENT_LLM_BASE_URL) to run it")
    if not model.strip():
        raise ConfigError("no model for the question maker: set [oracle] model or PRESCIENT_LLM_MODEL, or give --model")
    return model.strip()


def _select(hub: Hub, qset: str, news: pd.DataFrame, report: GenerateReport, texts: NewsTexts, random_n: int, hot_n: int) -> pd.DataFrame:
    """Every selected article, after selecting (and recording) the window's days not selected yet."""
    layout, chosen = hub.layout, readers.load_oracle_articles(hub, qset)
    done = set(chosen["day"].astype(str))
    new_days = [d for d in report.days if d not in done]
    published = news["published_at"].fillna("").astype(str).str[:10].to_numpy() if new_days else None
    rows = []
    for day in new_days:
        of_day = news[published == day].sort_values("url", kind="mergesort")
        if of_day.empty:
            continue
        urls, shas = of_day["url"].tolist(), of_day["text_sha256"].tolist()
        words = [
            f"{title or ''}\n{texts.get(sha) or summary or ''}"  # the title and text; the summary if the text is lost
            for title, sha, summary in zip(of_day["title"].tolist(), shas, of_day["summary"].tolist(), strict=True)
        ]
        sha = dict(zip(urls, shas, strict=True))
        rows += [
            {
                "day": day,
                "url": p.url,
                "recorded_at": format_ts(report.as_of),
                "reason": p.reason,
                "cluster_size": "" if p.cluster_size is None else str(p.cluster_size),
                "text_sha256": sha[p.url],
            }
            for p in select_day(day, urls, words, random_n, hot_n)
        ]
    if rows:
        path = layout.oracle_articles(qset)
        added = ledger.append(path, typed(rows, ORACLE_ARTICLES), ORACLE_ARTICLES, layout.relative(path), hub.cache)
        chosen = pd.concat([chosen, added], ignore_index=True)
        report.selected = len(added)
        report.written.append(layout.relative(path))
    return chosen  # every day's: an article left pending on a day now past the window is still made


def _facts(news: pd.DataFrame, urls) -> dict[str, dict[str, str]]:
    """The news ledger's current row of each of ``urls``, as text cells."""
    rows = news[news["url"].isin(list(urls))]
    return {r["url"]: {k: _cell(v) for k, v in r.items()} for r in rows.to_dict("records")}


def _todo(news: pd.DataFrame, articles: pd.DataFrame) -> list[Article]:
    """The selected articles whose questions no maker has made yet (no summary version: a question's
    id is its article's, so a maker configured later never makes an article's questions again);
    ``text`` holds the title until the LLM maker reads the text itself."""
    facts = _facts(news, articles["url"])
    return [
        Article(url, day, f["published_at"], f["title"], f["source"], f["text_sha256"], f["title"])
        for day, url in sorted(zip(articles["day"].astype(str), articles["url"], strict=True))
        if not (f := facts[url])["summarized_by"]
    ]


def _cell(value) -> str:
    return "" if value is None or value is pd.NA or (isinstance(value, float) and value != value) else str(value)


def _llm(layout: Layout, qset: str, model: str, todo: list[Article], endpoint, settings, report: GenerateReport, client, sleep) -> list[Outcome]:
    """The LLM maker over ``todo``, within the day's budget, logging to this month's call log."""
    if not todo:
        return []
    maker = llm_maker.LLMMaker(model, calllog.read_records(layout.oracle_call_files(qset), "key"), report.as_of)
    this_month = layout.oracle_calls(qset, report.as_of)
    usd, tokens = settings.daily_budget_usd or None, settings.daily_budget_tokens or None
    if usd is not None and not endpoint.priced:
        raise ConfigError(
            "[oracle] daily_budget_usd needs the endpoint's prices: set PRESCIENT_LLM_PRICE_IN and "
            "PRESCIENT_LLM_PRICE_OUT (USD per million tokens), or use daily_budget_tokens"
        )
    budget = Budget.of_day(calllog.read_records(this_month, "key"), format_date(report.as_of), usd, tokens)
    size = this_month.stat().st_size if this_month.is_file() else 0
    with session(endpoint, CallOptions(), this_month, budget, client, sleep) as run:
        outcomes = run.map(lambda a: maker.make(run, a), todo)
        report.calls, report.tokens_in, report.tokens_out, report.cost_usd = run.calls, run.tokens_in, run.tokens_out, run.cost_usd
    if this_month.is_file() and this_month.stat().st_size != size:
        report.written.append(layout.relative(this_month))
    return outcomes


def _write(hub: Hub, qset: str, news: pd.DataFrame, todo: list[Article], outcomes: list[Outcome], min_score: int, report: GenerateReport) -> None:
    """generated.csv, then the kept questions, then the summaries (which mark the articles done)."""
    layout, earlier = hub.layout, readers.load_oracle_generated(hub, qset)
    made = dict(zip(earlier["question_id"], earlier["kept"].astype(int), strict=True))  # decided before: a run cut short
    asked = {_plain(t) for t in readers.load_oracle_questions(hub, qset)["text"]}
    stamp, generated, questions, summaries = format_ts(report.as_of), [], [], []
    facts = _facts(news, [a.url for a in todo])
    for article, outcome in zip(todo, outcomes, strict=True):
        report.problems += [p for p in outcome.problems if p.code != "llm-budget-spent" or not report.budget_spent]
        report.budget_spent = report.budget_spent or any(p.code == "llm-budget-spent" for p in outcome.problems)
        if outcome.status == "pending":
            report.pending += 1
            continue
        report.made += 1
        report.no_event += outcome.new_event is False
        for c in outcome.candidates:
            keep = (
                bool(made[c.question_id]) if c.question_id in made else kept(c, min_score) and _plain(c.text) not in asked
            )  # the set asks each question once
            if keep:
                asked.add(_plain(c.text))
            report.kept, report.dropped = report.kept + keep, report.dropped + (not keep)
            if c.question_id not in made:
                generated.append(_generated_row(c, article, stamp, report.maker, keep))
            if keep:
                questions.append(_question_row(c, article, stamp, outcome.category))
        summaries.append(
            {
                **facts[article.url],
                "recorded_at": stamp,
                "summary": outcome.summary,
                "summarized_by": report.maker,
                "new_event": "" if outcome.new_event is None else "1" if outcome.new_event else "0",
            }
        )
    _append(hub, layout.oracle_generated(qset), generated, ORACLE_GENERATED, report)
    if questions:
        new = typed(questions, ORACLE_QUESTIONS)
        _append(hub, layout.oracle_questions(qset), changed_versions(readers.load_oracle_questions(hub, qset), new), ORACLE_QUESTIONS, report)
    _append(hub, layout.news(report.as_of), summaries, NEWS, report)


def _plain(text: str) -> str:
    return " ".join(str(text).casefold().split())


def _append(hub: Hub, path, rows, table, report: GenerateReport) -> None:
    frame = rows if isinstance(rows, pd.DataFrame) else typed(rows, table)
    if len(frame) and len(ledger.append(path, frame, table, hub.layout.relative(path), hub.cache)):
        report.written.append(hub.layout.relative(path))


def _generated_row(c, article: Article, stamp: str, maker: str, keep: bool) -> dict:
    return {
        "question_id": c.question_id,
        "recorded_at": stamp,
        "day": article.day,
        "url": article.url,
        "text_sha256": article.text_sha256,
        "kind": c.kind,
        "maker": maker,
        "kept": "1" if keep else "0",
        **{k: str(v) for k, v in c.scores.items()},
        "total": str(c.total),
        "templates_sha256": template_maker.rules_sha256() if maker == template_maker.NAME else llm_maker.templates_sha256(),
    }


def _question_row(c, article: Article, stamp: str, category: str) -> dict:
    choices = c.choices if c.kind == "mc" else ("True", "False", "", "")
    return {
        "id": c.question_id,
        "recorded_at": stamp,
        "kind": c.kind,
        "text": c.text,
        **dict(zip(("choice_a", "choice_b", "choice_c", "choice_d"), choices, strict=True)),
        "answer": c.answer,
        "resolution_date": article.day,
        "category": category or "Other",
        "url": article.url,
    }
