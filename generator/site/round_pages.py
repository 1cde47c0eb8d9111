"""A round's page (its state, question set, board and how each unit resolved; its question table's
rows written as a Jinja loop would, each distinct cell escaped once) and the "Open now" box."""

from __future__ import annotations

from datetime import datetime

import jinja2
import markupsafe
import pandas as pd

from ..timeutil import format_ts, parse_ts
from . import shell
from .rounds import OPEN
from .sitedata import RoundInfo, SiteData


def friendly_time(ts: datetime) -> str:
    """A time for readers: '19 Jul 2026, 00:00 UTC'."""
    return f"{ts.day} {ts:%b %Y, %H:%M} UTC"


def open_now(env: jinja2.Environment, data: SiteData, prefix: str, root: str, only_open: bool = False) -> markupsafe.Markup:
    """The "Open now" box: every round still taking forecasts at ``as_of``, soonest due first, with
    its due time, a countdown the reader's browser keeps current (a replay's counts from ``as_of``,
    its own time, and says so: ``SiteData.replay``), and links to its question set and the Submit
    page. ``prefix`` leads from the page it is shown on to generated/, ``root`` to the site root.
    ``only_open``: nothing at all when no round is open (the top of the Leaderboard)."""
    rounds = sorted((r for r in data.rounds if r.status is not None and r.status.state == OPEN), key=lambda r: r.due)
    if only_open and not rounds:
        return markupsafe.Markup("")
    return markupsafe.Markup(
        env.get_template("_open_now.html.j2").render(
            rounds=rounds, prefix=prefix, root=root, due_text=due_time, updated=format_ts(data.as_of), replay=data.replay
        )
    )


def due_time(ts: str) -> str:
    """A due or freeze time as written in a question set, for readers, with its weekday:
    ``2026-07-26T00:00:00Z`` as ``Sun 26 Jul 2026, 00:00 UTC``."""
    when = parse_ts(ts)
    return f"{when:%a} {friendly_time(when)}"


def round_page(env: jinja2.Environment, data: SiteData, r: RoundInfo, slugs: dict[str, str], common: dict) -> tuple[str, str]:
    """A round's page: its state, its question set, and once closed its own board and how each unit
    resolved; and its question table's rows, which the page's Markdown only marks (see ``site.shell``)."""
    units = r.questions.reset_index(drop=True)
    if r.resolutions is not None and len(r.resolutions) == len(units):
        units = units.assign(
            status=r.resolutions["status"].to_numpy(),
            outcome=r.resolutions["outcome"].to_numpy(),
            final_value=r.resolutions["final_value"].to_numpy(),
        )
    board = r.board.sort_values(["rank", "overall"], ascending=[True, False], na_position="last") if r.board is not None else None
    resolved = r.resolutions is not None
    page = env.get_template("round.md.j2").render(
        **common,
        round=r,
        resolved=resolved,
        table_marker=markupsafe.Markup(shell.ROUND_TABLE),
        board=board.to_dict("records") if board is not None else [],
        due_text=due_time,
        open_now=open_now(env, data, prefix="../../", root="../../../") if r.status and r.status.state == OPEN else "",
        seals=data.seals.by_round.get(r.due, []),
        sealed_at=data.seals.sealed_at.get(r.due, ""),
    )
    table = env.get_template("_round_questions.html.j2").render(
        resolved=resolved, rows=round_question_rows(env, column_records(units), slugs, resolved)
    )
    return page, table


def round_question_rows(env: jinja2.Environment, units: list[dict], slugs: dict[str, str], resolved: bool) -> markupsafe.Markup:
    """A round page's question table rows (one ``<tr>`` line per unit), as a Jinja loop of autoescaped cells
    would write them: each distinct cell text is escaped once (a round repeats its kinds, sources, categories,
    dates and each question's text), not each cell (``markupsafe.escape`` was most of the rendering's time
    at ForecastBench scale)."""
    num = env.filters["num"]
    seen: dict[tuple[type, object], str] = {}
    titles: dict[str, str] = {}

    def esc(value) -> str:
        key = (type(value), value)  # 1 and 1.0 are one dict key but escape differently
        if key not in seen:
            seen[key] = str(markupsafe.escape(value))
        return seen[key]

    def title(text) -> str:
        if text not in titles:
            titles[text] = str(markupsafe.escape(jinja2.filters.do_truncate(env, text, 100, end="…")))
        return titles[text]

    rows = []
    for q in units:
        row = (
            f'<tr><td><a href="../../questions/{esc(slugs[q["question_id"]])}/">{title(q["text"])}</a></td>'
            f"<td>{esc(q['kind'])}</td><td>{esc(q['source'])}</td><td>{esc(q['category'])}</td>"
            f'<td>{esc(q["resolution_date"] or "–")}</td><td data-value="{esc(q["freeze_value"])}">{num(q["freeze_value"], 4)}</td>'
        )
        if resolved:
            final = q["final_value"]
            row += (
                f'<td data-status="{esc(q["status"])}">{_resolved_cell(q, num)}</td>'
                f'<td data-value="{esc(final if final == final else "")}">{num(final, 4)}</td>'
            )
        rows.append(row + "</tr>\n")
    return markupsafe.Markup("".join(rows))


def _resolved_cell(q: dict, num) -> str:
    """The Resolved cell of a round's question table: YES/NO (higher/not higher for a dataset question),
    the outcome to 3 decimals when it is not 0 or 1, void, or open."""
    status, outcome = q["status"], q["outcome"]
    if status == "resolved" and outcome in (0, 1):
        return ("YES" if outcome == 1 else "NO") if q["kind"] == "binary" else ("higher" if outcome == 1 else "not higher")
    if status == "resolved":
        return num(outcome, 3)
    return "void" if status == "void" else "open"


def column_records(frame: pd.DataFrame) -> list[dict]:
    """``frame.to_dict("records")`` of a frame of text and float columns, built from each column's
    ``tolist`` (the same values): pandas boxes every cell on its own, ~1 s for the round tables'
    100,000 rows at ForecastBench scale."""
    columns = list(frame.columns)
    return [dict(zip(columns, values, strict=True)) for values in zip(*(frame[c].tolist() for c in columns), strict=True)]
