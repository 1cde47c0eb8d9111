"""Making and answering oracle questions, piece by piece: the day's selection (reproducible, seeded
by the date, hot topics found and chaotic clusters removed), the steps' JSON answers, the filter's
threshold, the LLM maker's resume and give-up rule (through a fake session), the template maker's
labels, retrieval that never looks past its bound, and reading an answer's option."""

from __future__ import annotations

import json
import random

import pandas as pd
import pytest

from generator.llm import Budget, Reply
from generator.llm.endpoint import Completion
from generator.oracle import llm_maker
from generator.oracle.answer import AnswerOptions, answers_frame, model_id, parse_choice
from generator.oracle.candidates import (
    Article,
    Candidate,
    Malformed,
    arrange,
    json_object,
    kept,
    parse_choices,
    parse_questions,
    parse_scores,
    parse_summary,
)
from generator.oracle.retrieval import retrieve
from generator.oracle.selection import coherence, hot_topics, select_day, vectors
from generator.oracle.template_maker import NAME, TemplateMaker
from generator.schemas import FILTER_PRINCIPLES
from generator.sources.sim import world_from_options
from generator.sources.sim_news import Newsroom
from generator.timeutil import parse_ts

RATES = [
    "The central bank of Veloria raised its main interest rate by half a point to tame inflation, its governor said on Wednesday.",
    "Veloria's central bank raised its main interest rate by half a point on Wednesday as inflation stays high, the governor said.",
    "On Wednesday the central bank of Veloria raised the main interest rate half a point; inflation is too high, said its governor.",
    "Veloria central bank governor: main interest rate raised by half a point on Wednesday to fight inflation.",
]
STORM = [
    "Storm Ida flooded Port Elm on Wednesday when the river Elm burst its banks; about 400 homes were flooded in the lower town.",
    "The river Elm burst its banks in Port Elm as Storm Ida brought floods on Wednesday; 400 homes in the lower town were flooded.",
    "About 400 homes in the lower town of Port Elm were flooded on Wednesday after Storm Ida made the river Elm burst its banks.",
]
SINGLES = [
    "The football club signed a striker for a record fee.",
    "Astronomers found water vapour on a distant planet.",
    "A new bakery opened on the high street, selling rye bread.",
    "The museum's summer show of glass art closes on Sunday.",
]


def day_articles() -> tuple[list[str], list[str]]:
    texts = RATES + STORM + SINGLES
    return [f"https://n.example.org/{i:02d}" for i in range(len(texts))], texts


# -- selection ----------------------------------------------------------------------------------


def test_hot_topics_are_the_coherent_clusters_largest_first():
    urls, texts = day_articles()
    topics = hot_topics(vectors(texts))
    assert [t.members for t in topics] == [(0, 1, 2, 3), (4, 5, 6)]
    assert all(t.coherence >= 0.3 for t in topics)


def test_a_chaotic_cluster_is_removed():
    x = vectors(RATES + STORM)
    assert coherence(x[[0, 1, 2, 3]]) > 0.3 > coherence(x[[0, 4, 1, 5]])
    chain = [" ".join(f"word{k:02d}" for k in range(i, i + 4)) for i in range(12)]  # each shares 3 words with the next
    x = vectors(chain)
    assert coherence(x) < 0.3 and hot_topics(x) == []  # one DBSCAN cluster of neighbours, unlike each other on average


def test_the_selection_is_three_random_and_one_per_hot_topic_and_the_same_on_every_rerun():
    urls, texts = day_articles()
    picks = select_day("2026-11-25", urls, texts)
    assert [p.reason for p in picks][:3] == ["random"] * 3 and len({p.url for p in picks}) == len(picks)
    hot = [p for p in picks if p.reason.startswith("hot-topic")]
    assert {p.cluster_size for p in hot} <= {4, 3} and len(picks) == 3 + len(hot)
    for p in hot:
        members = urls[:4] if p.cluster_size == 4 else urls[4:7]
        assert p.url in members
    order = list(range(len(urls)))
    random.Random(1).shuffle(order)
    assert select_day("2026-11-25", [urls[i] for i in order], [texts[i] for i in order]) == picks  # any ledger order
    other_days = {tuple(p.url for p in select_day(f"2026-11-{d:02d}", urls, texts)) for d in range(1, 20)}
    assert len(other_days) > 5  # seeded by the date: other days draw others


