"""The hub's LLM forecaster: ask any OpenAI-compatible chat-completions endpoint, one call per
question and resolution date, and write an ordinary forecast file.

Pure parts: the prompt (jinja2 templates in ``prompts/``), the answer parser and the reduction of
the run log to a forecast frame. One I/O runner, ``run_llm``, does the calls and the writing.

The run log ``data/llm/<due>/<model>.jsonl`` is append-only, one JSON object per answered unit
(question, resolution date) with its status: ``ok``, ``refused``, ``unparseable`` or ``error``.
It is the resume state: a unit with a final status (anything but ``error``) is never asked again.
The forecast file holds only the ``ok`` rows, so a refusal is never silently turned into a number;
the hub's imputation policy applies to the missing rows, and the run's report counts them.
"""

from __future__ import annotations

import dataclasses
import re
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import pandas as pd

from ..errors import ConfigError, PartialFailure
from ..llm import ANSWERED, CallOptions, Endpoint, Reply, RunReport, Templates, prompt_sha256, request_body, session, settled
from ..llm import endpoint as llm_endpoint
from ..llm.endpoint import looks_like_refusal
from ..models import DEFAULT_OWN, ModelMeta
from ..schemas import FORECASTS
from ..scoring.resolve import latest_questions
from ..store import calllog, readers
from ..store.atomic import write_bytes_atomic
from ..store.csvio import write_table
from ..store.files import load_model
from ..store.hub import Hub
from ..store.layout import Layout
from ..store.lock import hub_lock
from ..submissions import SubmissionInvalid, validate_files
from ..timeutil import format_ts, is_iso_date, parse_ts

PROMPTS = Path(__file__).parent / "prompts"
TEMPLATES = Templates(PROMPTS)
VARIANTS = ("zero-shot", "scratchpad")
FINAL = ANSWERED  # statuses a re-run keeps; "error" units are asked again
MAX_CSV_REASONING = 2000  # characters of reasoning copied into the forecast file (the log keeps all)
_UNIT = ["question_id", "resolution_date"]


# -- configuration -----------------------------------------------------------------------------


def endpoint_from_env(env: Mapping[str, str]) -> Endpoint:
    """Read the PRESCIENT_LLM_* variables; without an API key the forecaster is off (ConfigError)."""
    return llm_endpoint.endpoint_from_env(env, "the LLM forecaster")


@dataclass(frozen=True)
class Options:
    model: str
    variant: str = "zero-shot"
    with_crowd: bool = False
    team: str = DEFAULT_OWN  # the hub's [hub] own_prefix (the CLI passes it)
    concurrency: int = 4
    knowledge_cutoff: str = ""
    retries: int = 3
    backoff: float = 1.0
    timeout: float = 120.0


def check_options(options: Options) -> None:
    if not slug(options.model):
        raise ConfigError("no model: give --model NAME (the endpoint's model name) or set PRESCIENT_LLM_MODEL")
    if not slug(options.team):
        raise ConfigError(f"--team {options.team!r} has no letter or digit")
    if options.variant not in VARIANTS:
        raise ConfigError(f"unknown prompt variant {options.variant!r}; choose one of {', '.join(VARIANTS)}")
    if options.knowledge_cutoff and not is_iso_date(options.knowledge_cutoff):
        raise ConfigError(f"--knowledge-cutoff {options.knowledge_cutoff!r} is not a date written YYYY-MM-DD")
    if options.concurrency < 1:
        raise ConfigError("--concurrency must be at least 1")


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def model_id(options: Options) -> str:
    """``<team>.<slug of model>-<variant>[-crowd]``."""
    return f"{slug(options.team)}.{slug(options.model)}-{options.variant}" + ("-crowd" if options.with_crowd else "")


# -- prompts ------------------------------------------------------------------------------------


def template_sha256(variant: str) -> str:
    """sha256 over the variant's template file and the shared question block it includes."""
    return TEMPLATES.sha256(variant, "_question")


def prompt_context(row: Mapping[str, Any], with_crowd: bool) -> dict:
    """What a template may use about one unit: a round row, plus the bank's background and criteria."""
    freeze = row.get("freeze_value")
    return {
        "text": row["text"],
        "kind": row["kind"],
        "url": row.get("url") or "",
        "background": row.get("background") or "",
        "resolution_criteria": row.get("resolution_criteria") or "",
        "due_date": str(row["due"])[:10],
        "resolution_date": row.get("resolution_date") or "",
        "freeze_date": str(row["freeze_time"])[:10],
        "with_crowd": with_crowd,
        "freeze_value": None if freeze is None or pd.isna(freeze) else f"{float(freeze):.10g}",
    }


