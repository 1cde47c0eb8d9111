"""The ``[oracle]`` stage of a nightly run: news intake, then the window's questions, then the hub's
own answers (``[oracle] answer_models``, closed-book). Off without the table.

Each step runs on its own: a feed or an article that fails is reported with its code and the
others go on (``news``); the question maker needs the LLM endpoint unless it is the demo's
``template`` maker, and without ``PRESCIENT_LLM_API_KEY`` the LLM steps are skipped with a note,
as sources without their keys are. Errors are collected as problems; the nightly then ends with
PartialFailure (exit 6) after writing everything else.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime

import httpx

from ..errors import ConfigError, PartialFailure
from ..llm import Endpoint, NightStage, endpoint_from_env
from ..sources.addresses import allowed_from
from ..sources.sim import SimWorld
from ..store.hub import Hub
from ..store.newstexts import NewsTexts
from .answer import AnswerOptions, AnswerReport, answer_set
from .generate import GenerateReport, generate
from .ledgers import oracle_settings
from .news import NewsReport, fetch_news
from .template_maker import NAME as TEMPLATE


@dataclass
class OracleNight(NightStage):
    news: NewsReport | None = None
    generated: GenerateReport | None = None
    answers: list[AnswerReport] = field(default_factory=list)


def oracle_night(
    hub: Hub,
    as_of: datetime,
    env: Mapping[str, str],
    texts: NewsTexts,
    *,
    client: httpx.Client | None = None,
    world: SimWorld | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> OracleNight:
    settings = oracle_settings(hub.settings)
    night = OracleNight()
    night.news = fetch_news(hub, as_of, texts, client=client, world=world, sleep=sleep, allow=allowed_from(env))
    night.problems += night.news.problems
    endpoint = _endpoint(env, night) if settings.maker != TEMPLATE or settings.answer_models else None
    if settings.maker == TEMPLATE or endpoint is not None:
        model = settings.model or env.get("PRESCIENT_LLM_MODEL", "")
        try:
            night.generated = generate(hub, as_of, texts, endpoint=endpoint, model=model, world=world, sleep=sleep)
            night.problems += night.generated.problems
        except ConfigError as exc:  # no model named: the maker is off tonight
            night.notes.append(f"question maker skipped: {exc}")
    if endpoint is not None and settings.question_set in hub.layout.oracle_sets():  # a set with questions kept
        for name in settings.answer_models:
            _answer(hub, as_of, endpoint, AnswerOptions(name, team=hub.settings.own_prefix), settings.question_set, texts, sleep, night)
    return night


def _answer(
    hub: Hub,
    as_of: datetime,
    endpoint: Endpoint,
    options: AnswerOptions,
    qset: str,
    texts: NewsTexts,
    sleep: Callable[[float], None],
    night: OracleNight,
) -> None:
    try:
        night.answers.append(answer_set(hub, as_of, endpoint, options, qset, texts, sleep=sleep))
    except PartialFailure as exc:  # some calls failed: what was answered is written; the next night asks again
        if isinstance(exc.run_report, AnswerReport):
            night.answers.append(exc.run_report)
        night.problems += exc.problems


def _endpoint(env: Mapping[str, str], night: OracleNight) -> Endpoint | None:
    try:
        return endpoint_from_env(env, "the oracle's LLM steps")
    except ConfigError as exc:
        night.notes.append(str(exc))
        return None
