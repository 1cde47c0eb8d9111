"""The LLM forecaster against a real chat-completions server on 127.0.0.1 (http.server in a thread).

The fake endpoint decides what to answer from a tag in the question text: a clean number, a number
buried in prose, a refusal, a 429 before the answer, or a body that is not JSON.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
import yaml
from _llm_server import FakeLLM, completion, prompt_of

from generator.errors import ConfigError, PartialFailure
from generator.forecasters import llm
from generator.schemas import FORECASTS, QUESTIONS, ROUND_QUESTIONS
from generator.store.csvio import read_table, write_table
from generator.store.files import load_model
from generator.submissions import validate_files
from generator.timeutil import parse_ts

from helpers import run_cli, write_hub

DUE = parse_ts("2026-01-25T00:00:00Z")
BEFORE = parse_ts("2026-01-20T00:00:00Z")
FREEZE = "2026-01-15T00:00:00Z"
MODEL_ID = "prescient.test-model-1-zero-shot"
QUESTIONS_ = [  # (id, kind, resolution dates, tag, freeze value)
    ("sim:good", "binary", [""], "good", 0.4),
    ("sim:buried", "binary", [""], "buried", 0.7),
    ("sim:refuse", "binary", [""], "refuse", 0.2),
    ("sim:flaky", "binary", [""], "flaky", 0.5),
    ("sim:broken", "binary", [""], "broken", 0.9),
    ("sim:series", "dataset", ["2026-02-01", "2026-02-24"], "series", 101.5),
]


class Endpoint:
    """What the fake endpoint answers, from a tag in the question text; and whether 'broken' is fixed yet."""

    def __init__(self):
        self.flaky_calls = 0
        self.broken = True

    def __call__(self, body: dict) -> tuple[int, dict, bytes]:
        tag = prompt_of(body).split("[tag:", 1)[1].split("]", 1)[0]
        if tag == "flaky":
            self.flaky_calls += 1
            if self.flaky_calls == 1:
                return 429, {"Retry-After": "0"}, b'{"error": "slow down"}'
        if tag == "broken" and self.broken:
            return 200, {}, b'{"choices": [ this is not json'
        text = {
            "good": "0.62",
            "buried": "Looking at recent reports, the trend is mildly favourable. I'd put it at about 35%, all told.",
            "refuse": "I'm sorry, but I can't provide predictions about this topic.",
            "flaky": "Probability: 0.8",
            "broken": "0.15",
            "series": "The series has drifted upward.\nProbability: 0.55",
        }[tag]
        return 200, {"Content-Type": "application/json"}, completion(text)


class Server(FakeLLM):
    """The shared local server (tests/_llm_server.py) with this test's endpoint behind it."""

    def __init__(self):
        self.endpoint = Endpoint()
        super().__init__(self.endpoint)

    @property
    def flaky_calls(self) -> int:
        return self.endpoint.flaky_calls

    @property
    def broken(self) -> bool:
        return self.endpoint.broken

    @broken.setter
    def broken(self, value: bool) -> None:
        self.endpoint.broken = value


@pytest.fixture
def server():
    with Server() as state:
        yield state


@pytest.fixture
def hub(tmp_path: Path) -> Path:
    root = write_hub(tmp_path / "hub")
    rows = [
        {
            "question_id": q,
            "resolution_date": d,
            "source": "sim",
            "kind": k,
            "category": "test",
            "due": "2026-01-25T00:00:00Z",
            "freeze_time": FREEZE,
            "freeze_value": v,
            "text": f"Will {q} go up? [tag:{tag}]",
            "url": "",
        }
        for q, k, dates, tag, v in QUESTIONS_
        for d in dates
    ]
    write_table(root / "data/rounds/2026-01-25/questions.csv", pd.DataFrame(rows), ROUND_QUESTIONS)
    bank = [
        {
            "id": q,
            "recorded_at": "2026-01-10T00:00:00Z",
            "source": "sim",
            "kind": k,
            "text": f"Will {q} go up?",
            "background": f"Background of {q}.",
            "resolution_criteria": "Resolves YES if it goes up.",
            "url": "",
            "category": "test",
            "open_time": "",
            "close_time": "",
        }
        for q, k, _, _, _ in QUESTIONS_
    ]
    write_table(root / "data/questions/sim.csv", pd.DataFrame(bank), QUESTIONS)
    return root


