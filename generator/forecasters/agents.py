"""``prescient forecast llm --bets``: the hub's LLM agents trade in the Arena, one call per agent and
open round, and the nightly runs them (``[arena] agent_models``) within a per-night budget.

``run_agent`` asks the endpoint (``generator.llm``: the same client, retries, budget and call log as
the forecaster) what to buy or sell in the round due at ``due`` (``agent_decisions``), then writes
``data/bets/<due>/<team>.<model>-arena.csv`` from its run log ``data/llm/<due>/<team>.<model>-arena.jsonl``
and checks it with ``validate_files`` as a pull request's file. The log is the resume state: a round
with a final answer (``ok``, ``refused``, ``unparseable``) is never asked again; a failed call is, by
the next run. The bets are placed at the run's time, and the run records the file in the manifest at
that time: the hub attests its bytes then, so it is priced at the prices the agent was shown.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import httpx
import pandas as pd

from ..arena.bets import side_price
from ..arena.cohorts import Books
from ..arena.gather import books_for
from ..codes import reported
from ..config import ArenaSettings
from ..errors import ConfigError, PartialFailure, PrescientError, Problem
from ..llm import ANSWERED, Budget, CallOptions, Endpoint, NightStage, RunReport, Templates, prompt_sha256, request_body, session, settled
from ..llm.endpoint import endpoint_from_env, looks_like_refusal
from ..models import DEFAULT_OWN, ModelMeta
from ..schemas import BETS
from ..scoring.resolve import known_by, values_at
from ..store import calllog, manifest, readers
from ..store.csvio import to_csv_bytes, write_bytes_atomic
from ..store.files import load_model
from ..store.hub import Hub
from ..store.layout import Layout
from ..store.lock import hub_lock
from ..submissions import SubmissionInvalid, validate_files
from ..submissions.content import published_round
from ..timeutil import format_date, format_ts, parse_ts
from ..vocabulary import MARKET
from . import agent_decisions as ad
from .llm import check_round, open_dues, slug

TEMPLATES = Templates(Path(__file__).parent / "prompts")
TEMPLATE = "arena"


@dataclass(frozen=True)
class AgentOptions:
    model: str
    team: str = DEFAULT_OWN  # the hub's [hub] own_prefix (the nightly and the CLI pass it)
    knowledge_cutoff: str = ""
    retries: int = 3
    timeout: float = 120.0


def agent_id(options: AgentOptions) -> str:
    """``<team>.<slug of model>-arena``."""
    return f"{slug(options.team)}.{slug(options.model)}-arena"


@dataclass(kw_only=True)
class AgentReport(RunReport):
    due: str
    bets: int = 0
    problems: list[Problem] = field(default_factory=list)


def template_sha256() -> str:
    return TEMPLATES.sha256(TEMPLATE)


def run_agent(
    root: Path,
    due: datetime,
    as_of: datetime,
    endpoint: Endpoint,
    options: AgentOptions,
    *,
    budget: Budget | None = None,
    client: httpx.Client | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> AgentReport:
    """Ask the agent about the round due at ``due`` unless its log settled it, then write its bet file."""
    if not slug(options.model) or not slug(options.team):
        raise ConfigError("no model: give --model NAME (the endpoint's model name) or set PRESCIENT_LLM_MODEL")
    hub, mid, stamp = Hub(root), agent_id(options), format_ts(as_of)
    layout = hub.layout
    check_round(hub, due, as_of)
    report, log = AgentReport(mid, due=format_date(due)), layout.llm_log(due, mid)
    with hub_lock(layout.data, f"prescient forecast llm --bets --model {options.model} --round {format_date(due)}"):
        readers.check_as_of(hub, stamp)
        earlier = calllog.read_records(log, "round")
        used = {r.get("template_sha256") for r in earlier if r.get("status") in ANSWERED} - {template_sha256()}
        if used:
            raise ConfigError(
                f"{layout.relative(log)}: earlier answers used another prompt; a changed prompt is a new "
                "agent: run it under another --team or --model name"
            )
        record = settled(earlier, lambda r: r["round"], ANSWERED).get(report.due)
        if record is None:
            report.asked = 1
            record = _ask(hub, due, as_of, endpoint, options, budget, client, sleep, report)
        else:
            report.skipped = 1
        if record is not None and record["status"] == "ok":
            _write(layout, due, as_of, options, record, report)
    if report.counts["error"]:
        raise PartialFailure(f"{mid}: the call for round {report.due} failed; it is asked again on the next run", report.problems, run_report=report)
    return report


def _ask(
    hub: Hub, due: datetime, as_of: datetime, endpoint: Endpoint, options: AgentOptions, budget: Budget | None, client, sleep, report: AgentReport
) -> dict | None:
    """One call; its record is logged (unless the budget stopped it) and returned when final."""
    layout = hub.layout
    stamp, log = format_ts(as_of), layout.llm_log(due, agent_id(options))
    books, positions, markets, rnd = _situation(hub, due, as_of, agent_id(options))
    prompt = TEMPLATES.render(TEMPLATE, ad.prompt_context(format_ts(due), stamp, books, positions, markets))
    with session(endpoint, CallOptions(1, options.retries, 1.0, options.timeout), log, budget, client, sleep) as run:
        reply = run.ask(request_body(options.model, prompt))
        if reply.skipped:
            report.problems.append(
                reported("agent-budget-spent", layout.relative(log), None, None, f"{reply.error}: round {report.due} waits for the next night")
            )
            return None
        record = {
            "round": report.due,
            "placed_at": stamp,
            "cash": books.cash,
            "markets": len(markets),
            "model": options.model,
            "template_sha256": template_sha256(),
            "prompt_sha256": prompt_sha256(prompt),
            "tokens_in": reply.tokens[0],
            "tokens_out": reply.tokens[1],
            "cost_usd": reply.cost_usd,
            "recorded_at": stamp,
            **_judged(reply, books, rnd, stamp, layout.relative(layout.bets(due, agent_id(options)))),
        }
        run.log(record)
        report.tokens_in, report.tokens_out, report.cost_usd = run.tokens_in, run.tokens_out, run.cost_usd
    report.counts[record["status"]] += 1
    report.problems += _problems(record, layout.relative(log))
    return record if record["status"] in ANSWERED else None


def _judged(reply, books: Books, rnd, stamp: str, label: str) -> dict:
    """status, the answer's text, detail and the judged decisions of one reply."""
    c = reply.completion
    if c is None:
        return {"status": "error", "content": "", "detail": reply.error, "decisions": []}
    if c.malformed or c.refused:
        return {"status": "unparseable" if c.malformed else "refused", "content": c.content, "detail": c.detail, "decisions": []}
    raw = ad.decisions_of(c.content)
    if raw is None:
        status = "refused" if looks_like_refusal(c.content) else "unparseable"
        return {"status": status, "content": c.content, "detail": "the answer is not the JSON decisions asked for", "decisions": []}
    decisions, _ = ad.judge(raw, books, rnd, stamp, label)
    return {"status": "ok", "content": c.content, "detail": "", "decisions": ad.as_records(decisions)}


