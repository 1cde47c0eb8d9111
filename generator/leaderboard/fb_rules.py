"""ForecastBench's rules that decide which rows and units a board holds . Pure.

- ``within_release_window``: FB's estimation sample takes an LLM it ran only on rounds due less than
  ``RELEASE_WINDOW_DAYS`` after the model's release (its ``model_age_at_due_date`` rule);
- ``missing_at_due``: on a crowd-difficulty board, FB drops a market whose crowd value at the due date
  is missing from every row (the ``missing_crowd = "drop"`` rule);
- orphan units (no estimation-sample forecast, so no identified difficulty; under the crowd's market
  rule a market too, whose crowd difficulty no FB board would use): FB refuses such a board;
  Prescient scores them at the average difficulty and says so, with the stable code
  ``orphan-units`` (``orphan_note``, ``orphan_text``, ``orphan_problem``);
- ``provisional_models``: the stability rule, a model shown without a rank until it has enough
  resolved units of its own and its first round is old enough;
- ``public_p``: FB's "Forecaster > Public?" p-value, against a second reference model.
"""

from __future__ import annotations

from datetime import datetime, timedelta

import numpy as np
import pandas as pd

from ..codes import reported
from ..errors import Problem
from ..models import ModelMeta
from ..timeutil import format_date
from ..vocabulary import MARKET
from .bootstrap import BootstrapResult
from .crowd import CROWD_AT_DUE
from .fixed_effects import brier_index
from .panel import sorted_codes
from .stats import one_sided_p

RELEASE_WINDOW_DAYS = 365  # FB: an LLM it ran enters the estimation sample on rounds due this soon after its release
_NEVER = "9999-12-31"


def within_release_window(rounds: np.ndarray, names: np.ndarray, model: np.ndarray, models: dict[str, ModelMeta]) -> np.ndarray:
    """Per row (``rounds``, the row's model code ``model`` among ``names``): False for an LLM that
    ForecastBench ran (``ran_by: forecastbench``) on a round due ``RELEASE_WINDOW_DAYS`` or more after
    its ``release_date`` (FB's ``model_age_at_due_date`` rule); True otherwise (unknown dates too)."""
    limits = np.full(len(names), _NEVER, dtype=object)
    for i, name in enumerate(names):
        meta = models.get(name)
        if meta is not None and meta.ran_by == "forecastbench" and meta.kind == "llm" and _is_date(meta.release_date):
            limits[i] = format_date(datetime.fromisoformat(meta.release_date[:10]) + timedelta(days=RELEASE_WINDOW_DAYS))
    if (limits == _NEVER).all():
        return np.ones(len(model), bool)
    return np.array([str(r)[:10] for r in rounds], dtype=object) < limits[model]


def _is_date(text: str) -> bool:
    try:
        datetime.fromisoformat(text[:10])
    except ValueError:
        return False
    return len(text) >= 10


def missing_at_due(units: pd.DataFrame, crowd: pd.DataFrame | None) -> np.ndarray:
    """Per unit: a market without the crowd's value at its round's due time, in a round whose crowd
    values at the due time are known for other markets (a hub's own rounds); a round known only by
    its freeze values (an imported one) keeps them."""
    market = (units["kind"] == MARKET).to_numpy()
    if crowd is None or crowd.empty or "at" not in crowd:
        return np.zeros(len(units), bool)
    at_due = crowd[crowd["at"] == CROWD_AT_DUE]
    known = set(zip(at_due["round"], at_due["question_id"], strict=True))
    rounds = set(at_due["round"])
    keys = zip(units["round"].astype(str).str[:10], units["question_id"], strict=True)
    return market & np.array([r in rounds and (r, q) not in known for r, q in keys], dtype=bool)


def orphan_note(units: pd.DataFrame, orphan: np.ndarray) -> dict:
    """``attrs["orphans"]``: how many units no estimation-sample forecaster answered, of each type, and
    their rounds (JSON-ready: the site keeps it with the board)."""
    market = (units["kind"].to_numpy() == MARKET) & orphan
    return {
        "units": int(orphan.sum()),
        "dataset": int((orphan & ~market).sum()),
        "market": int(market.sum()),
        "rounds": sorted({str(r)[:10] for r in units["round"].to_numpy()[orphan]}),
    }