def endpoint(server, **prices) -> llm.Endpoint:
    return llm.Endpoint(api_key="sk-test", base_url=server.url, **prices)


def run(hub, server, options=None, **prices):
    options = options or llm.Options(model="test-model-1", concurrency=3, backoff=0.01)
    return llm.run_llm(hub, DUE, BEFORE, endpoint(server, **prices), options, sleep=lambda s: None)


def forecasts(hub: Path, model: str = MODEL_ID) -> dict:
    frame = read_table(hub / f"data/forecasts/2026-01-25/{model}.csv", FORECASTS)
    return {(q, d): p for q, d, p in zip(frame["question_id"], frame["resolution_date"], frame["probability"], strict=True)}


# -- parsing (pure) -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, expected",
    [
        ("0.62", ("ok", 0.62)),
        ("35%", ("ok", 0.35)),
        ("**Probability:** 0.3", ("ok", 0.3)),
        ("Probability (YES): 72 %", ("ok", 0.72)),
        ("Probability: 70", ("ok", 0.7)),
        ("Reasoning first.\nProbability: 0.1\nOn reflection...\nProbability: 0.25", ("ok", 0.25)),
        ("After weighing it all I'd say roughly 35 percent.", ("ok", 0.35)),
        ("The base rate is 12%.\nMy estimate: 0.3", ("ok", 0.3)),
        ("I cannot know the future, but my forecast is 0.2", ("ok", 0.2)),
        ("The base rate is 12% and I lean to 0.3 overall.", ("unparseable", None)),
        ("Probability: 1.5", ("unparseable", None)),
        ("Step 1: think. Step 2: think more.", ("unparseable", None)),
        ("It happened on 2024-03-01.", ("unparseable", None)),
        ("", ("unparseable", None)),
        ("I’m sorry, but I can’t help with that.", ("refused", None)),
        ("As an AI language model I do not make predictions.", ("refused", None)),
    ],
)
def test_parse_answer(text, expected):
    assert llm.parse_answer(text) == expected


def test_read_completion_handles_refusal_fields_and_odd_shapes():
    flagged = {"choices": [{"message": {"content": None, "refusal": "No."}, "finish_reason": "stop"}]}
    assert llm.read_completion(flagged).status == "refused"
    filtered = {"choices": [{"message": {"content": "0.4"}, "finish_reason": "content_filter"}]}
    assert llm.read_completion(filtered).status == "refused"
    assert llm.read_completion({"choices": []}).status == "unparseable"
    assert llm.read_completion(["not", "an", "object"]).status == "unparseable"
    usage = llm.read_completion({"choices": [{"message": {"content": "0.5"}}], "usage": {"prompt_tokens": 7, "completion_tokens": 3}})
    assert (usage.status, usage.probability, usage.tokens_in, usage.tokens_out) == ("ok", 0.5, 7, 3)
    assert llm.cost_usd(usage, llm.Endpoint("k", price_in=2.0, price_out=10.0)) == pytest.approx((7 * 2 + 3 * 10) / 1e6)
    assert llm.cost_usd(usage, llm.Endpoint("k")) is None


# -- prompts ------------------------------------------------------------------------------------


def test_prompts_render_from_template_files_and_show_the_crowd_only_when_asked():
    row = {
        "text": "Will X happen?",
        "kind": "binary",
        "url": "https://example.org/x",
        "background": "Some context.",
        "resolution_criteria": "Resolves YES if X.",
        "due": "2026-01-25T00:00:00Z",
        "resolution_date": "",
        "freeze_time": FREEZE,
        "freeze_value": 0.42,
    }
    plain = llm.render_prompt("zero-shot", llm.prompt_context(row, with_crowd=False))
    crowd = llm.render_prompt("scratchpad", llm.prompt_context(row, with_crowd=True))
    assert "Will X happen?" in plain and "Some context." in plain and "Resolves YES if X." in plain
    assert "0.42" not in plain and "0.42" in crowd and "Probability: X" in crowd
    series = llm.render_prompt(
        "zero-shot", llm.prompt_context({**row, "kind": "dataset", "resolution_date": "2026-02-24", "freeze_value": 101.5}, with_crowd=False)
    )
    assert "2026-02-24" in series and "2026-01-25" in series and "101.5" in series
    assert {p.name for p in llm.PROMPTS.glob("*.j2")} == {"zero-shot.j2", "scratchpad.j2", "_question.j2", "arena.j2"}  # arena: agents.py
    assert llm.template_sha256("zero-shot") != llm.template_sha256("scratchpad")
    with pytest.raises(ConfigError):
        llm.render_prompt("few-shot", llm.prompt_context(row, with_crowd=False))


