"""The Explore page (``generated/explore.md``): each board's Brier Index against model release date, the
state of the art with its trend, and the projected date it reaches each human group
(``leaderboard.explore``). One section per configured board, from its overall view (or its first
view when the overall one is not configured)."""

from __future__ import annotations

import jinja2
import pandas as pd

from ..leaderboard.explore import LEVEL, MIN_FRONTIER, explore
from ..leaderboard.hub_boards import headline_of
from . import charts


def board_sections(boards: dict[tuple[str, str], pd.DataFrame], models: dict) -> list[dict]:
    """One section per board: its view, score, chart, frontier points, parity rows and the models left out."""
    chosen: dict[str, tuple[str, pd.DataFrame]] = {}
    for (board, view), frame in boards.items():
        if board not in chosen or (view == "overall" and chosen[board][0] != "overall"):
            chosen[board] = (view, frame)
    out = []
    for board, (view, frame) in chosen.items():
        score = headline_of(view, frame) if len(frame) else "overall"
        result = explore(frame, models, score) if len(frame) else None
        figure = charts.explore_scores(result.points, result.trend, result.parity) if result is not None and len(result.points) else None
        out.append(
            {
                "board": board,
                "view": view,
                "score": score,
                "result": result,
                "points": result.points.to_dict("records") if result is not None else [],
                "figure": charts.to_json(figure) if figure is not None else "",
            }
        )
    return out


def explore_pages(env: jinja2.Environment, boards: dict[tuple[str, str], pd.DataFrame], models: dict, common: dict) -> dict[str, str]:
    return {
        "explore.md": env.get_template("explore.md.j2").render(
            **common, sections=board_sections(boards, models), level=LEVEL, min_frontier=MIN_FRONTIER
        )
    }