def orphan_text(orphans: dict, shown: int = 6) -> str:
    """The board's orphan units (``orphan_note``) in one sentence, the first ``shown`` rounds named."""
    rounds = orphans["rounds"]
    named = ", ".join(rounds[:shown]) + (f" and {len(rounds) - shown} more" if len(rounds) > shown else "")
    return (
        f"{orphans['units']:,} unit(s) ({orphans['dataset']:,} dataset, {orphans['market']:,} market) in "
        f"{len(rounds)} round(s) ({named}) have no forecast from the estimation sample, so their difficulty is "
        "not identified (a market's crowd difficulty is not used either: no ForecastBench board holds it): they "
        "are scored as units of average difficulty (each counts at its raw Brier; column n_orphan counts them "
        "per model; no other model's score moves), where ForecastBench refuses the board"
    )


def orphan_problem(orphans: dict, board: str) -> Problem:
    """The warning ``orphan-units`` of a board with orphan units (``prescient leaderboard``, the import)."""
    return reported("orphan-units", "data/scores", None, "n_orphan", f"{board} board: {orphan_text(orphans)}")


def refuse_orphans(orphans: dict) -> ValueError:
    """FB's behaviour (``orphan_units="raise"``): the error naming the count and the rounds."""
    return ValueError(
        f"{orphans['units']:,} unit(s) in {len(orphans['rounds'])} round(s) ("
        f"{', '.join(orphans['rounds'])}) have no estimation-sample forecast, so their difficulty is not "
        "identified (ForecastBench refuses such a board); orphan_units='average' scores them at the "
        "average difficulty"
    )


def public_p(names: np.ndarray, boot: BootstrapResult | None, score: str, public: str | None) -> np.ndarray:
    """FB's "Forecaster > Public?" p-value of every model against the model ``public`` (its exact id):
    the share of replicates in which the public scores at least as well, taken from 1 (``stats.one_sided_p``,
    ``model_better``); NaN without a bootstrap, or when ``public`` is not on the board."""
    hits = np.flatnonzero(names == public) if public else np.zeros(0, np.int64)
    if boot is None or not hits.size:
        return np.full(len(names), np.nan)
    return one_sided_p(brier_index(boot.scores(score)), int(hits[0]), "model_better")


def provisional_models(rows: pd.DataFrame, as_of: datetime, min_resolved: int, min_age_days: int) -> pd.Series:
    """The stability rule, per model (index): True until the model has at least ``min_resolved``
    resolved units it forecast itself (imputed rows do not count) and its first round on the board
    is due at least ``min_age_days`` days before ``as_of``."""
    names, model = sorted_codes(rows["model"].to_numpy())
    return pd.Series(provisional_codes(model, len(names), rows, as_of, min_resolved, min_age_days), index=pd.Index(names, name="model"))


def provisional_codes(
    model: np.ndarray,
    n_models: int,
    rows: pd.DataFrame,
    as_of: datetime,
    min_resolved: int,
    min_age_days: int,
    round_codes: tuple[np.ndarray, np.ndarray] | None = None,
) -> np.ndarray:
    """``provisional_models`` per model code (``model``: each row's code among ``n_models``), from
    integer counts and the rounds' sorted codes (``round_codes``, if known) instead of a groupby per board."""
    own = np.bincount(model, weights=rows["imputed"].to_numpy().astype(np.int64) == 0, minlength=n_models)
    rounds, code = round_codes if round_codes is not None else sorted_codes(rows["round"].to_numpy())
    first = np.full(n_models, len(rounds))
    np.minimum.at(first, model, code)
    cutoff = format_date(as_of - timedelta(days=min_age_days))
    old_enough = np.array([str(r)[:10] <= cutoff for r in rounds[first]], dtype=bool)
    return ~((own >= min_resolved) & old_enough)
