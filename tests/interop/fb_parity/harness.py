"""Run ForecastBench's own leaderboard code on synthetic forecast sets: the fixture of
tests/interop/test_fb_parity_code.py (recipe: README.md beside this file).

Our harness, not ForecastBench's code: it needs a checkout of forecastingresearch/forecastbench
(``--fb-src``, the folder holding ``src/leaderboard/main.py``; nothing of it is kept in this
repository) and a Python with the packages its leaderboard imports (pandas, numpy, scipy, pyfixest,
joblib, statsmodels, termcolor, jinja2). It

1. stands in for the modules the leaderboard imports but never calls on this path (the cloud
   clients, Slack, git, the LLM registry package ``utils``): a permissive stub module each;
2. makes ForecastBench's *processed* forecast sets from the synthetic forecast sets and the public
   resolution sets as its resolver does (``src/resolve``): one row per resolution-set row of the
   round (combination questions dropped, dataset rows only once resolved), the model's forecast
   where it gave one, else 0.5 with ``imputed`` (its ``impute_missing_forecasts`` default); the
   identity of a ForecastBench-run LLM is taken from its file (``model_run_key``,
   ``forecast_variant_key``) and its release date from the file's ``model_release_date``, which
   stand in for the LLM registry ``utils.llm.model_runs`` that is not public;
3. keeps FB's driver rules: rounds at least 50 days before ``--as-of``, rounds whose Naive
   Forecaster file has >= 225 resolved dataset rows and >= 50 resolved markets, and each file
   through FB's own ``process_forecast_file`` (its 5% imputation rule and row filters);
4. calls FB's ``make_leaderboard`` for the tournament board (``MARKET_BRIER`` market rule, its
   bootstrap of ``--replicates`` replicates, seeded through numpy's global generator), with its
   writers replaced by one that keeps the board, and writes that board's numbers as CSV.
"""

from __future__ import annotations

import argparse
import glob
import importlib.abc
import importlib.machinery
import json
import os
import sys
import types
from datetime import date, timedelta
from pathlib import Path

STUBBED = ("google", "git", "slack_sdk", "utils", "plotly", "pandera")
OUT_COLUMNS = [
    "organization",
    "model_organization",
    "model",
    "model_pk",
    "n_dataset",
    "n_market",
    "brier_index_dataset",
    "brier_index_dataset_ci_lower",
    "brier_index_dataset_ci_upper",
    "brier_index_market",
    "brier_index_market_ci_lower",
    "brier_index_market_ci_upper",
    "brier_index_overall",
    "brier_index_overall_ci_lower",
    "brier_index_overall_ci_upper",
]


class _Anything(types.ModuleType):
    """A module (and attribute) that is anything: imports and attribute look-ups succeed."""

    __path__: list[str] = []

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        value = _Anything(f"{self.__name__}.{name}")
        setattr(self, name, value)
        return value

    def __call__(self, *args, **kwargs):
        return _Anything(f"{self.__name__}()")

    def __mro_entries__(self, bases):
        return (object,)

    def __iter__(self):
        return iter(())

    def __getitem__(self, key):
        return _Anything(f"{self.__name__}[{key!r}]")

    def __hash__(self):
        return hash(self.__name__)

    def __eq__(self, other):
        return self is other


class _StubFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, fullname, path, target=None):
        top = fullname.split(".")[0]
        if top in STUBBED:
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        if isinstance(sys.modules.get(top), _Anything):
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        return None

    def create_module(self, spec):
        return _Anything(spec.name)

    def exec_module(self, module):
        pass


def load_fb(fb_src: Path):
    """ForecastBench's ``src/leaderboard/main.py`` as a module, its unused imports stubbed."""
    sys.meta_path.append(_StubFinder())
    os.environ.setdefault("NUM_CPUS", "1")
    os.environ.pop("RUNNING_LOCALLY", None)
    for p in (fb_src / "src", fb_src / "src" / "leaderboard"):
        sys.path.insert(0, str(p))
    import main as fb  # noqa: PLC0415  (ForecastBench's leaderboard module)

    return fb


_TASKS: list = []
_SEED = [0]


def _run_share(share: tuple[int, int]) -> list:
    """In a forked child: every ``n``-th of the bootstrap's tasks from the ``k``-th, on its own seed."""
    import numpy as np  # noqa: PLC0415

    k, n = share
    np.random.seed(_SEED[0] + 1 + k)
    return [f(*a, **kw) for i, (f, a, kw) in enumerate(_TASKS) if i % n == k]


class ForkParallel:
    """Stands in for joblib's ``Parallel`` when ``NUM_CPUS`` > 1: joblib's loky workers cannot import
    FB's module through this harness's stubs, so the replicates are shared among forked children
    (which inherit them), each seeded apart, and returned in FB's order."""

    def __init__(self, n_jobs=1, **_):
        self.n = max(1, int(n_jobs))

    def __call__(self, tasks):
        import multiprocessing  # noqa: PLC0415

        _TASKS[:] = list(tasks)
        with multiprocessing.get_context("fork").Pool(self.n) as pool:
            shares = pool.map(_run_share, [(k, self.n) for k in range(self.n)])
        out = [None] * len(_TASKS)
        for k, share in enumerate(shares):
            out[k :: self.n] = share
        return out