def render_prompt(variant: str, context: Mapping[str, Any]) -> str:
    if variant not in VARIANTS:
        raise ConfigError(f"unknown prompt variant {variant!r}; choose one of {', '.join(VARIANTS)}")
    return TEMPLATES.render(variant, context)


# -- answers ------------------------------------------------------------------------------------

_NUM = r"(\d+(?:\.\d+)?|\.\d+)"
_PCT = r"[^\S\n]*(%|percent\b)?"
_TAGGED = re.compile(
    r"(?:probability|forecast|answer)[^\S\n]*(?:\([^)\n]{0,20}\))?[^\S\n]*\**[^\S\n]*(?::|=|\bis\b)"
    r"[^\S\n]*\**[^\S\n]*(?:about|around|roughly|approximately|~)?[^\S\n]*" + _NUM + _PCT,
    re.I,
)
_BARE = re.compile(r"^\**[^\S\n]*" + _NUM + _PCT + r"[^\S\n]*\**\.?$", re.I)
_LOOSE = re.compile(r"(?<![\d.])(\d+(?:\.\d+)?[^\S\n]*(?:%|percent\b)|0?\.\d+|[01]\.0+)(?![\d.]*\d)", re.I)


@dataclass(frozen=True)
class Answer:
    status: str  # ok | refused | unparseable | error
    probability: float | None = None
    reasoning: str = ""
    tokens_in: int | None = None
    tokens_out: int | None = None
    detail: str = ""


def _value(number: str, unit: str | None, tagged: bool) -> float | None:
    value = float(number)
    if unit or (tagged and 1 < value <= 100 and "." not in number):  # "Probability: 70" means 70%
        value /= 100
    return value if 0.0 <= value <= 1.0 else None


def parse_probability(text: str) -> float | None:
    """The probability in an answer, or None when there is none or it is ambiguous.

    In order: the last tagged value ("Probability: 0.3", "my forecast is 30%"); an answer that is
    only a number; the single probability-like number of the last line; the single distinct
    probability-like number (a decimal below 1 or a percentage) of the whole text.
    """
    tagged = _TAGGED.findall(text)
    if tagged:
        number, unit = tagged[-1]  # _TAGGED has two groups: the number and its unit
        return _value(number, unit, tagged=True)
    bare = _BARE.match(text.strip())
    if bare:
        return _value(bare.group(1), bare.group(2), tagged=True)
    lines = [line for line in text.strip().splitlines() if line.strip()]
    for scope in (lines[-1:] if lines else [], [text]):
        values = {_loose(m) for s in scope for m in _LOOSE.findall(s)} - {None}
        if len(values) == 1:
            return values.pop()
    return None


def _loose(token: str) -> float | None:
    number = re.match(r"\d*\.?\d+", token)
    assert number is not None  # every _LOOSE token starts with a number
    return _value(number.group(0), "%" if ("%" in token or "percent" in token.lower()) else None, tagged=False)


def parse_answer(text: str) -> tuple[str, float | None]:
    """(status, probability): ``ok`` with a number, else ``refused`` or ``unparseable``."""
    probability = parse_probability(text)
    if probability is not None:
        return "ok", round(probability, 6)
    return ("refused" if looks_like_refusal(text) else "unparseable"), None


def read_completion(payload: Any) -> Answer:
    """Turn a chat-completions response into an Answer; never raises on odd shapes."""
    return answer_of(llm_endpoint.read_completion(payload))


def answer_of(completion: llm_endpoint.Completion) -> Answer:
    tokens = completion.tokens_in, completion.tokens_out
    if completion.malformed:
        return Answer("unparseable", detail=completion.detail)
    if completion.refused:
        return Answer("refused", None, completion.content, *tokens, detail=completion.detail)
    status, probability = parse_answer(completion.content)
    return Answer(status, probability, completion.content.strip(), *tokens)


def cost_usd(answer: Answer, endpoint: Endpoint) -> float | None:
    return llm_endpoint.cost_usd(answer.tokens_in, answer.tokens_out, endpoint)


# -- the run log --------------------------------------------------------------------------------


def read_log(path: Path) -> list[dict]:
    """The log's records; a line cut short by a crash (not valid JSON) is skipped."""
    return calllog.read_records(path, "question_id")


def final_units(records: list[dict]) -> dict[tuple[str, str], dict]:
    """The record that settled each unit (the first with a final status)."""
    return settled(records, lambda r: (r["question_id"], r.get("resolution_date") or ""), FINAL)  # type: ignore[return-value]