def _problems(record: dict, log: str) -> list[Problem]:
    status, text = record["status"], str(record.get("content") or "")[:80]
    if status == "error":
        return [reported("llm-call-failed", log, None, None, f"round {record['round']}: {record['detail']}")]
    if status in ("refused", "unparseable"):
        code = "agent-refused" if status == "refused" else "agent-answer-unparseable"
        return [reported(code, log, None, None, f"round {record['round']}: {record['detail'] or status}: {text!r}")]
    return [
        reported(
            "agent-decision-refused",
            log,
            d["number"],
            d["column"] or None,
            f"decision {d['number']} on {d['market'] or '?'!r}: [{d['status']}] {d['detail']}",
        )
        for d in record["decisions"]
        if d["status"] not in (ad.BET, ad.HOLD)
    ]


def _situation(hub: Hub, due: datetime, as_of: datetime, mid: str) -> tuple[Books, list[dict], list[dict], object]:
    """What the agent is shown: its books, its open positions marked at ``as_of``, the round's open markets."""
    stamp, layout = format_ts(as_of), hub.layout
    books, held = books_for(hub.root, as_of, due, mid)
    questions = readers.load_round(hub, due)
    markets = questions[questions["kind"] == MARKET].drop_duplicates("question_id")
    obs = readers.load_observations(hub)
    ids = set(markets["question_id"]) | set(held["question_id"])
    known = known_by(obs[obs["question_id"].isin(ids)], stamp)
    latest = known.drop_duplicates("question_id", keep="last").set_index("question_id")["status"]
    markets = markets[markets["question_id"].map(latest).fillna("open") == "open"]
    yes_now = values_at(known, markets["question_id"], stamp).fillna(markets["freeze_value"].astype(float))
    shown = [
        {"question_id": q, "text": t, "yes_price": ad.price(p)}
        for q, t, p in sorted(zip(markets["question_id"], markets["text"], yes_now, strict=True))
    ]
    rnd = published_round(layout, due)
    return books, _positions(hub, books, held, known, stamp), shown, rnd


def _positions(hub: Hub, books: Books, held: pd.DataFrame, known: pd.DataFrame, stamp: str) -> list[dict]:
    rows = held[(held["status"] != "sold") & (held["shares"] > 0)] if len(held) else held
    texts: dict[str, str] = {}
    for label in sorted(set(rows["round"])) if len(rows) else []:
        frame = readers.load_round(hub, parse_ts(label))
        texts.update(zip(frame["question_id"], frame["text"], strict=True))
    out = []
    for (qid, side), stake in sorted(books.held.items()):
        lots = rows[(rows["question_id"] == qid) & (rows["side"] == side)] if len(rows) else rows
        yes = values_at(known, pd.Series([qid]), stamp).iloc[0]
        yes = float(lots["yes_price"].iloc[-1]) if yes != yes and len(lots) else yes
        shares = float(lots["shares"].sum()) if len(lots) else 0.0
        out.append(
            {
                "question_id": qid,
                "side": side,
                "stake": ad.money(stake),
                "shares": f"{shares:,.2f}",
                "value": ad.money(shares * side_price(side, yes)) if yes == yes else "?",
                "yes_price": ad.price(yes) if yes == yes else "unknown",
                "text": texts.get(qid, ""),
            }
        )
    return out