def test_model_id_and_env():
    assert llm.model_id(llm.Options(model="GPT-4o mini", variant="scratchpad", with_crowd=True, team="acme")) == "acme.gpt-4o-mini-scratchpad-crowd"
    with pytest.raises(ConfigError, match="PRESCIENT_LLM_API_KEY"):
        llm.endpoint_from_env({})
    env = llm.endpoint_from_env({"PRESCIENT_LLM_API_KEY": "k", "PRESCIENT_LLM_BASE_URL": "http://h/v1/", "PRESCIENT_LLM_PRICE_IN": "0.5"})
    assert (env.base_url, env.price_in, env.price_out) == ("http://h/v1", 0.5, None)
    with pytest.raises(ConfigError):
        llm.endpoint_from_env({"PRESCIENT_LLM_API_KEY": "k", "PRESCIENT_LLM_PRICE_OUT": "cheap"})


# -- the runner against a real local server -------------------------------------------------------


def test_run_against_a_local_server(hub, server):
    with pytest.raises(PartialFailure) as caught:  # the malformed body is an endpoint failure
        run(hub, server, price_in=1.0, price_out=2.0)
    report = caught.value.run_report
    assert report.counts == {"ok": 5, "refused": 1, "unparseable": 0, "error": 1}
    assert report.asked == 7 and report.skipped == 0
    assert "sim:broken" in report.errors[0] and "malformed JSON" in report.errors[0]
    assert report.tokens_in == 600 and report.cost_usd == pytest.approx(6 * (100 * 1.0 + 10 * 2.0) / 1e6)
    assert server.flaky_calls == 2  # a 429, then the answer
    assert all(r["_auth"] == "Bearer sk-test" and r["model"] == "test-model-1" for r in server.requests)
    assert forecasts(hub) == {
        ("sim:good", ""): 0.62,
        ("sim:buried", ""): 0.35,
        ("sim:flaky", ""): 0.8,
        ("sim:series", "2026-02-01"): 0.55,
        ("sim:series", "2026-02-24"): 0.55,
    }
    log = llm.read_log(hub / f"data/llm/2026-01-25/{MODEL_ID}.jsonl")
    by_q = {(r["question_id"], r["resolution_date"]): r for r in log}
    assert by_q[("sim:refuse", "")]["status"] == "refused" and by_q[("sim:refuse", "")]["probability"] is None
    assert "can't provide" in by_q[("sim:refuse", "")]["reasoning"]
    assert "about 35%" in by_q[("sim:buried", "")]["reasoning"]
    assert by_q[("sim:broken", "")]["status"] == "error"
    assert {r["template_sha256"] for r in log} == {llm.template_sha256("zero-shot")}
    meta = load_model(hub / f"data/models/{MODEL_ID}.yml")
    assert (meta.kind, meta.prompt_variant, meta.prompt_sha256, meta.saw_crowd) == ("llm", "zero-shot", llm.template_sha256("zero-shot"), False)
    files = [hub / f"data/forecasts/2026-01-25/{MODEL_ID}.csv", hub / f"data/models/{MODEL_ID}.yml"]
    assert validate_files(hub, files, BEFORE, hub_own=True).ok


def test_prompts_carry_the_bank_background_and_no_crowd_value(hub, server):
    with pytest.raises(PartialFailure):
        run(hub, server)
    good = next(r for r in server.requests if "[tag:good]" in r["messages"][0]["content"])["messages"][0]["content"]
    assert "Background of sim:good." in good and "Resolves YES if it goes up." in good and "0.4" not in good


def test_a_rerun_asks_only_what_is_unanswered_and_rewrites_nothing(hub, server):
    with pytest.raises(PartialFailure):
        run(hub, server)
    first = len(server.requests)
    server.broken = False  # the endpoint recovers
    report = run(hub, server)
    assert (report.asked, report.skipped) == (1, 6)  # only the failed call; the refusal is not asked again
    assert len(server.requests) == first + 1
    assert forecasts(hub)[("sim:broken", "")] == 0.15
    csv = hub / f"data/forecasts/2026-01-25/{MODEL_ID}.csv"
    log = hub / f"data/llm/2026-01-25/{MODEL_ID}.jsonl"
    before = csv.read_bytes(), log.read_bytes()
    again = run(hub, server)
    assert again.asked == 0 and len(server.requests) == first + 1
    assert (csv.read_bytes(), log.read_bytes()) == before


