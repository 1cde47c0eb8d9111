"""The offline demo's question maker: a TEMPLATE generator, not an LLM.

It writes the four questions of an article of the Sim Wire (``sources.sim_news``) from fixed
sentence templates and the simulated world's own records (the market the article is about, its
outcome and prices), and scores them on the seven filter principles by fixed rules: a question
with a precise date scores 2 on "clear time", one without scores 0; sports questions score 1 on
"public interest"; every other principle scores 2 (the world's records make every answer right).
About one article in four gets a deliberately vague second multiple-choice question ("in the
coming weeks"), which the filter drops, so the demo shows the filter at work. Everything it makes
is labelled ``template`` (the maker, the summaries' author), and the site says "template-generated,
not an LLM". An article from anywhere else, or one reporting no new event, yields no question.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from ..sources.sim import CATEGORIES as SIM_CATEGORIES
from ..sources.sim import SimMarket, SimWorld
from ..sources.sim_news import COLUMN, RESOLVED, outcome_words, parse_url
from ..timeutil import format_date, parse_ts
from .candidates import Article, Candidate, Outcome, arrange, question_id

NAME = "template"
TOPICS = {
    "politics": "Politics & Governance",
    "economics": "Business & Economics",
    "science": "Science & Technology",
    "technology": "Science & Technology",
    "sports": "Sports",
    "climate": "Environment & Energy",
}
BANDS = ("below 25%", "25% to 50%", "50% to 75%", "75% or more")
SETTLE = ("It resolves YES", "It resolves NO", "It is declared void", "It stays open past its close")


def rules_sha256() -> str:
    """The template maker's rules are this file: its sha256 is recorded with each question."""
    return hashlib.sha256(Path(__file__).read_bytes()).hexdigest()


def band(price: float) -> str:
    return BANDS[min(int(price * 4), 3)]


def _scores(market: SimMarket, dated: bool) -> dict[str, int]:
    return {
        "correctness": 2,
        "answerable_on_date": 2,
        "no_new_information": 2,
        "objectiveness": 2,
        "clear_time": 2 if dated else 0,
        "public_interest": 1 if market.category == "sports" else 2,
        "not_obvious": 2,
    }


class TemplateMaker:
    name = NAME

    def __init__(self, world: SimWorld):
        self.world = world

    def make(self, article: Article) -> Outcome:
        where = parse_url(article.url)
        if where is None or where[2] is None or where[1] == COLUMN or where[2] >= len(self.world.markets):
            return Outcome(
                "done",
                f"{article.title}: the template maker writes only about the offline world's settlements and openings; no new event.",
                False,
                "Other",
            )
        market = self.world.markets[where[2]]
        day = parse_ts(article.day)
        when = f"{day:%B} {day.day}, {day:%Y}"
        if where[1] == RESOLVED:
            summary = f"The simulated {market.category} market on event #{market.index} settled on {article.day}: the event {outcome_words(market)}."
            texts = self._settled(market, when)
        else:
            summary = (
                f"A simulated {market.category} market on event #{market.index} opened on {article.day}; "
                f"it closes on {format_date(market.close_time)}."
            )
            texts = self._opened(market, when)
        vague = int(article.text_sha256[:2], 16) % 4 == 0
        return Outcome("done", summary, True, TOPICS.get(market.category, "Other"), self._candidates(article, market, texts, vague))

    def _settled(self, m: SimMarket, when: str) -> list[tuple[str, str, list[str]]]:
        n, topic = m.index, m.category
        happens, void = (
            f"Will simulated event #{n} ({topic}) happen by {when}?",
            f"Will the simulated market on event #{n} ({topic}) be declared void by {when}?",
        )
        fails = f"Will simulated event #{n} ({topic}) fail to happen by {when}?"
        yes, no = (void, happens) if m.void else (happens, void) if m.outcome == 1.0 else (fails, happens)
        settle = SETTLE[2] if m.void else SETTLE[0] if m.outcome == 1.0 else SETTLE[1]
        last = band(m.price(max(len(m.path) - 2, 0)))
        return [
            (yes, "", []),
            (no, "", []),
            (f"How will the simulated market on event #{n} ({topic}) settle on {when}?", settle, [s for s in SETTLE if s != settle]),
            (
                f"What will the last published price of the simulated market on event #{n} be before it closes on {when}?",
                last,
                [b for b in BANDS if b != last],
            ),
        ]

    def _opened(self, m: SimMarket, when: str) -> list[tuple[str, str, list[str]]]:
        n, topic = m.index, m.category
        others = [c for c in SIM_CATEGORIES if c != topic][:3]
        first = band(m.price(0))
        return [
            (f"Will a simulated market on event #{n} open for trading by {when}?", "", []),
            (f"Will the simulated market on event #{n} have settled by {when}?", "", []),
            (f"In which category will the simulated market on event #{n}, opening by {when}, be listed?", topic, others),
            (
                f"What will the first published price of the simulated market on event #{n} be when it opens on {when}?",
                first,
                [b for b in BANDS if b != first],
            ),
        ]

    def _candidates(self, article: Article, m: SimMarket, texts: list[tuple[str, str, list[str]]], vague: bool) -> list[Candidate]:
        out = []
        for slot, (text, correct, wrong) in zip(("tf1", "tf2", "mc1", "mc2"), texts, strict=True):
            qid = question_id(article, slot)
            dated = not (vague and slot == "mc2")
            text = text if dated else text.split(" be ")[0] + " be in the coming weeks?"
            if slot.startswith("tf"):
                out.append(Candidate(qid, "tf", text, (), "A" if slot == "tf1" else "B", _scores(m, True)))
            else:
                options, letter = arrange(qid, correct, wrong)
                out.append(Candidate(qid, "mc", text, options, letter, _scores(m, dated)))
        return out
