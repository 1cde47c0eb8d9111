"""ForecastBench's imputation rule: per model and round, the share of resolved units whose forecast
was imputed; a model's round over the limit is left off the board (unless the model is exempt)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..models import ModelMeta
from .panel import counted_unique


def is_exempt(model: str, exempt: tuple[str, ...]) -> bool:
    """``model`` is named in ``exempt`` by its id or its team (the part before the dot)."""
    return model in exempt or model.split(".", 1)[0] in exempt


UNRANKED_COLUMNS = ["model", "name", "round", "n", "imputed", "share", "reason"]


@dataclass(frozen=True)
class ImputedShares:
    """Per (model, round) group of rows, in sorted order: the share of imputed rows. ``names`` are
    the sorted models and rounds, ``codes`` each group's index into them, ``group`` each row's group."""

    names: tuple[np.ndarray, np.ndarray]
    codes: tuple[np.ndarray, np.ndarray]
    group: np.ndarray
    size: np.ndarray
    imputed: np.ndarray
    share: np.ndarray


def imputed_shares(imputed: np.ndarray, model_codes: tuple[np.ndarray, np.ndarray], round_codes: tuple[np.ndarray, np.ndarray]) -> ImputedShares:
    """The imputation rule's counts from integer codes (groupbys over the object columns cost the
    nightly's boards more than their fit): per row its ``imputed`` flag and the ``sorted_codes`` of its
    model and round. A share is imputed rows / rows, exactly as a groupby mean of the 0/1 column gives it."""
    (models, model), (rounds, round_) = model_codes, round_codes
    keys, group = counted_unique(model * len(rounds) + round_, len(models) * len(rounds))
    size = np.bincount(group)
    imputed = np.bincount(group, weights=imputed.astype(np.int64))
    return ImputedShares((models, rounds), (keys // len(rounds), keys % len(rounds)), group, size, imputed, imputed / size)


def exempt_groups(shares: ImputedShares, exempt: tuple[str, ...]) -> np.ndarray:
    """``is_exempt`` per group of ``shares``, asked once per distinct model."""
    models, model = shares.names[0], shares.codes[0]
    return np.array([is_exempt(m, exempt) for m in models], dtype=bool)[model]


def unranked_groups(shares: ImputedShares, exempt: np.ndarray, models: dict[str, ModelMeta], limit: float) -> pd.DataFrame:
    """The groups of ``shares`` over the ``limit``, unless ``exempt`` (per group), as ``UNRANKED_COLUMNS``."""
    model, round_ = (shares.names[i][shares.codes[i]] for i in range(2))
    over = (shares.share > limit) & ~exempt
    size, imputed, share = shares.size[over], shares.imputed[over].astype(np.int64), shares.share[over]
    return pd.DataFrame(
        {
            "model": model[over],
            "name": [models[m].name if m in models else m for m in model[over]],
            "round": np.array([str(r) for r in round_[over]], dtype=object),
            "n": size,
            "imputed": imputed,
            "share": share,
            "reason": [
                f"{i:,} of its {n:,} resolved units imputed ({sh:.0%}, over the {limit:.0%} limit)"
                for i, n, sh in zip(imputed, size, share, strict=True)
            ],
        },
        columns=UNRANKED_COLUMNS,
    )
