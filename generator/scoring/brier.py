"""Per-forecast scores for one round. Pure.

Every resolved unit of the round (a market, or a dataset question × resolution date) is scored
for every forecaster that submitted a file. A unit the forecaster skipped is imputed at the
configured value (0.5, as ForecastBench does since 2025-09) and flagged ``imputed``.
Void and unresolved units are not scored, except under the ``market_proxy`` policy
(``scoring/market_proxy.py``), whose proxy-scored market rows carry ``proxy`` = 1.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..schemas import SCORES
from ..vocabulary import MARKET

_UNIT = ["question_id", "resolution_date"]
KEY_COLUMNS = (*_UNIT, "kind")  # a RoundForecasts' keys: the question set's units and their kind


def brier(probability, outcome):
    """(p − o)²: 0 is perfect, 0.25 is a coin flip, 1 is certain and wrong."""
    return (probability - outcome) ** 2


def resolved_units(questions: pd.DataFrame, resolutions: pd.DataFrame) -> pd.DataFrame:
    """The units to score; ``proxy`` (1, or NaN) carries the market_proxy flag of ``resolve_round``."""
    done = resolutions[resolutions["status"] == "resolved"].reindex(columns=[*_UNIT, "outcome", "resolved_at", "proxy"])
    at = {unit: i for i, unit in enumerate(zip(done["question_id"], done["resolution_date"], strict=True))}
    if len(at) < len(done):  # a unit resolved twice: the inner merge's row per pair
        units = questions[[*_UNIT, "source", "kind", "category"]].merge(done, on=_UNIT, how="inner")
        return units[[*_UNIT, "source", "kind", "category", "outcome", "resolved_at", "proxy"]]
    # that merge's rows (the questions' order) by a dict: a merge per round scored cost more than scoring it
    pairs = [(i, at[unit]) for i, unit in enumerate(zip(questions["question_id"], questions["resolution_date"], strict=True)) if unit in at]
    asked, found = np.array([i for i, _ in pairs], dtype=np.int64), np.array([j for _, j in pairs], dtype=np.int64)
    columns = {c: questions[c].array.take(asked) for c in [*_UNIT, "source", "kind", "category"]}
    columns.update({c: done[c].array.take(found) for c in ["outcome", "resolved_at", "proxy"]})
    return pd.DataFrame(columns)


def set_name(name: object) -> str:
    """A question set's name as compared: ``2024-07-21-human.json`` and ``2024-07-21-human`` match."""
    return str(name or "").strip().removesuffix(".json")


def answered_sets(forecasts: dict[str, pd.DataFrame], sets: pd.DataFrame | None) -> dict[str, str]:
    """Per model, the question set (of ``sets``, ``schemas.QUESTION_SETS``) its file declares in
    ``attrs["question_set"]``; a model declaring none, or a set the round does not have, is absent
    (scored on the whole round)."""
    return _answered(declared_sets(forecasts), sets)


def declared_sets(forecasts: dict[str, pd.DataFrame]) -> dict[str, str]:
    """Per model, the name of the question set its file declares ("" for none)."""
    return {m: set_name(f.attrs.get("question_set")) for m, f in forecasts.items()}


def _answered(declared: dict[str, str], sets: pd.DataFrame | None) -> dict[str, str]:
    names = set(sets["question_set"].map(set_name)) if sets is not None and len(sets) else set()
    return {m: name for m, name in declared.items() if name in names}


def score_round(
    round_label: str, units: pd.DataFrame, forecasts: dict[str, pd.DataFrame], impute_value: float, sets: pd.DataFrame | None = None
) -> pd.DataFrame:
    """One row per (model, resolved unit) of the round due on ``round_label``, in the SCORES schema.

    Rows run unit by unit (the units' order), models sorted within a unit. Every column of
    ``units`` that SCORES declares is carried through. A model's repeated (question_id,
    resolution_date) rows count once (the first); a missing or NaN probability is imputed. A model
    whose file declares one of the round's question sets (``answered_sets``) is scored, and imputed,
    on that set's units only.
    """
    if not forecasts or units.empty:
        return pd.DataFrame(columns=list(SCORES.names))
    return _in_sets(_score_models(round_label, units, forecasts, impute_value), answered_sets(forecasts, sets), sets)


@dataclass(frozen=True)
class RoundForecasts:
    """What ``score_round`` reads of a round's forecast files, for every unit of its question set at once:
    per unit of ``keys`` (its question set's question_id, resolution_date and kind, in the set's order)
    and per model (sorted), the probability the model's first row for it gives (NaN: no row, or an empty
    probability), and the question set each model's file declares (``declared_sets``). A round whose
    files have not changed is scored again from it (``score_forecasts``) without reading them: the
    nightly keeps it in its disk cache (``pipeline.incremental``)."""

    models: tuple[str, ...]
    keys: pd.DataFrame
    prob: np.ndarray  # (len(models), len(keys))
    declared: dict[str, str]


def round_forecasts(questions: pd.DataFrame, forecasts: dict[str, pd.DataFrame]) -> RoundForecasts:
    """``RoundForecasts`` of a round's question set (ROUND_QUESTIONS) and forecast files (by model)."""
    models = sorted(forecasts)
    keys = questions[list(KEY_COLUMNS)].reset_index(drop=True)
    if not models or keys.empty:
        return RoundForecasts(tuple(models), keys, np.full((len(models), len(keys)), np.nan), declared_sets(forecasts))
    prob, unit_key = _probabilities(keys, [forecasts[m] for m in models])
    return RoundForecasts(tuple(models), keys, prob[:, unit_key], declared_sets(forecasts))