def forecasts_from_log(records: list[dict]) -> pd.DataFrame:
    """The forecast file's frame: one row per unit answered ``ok``."""
    rows = [
        {"question_id": q, "resolution_date": d, "probability": float(r["probability"]), "reasoning": (r.get("reasoning") or "")[:MAX_CSV_REASONING]}
        for (q, d), r in sorted(final_units(records).items())
        if r["status"] == "ok"
    ]
    return pd.DataFrame(rows, columns=list(FORECASTS.names))


# -- the runner ---------------------------------------------------------------------------------


@dataclass(kw_only=True)
class LLMReport(RunReport):
    due: str
    errors: list[str] = field(default_factory=list)
    validation: Any = None


def _units(hub: Hub, due: datetime) -> pd.DataFrame:
    questions = readers.load_round(hub, due)
    bank = readers.load_bank(hub)
    freeze = questions["freeze_time"].max() if len(questions) else ""
    latest = latest_questions(bank[bank["recorded_at"] <= freeze])
    extra = latest.set_index("id")[["background", "resolution_criteria"]]
    return questions.join(extra, on="question_id").fillna({"background": "", "resolution_criteria": ""})


def open_dues(root: Path, as_of: datetime) -> list[datetime]:
    """The due dates (round folders) of every published round still open at ``as_of``."""
    hub = Hub(root)
    return [due for due in readers.round_dues(hub) if parse_ts(readers.load_round(hub, due)["due"].iloc[0]) > as_of]


def describe(report: LLMReport | None) -> list[str]:
    """The run's summary for people: what was asked, how it ended, tokens, cost, files."""
    if report is None:
        return []
    c = report.counts
    cost = f", cost ${report.cost_usd:.4f}" if report.cost_usd is not None else ""
    lines = [
        f"{report.model} round {report.due}: asked {report.asked}, skipped {report.skipped} already answered; "
        f"ok {c['ok']}, refused {c['refused']}, unparseable {c['unparseable']}, failed {c['error']}",
        f"tokens in {report.tokens_in}, out {report.tokens_out}{cost}",
    ]
    if c["refused"] or c["unparseable"]:
        lines.append(
            f"{c['refused'] + c['unparseable']} refused or unparseable answer(s) this run are left out of the "
            "forecast file (scored as missing) and kept in the run log"
        )
    lines += [f"  failed: {e}" for e in report.errors[:20]]
    lines += [f"wrote {p}" for p in report.written] or ["no forecast file written (no question answered yet)"]
    return lines


def check_round(hub: Hub, due: datetime, as_of: datetime) -> None:
    layout = hub.layout
    path = layout.round_questions(due)
    if not path.is_file():
        raise ConfigError(f"{layout.relative(path)}: no round due {due:%Y-%m-%d} has been published")
    due_ts = readers.load_round(hub, due)["due"].iloc[0]
    if as_of >= parse_ts(due_ts):
        raise ConfigError(f"round {due:%Y-%m-%d} was due {due_ts} and it is {format_ts(as_of)}: too late to forecast it")


def _ask(ask: Callable[[dict], Reply], options: Options, row: dict) -> tuple[Answer, str]:
    prompt = render_prompt(options.variant, prompt_context(row, options.with_crowd))
    reply = ask(request_body(options.model, prompt))
    if reply.completion is None:
        return Answer("error", detail=reply.error), prompt
    return answer_of(reply.completion), prompt


def _record(row: dict, answer: Answer, prompt: str, template: str, options: Options, endpoint: Endpoint, as_of) -> dict:
    return {
        "question_id": row["question_id"],
        "resolution_date": row["resolution_date"] or "",
        "status": answer.status,
        "probability": answer.probability,
        "reasoning": answer.reasoning,
        "detail": answer.detail,
        "tokens_in": answer.tokens_in,
        "tokens_out": answer.tokens_out,
        "cost_usd": cost_usd(answer, endpoint),
        "model": options.model,
        "variant": options.variant,
        "with_crowd": options.with_crowd,
        "template_sha256": template,
        "prompt_sha256": prompt_sha256(prompt),
        "recorded_at": format_ts(as_of),
    }


