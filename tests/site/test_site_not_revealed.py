"""A commitment not revealed shows on the board: its round is over the imputation line (every unit
imputed), and the board's list of unranked rounds says that round was not revealed, linking to the
round's seals (where its reveal seal, ``not-revealed``, is listed, as on the model's page:
tests/submissions/test_seals.py)."""

from __future__ import annotations

from types import SimpleNamespace

import pandas as pd

from generator.schemas import SEALS
from generator.site.render import environment
from generator.site.seal_rows import seal_index

DUE = "2026-01-25"
DETAIL = "no forecast attested before the window's end opens, with its salt, the sealed commitment: scored as a missing forecast, every unit imputed"


def seals() -> pd.DataFrame:
    base = {c: None for c in SEALS.names} | {"due": DUE, "versions": 0, "evidence": "none", "sealed_at": "2026-01-27T02:23:00Z"}
    rows = [
        base | {"model": "acme.bot", "kind": "commitment", "status": "sealed", "evidence": "receipt", "attested_at": "2026-01-24T10:00:05Z"},
        base | {"model": "acme.bot", "kind": "reveal", "status": "not-revealed", "path": f"data/forecasts/{DUE}/acme.bot.csv", "detail": DETAIL},
        base | {"model": "other.bot", "kind": "reveal", "status": "revealed", "evidence": "receipt"},
    ]
    return pd.DataFrame(rows, columns=list(SEALS.names))


def unranked(index) -> str:
    left_off = [
        {"model": m, "name": m, "round": DUE, "reason": "8 of its 8 resolved units imputed (100%, over the 5% limit)"}
        for m in ("acme.bot", "late.bot")
    ]
    data = SimpleNamespace(seals=index)
    return environment().get_template("_unranked.html.j2").render(p=SimpleNamespace(left_off=left_off, orphans=0), data=data, prefix="generated/")


def test_the_boards_unranked_list_says_which_round_was_not_revealed():
    html = unranked(seal_index(seals(), {}, {DUE: f"{DUE}T00:00:00Z"}))
    marked = [line for line in html.splitlines() if "prescient-not-revealed" in line]
    assert len(marked) == 1 and "acme.bot" in marked[0] and "<strong>not revealed</strong>" in marked[0]
    assert f'href="generated/rounds/{DUE}/"' in marked[0]
    assert "late.bot" in html and html.count("not revealed</strong>") == 1  # a round merely over the line is not marked