def score_forecasts(
    round_label: str, units: pd.DataFrame, table: RoundForecasts, impute_value: float, sets: pd.DataFrame | None = None
) -> pd.DataFrame:
    """``score_round(round_label, units, forecasts, impute_value, sets)`` from ``round_forecasts(questions,
    forecasts)``, ``units`` being rows of those questions (``resolved_units``): the same frame. A unit's
    probabilities are those of its (question_id, resolution_date) among the question set's rows, as
    ``score_round``'s join finds them (a market's forecast rows undated either way: the join of one
    round's market questions leaves every other unit's rows where they are)."""
    if not table.models or units.empty:
        return pd.DataFrame(columns=list(SCORES.names))
    at: dict[tuple, int] = {}
    for i, key in enumerate(zip(table.keys["question_id"], table.keys["resolution_date"], strict=True)):
        at.setdefault(key, i)
    columns = np.array([at[key] for key in zip(units["question_id"], units["resolution_date"], strict=True)], dtype=np.int64)
    units = units.reset_index(drop=True)
    scored = _scored(round_label, units, list(table.models), table.prob[:, columns].T.ravel(), impute_value)
    return _in_sets(scored, _answered(table.declared, sets), sets)


def _in_sets(scored: pd.DataFrame, answered: dict[str, str], sets: pd.DataFrame | None) -> pd.DataFrame:
    """``scored`` less the rows of a model that declared a question set (``answered``) on units not in it."""
    if not answered or sets is None:
        return scored
    member = sets.assign(question_set=sets["question_set"].map(set_name))
    keys = pd.MultiIndex.from_frame(scored[["model", *_UNIT]].assign(model=scored["model"].map(lambda m: answered.get(m, "")).astype(str)))
    inside = keys.isin(pd.MultiIndex.from_frame(member[["question_set", *_UNIT]]))
    whole = ~scored["model"].isin(list(answered)).to_numpy()
    return scored[whole | inside].reset_index(drop=True)


def _score_models(round_label: str, units: pd.DataFrame, forecasts: dict[str, pd.DataFrame], impute_value: float) -> pd.DataFrame:
    models = sorted(forecasts)
    units = units.reset_index(drop=True)
    prob, unit_key = _probabilities(units, [forecasts[m] for m in models])
    return _scored(round_label, units, models, prob[:, unit_key].T.ravel(), impute_value)  # unit-major: unit j, then every model


def _probabilities(units: pd.DataFrame, given: list[pd.DataFrame]) -> tuple[np.ndarray, np.ndarray]:
    """Per model of ``given`` and per coded unit, the probability of the model's first row for it (NaN:
    none), and each unit's code."""
    unit_key, given_key = _unit_codes(units, given)
    prob = np.full((len(given), int(max(unit_key.max(), given_key.max(initial=-1))) + 1), np.nan)
    model = np.repeat(np.arange(len(given)), [len(f) for f in given])
    values = np.concatenate([f["probability"].to_numpy(dtype=float) for f in given])
    _, first = np.unique(model * prob.shape[1] + given_key, return_index=True)  # the first row of a repeat
    prob[model[first], given_key[first]] = values[first]
    return prob, unit_key


def _scored(round_label: str, units: pd.DataFrame, models: list[str], p: np.ndarray, impute_value: float) -> pd.DataFrame:
    """The SCORES frame of ``units`` (indexed from 0) × ``models`` given each row's probability ``p``,
    unit-major (NaN: imputed)."""
    n_units, n_models = len(units), len(models)
    rows = np.repeat(np.arange(n_units), n_models)
    probability = np.where(np.isnan(p), float(impute_value), p)
    # one frame made from its columns (each unit's columns taken once per model): not a frame
    # changed column by column, whose per-call cost on a round's small frame was most of scoring it
    columns = {c: units[c].array.take(rows) for c in units.columns}
    columns.update(
        round=pd.array(np.full(len(rows), round_label, dtype=object), dtype=str),
        model=pd.array(np.tile(np.array(models, dtype=object), n_units), dtype=str),
        imputed=np.isnan(p).astype("int64"),
        probability=probability,
        brier=brier(probability, units["outcome"].to_numpy(dtype=float)[rows]),
    )
    return pd.DataFrame({c: columns[c] for c in SCORES.names})


def _unit_codes(units: pd.DataFrame, given: list[pd.DataFrame]) -> tuple[np.ndarray, np.ndarray]:
    """Integer codes of (question_id, resolution_date) shared by the units and all forecast rows."""
    joined = {col: np.concatenate([units[col].to_numpy(dtype=object), *(f[col].to_numpy(dtype=object) for f in given)]) for col in _UNIT}
    ids, dates = joined["question_id"], _markets_undated(joined["question_id"], joined["resolution_date"], units)
    codes = [pd.factorize(column, use_na_sentinel=False)[0].astype(np.int64) for column in (ids, dates)]
    pair = codes[0] * (int(codes[1].max(initial=0)) + 1) + codes[1]
    dense = pd.factorize(pair)[0]
    return dense[: len(units)], dense[len(units) :]


def _markets_undated(ids: np.ndarray, dates: np.ndarray, units: pd.DataFrame) -> np.ndarray:
    """``dates`` (the units' and then every forecast row's) with each forecast market row's resolution
    date ignored, as ForecastBench ignores it: made "" (a missing one stays missing). Done once on the
    joined rows, not per model file: pandas' per-call cost on small frames was most of a round's scoring."""
    n = len(units)
    markets = set(units.loc[units["kind"] == MARKET, "question_id"])
    rows = pd.Series(dates[n:], dtype=object)
    dated = pd.Series(ids[n:], dtype=object).isin(markets).to_numpy() & (rows.fillna("").to_numpy(dtype=str) != "")
    return np.concatenate([dates[:n], np.where(dated, "", dates[n:])]) if dated.any() else dates
