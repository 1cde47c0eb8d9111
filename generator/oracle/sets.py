"""What the site shows of each oracle set, read from the hub at a time: its questions, what the
question maker wrote of them (filter scores, maker), their articles (the news ledger's current
rows), its board rows and its view by resolution month, true/false and multiple choice apart."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

import pandas as pd

from ..store import readers
from ..store.hub import Hub
from ..timeutil import format_ts
from .importer import current
from .ledgers import current_news
from .temporal import temporal_view


@dataclass(frozen=True)
class OracleSet:
    name: str
    questions: pd.DataFrame  # current versions (schemas.ORACLE_QUESTIONS)
    generated: pd.DataFrame = field(default_factory=pd.DataFrame)  # schemas.ORACLE_GENERATED rows of the set
    articles: pd.DataFrame = field(default_factory=pd.DataFrame)  # news ledger rows (current versions) of its articles
    board: pd.DataFrame = field(default_factory=pd.DataFrame)  # oracle.board rows of the set
    months: pd.DataFrame = field(default_factory=pd.DataFrame)  # temporal view by (model, kind)

    @property
    def makers(self) -> list[str]:
        return sorted(set(self.generated["maker"].astype(str))) if len(self.generated) else []


def oracle_sets(hub: Hub, as_of: datetime, scores: pd.DataFrame, board: pd.DataFrame, cutoffs: dict[str, str]) -> list[OracleSet]:
    """Every oracle set of the hub as recorded at ``as_of``; ``scores`` and ``board``: ``board.oracle_scores``
    and ``board.oracle_board`` of the same time."""
    stamp, out = format_ts(as_of), []
    layout = hub.layout
    news = current_news(readers.load_news(hub), stamp) if layout.news_files() else pd.DataFrame(columns=["url"])
    for name in layout.oracle_sets():
        questions = current(readers.load_oracle_questions(hub, name), stamp)
        generated = readers.load_oracle_generated(hub, name)
        mine = scores[scores["set"] == name] if len(scores) else scores
        out.append(
            OracleSet(
                name,
                questions,
                generated[generated["recorded_at"] <= stamp],
                news[news["url"].isin(questions["url"])],
                board[board["set"] == name] if len(board) else board,
                temporal_view(mine, cutoffs, by=("model", "kind")) if len(mine) else pd.DataFrame(),
            )
        )
    return out
