"""``prescient oracle answer --model NAME``: the hub's own LLM answers an oracle set's questions.

Closed-book (Daily Oracle's main setting) the model sees only the question and its options; in the
constrained open-book setting it also sees the ``retrieval.K`` articles of the hub's news ledger
most similar to the question, published before both its resolution date and ``--cutoff``. One
call per question, from ``prompts/answer.j2``; the answer is one option (Yes/No, or a to d), as in
the paper, written as probability 1 on it. A refusal, or an answer naming no option
(``answer-unparseable``), is written as an empty row: a refusal, scored as wrong.

The run log ``data/oracle/<set>/answers/<model>.jsonl`` is the resume state: a question with a
final answer (``ok``, ``refused``, ``unparseable``) is never asked again; a failed call is, by the
next run. The answers file ``data/oracle/<set>/forecasts/<own>.<model>-<setting>.csv`` is
written from the log, checked as a submitted file would be; its prefix, the hub's ``[hub] own_prefix``
(``prescient`` unless set), is reserved to the hub, so these rows are the oracle board's hub runs,
never self-reported.
"""

from __future__ import annotations

import dataclasses
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import httpx
import pandas as pd

from ..codes import reported
from ..errors import ConfigError, PartialFailure, Problem, SchemaError
from ..forecasters.llm import slug
from ..llm import ANSWERED, CallOptions, Endpoint, Reply, RunReport, Templates, prompt_sha256, request_body, session, settled
from ..llm.endpoint import looks_like_refusal
from ..models import DEFAULT_OWN, ModelMeta
from ..schemas import ORACLE_FORECASTS
from ..store import calllog, files, readers
from ..store.atomic import write_bytes_atomic
from ..store.csvio import to_csv_bytes
from ..store.files import load_model
from ..store.hub import Hub
from ..store.lock import hub_lock
from ..store.newstexts import NewsTexts
from ..submissions.oracle import check_oracle_forecast
from ..timeutil import format_ts, is_iso_date
from .importer import check_set_name, current
from .ledgers import current_news
from .retrieval import K, Retrieved, retrieve

TEMPLATES = Templates(Path(__file__).parent / "prompts")
SETTINGS = ("closed-book", "open-book")
FINAL = ANSWERED
LETTERS = ("A", "B", "C", "D")
_TF = re.compile(r"^\W*(yes|no|true|false)\b", re.I)
_MC = re.compile(r"^\W*(?:answer\W*)?\(?([abcd])\)?(?:\W|$)", re.I)


@dataclass(frozen=True)
class AnswerOptions:
    model: str
    setting: str = "closed-book"
    cutoff: str = ""  # open-book: articles published before this date (YYYY-MM-DD) only
    knowledge_cutoff: str = ""
    concurrency: int = 4
    team: str = DEFAULT_OWN  # the hub's [hub] own_prefix (the CLI and the nightly pass it)


def model_id(options: AnswerOptions) -> str:
    """``<own>.<slug of model>-closed-book``, or ``...-open-book-<cutoff>``."""
    tail = f"-{options.cutoff}" if options.setting == "open-book" else ""
    return f"{options.team}.{slug(options.model)}-{options.setting}{tail}"


def check(options: AnswerOptions) -> None:
    if not slug(options.model):
        raise ConfigError("no model: give --model NAME (the endpoint's model name)")
    if options.setting not in SETTINGS:
        raise ConfigError(f"--setting {options.setting!r}: choose closed-book or open-book")
    if options.setting == "open-book" and not is_iso_date(options.cutoff):
        raise ConfigError("the open-book setting needs --cutoff YYYY-MM-DD: only articles published before it are retrieved")
    if options.knowledge_cutoff and not is_iso_date(options.knowledge_cutoff):
        raise ConfigError(f"--knowledge-cutoff {options.knowledge_cutoff!r} is not a date written YYYY-MM-DD")
    if options.concurrency < 1:
        raise ConfigError("--concurrency must be at least 1")


