"""Small helpers over the oracle stage's ledgers, kept apart from the modules that fetch and make
(so that reading them, as the site does, loads no feed parser and no scikit-learn)."""

from __future__ import annotations

import pandas as pd

from ..config import OracleSettings, Settings
from ..errors import ConfigError
from ..schemas import Table
from ..store.csvio import as_text, coerce


def oracle_settings(settings: Settings) -> OracleSettings:
    """The hub's [oracle] settings; ConfigError when the stage is off (no [oracle] table)."""
    if settings.oracle is None:
        raise ConfigError(
            f"{settings.root / 'data/hub.toml'}: no [oracle] table, so the oracle's news stage is off; "
            "add one (feeds, the question set, the maker: see the Methodology page) to turn it on"
        )
    return settings.oracle


def typed(rows: list[dict], table: Table) -> pd.DataFrame:
    """Rows built in Python (text cells) as the typed frame ``read_table`` would give."""
    return coerce(as_text(pd.DataFrame(rows, columns=list(table.names)), table), table)


def current_news(news: pd.DataFrame, as_of: str | None = None) -> pd.DataFrame:
    """Each article's latest version recorded at or before ``as_of`` (every row when None): the
    intake's row, or a later one with its summary, by address."""
    rows = news if as_of is None else news[news["recorded_at"] <= as_of]
    ordered = rows.sort_values(["recorded_at", "summarized_by", "url"], kind="mergesort", na_position="first")
    return ordered.drop_duplicates("url", keep="last").reset_index(drop=True)
