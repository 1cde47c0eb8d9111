"""The LLM question maker: the four steps of ``candidates`` asked of the ``PRESCIENT_LLM_*``
endpoint, one call per step and article, from the jinja2 templates in ``prompts/``.

Every call is appended to the set's call log (``data/oracle/<set>/calls/<YYYY-MM>.jsonl``) as it
ends: the step, the article's text sha256, the status, the answer's text, tokens, cost, the
step template's sha256 and the prompt's. The log is the resume state: a step with a final record
(``ok``; ``refused``; ``gave-up`` after ``MAX_ATTEMPTS`` malformed answers) under the same template
is never asked again, its recorded answer is read instead. A failed call (``error``) or a malformed
answer is asked again by the next run. The daily budget is charged with every call; once it is
spent no further call is made (``llm-budget-spent``) and the article waits for the next run.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

from ..codes import reported
from ..errors import Problem
from ..llm import Session, Templates, prompt_sha256, request_body, settled
from ..timeutil import format_ts, parse_ts
from .candidates import (
    CATEGORIES,
    MAX_TEXT_CHARS,
    Article,
    Malformed,
    Outcome,
    candidates,
    parse_choices,
    parse_questions,
    parse_scores,
    parse_summary,
)

TEMPLATES = Templates(Path(__file__).parent / "prompts")
STEPS = ("summary", "questions", "choices", "filter")
FINAL = ("ok", "refused", "gave-up")
MAX_ATTEMPTS = 3  # malformed answers to one step before the maker gives the article up
T = TypeVar("T")


def step_sha256(step: str) -> str:
    return TEMPLATES.sha256(step, "_article")


def templates_sha256() -> str:
    """sha256 over every template of the maker (recorded with each question it writes)."""
    return TEMPLATES.sha256(*STEPS, "_article")


def context(article: Article) -> dict[str, Any]:
    day = parse_ts(article.day)
    return {
        "source": article.source,
        "published": article.day,
        "title": article.title or "(no title)",
        "text": article.text[:MAX_TEXT_CHARS],
        "published_words": f"{day:%B} {day.day}, {day:%Y}",
        "month": f"{day:%B %Y}",
        "categories": CATEGORIES,
    }


class LLMMaker:
    """Makes an article's questions through a Session; ``records``: the call log as read before the run."""

    def __init__(self, model: str, records: Iterable[dict], as_of):
        self.name, self.stamp = model, format_ts(as_of)
        self.shas = {step: step_sha256(step) for step in STEPS}
        records = [r for r in records if r.get("model") == model]
        self.done = settled(records, lambda r: r.get("key"), FINAL)
        self.attempts: dict[str, int] = {}
        for r in records:
            if r.get("status") == "malformed":
                self.attempts[r["key"]] = self.attempts.get(r["key"], 0) + 1

    def key(self, article: Article, step: str) -> str:
        return f"{article.text_sha256}:{step}:{self.shas[step][:12]}"

    def make(self, session: Session, article: Article) -> Outcome:
        ctx = context(article)
        summary = self._step(session, article, "summary", ctx, parse_summary)
        if isinstance(summary, Outcome):
            return summary
        text, key_point, new_event, category = summary
        if not new_event:
            return Outcome("done", text, False, category)
        pairs = self._step(session, article, "questions", {**ctx, "key_point": key_point}, parse_questions)
        if isinstance(pairs, Outcome):
            return _with_summary(pairs, summary)
        answers = [p["answer"] for p in pairs[2:]]
        wrong = self._step(session, article, "choices", {**ctx, "questions": pairs[2:]}, lambda t: parse_choices(t, answers))
        if isinstance(wrong, Outcome):
            return _with_summary(wrong, summary)
        scores = self._step(session, article, "filter", {**ctx, "questions": pairs}, parse_scores)
        if isinstance(scores, Outcome):
            return _with_summary(scores, summary)
        return Outcome("done", text, True, category, candidates(article, pairs, wrong, scores))

    def _step(self, session: Session, article: Article, step: str, ctx: dict, parse: Callable[[str], T]) -> T | Outcome:
        key = self.key(article, step)
        earlier = self.done.get(key)
        if earlier is not None:
            if earlier["status"] == "ok":
                return parse(str(earlier.get("content") or ""))
            return Outcome("gave-up", problems=[self._problem(article, step, earlier)])
        prompt = TEMPLATES.render(step, ctx)
        reply = session.ask(request_body(self.name, prompt))
        if reply.skipped:
            return Outcome("pending", problems=[reported("llm-budget-spent", article.url, None, step, reply.error)])
        record = {
            "key": key,
            "article": article.text_sha256,
            "url": article.url,
            "step": step,
            "model": self.name,
            "template_sha256": self.shas[step],
            "prompt_sha256": prompt_sha256(prompt),
            "recorded_at": self.stamp,
            "tokens_in": reply.tokens[0],
            "tokens_out": reply.tokens[1],
            "cost_usd": reply.cost_usd,
        }
        value, record = self._read(reply, parse, record)
        session.log(record)
        if value is not None:  # parsed: the record is "ok"
            return value
        return Outcome("gave-up" if record["status"] in FINAL else "pending", problems=[self._problem(article, step, record)])

    def _read(self, reply, parse: Callable[[str], T], record: dict) -> tuple[T | None, dict]:
        completion = reply.completion
        if completion is None:
            return None, {**record, "status": "error", "content": "", "detail": reply.error}
        if completion.refused:
            return None, {**record, "status": "refused", "content": completion.content, "detail": completion.detail}
        try:
            if completion.malformed:
                raise Malformed(completion.detail)
            return parse(completion.content), {**record, "status": "ok", "content": completion.content, "detail": ""}
        except Malformed as exc:
            tries = self.attempts.get(record["key"], 0) + 1
            self.attempts[record["key"]] = tries
            status = "gave-up" if tries >= MAX_ATTEMPTS else "malformed"
            return None, {**record, "status": status, "content": completion.content, "detail": f"{exc} (attempt {tries})"}

    @staticmethod
    def _problem(article: Article, step: str, record: dict) -> Problem:
        status = record["status"]
        code = "llm-refused" if status == "refused" else "llm-call-failed" if status == "error" else "llm-malformed-json"
        return reported(code, article.url, None, step, f"the {step} step: {record.get('detail') or record['status']}")


def _with_summary(outcome: Outcome, summary: tuple[str, str, bool, str]) -> Outcome:
    """A later step's pending or given-up outcome, with the summary already known."""
    outcome.summary, outcome.new_event, outcome.category = summary[0], summary[2], summary[3]
    return outcome
