"""The hub's Arena agents, end to end: the real ``prescient`` executable runs three nights of a hub
whose two rounds make one cohort (``[arena] cohort_rounds = 2``), with two agents on a local
OpenAI-compatible server on 127.0.0.1 answering from recorded responses
(tests/data/llm/arena-recorded.json): decisions -> bet file -> validation -> seal -> P/L and the
implied-confidence Brier, checked against a hand computation from Forecaster Arena's formulas."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import httpx
import pandas as pd
import pytest
from _llm_server import FakeLLM, Recorded, completion

from generator.arena.cohorts import Books
from generator.arena.gather import load_cohorts
from generator.arena.portfolio import bet_brier
from generator.config import ArenaSettings
from generator.forecasters import agent_decisions as ad
from generator.forecasters.agents import agents_night
from generator.schemas import OBSERVATIONS, ROUND_QUESTIONS
from generator.store import calllog, readers, seals
from generator.store.csvio import write_table
from generator.store.hub import Hub
from generator.submissions.content import RoundSet
from generator.timeutil import parse_ts

from helpers import DATA, PRESCIENT, tree_bytes, write_hub

pytestmark = pytest.mark.e2e

RECORDED = DATA / "llm" / "arena-recorded.json"
AGENT, MUTE = "prescient.trader-1-arena", "prescient.trader-2-arena"
NIGHTS = ("2026-01-20T00:00:00Z", "2026-01-30T00:00:00Z", "2026-02-13T00:00:00Z")
HUB = """\
[hub]
title = "Arena agents test hub"

[rounds]
first_due = "2026-01-25T00:00:00Z"
cadence_days = 14
open_days_before_due = 10