def meta_for(options: Options, template: str) -> ModelMeta:
    crowd = "; it saw the market's probability at the freeze time" if options.with_crowd else ""
    return ModelMeta(
        id=model_id(options),
        name=f"{options.model} ({options.variant}{', crowd' if options.with_crowd else ''})",
        organization=options.team,
        kind="llm",
        knowledge_cutoff=options.knowledge_cutoff,
        method=f"The hub's LLM forecaster: {options.variant} prompt, one call per question and resolution date{crowd}.",
        saw_crowd=options.with_crowd,
        prompt_variant=options.variant,
        prompt_sha256=template,
    )


def run_llm(
    root: Path,
    due: datetime,
    as_of: datetime,
    endpoint: Endpoint,
    options: Options,
    *,
    client: httpx.Client | None = None,
    progress: Callable[[int, int, str], None] | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> LLMReport:
    """Forecast every unanswered unit of the round due at ``due``, then write the forecast file."""
    check_options(options)
    hub, mid = Hub(root), model_id(options)
    layout = hub.layout
    check_round(hub, due, as_of)
    template, log_path = template_sha256(options.variant), layout.llm_log(due, mid)
    report = LLMReport(mid, due=f"{due:%Y-%m-%d}")
    with hub_lock(layout.data, f"prescient forecast llm {mid} --round {due:%Y-%m-%d}"):
        earlier = read_log(log_path)
        _check_template(earlier, template, layout.relative(log_path))
        units = _units(hub, due).to_dict("records")
        done = final_units(earlier)
        pending = [u for u in units if (u["question_id"], u["resolution_date"] or "") not in done]
        report.skipped, report.asked = len(units) - len(pending), len(pending)
        _call_all(pending, endpoint, options, template, as_of, log_path, report, client, progress, sleep)
        _write(layout, due, options, template, read_log(log_path), report)
    return _finish(root, due, as_of, layout, report)


def _check_template(records: list[dict], template: str, label: str) -> None:
    used = {r.get("template_sha256") for r in records if r.get("status") in FINAL} - {template}
    if used:
        raise ConfigError(
            f"{label}: earlier answers used another prompt template ({', '.join(sorted(map(str, used)))[:80]}); "
            "a changed prompt is a new forecaster: run it under another --team or --model name"
        )


def _call_all(pending, endpoint, options, template, as_of, log_path, report, client, progress, sleep) -> None:
    lock = threading.Lock()
    calls = CallOptions(options.concurrency, options.retries, options.backoff, options.timeout)
    with session(endpoint, calls, log_path, client=client, sleep=sleep) as run:

        def one(row: dict) -> None:
            answer, prompt = _ask(run.ask, options, row)
            run.log(_record(row, answer, prompt, template, options, endpoint, as_of))
            with lock:
                _tally(report, answer, endpoint, row)
                if progress is not None:
                    progress(sum(report.counts.values()), len(pending), f"{report.counts['ok']} ok")

        run.map(one, pending)


def _tally(report: LLMReport, answer: Answer, endpoint: Endpoint, row: dict) -> None:
    report.counts[answer.status] += 1
    report.tokens_in += answer.tokens_in or 0
    report.tokens_out += answer.tokens_out or 0
    cost = cost_usd(answer, endpoint)
    if cost is not None:
        report.cost_usd = round((report.cost_usd or 0.0) + cost, 8)
    if answer.status == "error":
        report.errors.append(f"{row['question_id']} {row['resolution_date'] or ''}".strip() + f": {answer.detail}")


def _write(layout: Layout, due: datetime, options: Options, template: str, records: list[dict], report: LLMReport) -> None:
    frame = forecasts_from_log(records)
    if frame.empty:
        return  # nothing answered: a file without rows would fail validation (no-forecasts)
    mid = model_id(options)
    meta, path = meta_for(options, template), layout.model_meta(mid)
    if path.is_file():  # keep who may submit for it
        meta = dataclasses.replace(meta, maintainers=load_model(path, layout.relative(path)).maintainers)
    write_table(layout.forecast(due, mid), frame, FORECASTS)
    write_bytes_atomic(path, meta.to_yaml())
    report.written += [layout.relative(layout.forecast(due, mid)), layout.relative(layout.model_meta(mid))]


def _finish(root: Path, due: datetime, as_of: datetime, layout: Layout, report: LLMReport) -> LLMReport:
    if report.written:
        report.validation = validate_files(root, [root / p for p in report.written], as_of, hub_own=True)
        if not report.validation.ok:
            raise SubmissionInvalid(f"{report.written[0]}: the LLM forecaster's file fails validation", report.validation.errors)
    if report.counts["error"]:
        raise PartialFailure(
            f"{report.counts['error']} of {report.asked} call(s) failed; they are asked again on the next run", run_report=report
        )  # the CLI still prints what was done
    return report