def test_a_small_day_is_taken_whole():
    assert sorted(p.url for p in select_day("2026-11-25", ["b", "a"], ["x y", "y z"])) == ["a", "b"]
    assert select_day("2026-11-25", [], []) == []


# -- the steps' answers -------------------------------------------------------------------------


def test_a_json_answer_may_be_fenced_or_wrapped_in_prose_but_must_be_an_object():
    assert json_object('Sure!\n```json\n{"a": 1}\n```') == {"a": 1}
    for bad in ("no json here", "[1, 2]", '{"a": 1', "{" * 5000 + "}" * 5000):
        with pytest.raises(Malformed):
            json_object(bad)


def test_the_steps_refuse_what_their_prompt_does_not_ask_for():
    assert parse_summary('{"summary": "S.", "key_point": "K.", "new_event": true, "category": "Sports"}') == ("S.", "K.", True, "Sports")
    assert parse_summary('{"summary": "S.", "key_point": "", "new_event": false, "category": "Knitting"}')[2:] == (False, "Other")
    with pytest.raises(Malformed):
        parse_summary('{"summary": "S.", "key_point": "", "new_event": "yes", "category": "Sports"}')
    good = [{"question": f"Q{i}?", "answer": a} for i, a in enumerate(("Yes.", "No", "x", "y"))]
    assert [p["answer"] for p in parse_questions(json.dumps({"questions": good}))] == ["Yes.", "No", "x", "y"]
    for bad in (good[:3], [good[1], good[0], *good[2:]], [*good[:3], {"question": "", "answer": "z"}]):
        with pytest.raises(Malformed):
            parse_questions(json.dumps({"questions": bad}))
    assert parse_choices('{"choices": [["a", "b", "c"], ["d", "e", "f"]]}', ["x", "y"]) == [["a", "b", "c"], ["d", "e", "f"]]
    with pytest.raises(Malformed):
        parse_choices('{"choices": [["a", "b", "x"], ["d", "e", "f"]]}', ["x", "y"])  # an option equal to the answer
    scores = {"scores": [dict.fromkeys(FILTER_PRINCIPLES, 2)] * 4}
    assert len(parse_scores(json.dumps(scores))) == 4
    for bad in (3, 1.5, True, "2"):
        with pytest.raises(Malformed):
            parse_scores(json.dumps({"scores": [{**scores["scores"][0], "objectiveness": bad}] * 4}))


def test_a_question_is_kept_at_13_of_14_and_dropped_at_12():
    def scored(total: int) -> Candidate:
        values = {p: 2 for p in FILTER_PRINCIPLES}
        for p in FILTER_PRINCIPLES[: 14 - total]:
            values[p] = 1
        return Candidate("q", "tf", "Will it?", (), "A", values)

    assert kept(scored(13), 13) and not kept(scored(12), 13) and kept(scored(14), 13)


def test_the_correct_options_letter_is_drawn_from_the_question_id():
    letters = [arrange(f"2026-11-25.{i:010x}.mc1", "right", ["w1", "w2", "w3"])[1] for i in range(400)]
    assert set(letters) == {"A", "B", "C", "D"} and max(letters.count(x) for x in "ABCD") < 140
    options, letter = arrange("q-1", "right", ["w1", "w2", "w3"])
    assert options["ABCD".index(letter)] == "right" and arrange("q-1", "right", ["w1", "w2", "w3"]) == (options, letter)


# -- the LLM maker: resume and give up ----------------------------------------------------------

ARTICLE = Article("https://n.example.org/a", "2026-11-25", "2026-11-25T10:00:00Z", "Rates rise", "n.example.org", "ab" * 32, "Text.")
ANSWERS = {
    "summary": '{"summary": "S.", "key_point": "K.", "new_event": true, "category": "World"}',
    "questions": json.dumps(
        {
            "questions": [
                {"question": "Will A?", "answer": "Yes"},
                {"question": "Will B?", "answer": "No"},
                {"question": "What will C?", "answer": "c"},
                {"question": "Who will D?", "answer": "d"},
            ]
        }
    ),
    "choices": '{"choices": [["c1", "c2", "c3"], ["d1", "d2", "d3"]]}',
    "filter": json.dumps({"scores": [dict.fromkeys(FILTER_PRINCIPLES, 2)] * 4}),
}