def meta_for(options: AgentOptions) -> ModelMeta:
    return ModelMeta(
        id=agent_id(options),
        name=f"{options.model} (Arena agent)",
        organization=options.team,
        kind="llm",
        knowledge_cutoff=options.knowledge_cutoff,
        method="The hub's LLM agent in the Arena: once per round it sees its cash, its positions and the "
        "round's markets at their current prices, and buys, sells or holds; its bets are checked "
        "as a submitted bet file.",
        prompt_variant=TEMPLATE,
        prompt_sha256=template_sha256(),
    )


def _write(layout: Layout, due: datetime, as_of: datetime, options: AgentOptions, record: dict, report: AgentReport) -> None:
    """The bet file and model metadata from the settled record, checked as a pull request's, then recorded."""
    frame = ad.rows_of(record)
    report.bets = len(frame)
    if frame.empty:
        return  # held everything: no file (a file without rows fails validation)
    mid = agent_id(options)
    path, meta_path = layout.bets(due, mid), layout.model_meta(mid)
    meta = meta_for(options)
    if meta_path.is_file():
        old = load_model(meta_path, layout.relative(meta_path))
        meta = dataclasses.replace(meta, maintainers=old.maintainers, knowledge_cutoff=meta.knowledge_cutoff or old.knowledge_cutoff)
    if write_bytes_atomic(path, to_csv_bytes(frame, BETS)):
        report.written.append(layout.relative(path))
    if write_bytes_atomic(meta_path, meta.to_yaml()):
        report.written.append(layout.relative(meta_path))
    checked = validate_files(layout.root, [path, meta_path], as_of, hub_own=True)
    if not checked.ok:
        raise SubmissionInvalid(f"{layout.relative(path)}: the agent's bet file fails validation", checked.errors)
    report.written += manifest.record(Hub(layout.root), as_of)  # the hub attests the bytes now: the bets are priced now


# -- the nightly's part --------------------------------------------------------------------------


@dataclass
class AgentsNight(NightStage):
    reports: list[AgentReport] = field(default_factory=list)


def agents_night(
    root: Path,
    settings: ArenaSettings,
    as_of: datetime,
    env: Mapping[str, str],
    *,
    client: httpx.Client | None = None,
    sleep: Callable[[float], None] = time.sleep,
    own: str = DEFAULT_OWN,
) -> AgentsNight:
    """Every ``agent_models`` agent on every round open at ``as_of``, within the night's budget (what the
    agents' logs recorded on the same UTC day counts against it); each is ``<own>.<model>-arena``, ``own``
    the hub's ``[hub] own_prefix``."""
    night = AgentsNight()
    try:
        endpoint = endpoint_from_env(env, "the Arena agents")
    except ConfigError as exc:
        night.notes.append(str(exc))
        return night
    layout, dues = Layout(root), open_dues(root, as_of)
    logs = [layout.llm_log(d, agent_id(AgentOptions(m, own))) for d in dues for m in settings.agent_models]
    budget = Budget.of_day(
        calllog.read_records(logs, "round"), format_date(as_of), settings.nightly_budget_usd or None, settings.nightly_budget_tokens or None
    )
    for due in dues:
        for model in settings.agent_models:
            try:
                report = run_agent(root, due, as_of, endpoint, AgentOptions(model, own), budget=budget, client=client, sleep=sleep)
            except PartialFailure as exc:  # the call failed: logged, asked again the next night
                night.reports += [exc.run_report] if isinstance(exc.run_report, AgentReport) else []
                night.problems += exc.problems
                continue
            except PrescientError as exc:  # this agent and round only: the others run
                night.problems.append(
                    reported("agent-failed", layout.relative(layout.llm_log(due, agent_id(AgentOptions(model, own)))), None, None, str(exc))
                )
                continue
            night.reports.append(report)
            night.problems += report.problems
    return night


def describe(report: AgentReport | None) -> list[str]:
    """One agent's run on one round, for people."""
    if report is None:
        return []
    c = report.counts
    cost = f", cost ${report.cost_usd:.4f}" if report.cost_usd is not None else ""
    head = (
        f"{report.model} round {report.due}: "
        + ("asked" if report.asked else "answered before (asked nothing)")
        + f"; {report.bets} bet(s) in the file; ok {c['ok']}, refused {c['refused']}, unparseable {c['unparseable']}, "
        f"failed {c['error']}; tokens in {report.tokens_in}, out {report.tokens_out}{cost}"
    )
    lines = [head] + [f"  {p.code}: {p.message}" for p in report.problems[:20]]
    return lines + [f"wrote {p}" for p in report.written]
