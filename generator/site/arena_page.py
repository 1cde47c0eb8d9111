"""The Arena page (``generated/arena/index.md``): every cohort apart, each forecaster's bets in it
(the hub's own agents marked), and the bet Brier per round and across rounds with Forecaster Arena's
skill score. A secondary view: rows are ordered by name, never by P/L or Brier."""

from __future__ import annotations

import jinja2
import pandas as pd

from ..arena.portfolio import BRIER_REFERENCE
from ..models import HUB_TEAM, team_of

AGENT_SUFFIX = "-arena"  # forecasters.agents.agent_id: the hub's Arena agents are prescient.<model>-arena


def is_hub_agent(model: str) -> bool:
    return team_of(model) == HUB_TEAM and model.endswith(AGENT_SUFFIX)


def arena_pages(env: jinja2.Environment, arena: pd.DataFrame, brier: pd.DataFrame, common: dict) -> dict[str, str]:
    bets = arena[arena["view"] == "bets"] if len(arena) else arena
    cohorts = [{"name": name, "rows": [{**r, "agent": is_hub_agent(r["model"]),
                                        "bss": 1.0 - r["bet_brier"] / BRIER_REFERENCE} for r in rows.to_dict("records")]}
               for name, rows in sorted(bets.groupby("cohort"), key=lambda item: str(item[0]), reverse=True)] if len(bets) else []
    rows = [{**r, "agent": is_hub_agent(r["model"])} for r in brier.to_dict("records")] if len(brier) else []
    return {"arena/index.md": env.get_template("arena_index.md.j2").render(**common, cohorts=cohorts, brier=rows)}