def _is_combo(value) -> bool:
    return isinstance(value, list)


def processed_frame(pd, forecast_set: dict, resolutions: list[dict]):
    """One processed forecast set: the round's resolution-set rows with the model's forecasts."""
    res = pd.DataFrame([r for r in resolutions if not _is_combo(r["id"])])
    res["resolution_date"] = res["resolution_date"].astype(str)
    rows = pd.DataFrame(forecast_set["forecasts"])
    if rows.empty:
        rows = pd.DataFrame(columns=["id", "source", "forecast", "resolution_date"])
    market_sources = ("manifold", "metaculus", "polymarket", "infer")
    is_market = res["source"].isin(market_sources)
    keyed = rows[~rows["source"].isin(market_sources)][["id", "source", "resolution_date", "forecast"]].copy()
    keyed["resolution_date"] = keyed["resolution_date"].astype(str)
    dataset = res[~is_market].merge(keyed, on=["id", "source", "resolution_date"], how="left")
    markets = res[is_market].merge(rows[rows["source"].isin(market_sources)][["id", "source", "forecast"]], on=["id", "source"], how="left")
    df = pd.concat([dataset, markets], ignore_index=True)
    dataset_mask = ~df["source"].isin(market_sources)
    df = df[~(dataset_mask & ~df["resolved"].astype(bool))]  # FB's resolve_all: unresolved dataset rows dropped
    df = df[df["resolved_to"].notna()].reset_index(drop=True)
    df["forecast"] = df["forecast"].astype(float)
    df["imputed"] = df["forecast"].isna()
    df.loc[df["imputed"], "forecast"] = 0.5
    df["resolved_to"] = df["resolved_to"].astype(float)
    df["resolved"] = df["resolved"].astype(bool)
    return df


def naive_passes(pd, fb, frame, min_dataset: int, min_market: int) -> bool:
    masks = fb.get_masks(frame)
    return int(masks["dataset"].sum()) >= min_dataset and int(masks["market_resolved"].sum()) >= min_market


def run(args) -> None:
    fb = load_fb(Path(args.fb_src))
    import numpy as np  # noqa: PLC0415
    import pandas as pd  # noqa: PLC0415

    as_of = date.fromisoformat(args.as_of[:10])
    cutoff = as_of - timedelta(days=50)
    files = sorted(glob.glob(os.path.join(args.forecasts, "**", "*.json"), recursive=True))
    by_round: dict[str, list[dict]] = {}
    for f in files:
        with open(f) as fh:
            body = json.load(fh)
        due = Path(body["question_set"]).name[:10]
        by_round.setdefault(due, []).append(body)
    release = {}
    entries = []
    for due, sets in sorted(by_round.items()):
        if date.fromisoformat(due) > cutoff:
            continue
        with open(os.path.join(args.fb_data, "datasets", "resolution_sets", f"{due}_resolution_set.json")) as fh:
            resolutions = json.load(fh)["resolutions"]
        frames = [(body, processed_frame(pd, body, resolutions)) for body in sets]
        naive = [fr for body, fr in frames if body["model"] == "Naive Forecaster"]
        if not naive or not naive_passes(pd, fb, naive[0], fb.MIN_NUM_DATASET_QUESTIONS, 50):
            continue
        for body, frame in frames:
            identity = {k: body.get(k) for k in ("organization", "model", "model_organization")}
            if body.get("model_run_key") and body.get("forecast_variant_key"):
                identity.update(model_run_key=body["model_run_key"], forecast_variant_key=body["forecast_variant_key"])
                release[body["model_run_key"]] = body.get("model_release_date")
            fb.process_forecast_file(leaderboard_entries=entries, org_and_model=identity, df=frame, forecast_due_date=due)
    fb.model_runs = types.SimpleNamespace(get_model_run=lambda key: types.SimpleNamespace(release_date=release[key]))
    kept = {}
    fb.write_question_fixed_effects = lambda **kw: None
    fb.write_llm_super_parity_dates = lambda **kw: None
    fb.get_sota_super_parity_expected_dates = lambda **kw: {}
    fb.write_leaderboard = lambda df, **kw: kept.setdefault("board", df.copy())
    np.random.seed(args.seed)
    _SEED[0] = args.seed
    if int(os.environ["NUM_CPUS"]) > 1:
        fb.Parallel = ForkParallel
    fb.N_REPLICATES = args.replicates
    fb.make_leaderboard(leaderboard_entries=entries, leaderboard_type=fb.LeaderboardType.TOURNAMENT)
    board = kept["board"][OUT_COLUMNS].sort_values("model_pk").reset_index(drop=True)
    board.to_csv(args.out, index=False, float_format="%.10g")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fb-src", required=True, help="a checkout of forecastingresearch/forecastbench")
    parser.add_argument("--fb-data", required=True, help="the folder holding datasets/resolution_sets")
    parser.add_argument("--forecasts", required=True, help="the forecast sets (synth_fb.py's OUT/forecast_sets)")
    parser.add_argument("--as-of", required=True, help="the board's date (FB: today), for its 50-day rule")
    parser.add_argument("--replicates", type=int, default=1999)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", required=True)
    run(parser.parse_args(argv))


if __name__ == "__main__":
    main()