class FakeSession:
    """Answers each step from ``script`` (a list of texts per step, the last repeating); logs in memory."""

    def __init__(self, script: dict[str, list[str]], budget: Budget | None = None):
        self.script, self.budget, self.log_records, self.asked = script, budget, [], []

    def ask(self, body: dict) -> Reply:
        prompt = body["messages"][0]["content"]
        step = next(
            s
            for s, marker in (("summary", '"new_event"'), ("questions", "Write four"), ("choices", "wrong options"), ("filter", "seven principles"))
            if marker in prompt
        )
        if self.budget is not None and self.budget.spent():
            return Reply(None, self.budget.message(), skipped=True)
        self.asked.append(step)
        answers = self.script[step]
        text = answers[min(self.asked.count(step) - 1, len(answers) - 1)]
        if self.budget is not None:
            self.budget.charge(110, None)
        return Reply(Completion(text, tokens_in=100, tokens_out=10))

    def log(self, record: dict) -> None:
        self.log_records.append(record)


def test_a_resumed_maker_reads_its_log_and_asks_only_what_is_not_settled():
    first = FakeSession({**{k: [v] for k, v in ANSWERS.items()}, "choices": ["not json"]})
    outcome = llm_maker.LLMMaker("m1", [], parse_ts("2026-11-26T00:00:00Z")).make(first, ARTICLE)
    assert outcome.status == "pending" and outcome.problems[0].code == "llm-malformed-json"
    assert first.asked == ["summary", "questions", "choices"]
    second = FakeSession({k: [v] for k, v in ANSWERS.items()})
    outcome = llm_maker.LLMMaker("m1", first.log_records, parse_ts("2026-11-26T00:00:00Z")).make(second, ARTICLE)
    assert outcome.status == "done" and second.asked == ["choices", "filter"]
    assert [c.question_id[-3:] for c in outcome.candidates] == ["tf1", "tf2", "mc1", "mc2"]
    third = FakeSession({})
    again = llm_maker.LLMMaker("m1", first.log_records + second.log_records, parse_ts("2026-11-27T00:00:00Z")).make(third, ARTICLE)
    assert third.asked == [] and again.candidates == outcome.candidates
    other_model = FakeSession({k: [v] for k, v in ANSWERS.items()})
    llm_maker.LLMMaker("m2", first.log_records + second.log_records, parse_ts("2026-11-27T00:00:00Z")).make(other_model, ARTICLE)
    assert len(other_model.asked) == 4  # another model's answers are not this one's


def test_three_malformed_answers_give_the_article_up():
    records: list[dict] = []
    for _ in range(3):
        session = FakeSession({"summary": ["{not json"]})
        outcome = llm_maker.LLMMaker("m1", records, parse_ts("2026-11-26T00:00:00Z")).make(session, ARTICLE)
        records += session.log_records
    assert outcome.status == "gave-up" and [r["status"] for r in records] == ["malformed", "malformed", "gave-up"]
    quiet = FakeSession({})
    assert llm_maker.LLMMaker("m1", records, parse_ts("2026-11-27T00:00:00Z")).make(quiet, ARTICLE).status == "gave-up"
    assert quiet.asked == []


def test_a_spent_budget_makes_no_call_and_leaves_the_article_pending():
    session = FakeSession({k: [v] for k, v in ANSWERS.items()}, Budget(tokens=200))
    outcome = llm_maker.LLMMaker("m1", [], parse_ts("2026-11-26T00:00:00Z")).make(session, ARTICLE)
    assert outcome.status == "pending" and session.asked == ["summary", "questions"]
    assert (outcome.problems[0].code, outcome.problems[0].severity) == ("llm-budget-spent", "warning")
    spent = Budget.of_day(session.log_records, "2026-11-26", None, 200)
    assert spent.spent() and not Budget.of_day(session.log_records, "2026-11-27", None, 200).spent()


# -- the template maker -------------------------------------------------------------------------


