"""ForecastBench's leaderboard from the SCORES frame: difficulty-adjusted Brier with bootstrap CIs.

Rows: one per scored unit (round, question_id, resolution_date) per model; a unit is unique across
rounds (the same market asked in two rounds is two units, as in FB). Steps, with the options in
``FBOptions``:

1. Rows. Only units resolved at or before ``as_of``, of models not ``excluded`` by the maintainers then. FB's 50-day rule keeps rounds due at or
   before ``as_of - min_round_age_days``; FB's per-round filter keeps rounds with at least
   ``min_dataset_rows`` resolved dataset units and ``min_market_questions`` resolved markets. A
   model's round whose share of imputed forecasts exceeds ``max_imputed_share`` is left out, never
   silently: ``unranked_rounds`` lists each with its reason, and the board carries that list in
   ``attrs["unranked"]``. Models named in ``imputation_exempt`` (ids, or teams: the part before the
   dot) are exempt, as FB exempts its own files.
   The baseline board keeps only models whose metadata says they saw no crowd value; the
   preliminary board (FB's) keeps dataset units only, with no 50-day rule, no market minimum and no
   stability age (``board_rules``).
2. Estimation sample (which rows fit the fixed effects), from model metadata: kind ``llm``, ``human`` or ``team``; never ``baseline`` (Always-x,
   Naive, Imputed, random) or ``synthetic``, never a crowd aggregate of submitted forecasts (model ids ``*.crowd-*``; FB excludes its ensembles
   too), never a model whose ``ran_by`` is ``team`` (FB: no external submission); an LLM that ForecastBench ran (``ran_by: forecastbench``) only
   on rounds due less than 365 days after its ``release_date`` (FB's rule). If no model qualifies, every model enters (a board of baselines alone
   then shows raw mean Brier, which is what FB's rescaling gives them). Units without an estimation row, and markets with a crowd value but none
   (``panel.orphan_units``), are kept as units of average difficulty, each at its raw Brier (``orphan_units = "average"``; FB refuses such a
   board; ``fb_rules`` says why); ``attrs["orphans"]`` and ``n_orphan`` count them.
3. Per type, ``fit`` gives D (rescaled so a forecaster covering every unit scores its raw Brier); overall = (D_dataset + D_market) / 2; Brier
   Index = 100 (1 - sqrt(D)). With ``market_difficulty="crowd"`` the market question effects are fixed at the crowd's Brier (FB's tournament
   board; ``crowd`` gives the crowd's probability per round and market, ``crowd.crowd_from_rounds``). A market with no crowd value keeps its
   estimated difficulty (a first fit without fixed market effects; not identified either, an orphan: the mean crowd Brier of the other markets),
   or with ``missing_crowd="drop"`` (FB) leaves the board when its round knows other markets' values at the due time; ``attrs["crowd_values"]``
   counts the units of each kind (``crowd.crowd_counts``).
4. ``bootstrap`` (strata (round, source), unit resampling as FB) and ``summarize``: 95% CIs, one-sided p-values against ``reference`` (a model id,
   matched exactly; not on this board: no reference, every p_label says so; not configured: the top model) with FB's labels, % ranked #1 and rank
   intervals, on the score the board ranks by (``FBOptions.score``: overall by default; a view of one question type ranks by that type's score,
   see ``ranking_score``); % in the top 5% (``pct_top5``) and, against ``public_reference``, FB's "Forecaster > Public?" p-value (``p_public``).
5. Stability rule (``fb_rules.provisional_models``): a model with fewer than ``min_resolved`` resolved units
   it forecast itself, or whose first round on the board is due less than ``min_age_days`` before
   ``as_of``, is shown with ``provisional = 1`` and no rank; rank statistics (% #1, rank
   intervals) are computed among the other models. The defaults (0, 0) make nobody provisional.
6. Secondary columns (``secondary.secondary_columns`` on the same rows): log score, Peer score,
   BSS against ``naive_model``, accuracy; a board made for the nightly's history rows only
   (``headline_only``) leaves them empty, with no Explore notes, as no history row holds them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

import numpy as np
import pandas as pd
from pandas.api.types import is_string_dtype

from ..forecasters.baselines import naive_model
from ..models import DEFAULT_OWN, ModelMeta
from ..timeutil import format_date, format_ts
from ..vocabulary import BASELINE, BOARDS, DATASET, FB_MIN_DATASET_ROWS, FB_MIN_MARKET_QUESTIONS, MARKET, PRELIMINARY, REPLICATES, TOURNAMENT
from .board_frame import COLUMNS, board_frame, board_secondary
from .bootstrap import bootstrap
from .crowd import crowd_brier, crowd_counts
from .explore import board_parity
from .fb_rules import missing_at_due, orphan_note, provisional_codes, public_p, refuse_orphans, within_release_window
from .fixed_effects import fit
from .imputation import UNRANKED_COLUMNS, exempt_groups, imputed_shares, unranked_groups
from .panel import build_panel, sorted_codes
from .question_effects import DIFFICULTY, question_effects
from .row_codes import RowCodes, first_appearance_codes
from .stats import format_p, summarize

TYPES = ("dataset", "market")
ESTIMATION_KINDS = ("llm", "human", "team")
_UNIT = ["round", "question_id", "resolution_date"]
NO_REFERENCE = "no reference"  # p_label of every row when the configured reference is not on the board


@dataclass(frozen=True)
class FBOptions:
    board: str = TOURNAMENT  # or BASELINE (models that saw no crowd value), PRELIMINARY (dataset units)
    replicates: int = REPLICATES  # 0: point estimates and ranks only (the bootstrap's statistics NaN, p-values blank)
    min_round_age_days: int | None = 50
    min_dataset_rows: int = 0  # FB: FB_MIN_DATASET_ROWS
    min_market_questions: int = 0  # FB: FB_MIN_MARKET_QUESTIONS
    max_imputed_share: float | None = 0.05
    market_difficulty: str = "estimated"  # or "crowd"
    reference: str | None = None
    public_reference: str | None = None  # FB's second comparison (the public's median): p_public
    orphan_units: str = "average"  # units with no estimation row: "average" difficulty, "drop", "raise" (FB)
    missing_crowd: str = "estimate"  # a crowd board's market with no crowd value: "estimate" or "drop" (FB)
    naive_model: str | None = naive_model()  # the BSS reference: the Naive baseline of the hub (``board_options``)
    own: str = DEFAULT_OWN  # hub.toml [hub] own_prefix: the hub's own rows are named apart (``rows.distinct_names``)
    # the nightly's history rows (``recompute.headline_rows``): what HISTORY records only, the secondary
    # columns left empty and no Explore notes (``difficulty``, parity), which no history row holds
    headline_only: bool = False
    min_resolved: int = 0  # stability rule; hub.toml [scoring] min_resolved
    min_age_days: int = 0  # stability rule; hub.toml [scoring] min_age_days
    score: str = "overall"  # ranked by: overall, dataset, market, or "auto" (see ``ranking_score``)
    imputation_exempt: tuple[str, ...] = ()  # hub.toml [scoring] imputation_exempt


FB_TOURNAMENT = FBOptions(min_dataset_rows=FB_MIN_DATASET_ROWS, min_market_questions=FB_MIN_MARKET_QUESTIONS)


def board_options(scoring, leaderboard, own: str = DEFAULT_OWN, **overrides) -> FBOptions:
    """FBOptions from the hub's ``[scoring]`` and ``[leaderboard]`` settings; ``overrides`` that are
    None are ignored (a command-line option left unset); ``own``: ``[hub] own_prefix``. ``board`` defaults to the first configured;
    what the board fixes whatever the hub says comes last (``board_rules``)."""
    base = dict(
        board=leaderboard.boards[0],
        replicates=leaderboard.replicates,
        min_round_age_days=scoring.min_age_days,
        max_imputed_share=scoring.max_imputed_share,
        market_difficulty=leaderboard.market_difficulty,
        reference=leaderboard.reference or None,
        min_resolved=scoring.min_resolved,
        min_age_days=scoring.min_age_days,
        imputation_exempt=tuple(getattr(scoring, "imputation_exempt", ())),
        missing_crowd=leaderboard.missing_crowd,
        public_reference=leaderboard.public_reference or None,
        min_dataset_rows=leaderboard.min_dataset_rows,
        min_market_questions=leaderboard.min_market_questions,
        orphan_units=getattr(leaderboard, "orphan_units", FBOptions.orphan_units),
        own=own,
        naive_model=naive_model(own),
    )  # a hub's choice, where it has the key
    return board_rules(FBOptions(**{**base, **{k: v for k, v in overrides.items() if v is not None}}))


def board_rules(options: FBOptions) -> FBOptions:
    """What each board fixes, as ForecastBench's boards do: only the tournament board takes market
    difficulty from the crowd (the baseline board estimates it); the preliminary board
    (``driver_preliminary``) has no 50-day rule, no market minimum and no stability age (a new model
    is ranked once its rows resolve) and ranks by the dataset score."""
    if options.board == PRELIMINARY:
        return replace(options, min_round_age_days=None, min_market_questions=0, min_age_days=0, market_difficulty="estimated", score=DATASET)
    if options.board != TOURNAMENT and options.market_difficulty != "estimated":
        return replace(options, market_difficulty="estimated")
    return options


SCORES = ("overall", *TYPES)
AUTO = "auto"


def ranking_score(wanted: str, n_per_type) -> str:
    """The score a board ranks by: ``wanted`` unless it is ``"auto"``; then the one question type
    with scored units when only one has any (the overall score, the mean over both types, is
    undefined then), else overall. ``n_per_type``: units scored per type, in ``TYPES`` order."""
    if wanted != AUTO:
        if wanted not in SCORES:
            raise ValueError(f"unknown score {wanted!r}; expected one of {', '.join(SCORES)} or {AUTO}")
        return wanted
    present = [t for t, n in zip(TYPES, n_per_type, strict=True) if n > 0]
    return present[0] if len(present) == 1 else "overall"


def is_estimation_model(model: str, meta: ModelMeta | None) -> bool:
    """The metadata rule of step 2 in the module docstring."""
    return meta is not None and meta.kind in ESTIMATION_KINDS and meta.ran_by != "team" and not model.split(".", 1)[-1].startswith("crowd-")


def _eligible_mask(scores: pd.DataFrame, as_of: datetime, options: FBOptions, codes: RowCodes | None = None) -> np.ndarray:
    """Step 1 up to the imputation rule, as a mask over ``scores``: resolved by ``as_of``, old enough,
    in a passing round."""
    keep = np.array(timely_mask(scores, as_of, options, codes), dtype=bool)  # a copy of our own, to narrow in place
    if not _no_minimum(options):
        keep &= scores["round"].isin(_rounds_passing(scores[keep], options)).to_numpy(dtype=bool)
    return keep


def timely_mask(scores: pd.DataFrame | Mapping[str, pd.Series], as_of: datetime, options: FBOptions, codes: RowCodes | None = None) -> np.ndarray:
    """The rows resolved by ``as_of``, in rounds at least ``min_round_age_days`` old (FB's 50-day rule).
    ``codes``: the rows' ``RowCodes``, if known: each distinct round of text is then compared once."""
    keep = scores["resolved_at"] <= format_ts(as_of)
    if options.min_round_age_days is not None:
        cutoff = format_date(as_of - timedelta(days=options.min_round_age_days))
        rounds = scores["round"]
        if codes is not None and is_string_dtype(rounds.dtype) and all(isinstance(r, str) for r in codes.rounds):
            keep &= np.array([r <= cutoff for r in codes.rounds], dtype=bool)[codes.round_]
        else:
            keep &= rounds <= cutoff
    return keep.to_numpy(dtype=bool)


@dataclass(frozen=True)
class Selection:
    """Step 1 up to the board's own filter: the rows every board of these options ranks on (``rows``:
    eligible and within the imputation rule) and what the imputation rule left off (``unranked``).
    Boards whose options have the same ``selection_key`` share one (``hub_boards.pair_boards``).
    ``codes``: the ``RowCodes`` of ``rows``, when ``select`` was given those of its scores."""

    rows: pd.DataFrame
    unranked: pd.DataFrame
    codes: RowCodes | None = None


def selection_key(options: FBOptions) -> tuple:
    """The options ``select`` reads: boards differing in anything else share one selection."""
    return (options.min_round_age_days, options.min_dataset_rows, options.min_market_questions, options.max_imputed_share, options.imputation_exempt)


def unranked_rounds(scores: pd.DataFrame, models: dict[str, ModelMeta], as_of: datetime, options: FBOptions) -> pd.DataFrame:
    """Every (model, round) the imputation rule leaves off the board, with its reason (``UNRANKED_COLUMNS``)."""
    return select(scores, models, as_of, options).unranked


def select(scores: pd.DataFrame, models: dict[str, ModelMeta], as_of: datetime, options: FBOptions, codes: RowCodes | None = None) -> Selection:
    """The ``Selection`` of ``scores`` at ``as_of`` (the board named in ``options`` plays no part);
    ``codes``: the ``RowCodes`` of ``scores`` (every board of a night codes one frame once). Each rule
    narrows one mask over ``scores`` and the rows are taken once: a frame taken per rule cost the
    nightly's boards a copy of the score rows each, in time and in memory."""
    keep = _eligible_mask(scores, as_of, options, codes)
    if out := [m for m, meta in models.items() if meta.excluded]:  # by the maintainers, as of the board's night
        keep &= ~scores["model"].isin(out).to_numpy(dtype=bool)
    codes = codes.take(keep) if codes is not None else None
    limit = options.max_imputed_share
    if limit is None or not keep.any():
        return Selection(scores[keep], pd.DataFrame(columns=UNRANKED_COLUMNS), codes)
    if codes is not None:
        ids = codes.model_codes(), codes.round_codes()
    else:
        rows = scores[keep]
        ids = sorted_codes(rows["model"].to_numpy()), sorted_codes(rows["round"].to_numpy())
    shares = imputed_shares(scores["imputed"].to_numpy()[keep], *ids)
    exempt = exempt_groups(shares, options.imputation_exempt)
    unranked = unranked_groups(shares, exempt, models, limit)
    within = ((shares.share <= limit) | exempt)[shares.group]
    if not within.all():
        keep[np.flatnonzero(keep)[~within]] = False
        codes = codes.take(within) if codes is not None else None
    return Selection(scores[keep], unranked, codes)


def _board_rows(
    rows: pd.DataFrame, models: dict[str, ModelMeta], options: FBOptions, codes: RowCodes | None = None
) -> tuple[pd.DataFrame, RowCodes | None]:
    """A selection's rows on the board ``options`` names (the baseline board: models that saw no
    crowd value), with their ``codes`` if given."""
    if options.board == BASELINE:
        if codes is not None:
            keep = np.array([_blind(m, models) for m in codes.models], dtype=bool)[codes.model]
            rows, codes = rows[keep], codes.take(keep)
        else:
            rows = rows[rows["model"].isin([m for m in rows["model"].unique() if _blind(m, models)])]
    elif options.board == PRELIMINARY:
        keep = (rows["kind"] == DATASET).to_numpy()
        rows, codes = rows[keep], codes.take(keep) if codes is not None else None
    elif options.board != TOURNAMENT:
        raise ValueError(f"unknown board {options.board!r}; expected {' or '.join(BOARDS)}")
    return rows.reset_index(drop=True), codes


def _blind(model: str, models: dict[str, ModelMeta]) -> bool:
    """The baseline board's rule: ``model``'s metadata says it saw no crowd value."""
    return model in models and not models[model].saw_crowd


def _no_minimum(options: FBOptions) -> bool:
    return options.min_dataset_rows <= 0 and options.min_market_questions <= 0


def _rounds_passing(rows: pd.DataFrame, options: FBOptions) -> list[str]:
    if _no_minimum(options):  # every round passes
        return list(rows["round"].unique())
    units = rows.drop_duplicates(_UNIT)
    counts = units.groupby(["round", "kind"]).size().unstack(fill_value=0)
    dataset = counts.drop(columns=MARKET, errors="ignore").sum(axis=1)
    market = counts[MARKET] if MARKET in counts else pd.Series(0, index=counts.index)
    ok = (dataset >= options.min_dataset_rows) & (market >= options.min_market_questions)
    return list(counts.index[ok])


def _panel_inputs(rows: pd.DataFrame, models: dict[str, ModelMeta], crowd: pd.DataFrame | None, options: FBOptions, codes: RowCodes | None = None):
    """Integer codes for ``build_panel``: models sorted by id, units in order of first appearance
    (from the rows' ``codes`` when given)."""
    names, model = codes.model_codes() if codes is not None else sorted_codes(rows["model"].to_numpy())
    unit, first = (codes.unit_codes() if codes is not None else None) or unit_codes(rows)
    units = rows.loc[first, ["round", "question_id", "resolution_date", "source", "kind", "outcome"]].reset_index(drop=True)
    unit_type = (units["kind"].to_numpy() == MARKET).astype(np.int64)
    stratum = first_appearance_codes(units, ["round", "source"])[0]
    flags = np.array([is_estimation_model(m, models.get(m)) for m in names])
    est = flags[model] & within_release_window(rows["round"].to_numpy(), names, model, models) if flags.any() else np.ones(len(rows), bool)
    if options.market_difficulty not in ("estimated", "crowd"):
        raise ValueError("market_difficulty must be 'estimated' or 'crowd'")
    b_fixed = crowd_brier(units, crowd) if options.market_difficulty == "crowd" else None
    return names, model, unit, est, unit_type, stratum, b_fixed, units


def unit_codes(rows: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Per row: the code of its (round, question_id, resolution_date) unit (``first_appearance_codes``)."""
    return first_appearance_codes(rows, _UNIT)


def _fill_estimated(panel_args: tuple, b_fixed: np.ndarray) -> np.ndarray:
    """``b_fixed`` with each market lacking a crowd value set to its estimated difficulty (a fit with
    free market effects); units whose difficulty is not identified either stay NaN (and are dropped)."""
    model, unit, brier, est, unit_type, stratum = panel_args
    missing = (unit_type == 1) & ~np.isfinite(b_fixed)
    if not missing.any():
        return b_fixed
    free = fit(build_panel(model, unit, brier, est, unit_type, stratum, type_names=TYPES, orphan_units="drop"))
    return np.where(missing, free.b, b_fixed)


def fb_board(
    scores: pd.DataFrame,
    models: dict[str, ModelMeta],
    as_of: datetime,
    rng: np.random.Generator,
    options: FBOptions = FBOptions(),
    crowd: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """The board (``COLUMNS``), best overall Brier Index first; empty when nothing is scored."""
    return selection_board(select(scores, models, as_of, options), models, as_of, rng, options, crowd)


def selection_board(
    selection: Selection,
    models: dict[str, ModelMeta],
    as_of: datetime,
    rng: np.random.Generator,
    options: FBOptions = FBOptions(),
    crowd: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """``fb_board`` from the ``select``-ion it makes (made with options of the same ``selection_key``)."""
    rows, codes = _board_rows(selection.rows, models, options, selection.codes)
    notes: dict = {"unranked": selection.unranked}
    if rows.empty:
        empty = pd.DataFrame(columns=COLUMNS)
        empty.attrs.update(notes, difficulty=question_effects(pd.DataFrame(columns=DIFFICULTY), np.zeros(0)))
        return empty
    names, model, unit, est, unit_type, stratum, b_fixed, units = _panel_inputs(rows, models, crowd, options, codes)
    brier = rows["brier"].to_numpy(dtype=float)
    if b_fixed is not None:
        missing = missing_at_due(units, crowd) if options.missing_crowd == "drop" else np.zeros(len(units), bool)
        if missing.any():  # FB: a market without the crowd's value at the due date leaves every row
            rows, codes = rows[~missing[unit]].reset_index(drop=True), codes.take(~missing[unit]) if codes is not None else None
            names, model, unit, est, unit_type, stratum, _, units = _panel_inputs(rows, models, None, options, codes)
            brier, b_fixed = rows["brier"].to_numpy(dtype=float), b_fixed[~missing]  # unit codes keep their order
        notes["crowd_values"] = crowd_counts(units, crowd, b_fixed)
        if missing.any():
            notes["crowd_values"]["missing_at_due"] = int(missing.sum())
        b_fixed = _fill_estimated((model, unit, brier, est, unit_type, stratum), b_fixed)
        lost = (unit_type == 1) & ~np.isfinite(b_fixed)  # markets whose difficulty nothing identifies
        if lost.any():  # orphans of a crowd board: the average difficulty of its other markets
            notes["crowd_values"].update(average=int(lost.sum()), estimated=notes["crowd_values"]["estimated"] - int(lost.sum()))
            known = (unit_type == 1) & np.isfinite(b_fixed)
            b_fixed = np.where(lost, b_fixed[known].mean(), b_fixed) if known.any() else None
    else:
        lost = np.zeros(len(units), bool)
    panel = build_panel(
        model,
        unit,
        brier,
        est,
        unit_type,
        stratum,
        b_fixed=b_fixed,
        type_names=TYPES,
        orphan_units="average" if options.orphan_units == "raise" else options.orphan_units,
    )
    orphan = lost | (panel.orphan if panel.orphan is not None else False)
    if orphan.any():
        notes["orphans"] = orphan_note(units, orphan)
        if options.orphan_units == "raise":
            raise refuse_orphans(notes["orphans"])
    point = fit(panel)
    boot = bootstrap(panel, options.replicates, rng) if options.replicates else None
    del panel  # its kernels' matrices, freed before the secondary columns (the boards' peak memory)
    score = ranking_score(options.score, np.nansum(point.n, axis=1))
    ref = _reference(names, point.overall if score == "overall" else point.D[TYPES.index(score)], options.reference)
    provisional = provisional_codes(
        model, len(names), rows, as_of, options.min_resolved, options.min_age_days, codes.round_codes() if codes is not None else None
    )
    summary = summarize(point, boot, reference=ref, score=score, rankable=~provisional)
    p_display, p_label = [format_p(p) for p in summary.p_value], list(summary.p_label)
    if not options.replicates:  # no bootstrap, no p-value: nothing to display or label
        p_display = p_label = [""] * len(names)
    elif ref is None and options.reference is not None:
        p_label = [NO_REFERENCE] * len(names)
    extra = {
        "pct_top5": summary.pct_top5,
        "p_public": public_p(names, boot, score, options.public_reference),
        "n_orphan": np.bincount(model, weights=orphan[unit], minlength=len(names)).astype(np.int64),
    }
    out = board_frame(
        names,
        models,
        point,
        summary,
        np.bincount(model[est], minlength=len(names)) > 0,
        score,
        board_secondary(rows, names, model, unit if codes is not None and codes.text_units else None, options.naive_model, options.headline_only),
        provisional,
        (p_display, p_label),
        extra,
        options.own,
    )
    if options.headline_only:
        out.attrs.update(notes)
        return out
    out.attrs.update(
        notes,
        difficulty=question_effects(units, point.b),  # and the Explore page's parity intervals
        **board_parity(names, models, provisional, summary.brier_index, boot, score),
    )
    return out


def _reference(names: np.ndarray, D: np.ndarray, wanted: str | None) -> int | None:
    """The row p-values compare against: the model ``wanted``, by its exact id (None when it is not
    on this board: no reference, never a model whose id merely looks alike); nothing configured: the
    top model by ``D`` (the ranking score). A name never chooses the reference, so a new model
    cannot take the role."""
    if wanted is not None:
        hits = np.flatnonzero(names == wanted)
        return int(hits[0]) if hits.size else None
    finite = np.isfinite(D)
    return int(np.flatnonzero(finite)[np.argmin(D[finite])]) if finite.any() else None