def test_a_log_line_cut_short_by_a_crash_is_asked_again(hub, server):
    server.broken = False
    run(hub, server)
    log = hub / f"data/llm/2026-01-25/{MODEL_ID}.jsonl"
    lines = log.read_bytes().splitlines(keepends=True)
    cut = next(i for i, line in enumerate(lines) if b"sim:good" in line)
    log.write_bytes(b"".join(lines[:cut] + lines[cut + 1 :]) + lines[cut][:40])  # the last write was interrupted
    report = run(hub, server)
    assert report.asked == 1 and report.counts["ok"] == 1
    assert forecasts(hub)[("sim:good", "")] == 0.62


def test_crowd_variant_sees_the_freeze_value_and_says_so(hub, server):
    server.broken = False
    options = llm.Options(model="test-model-1", variant="scratchpad", with_crowd=True, backoff=0.01)
    report = run(hub, server, options)
    assert report.model == "prescient.test-model-1-scratchpad-crowd"
    good = next(r for r in server.requests if "[tag:good]" in r["messages"][0]["content"])["messages"][0]["content"]
    assert "put the probability of YES at 0.4" in good
    meta = yaml.safe_load((hub / f"data/models/{report.model}.yml").read_text())
    assert meta["saw_crowd"] is True and meta["prompt_variant"] == "scratchpad"


def test_calls_run_concurrently_up_to_the_limit(hub, server):
    server.broken, server.delay = False, 0.05
    run(hub, server, llm.Options(model="test-model-1", concurrency=2, backoff=0.01))
    assert server.max_in_flight == 2


def test_existing_metadata_keeps_its_maintainers(hub, server):
    server.broken = False
    path = hub / f"data/models/{MODEL_ID}.yml"
    path.parent.mkdir(parents=True)
    path.write_text("name: Mine\norganization: Acme\nkind: llm\nmaintainers: [alice]\n")
    run(hub, server)
    meta = load_model(path)
    assert meta.maintainers == ("alice",) and meta.prompt_variant == "zero-shot"


def test_a_changed_template_is_refused_rather_than_mixed(hub, server, monkeypatch):
    server.broken = False
    run(hub, server)
    monkeypatch.setattr(llm, "template_sha256", lambda variant: "0" * 64)
    with pytest.raises(ConfigError, match="another prompt template"):
        run(hub, server)


def test_refuses_a_closed_or_unknown_round(hub, server):
    options = llm.Options(model="test-model-1")
    with pytest.raises(ConfigError, match="too late"):
        llm.run_llm(hub, DUE, DUE, endpoint(server), options)
    with pytest.raises(ConfigError, match="no round"):
        llm.run_llm(hub, parse_ts("2026-02-08"), BEFORE, endpoint(server), options)
    assert not server.requests
    assert llm.open_dues(hub, BEFORE) == [DUE] and llm.open_dues(hub, DUE) == []


def test_cli(hub, server, monkeypatch):
    monkeypatch.delenv("PRESCIENT_LLM_API_KEY", raising=False)
    off = run_cli("forecast", "llm", "--model", "m", "--hub", str(hub), "--as-of", "2026-01-20T00:00:00Z")
    assert off.returncode == 2 and "PRESCIENT_LLM_API_KEY" in off.stderr
    assert not (hub / "data/llm").exists()
    server.broken = False
    monkeypatch.setenv("PRESCIENT_LLM_API_KEY", "sk-test")
    monkeypatch.setenv("PRESCIENT_LLM_BASE_URL", server.url)
    done = run_cli(
        "forecast",
        "llm",
        "--model",
        "test-model-1",
        "--round",
        "2026-01-25",
        "--hub",
        str(hub),
        "--as-of",
        "2026-01-20T00:00:00Z",
        "--knowledge-cutoff",
        "2025-06-30",
    )
    assert done.returncode == 0, done.stderr
    assert "ok 6, refused 1, unparseable 0, failed 0" in done.stdout
    assert f"wrote data/forecasts/2026-01-25/{MODEL_ID}.csv" in done.stdout
    assert load_model(hub / f"data/models/{MODEL_ID}.yml").knowledge_cutoff == "2025-06-30"