[arena]
cohort_rounds = 2
agent_models = ["trader-1", "trader-2"]
nightly_budget_tokens = 100000
"""
ROUNDS = {
    "2026-01-25": [("sim:m1", "binary", 0.40), ("sim:m2", "binary", 0.20), ("sim:m3", "binary", 0.50), ("sim:s1", "dataset", 10.0)],
    "2026-02-08": [("sim:m4", "binary", 0.60), ("sim:m5", "binary", 0.30)],
}
# what each night's fetch would have recorded before it: (question, time, value, status, outcome)
OBSERVED = {
    NIGHTS[0]: [
        ("sim:m1", "2026-01-15T00:00:00Z", 0.40, "open", None),
        ("sim:m2", "2026-01-15T00:00:00Z", 0.20, "open", None),
        ("sim:m3", "2026-01-15T00:00:00Z", 0.50, "open", None),
    ],
    NIGHTS[1]: [
        ("sim:m2", "2026-01-27T00:00:00Z", 0.0, "resolved", 0.0),
        ("sim:m1", "2026-01-28T00:00:00Z", 0.50, "open", None),
        ("sim:m4", "2026-01-29T00:00:00Z", 0.60, "open", None),
        ("sim:m5", "2026-01-29T00:00:00Z", 0.30, "open", None),
    ],
    NIGHTS[2]: [
        ("sim:m1", "2026-02-10T00:00:00Z", 1.0, "resolved", 1.0),
        ("sim:m4", "2026-02-12T00:00:00Z", 1.0, "resolved", 1.0),
        ("sim:m5", "2026-02-12T00:00:00Z", 0.0, "resolved", 0.0),
    ],
}


def _hub(root: Path) -> Path:
    write_hub(root, HUB)
    _publish(root, "2026-01-25")
    return root


def _publish(root: Path, due: str) -> None:
    """A round as ``prescient round open`` publishes it at its freeze time (10 days before its due time)."""
    freeze = (parse_ts(due) - pd.Timedelta(days=10)).strftime("%Y-%m-%dT%H:%M:%SZ")
    frame = pd.DataFrame(
        [
            {
                "question_id": q,
                "resolution_date": "2026-03-01" if k == "dataset" else "",
                "source": "sim",
                "kind": k,
                "category": "",
                "due": f"{due}T00:00:00Z",
                "freeze_time": freeze,
                "freeze_value": v,
                "text": f"Will {q} resolve YES?",
                "url": "",
            }
            for q, k, v in ROUNDS[due]
        ]
    )
    write_table(root / f"data/rounds/{due}/questions.csv", frame, ROUND_QUESTIONS)


def _observe(root: Path, night: str) -> None:
    rows = [r for n in NIGHTS if n <= night for r in OBSERVED[n]]
    frame = pd.DataFrame(
        [
            {"question_id": q, "observed_at": t, "recorded_at": t, "value": v, "status": s, "outcome": o, "payload_sha256": ""}
            for q, t, v, s, o in rows
        ]
    )
    for month, part in frame.groupby(frame["observed_at"].str[:7]):
        write_table(root / f"data/observations/sim/{month}.csv", part.sort_values(["question_id", "observed_at"]), OBSERVATIONS)


def _run(hub: Path, llm: FakeLLM, cache: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PRESCIENT_LLM_API_KEY": "sk-test", "PRESCIENT_LLM_BASE_URL": llm.url, "PRESCIENT_CACHE_DIR": str(cache)}
    env.pop("PRESCIENT_LLM_MODEL", None)
    return subprocess.run([PRESCIENT, *args, "--hub", str(hub)], capture_output=True, text=True, env=env, timeout=300)


@pytest.fixture
def llm():
    with FakeLLM(Recorded(RECORDED)) as server:
        yield server


def test_two_rounds_of_a_cohort_end_to_end_match_the_hand_computation(tmp_path: Path, llm: FakeLLM):
    hub, cache = _hub(tmp_path / "hub"), tmp_path / "cache"
    _observe(hub, NIGHTS[0])
    night = _run(hub, llm, cache, "nightly", "--as-of", NIGHTS[0])
    assert night.returncode == 0, night.stdout + night.stderr
    assert "arena: prescient.trader-1-arena round 2026-01-25: asked; 2 bet(s) in the file" in night.stdout
    bets = (hub / f"data/bets/2026-01-25/{AGENT}.csv").read_text()
    assert bets.splitlines() == [
        "question_id,placed_at,action,side,amount,reasoning",
        "sim:m1,2026-01-20T00:00:00Z,buy,YES,1500,Cheap at 0.40.",
        "sim:m2,2026-01-20T00:00:00Z,buy,NO,2000,The market overrates YES at 0.20.",
    ]
    # every refusal is logged with its status and code; none becomes a bet; the prose answer makes no file
    log = calllog.read_records(hub / f"data/llm/2026-01-25/{AGENT}.jsonl", "round")
    assert [(d["market"], d["status"], d["column"]) for d in log[0]["decisions"]] == [
        ("sim:m2", "bet", ""),
        ("sim:m1", "bet", ""),
        ("sim:m3", "bet-over-limit", "amount"),
        ("sim:m3", "malformed", "action"),
        ("sim:s1", "bet-not-market", "question_id"),
        ("sim:m3", "hold", ""),
    ]
    assert "agent-decision-refused: decision 3 on 'sim:m3': [bet-over-limit]" in night.stdout
    mute = calllog.read_records(hub / f"data/llm/2026-01-25/{MUTE}.jsonl", "round")
    assert [r["status"] for r in mute] == ["unparseable"] and not (hub / f"data/bets/2026-01-25/{MUTE}.csv").exists()
    assert "agent-answer-unparseable" in night.stdout
    assert len(llm.requests) == 2

    # a rerun asks nothing twice and changes no byte
    before = tree_bytes(hub)
    again = _run(hub, llm, cache, "forecast", "llm", "--bets", "--model", "trader-1", "--as-of", NIGHTS[0])
    assert again.returncode == 0, again.stdout + again.stderr
    assert "answered before (asked nothing)" in again.stdout and len(llm.requests) == 2
    assert tree_bytes(hub) == before

    _observe(hub, NIGHTS[1])
    _publish(hub, "2026-02-08")
    night = _run(hub, llm, cache, "nightly", "--as-of", NIGHTS[1])
    assert night.returncode == 0, night.stdout + night.stderr
    prompt = [r for r in llm.requests if r["model"] == "trader-1"][-1]["messages"][-1]["content"]
    # the cohort carried over: $10,000 − 1,500 − 2,000 + the 2,500 the NO on sim:m2 paid before round 2 opened
    assert "Your cash: $9,000.00" in prompt and "($2,250.00 now)" in prompt
    assert "- sim:m1, side YES: staked $1,500.00, 3,750.00 shares, worth $1,875.00 at the current YES price 0.5." in prompt
    assert "sim:m2" not in prompt.split("Markets of this round")[1]
    assert (hub / f"data/bets/2026-02-08/{AGENT}.csv").read_text().splitlines()[1:] == [
        "sim:m1,2026-01-30T00:00:00Z,sell,YES,500,Take part of the profit at 0.50.",
        "sim:m4,2026-01-30T00:00:00Z,buy,YES,2250,Certain.",
        "sim:m5,2026-01-30T00:00:00Z,buy,NO,1000,Overpriced YES.",
    ]
    assert "agent-refused" in night.stdout
    sealed = seals.load_seals(Hub(hub))
    mine = sealed[(sealed["model"] == AGENT) & (sealed["due"] == "2026-01-25")]
    assert mine[["kind", "status", "evidence", "attested_at"]].values.tolist() == [["bets", "sealed", "manifest", NIGHTS[0]]]

    _observe(hub, NIGHTS[2])
    night = _run(hub, llm, cache, "nightly", "--as-of", NIGHTS[2])
    assert night.returncode == 0, night.stdout + night.stderr
    assert len(llm.requests) == 4  # one call per agent and round, never again
    sealed = seals.load_seals(Hub(hub))
    mine = sealed[(sealed["model"] == AGENT) & (sealed["due"] == "2026-02-08")]
    assert mine[["kind", "status", "evidence", "attested_at"]].values.tolist() == [["bets", "sealed", "manifest", NIGHTS[1]]]
    done = _run(hub, llm, cache, "arena", "--as-of", NIGHTS[2], "--format", "json")
    row = next(r for r in json.loads(done.stdout) if r["model"] == AGENT)

    # Forecaster Arena's formulas by hand. shares = a / price; c = a / (0.25 × cash); f_YES = c or 1 − c.
    m1, m2 = 1500 / 0.40, 2000 / 0.80  # round 1, from $10,000: 3,750 and 2,500 shares
    sold = m1 / 3  # round 2 sells $500 of the $1,500 stake: a third
    m4, m5 = 2250 / 0.60, 1000 / 0.70  # from $9,000: 2,250 is 25% (c = 1); 1,000 of 6,750
    paid = (m1 - sold) * 1 + sold * 0.50 + m2 * 1 + m4 * 1 + m5 * 1  # YES, YES, NO and NO won
    pnl = paid - (1500 + 2000 + 2250 + 1000)
    assert row["cohort"] == "2026-01-25" and row["n_bets"] == 4 and row["n_sold"] == 1 and row["n_resolved"] == 4
    assert row["total_value"] == pytest.approx(10_000 + pnl) and row["realised_pnl"] == pytest.approx(pnl)
    assert row["return_pct"] == pytest.approx(pnl / 100)
    f = {"m1": 1500 / 2500, "m2": 1 - 2000 / (0.25 * 8500), "m4": 2250 / 2250, "m5": 1 - 1000 / (0.25 * 6750)}
    sq = {"m1": (f["m1"] - 1) ** 2, "m2": f["m2"] ** 2, "m4": (f["m4"] - 1) ** 2, "m5": f["m5"] ** 2}
    brier = bet_brier(load_cohorts(hub, parse_ts(NIGHTS[2])))
    mine = brier[brier["model"] == AGENT].set_index("round")
    assert mine.loc["2026-01-25", "bet_brier"] == pytest.approx((sq["m1"] + sq["m2"]) / 2)
    assert mine.loc["2026-02-08", "bet_brier"] == pytest.approx((sq["m4"] + sq["m5"]) / 2)
    assert mine.loc["all", "bet_brier"] == pytest.approx(sum(sq.values()) / 4) == pytest.approx(row["bet_brier"])
    assert mine.loc["all", "bss_ratio"] == pytest.approx(1 - sum(sq.values()) / 4 / 0.25)

    built = _run(hub, llm, cache, "build", "--no-mkdocs", "--as-of", NIGHTS[2])
    assert built.returncode == 0, built.stdout + built.stderr
    page = (hub / "site_src/docs/generated/arena/index.md").read_text()
    cohort = page.split("## Cohort 2026-01-25")[1].split("## Bet Brier by round")[0]
    assert f'<a href="../models/{AGENT}/">{AGENT}</a> <span class="prescient-badge">hub agent</span>' in cohort
    assert f">{10_000 + pnl:.2f}</td>" in cohort and f">{1 - sum(sq.values()) / 4 / 0.25:.2f}</td>" in cohort
    assert page.count(f'<a href="../models/{AGENT}/">') == 4  # the cohort's row, and rounds 2026-01-25, 2026-02-08, all

    before = tree_bytes(hub)
    assert _run(hub, llm, cache, "nightly", "--as-of", NIGHTS[2]).returncode == 0
    assert tree_bytes(hub) == before and len(llm.requests) == 4
    assert not readers.load_bets(Hub(hub), parse_ts("2026-02-08T00:00:00Z")).get(MUTE)


# --- the pure parts -------------------------------------------------------------------------------

ROUND = RoundSet("2026-02-08", "2026-02-08T00:00:00Z", {"sim:m4": "binary", "sim:m5": "binary"}, {})


def test_an_answer_is_read_from_plain_fenced_or_embedded_json():
    plain = '{"decisions": [{"market": "sim:m4", "action": "HOLD"}]}'
    assert ad.decisions_of(plain) == [{"market": "sim:m4", "action": "HOLD"}]
    assert ad.decisions_of(f"Sure.\n```json\n{plain}\n```\nGood luck.") == [{"market": "sim:m4", "action": "HOLD"}]
    assert ad.decisions_of(f"My trades: {plain} -- done") == [{"market": "sim:m4", "action": "HOLD"}]
    assert ad.decisions_of("[]") == []
    assert ad.decisions_of('{"trades": []}') is None and ad.decisions_of("buy YES on m4") is None


def test_malformed_decisions_are_named_and_never_bets():
    raw = [
        "buy",
        {"action": "BUY_YES", "amount": 5},
        {"market": "sim:m4", "action": "BUY_YES", "amount": "lots"},
        {"market": "sim:m4", "action": "BUY_YES", "amount": True},
        {"market": "sim:m5", "action": "SELL", "amount": 5},
        {"market": "sim:m4", "action": "buy yes", "amount": 100},
        {"market": "sim:m4", "action": "BUY_NO", "amount": 50},
    ]
    decisions, frame = ad.judge(raw, Books(), ROUND, "2026-02-01T00:00:00Z", "f.csv")
    assert [(d.status, d.column) for d in decisions] == [
        ("malformed", "decision"),
        ("malformed", "market"),
        ("malformed", "amount"),
        ("malformed", "amount"),
        ("malformed", "side"),
        ("bet", ""),
        ("duplicate-bet", "market"),
    ]
    assert frame[["question_id", "action", "side", "amount"]].values.tolist() == [["sim:m4", "buy", "YES", 100.0]]


def test_a_sale_takes_the_side_held_and_the_limit_is_replayed_by_market():
    books = Books(cash=4_000.0, held={("sim:m1", "NO"): 300.0})
    raw = [
        {"market": "sim:m5", "action": "BUY_YES", "amount": 750.01},
        {"market": "sim:m4", "action": "BUY_YES", "amount": 1000},
        {"market": "sim:m1", "action": "SELL", "amount": 300},
    ]
    decisions, frame = ad.judge(raw, books, ROUND, "2026-02-01T00:00:00Z", "f.csv")
    assert [d.status for d in decisions] == ["bet-over-limit", "bet", "bet"]  # m4 before m5: 25% of the 3,000 left is 750
    assert frame["side"].tolist() == ["NO", "YES"]


def test_a_refused_decision_costs_nothing_so_a_later_legal_one_is_a_bet():
    """A $1e12 decision was refused and still taken out of the cash, so the agent's next $10 buy
    was refused too ("cash left $-999,999,990,000.00"). Only the first is refused now."""
    raw = [{"market": "sim:m4", "action": "BUY_YES", "amount": 1e12}, {"market": "sim:m5", "action": "BUY_NO", "amount": 10}]
    decisions, frame = ad.judge(raw, Books(), ROUND, "2026-02-01T00:00:00Z", "f.csv")
    assert [(d.status, d.column) for d in decisions] == [("bet-over-limit", "amount"), ("bet", "")]
    assert "25% of the $10,000.00 cash left" in decisions[0].detail
    assert frame[["question_id", "side", "amount"]].values.tolist() == [["sim:m5", "NO", 10.0]]


def test_the_nights_budget_stops_the_next_agent_and_a_failed_call_is_asked_again(tmp_path: Path):
    """The library path through ``httpx.MockTransport``: the first agent's call spends the night's
    1,000 tokens, so the second waits (``agent-budget-spent``, nothing logged); the next day it is asked,
    its call fails (HTTP 500, logged as ``error``) and the day after it is asked again."""
    hub = _hub(tmp_path / "hub")
    _observe(hub, NIGHTS[0])
    seen: list[str] = []
    failing = {"trader-2": 4}  # the second agent's first call fails, and its three retries

    def handler(request: httpx.Request) -> httpx.Response:
        model = json.loads(request.content)["model"]
        seen.append(model)
        if model == "trader-2" and failing["trader-2"]:
            failing["trader-2"] -= 1
            return httpx.Response(500, json={"error": "recorded failure"})
        body = {"decisions": [{"market": "sim:m1", "action": "BUY_YES", "amount": 100, "reason": "cheap"}]}
        return httpx.Response(200, content=completion(json.dumps(body), tokens_in=1_100, tokens_out=100))

    settings = ArenaSettings(agent_models=("trader-1", "trader-2"), nightly_budget_tokens=1_000)
    env = {"PRESCIENT_LLM_API_KEY": "sk-test", "PRESCIENT_LLM_BASE_URL": "http://llm.invalid/v1"}
    with httpx.Client(transport=httpx.MockTransport(handler)) as client:

        def night(at: str):
            return agents_night(hub, settings, parse_ts(at), env, client=client, sleep=lambda _s: None)

        first = night("2026-01-20T00:00:00Z")
        assert seen == ["trader-1"] and [p.code for p in first.problems] == ["agent-budget-spent"]
        assert not (hub / f"data/llm/2026-01-25/{MUTE}.jsonl").exists() and first.errors == []
        second = night("2026-01-21T00:00:00Z")
        assert seen[1:] == ["trader-2"] * 4  # one call, its three retries
        assert [p.code for p in second.errors] == ["llm-call-failed"]
        assert [r["status"] for r in calllog.read_records(hub / f"data/llm/2026-01-25/{MUTE}.jsonl", "round")] == ["error"]
        third = night("2026-01-22T00:00:00Z")
        assert seen[5:] == ["trader-2"] and third.problems == []
    assert (hub / f"data/bets/2026-01-25/{MUTE}.csv").read_text().splitlines()[1] == "sim:m1,2026-01-22T00:00:00Z,buy,YES,100,cheap"


def test_a_labs_agents_trade_under_its_own_prefix(tmp_path: Path):
    """A hub with ``[hub] own_prefix = "acmelab"``: the night's agents are ``acmelab.<model>-arena``, their
    bet file and metadata written and checked as the hub's own, nothing under ``prescient``."""
    hub = _hub(tmp_path / "hub")
    (hub / "data/hub.toml").write_text(HUB.replace("[hub]\n", '[hub]\nown_prefix = "acmelab"\n', 1))
    _observe(hub, NIGHTS[0])
    body = {"decisions": [{"market": "sim:m1", "action": "BUY_YES", "amount": 100, "reason": "cheap"}]}
    reply = httpx.Response(200, content=completion(json.dumps(body), tokens_in=100, tokens_out=10))
    settings = Hub(hub).settings
    env = {"PRESCIENT_LLM_API_KEY": "sk-test", "PRESCIENT_LLM_BASE_URL": "http://llm.invalid/v1"}
    with httpx.Client(transport=httpx.MockTransport(lambda _request: reply)) as client:
        night = agents_night(hub, settings.arena, parse_ts(NIGHTS[0]), env, client=client, sleep=lambda _s: None, own=settings.own_prefix)
    assert night.problems == [] and len(night.reports) == 2
    assert sorted(p.name for p in (hub / "data/bets/2026-01-25").iterdir()) == ["acmelab.trader-1-arena.csv", "acmelab.trader-2-arena.csv"]
    assert (hub / "data/models/acmelab.trader-1-arena.yml").is_file() and not list((hub / "data").rglob("prescient.*"))
