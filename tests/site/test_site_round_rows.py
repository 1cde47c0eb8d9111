"""A round page's question table rows, built in Python (``render.round_question_rows``), are byte for byte
what the Jinja loop over the units wrote before (the loop is kept here as the reference)."""

from __future__ import annotations

import math

import pytest

from generator.site.render import environment
from generator.site.round_pages import round_question_rows

# the loop of templates/_round_questions.html.j2 before its rows were built in Python
REFERENCE = (
    "{% for q in units %}\n"
    "<tr><td><a href=\"../../questions/{{ slugs[q['question_id']] }}/\">{{ q['text'] | truncate(100, end=\"…"
    "\") }}</a></td><td>{{ q['kind'] }}</td><td>{{ q['source'] }}</td><td>{{ q['category'] }}</td><td>{{ q"
    "['resolution_date'] or \"–\" }}</td><td data-value=\"{{ q['freeze_value'] }}\">{{ q['freeze_value'] | nu"
    "m(4) }}</td>{% if resolved %}<td data-status=\"{{ q['status'] }}\">{% if q['status'] == \"resolved\" and"
    ' q[\'outcome\'] in (0, 1) %}{{ ("YES" if q[\'outcome\'] == 1 else "NO") if q[\'kind\'] == "binary" else ("'
    "higher\" if q['outcome'] == 1 else \"not higher\") }}{% elif q['status'] == \"resolved\" %}{{ q['outcome'"
    '] | num(3) }}{% elif q[\'status\'] == "void" %}void{% else %}open{% endif %}</td><td data-value="{{ q['
    "'final_value'] if q['final_value'] == q['final_value'] else '' }}\">{{ q['final_value'] | num(4) }}</"
    "td>{% endif %}</tr>"
    "\n{% endfor %}\n"
)


def _unit(qid: str, text: str, kind: str = "binary", status: str = "open", outcome: float = math.nan, final: float = math.nan, **other) -> dict:
    return {
        "question_id": qid,
        "text": text,
        "kind": kind,
        "source": other.get("source", "manifold"),
        "category": other.get("category", ""),
        "resolution_date": other.get("date", ""),
        "freeze_value": other.get("freeze", 0.35),
        "status": status,
        "outcome": outcome,
        "final_value": final,
    }


UNITS = [
    _unit("manifold:a", "Will <b>A</b> & \"B\" win 'it'?", status="resolved", outcome=1.0, final=0.99),
    _unit("manifold:a", "Will <b>A</b> & \"B\" win 'it'?", status="resolved", outcome=0.0, final=0.01, freeze=1.0),
    _unit(
        "fred:x",
        "Will the series rise " + "very " * 30 + "much?",
        kind="dataset",
        source="fred",
        date="2026-02-01",
        status="resolved",
        outcome=1.0,
        final=3.25,
        category="Economics & <finance>",
    ),
    _unit(
        "fred:x",
        "Will the series rise " + "very " * 30 + "much?",
        kind="dataset",
        source="fred",
        date="2026-03-01",
        status="resolved",
        outcome=0.0,
        final=math.nan,
    ),
    _unit("fred:y", "x" * 120, kind="dataset", source="fred", date="2026-02-01", status="resolved", outcome=0.5, final=1.0),
    _unit("polymarket:z", "Void one", status="void", freeze=math.nan),
    _unit("polymarket:w", "Open one", status="open", freeze=1),  # an int freeze value: written "1", not "1.0"
]
SLUGS = {"manifold:a": "manifold--a", "fred:x": "fred--x", "fred:y": "fred--y", "polymarket:z": "polymarket--z", "polymarket:w": "polymarket--w&x"}


@pytest.mark.parametrize("resolved", [True, False])
def test_the_rows_are_the_jinja_loops_bytes(resolved: bool) -> None:
    env = environment()
    expected = env.from_string(REFERENCE).render(units=UNITS, slugs=SLUGS, resolved=resolved)
    built = str(round_question_rows(env, UNITS, SLUGS, resolved))
    assert built == expected
    assert "&lt;b&gt;A&lt;/b&gt; &amp; &#34;B&#34; win &#39;it&#39;?" in built and "…</a>" in built
    assert ("not higher" in built) == resolved
    assert built.count("<tr>") == len(UNITS)


def test_the_table_wraps_the_rows_in_its_header_and_body() -> None:
    table = (
        environment().get_template("_round_questions.html.j2").render(resolved=True, rows=round_question_rows(environment(), UNITS[:1], SLUGS, True))
    )
    assert table.startswith("<thead><tr><th>Question</th>") and table.endswith("</tr>\n</tbody>\n")
    assert '<tbody>\n<tr><td><a href="../../questions/manifold--a/">' in table