def test_the_template_maker_is_labelled_writes_from_the_world_and_drops_its_vague_questions():
    world = world_from_options({"seed": 7, "markets": 260, "span_days": 200})
    room = Newsroom(world, parse_ts("2026-06-01T00:00:00Z"))
    made = []
    for article in room.published(parse_ts("2026-07-10T00:00:00Z")):
        made.append(TemplateMaker(world).make(Article(article.url, article.day, "", article.title, "sim", f"{len(made):02x}" * 32, "")))
    assert NAME == "template"
    with_event = [m for m in made if m.new_event]
    assert with_event and all(len(m.candidates) == 4 and m.status == "done" for m in with_event)
    totals = {c.total for m in with_event for c in m.candidates}
    assert 14 in totals and min(totals) < 13  # the vague question (no date) scores below the threshold
    vague = [c for m in with_event for c in m.candidates if c.scores["clear_time"] == 0]
    assert vague and all("in the coming weeks" in c.text for c in vague)
    outside = TemplateMaker(world).make(Article("https://n.example.org/x", "2026-07-01", "", "x", "n", "0" * 64, ""))
    assert outside.new_event is False and not outside.candidates


# -- retrieval and answers ----------------------------------------------------------------------


def test_retrieval_sees_only_articles_published_before_the_question_and_the_cutoff():
    news = pd.DataFrame(
        {
            "url": ["u1", "u2", "u3", "u4"],
            "title": ["Rates rise", "Rates rise again", "Rates rise once more", "Storm"],
            "source": ["s"] * 4,
            "summary": [""] * 4,
            "published_at": ["2026-11-01T10:00:00Z", "2026-11-10T10:00:00Z", "2026-11-20T10:00:00Z", "2026-11-05T00:00:00Z"],
            "text_sha256": ["a", "b", "c", "d"],
        }
    )
    questions = pd.DataFrame(
        {"id": ["q1", "q2", "q3"], "text": ["Will rates rise?"] * 3, "resolution_date": ["2026-11-10", "2026-11-25", "2026-10-01"]}
    )
    found = retrieve(questions, news, lambda row: "central bank rates" if row.title.startswith("Rates") else "flood river", cutoff="2026-11-15")
    assert [a.title for a in found["q1"]] == ["Rates rise"]  # u2 is published on the question's day: not before it
    assert sorted(a.published for a in found["q2"]) == ["2026-11-01", "2026-11-10"]  # the cutoff hides u3
    assert found["q3"] == []


@pytest.mark.parametrize(
    "text, kind, letter",
    [
        ("Yes", "tf", "A"),
        ("no.", "tf", "B"),
        ("**Yes** — it will.", "tf", "A"),
        ("True", "tf", "A"),
        ("(b)", "mc", "B"),
        ("d", "mc", "D"),
        ("Answer: (c)", "mc", "C"),
        ("C) because", "mc", "C"),
        ("I think it is b", "mc", None),
        ("Maybe", "tf", None),
        ("", "mc", None),
        ("(e)", "mc", None),
    ],
)
def test_an_answer_names_its_option(text, kind, letter):
    assert parse_choice(text, kind) == letter


def test_the_answers_file_puts_1_on_the_option_named_and_leaves_a_refusal_empty():
    questions = pd.DataFrame({"id": ["q1", "q2", "q3"], "kind": ["tf", "mc", "mc"]})
    records = [
        {"question_id": "q1", "status": "ok", "choice": "B"},
        {"question_id": "q2", "status": "error"},
        {"question_id": "q2", "status": "refused", "choice": None},
        {"question_id": "q3", "status": "ok", "choice": "D"},
        {"question_id": "gone", "status": "ok", "choice": "A"},
    ]
    frame = answers_frame(records, questions).set_index("question_id")
    assert frame.loc["q1", ["prob_a", "prob_b"]].tolist() == [0.0, 1.0] and pd.isna(frame.loc["q1", "prob_c"])
    assert frame.loc["q2", ["prob_a", "prob_b", "prob_c", "prob_d"]].isna().all() and frame.loc["q2", "reasoning"] == "refused"
    assert frame.loc["q3", "prob_d"] == 1.0 and "gone" not in frame.index
    assert model_id(AnswerOptions("GPT-5 Mini")) == "prescient.gpt-5-mini-closed-book"
    assert model_id(AnswerOptions("m", "open-book", "2026-06-30")) == "prescient.m-open-book-2026-06-30"
