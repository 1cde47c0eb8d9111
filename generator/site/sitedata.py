"""What the pages are made from: ``SiteData``, gathered by ``build.gather`` and rendered by
``render.render_site``, and each round's ``RoundInfo``."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import pandas as pd

from ..models import ModelMeta
from ..oracle.sets import OracleSet
from .questions import QuestionInfo
from .rounds import RoundStatus
from .seal_rows import SealIndex

GENERATED = "generated"  # under site_src/docs: every file `prescient build` writes


@dataclass(frozen=True)
class RoundInfo:
    due: str  # YYYY-MM-DD
    questions: pd.DataFrame
    participants: tuple[str, ...]
    status: RoundStatus | None = None  # where the round stands at as_of (None: not computed)
    resolutions: pd.DataFrame | None = None  # rounds.resolutions: one row per unit, in question-set order
    board: pd.DataFrame | None = None  # the round's own board once it is closed and something scored


@dataclass(frozen=True)
class SiteData:
    title: str
    as_of: datetime
    methodology_version: str
    board: pd.DataFrame  # the first board's overall view (model pages, models index)
    history: pd.DataFrame
    models: dict[str, ModelMeta]
    model_scores: dict[str, pd.DataFrame]
    rounds: list[RoundInfo] = field(default_factory=list)
    questions: list[QuestionInfo] = field(default_factory=list)
    downloads: dict[str, bytes] = field(default_factory=dict)  # the site's own copies: path under generated/ -> bytes
    offered: dict[str, str] = field(default_factory=dict)  # every download: path under generated/ -> path in the repository
    repo_url: str = ""  # hub.toml's [hub] repo_url: downloads link to the repository's raw files when set
    round_files: dict[str, bytes] = field(default_factory=dict)  # each open round's files as committed: "<due>/<name>" -> bytes
    boards: dict[tuple[str, str], pd.DataFrame] = field(default_factory=dict)  # (board, view) -> board
    changes: list = field(default_factory=list)  # leaderboard.diff.NightChanges, newest first
    corrections: pd.DataFrame = field(default_factory=pd.DataFrame)  # audit.corrections.COLUMNS
    decisions: pd.DataFrame = field(default_factory=pd.DataFrame)  # schemas.MAINTAINER_ACTIONS, newest first
    arena: pd.DataFrame = field(default_factory=pd.DataFrame)  # arena.portfolio.TABLE
    arena_curves: pd.DataFrame = field(default_factory=pd.DataFrame)  # arena.portfolio.CURVE
    arena_brier: pd.DataFrame = field(default_factory=pd.DataFrame)  # arena.portfolio.BRIER
    data_commit: str = ""  # the last commit that changed data/ when the site was built ("": not a git work tree)
    data_uncommitted: bool = False  # data/ then held changes not committed: the pages show more than that commit
    arena_decisions: pd.DataFrame = field(default_factory=pd.DataFrame)  # arena.decisions.DECISIONS
    oracle_months: pd.DataFrame = field(default_factory=pd.DataFrame)  # oracle.temporal view, by model
    oracle_board: pd.DataFrame = field(default_factory=pd.DataFrame)  # oracle.board.BOARD_COLUMNS
    board_history: pd.DataFrame = field(default_factory=pd.DataFrame)  # HISTORY rows of every board
    round_age_days: int | None = None  # a round enters the boards this many days after its due date
    settings: Any = None  # config.Settings: the Methodology page's "This hub's settings" (None: not shown)
    oracle_sets: list[OracleSet] = field(default_factory=list)  # the Oracle pages, one per set
    seals: SealIndex = field(default_factory=SealIndex)  # the round and model pages' seals (site.seal_rows)
    replay: bool = False  # the hub replays a simulated season (rounds.is_replay): its clock is as_of, not the reader's
