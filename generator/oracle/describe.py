"""What the oracle stage's commands say when they are done: one short line per feed, per run, per
model (the problems themselves go to stderr with their codes). Pure: reports in, text out."""

from __future__ import annotations

from .answer import AnswerReport
from .generate import GenerateReport
from .news import NewsReport
from .stage import OracleNight


def news_lines(report: NewsReport) -> list[str]:
    lines = [
        f"{f.feed}: {'FAILED' if any(p.severity == 'error' and p.file == f.feed for p in f.problems) else 'ok'}; "
        f"listed {f.listed}, known {f.known}, new {f.new}, same text as a known article {f.same_text}, "
        f"problems {len(f.problems)}"
        for f in report.feeds
    ]
    return lines + [f"news: {report.new} new article(s); " + (f"wrote {', '.join(report.written)}" if report.written else "nothing written")]


def _cost(tokens_in: int, tokens_out: int, cost: float | None) -> str:
    return f"tokens in {tokens_in}, out {tokens_out}" + (f", cost ${cost:.4f}" if cost is not None else "")


def generate_lines(report: GenerateReport) -> list[str]:
    maker = "template (not an LLM)" if report.maker == "template" else report.maker
    lines = [
        f"oracle set {report.question_set}, maker {maker}, news days {', '.join(report.days) or 'none'}: "
        f"{report.selected} article(s) selected; {report.made} made ({report.no_event} with no new event), "
        f"{report.pending} pending; questions kept {report.kept}, dropped {report.dropped} (by the filter, or already asked)"
    ]
    if report.maker != "template":
        lines.append(f"{report.calls} call(s), {_cost(report.tokens_in, report.tokens_out, report.cost_usd)}")
    if report.budget_spent:
        lines.append("the daily budget is spent: the pending articles wait for the next run")
    return lines + [f"wrote {p}" for p in report.written]


def answer_lines(report: AnswerReport | None) -> list[str]:
    if report is None:
        return []
    c = report.counts
    return [
        f"{report.model} on {report.question_set}: asked {report.asked}, skipped {report.skipped} already answered; "
        f"ok {c['ok']}, refused {c['refused']}, unparseable {c['unparseable']}, failed {c['error']}",
        _cost(report.tokens_in, report.tokens_out, report.cost_usd),
    ] + [f"wrote {p}" for p in report.written]


def night_lines(night: OracleNight | None) -> list[str]:
    """The oracle stage's part of ``prescient nightly``'s summary."""
    if night is None:
        return []
    lines = news_lines(night.news) if night.news else []
    lines += generate_lines(night.generated) if night.generated else []
    lines += [line for a in night.answers for line in answer_lines(a)]
    return [f"oracle: {line}" for line in lines + night.notes]