def parse_choice(text: str, kind: str) -> str | None:
    """The option an answer names (A to D; A = Yes/True, B = No/False), else None."""
    if kind == "tf":
        found = _TF.match(text.strip())
        return None if found is None else "A" if found.group(1).lower() in ("yes", "true") else "B"
    found = _MC.match(text.strip())
    return None if found is None else found.group(1).upper()


def template_sha256() -> str:
    return TEMPLATES.sha256("answer")


@dataclass(kw_only=True)
class AnswerReport(RunReport):
    question_set: str
    problems: list[Problem] = field(default_factory=list)


def answer_set(
    hub: Hub,
    as_of: datetime,
    endpoint: Endpoint,
    options: AnswerOptions,
    qset: str,
    texts: NewsTexts,
    *,
    client: httpx.Client | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> AnswerReport:
    """Answer every question of ``qset`` this model has no final answer to, then write its answers file."""
    check(options)
    check_set_name(qset)
    layout, mid = hub.layout, model_id(options)
    if qset not in layout.oracle_sets():
        raise ConfigError(f"--set {qset!r}: no such oracle set (have: {', '.join(layout.oracle_sets()) or 'none'})")
    report, log = AnswerReport(mid, question_set=qset), layout.oracle_answer_log(qset, mid)
    with hub_lock(layout.data, f"prescient oracle answer --model {options.model} --set {qset}"):
        earlier = calllog.read_records(log, "question_id")
        _check_template(earlier, layout.relative(log))
        questions = current(readers.load_oracle_questions(hub, qset), format_ts(as_of))
        done = settled(earlier, lambda r: r["question_id"], FINAL)
        todo = questions[~questions["id"].isin(list(done))].sort_values("id", kind="mergesort")
        report.asked, report.skipped = len(todo), len(questions) - len(todo)
        found = _articles(hub, todo, options, texts)
        calls = CallOptions(concurrency=options.concurrency)
        with session(endpoint, calls, log, client=client, sleep=sleep) as run:
            run.map(lambda q: _one(run, q, found.get(q["id"], []), options, as_of, report), todo.to_dict("records"))
            report.tokens_in, report.tokens_out, report.cost_usd = run.tokens_in, run.tokens_out, run.cost_usd
        _write(hub, qset, mid, options, calllog.read_records(log, "question_id"), questions, report)
    if report.counts["error"]:
        raise PartialFailure(
            f"{report.counts['error']} of {report.asked} call(s) failed; they are asked again on the next run", report.problems, run_report=report
        )
    return report


def _check_template(records: list[dict], label: str) -> None:
    used = {r.get("template_sha256") for r in records if r.get("status") in FINAL} - {template_sha256()}
    if used:
        raise ConfigError(
            f"{label}: earlier answers used another prompt template; a changed prompt is a new answerer: run it under another --model name"
        )


def _articles(hub: Hub, todo: pd.DataFrame, options: AnswerOptions, texts: NewsTexts) -> dict[str, list[Retrieved]]:
    if options.setting != "open-book" or todo.empty:
        return {}
    news = current_news(readers.load_news(hub))
    return retrieve(todo, news, lambda row: texts.get(row.text_sha256) or row.summary or "", options.cutoff)


def _one(run, question: dict, articles: list[Retrieved], options: AnswerOptions, as_of: datetime, report: AnswerReport) -> None:
    choices = [question[f"choice_{x}"] or "" for x in "abcd"]
    bound = min(str(question["resolution_date"]), options.cutoff) if options.setting == "open-book" else ""
    prompt = TEMPLATES.render(
        "answer", {"text": question["text"], "kind": question["kind"], "choices": choices, "articles": articles, "bound": bound}
    )
    reply: Reply = run.ask(request_body(options.model, prompt))
    status, choice, content, detail = _read(reply, question["kind"])
    run.log(
        {
            "question_id": question["id"],
            "status": status,
            "choice": choice,
            "content": content,
            "detail": detail,
            "tokens_in": reply.tokens[0],
            "tokens_out": reply.tokens[1],
            "cost_usd": reply.cost_usd,
            "model": options.model,
            "setting": options.setting,
            "cutoff": options.cutoff,
            "articles": len(articles),
            "template_sha256": template_sha256(),
            "prompt_sha256": prompt_sha256(prompt),
            "recorded_at": format_ts(as_of),
        }
    )
    with run.lock:
        report.counts[status] += 1
        if status == "error":
            report.problems.append(reported("llm-call-failed", question["id"], None, None, detail))
        elif status == "unparseable":
            report.problems.append(reported("answer-unparseable", question["id"], None, None, f"the answer names no option: {content[:80]!r}"))


def _read(reply: Reply, kind: str) -> tuple[str, str | None, str, str]:
    """(status, option, answer text, detail) of one reply."""
    c = reply.completion
    if c is None:
        return "error", None, "", reply.error
    if c.malformed:
        return "unparseable", None, "", c.detail
    choice = None if c.refused else parse_choice(c.content, kind)
    if choice is not None:
        return "ok", choice, c.content, ""
    return ("refused" if c.refused or looks_like_refusal(c.content) else "unparseable"), None, c.content, c.detail


def answers_frame(records: list[dict], questions: pd.DataFrame) -> pd.DataFrame:
    """The answers file: one row per question with a final answer; probability 1 on the option named
    (the others of the question 0), every probability empty for a refusal or an unparseable answer."""
    kinds = dict(zip(questions["id"], questions["kind"], strict=True))
    rows = []
    for qid, record in sorted(settled(records, lambda r: r["question_id"], FINAL).items()):
        if qid not in kinds:
            continue
        offered = LETTERS[:2] if kinds[qid] == "tf" else LETTERS
        choice = record.get("choice") if record["status"] == "ok" else None
        probs = [(1.0 if x == choice else 0.0) if choice in offered and x in offered else float("nan") for x in LETTERS]
        rows.append([qid, *probs, "" if choice else record["status"]])
    return pd.DataFrame(rows, columns=list(ORACLE_FORECASTS.names))


def meta_for(mid: str, options: AnswerOptions) -> ModelMeta:
    setting = (
        "closed-book: the question and its options only"
        if options.setting == "closed-book"
        else f"constrained open-book: with the {K} most similar articles of the hub's news ledger published before "
        f"the question's resolution date and {options.cutoff}"
    )
    return ModelMeta(
        id=mid,
        name=f"{options.model} ({options.setting})",
        organization=options.team,
        kind="llm",
        knowledge_cutoff=options.knowledge_cutoff,
        method=f"The hub's own run on its oracle sets, {setting}; one call per question, one option named.",
        prompt_variant=options.setting,
        prompt_sha256=template_sha256(),
    )


def _write(hub: Hub, qset: str, mid: str, options: AnswerOptions, records: list[dict], questions: pd.DataFrame, report: AnswerReport) -> None:
    layout = hub.layout
    frame = answers_frame(records, questions)
    if frame.empty:
        return
    path, questions_path = layout.oracle_forecast(qset, mid), layout.oracle_questions(qset)
    data = to_csv_bytes(frame, ORACLE_FORECASTS)
    errors = [
        p
        for p in check_oracle_forecast(data, layout.relative(path), files.read_bytes(questions_path), layout.relative(questions_path))
        if p.severity == "error"
    ]
    if errors:
        raise SchemaError(f"{layout.relative(path)}: the hub's answers file fails validation", errors)
    meta, meta_path = meta_for(mid, options), layout.model_meta(mid)
    if meta_path.is_file():  # keep a knowledge cutoff given before, when none is given now
        old = load_model(meta_path, layout.relative(meta_path))
        meta = dataclasses.replace(meta, knowledge_cutoff=meta.knowledge_cutoff or old.knowledge_cutoff)
    if write_bytes_atomic(path, data):
        report.written.append(layout.relative(path))
    if write_bytes_atomic(meta_path, meta.to_yaml()):
        report.written.append(layout.relative(meta_path))
