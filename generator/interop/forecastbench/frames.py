"""Turn parsed ForecastBench rows into this hub's ledger frames. Pure.

- Question bank: ``<source>:<fb id>``, kind ``binary`` for market sources and ``dataset`` for
  series sources, one version per question set that changed it (recorded at the set's freeze
  time). Questions known only from a resolution set get a placeholder text that says so.
- Round (``data/rounds/<due>/questions.csv``): the union of the units of every question set of
  that due date (dataset questions × resolution dates) and of its resolution set's rows, so a round
  whose question set is missing upstream is rebuilt from its resolution set.
- Stated resolutions: one row per resolution-set row, for that round; see ``stated_frame``.
- Forecasts: one frame per forecast set, restricted to the round's units.
"""

from __future__ import annotations

import functools
import re

import numpy as np
import pandas as pd

from ...errors import Problem
from ...models import ModelMeta
from ...schemas import QUESTION_SETS, QUESTIONS, RESOLUTIONS, ROUND_QUESTIONS
from ...scoring.resolve import latest
from ...store.csvio import as_text, coerce
from ...timeutil import format_ts, parse_ts
from ...vocabulary import DATASET, MARKET
from .parse import MARKET_SOURCES, Parsed

_UNIT = ["question_id", "resolution_date"]
BASELINE_NAMES = ("Always 0", "Always 1", "Always 0.5", "Random Uniform", "Imputed Forecaster", "Naive Forecaster")
SAW_CROWD_NAMES = ("Imputed Forecaster", "Naive Forecaster")


def kind_of(source: str) -> str:
    return MARKET if source in MARKET_SOURCES else DATASET


def midnight(date: str) -> str:
    return f"{date}T00:00:00Z"


def fb_ts(value: str) -> str:
    """FB's ``2026-06-11T00:00:00+00:00`` as ``2026-06-11T00:00:00Z``; ``N/A`` or junk as ''."""
    return _fb_text_ts(value) if type(value) is str else _fb_ts(value)


@functools.lru_cache(maxsize=4096)
def _fb_text_ts(value: str) -> str:
    """``fb_ts`` of a text, each distinct one parsed once (a set's questions share a freeze time)."""
    return _fb_ts(value)


def _fb_ts(value: str) -> str:
    try:
        return format_ts(parse_ts(value)) if value and value != "N/A" else ""
    except ValueError:
        return ""


def _typed(rows: list[dict], table) -> pd.DataFrame:
    frame = pd.DataFrame(rows, columns=list(table.names))
    return coerce(as_text(frame, table), table)


# -- question bank --------------------------------------------------------------------------------


def question_versions(qset: Parsed) -> pd.DataFrame:
    """One QUESTIONS row per question of a question set, recorded at its freeze time."""
    rows = [
        {
            "id": f"{q['source']}:{q['id']}",
            "recorded_at": fb_ts(q["freeze_datetime"]) or midnight(qset.due),
            "source": q["source"],
            "kind": kind_of(q["source"]),
            "text": q["question"] or f"ForecastBench question {q['id']}",
            "background": q["background"],
            "resolution_criteria": q["resolution_criteria"],
            "url": q["url"],
            "category": "",
            "open_time": fb_ts(q["market_info_open_datetime"]),
            "close_time": fb_ts(q["market_info_close_datetime"]),
        }
        for q in qset.rows
    ]
    return _typed(rows, QUESTIONS).drop_duplicates("id", keep="first")


def placeholder_questions(rset: Parsed, known: set[str]) -> pd.DataFrame:
    """QUESTIONS rows for ids that no imported question set describes."""
    seen: dict[str, dict] = {}
    for r in rset.rows:
        qid = f"{r['source']}:{r['id']}"
        if qid not in known and qid not in seen:
            seen[qid] = {
                "id": qid,
                "recorded_at": midnight(rset.due),
                "source": r["source"],
                "kind": kind_of(r["source"]),
                "text": f"ForecastBench {r['source']} question {r['id']} (its text is not in the imported question sets)",
            }
    return _typed(list(seen.values()), QUESTIONS)


# -- rounds ---------------------------------------------------------------------------------------


def round_frame(due: str, qsets: list[Parsed], rset: Parsed | None) -> pd.DataFrame:
    """The round's frozen question set: question-set units ∪ resolution-set units."""
    rows: dict[tuple[str, str], dict] = {}
    for qset in qsets:
        for q in qset.rows:
            base = _round_row(
                due, q["source"], q["id"], q["question"], q["url"], fb_ts(q["freeze_datetime"]) or midnight(due), _float(q["freeze_datetime_value"])
            )
            for date in q["resolution_dates"] or [""]:
                rows.setdefault((base["question_id"], date), {**base, "resolution_date": date})
    for r in rset.rows if rset else []:
        date = "" if r["source"] in MARKET_SOURCES else r["resolution_date"]
        base = _round_row(due, r["source"], r["id"], f"ForecastBench {r['source']} question {r['id']}", "", midnight(due), np.nan)
        rows.setdefault((base["question_id"], date), {**base, "resolution_date": date})
    frame = _typed(list(rows.values()), ROUND_QUESTIONS)
    return frame.sort_values(list(ROUND_QUESTIONS.sort), kind="mergesort").reset_index(drop=True)


def qset_units(qset: Parsed) -> list[tuple[str, str]]:
    """The (question_id, resolution_date) units a question set asks, in file order."""
    return [(f"{q['source']}:{q['id']}", date) for q in qset.rows for date in q["resolution_dates"] or [""]]


def round_sets_frame(round_units: pd.DataFrame, qsets: list[Parsed]) -> pd.DataFrame | None:
    """QUESTION_SETS rows of a round whose question sets do not each ask every unit of the round
    (None when every set is the whole round: a round of one set needs no file)."""
    whole = set(zip(round_units["question_id"], round_units["resolution_date"], strict=True))
    units = {str(q.header.get("question_set") or ""): set(qset_units(q)) & whole for q in qsets}
    if not units or all(u == whole for u in units.values()):
        return None
    rows = [{"question_set": name, "question_id": q, "resolution_date": d} for name, found in units.items() for q, d in found]
    frame = _typed(rows, QUESTION_SETS)
    return frame.sort_values(list(QUESTION_SETS.sort), kind="mergesort").reset_index(drop=True)


def _round_row(due, source, fb_id, text, url, freeze, value) -> dict:
    return {
        "question_id": f"{source}:{fb_id}",
        "source": source,
        "kind": kind_of(source),
        "category": "",
        "due": midnight(due),
        "freeze_time": freeze,
        "freeze_value": value,
        "text": text,
        "url": url,
    }


def _float(text: str) -> float:
    try:
        value = float(text)
    except (TypeError, ValueError):
        return np.nan
    return value if np.isfinite(value) else np.nan


# -- stated resolutions ---------------------------------------------------------------------------

_CONTENT = ["status", "outcome", "value"]  # resolved_at follows the first recording


def stated_frame(rset: Parsed, as_of: str) -> pd.DataFrame:
    """RESOLUTIONS rows of one resolution set, as FB states them.

    resolved with outcome 0/1 → resolved; resolved with anything else (FB's fractional or annulled
    markets) → void; not resolved → open, with the market's latest value. recorded_at is when the
    hub learned it: the import's ``as_of`` (FB's sets carry no timestamp; importing each published
    snapshot with its own time as ``as_of`` replays what FB had published by then). resolved_at is
    the resolution date at 00:00Z as FB states it (never after ``as_of``).
    """
    rows = []
    for r in rset.rows:
        when = as_of
        resolved = min(midnight(r["resolution_date"]), as_of)
        status = "open" if not r["resolved"] else "resolved" if r["resolved_to"] in (0.0, 1.0) else "void"
        rows.append(
            {
                "round": rset.due,
                "question_id": f"{r['source']}:{r['id']}",
                "resolution_date": "" if r["source"] in MARKET_SOURCES else r["resolution_date"],
                "recorded_at": when,
                "status": status,
                "outcome": r["resolved_to"] if status == "resolved" else np.nan,
                "resolved_at": resolved if status != "open" else "",
                "value": r["resolved_to"] if status == "open" and r["source"] in MARKET_SOURCES else np.nan,
                "payload_sha256": r["sha"],
            }
        )
    return _typed(rows, RESOLUTIONS).drop_duplicates(["round", *_UNIT], keep="first")


def new_statements(existing: pd.DataFrame, stated: pd.DataFrame, as_of: str) -> pd.DataFrame:
    """Rows of ``stated`` that change what the ledger says about their unit (recorded at ``as_of``),
    so re-importing the same files adds nothing and a later snapshot adds only what changed.
    """
    keys = ["round", *_UNIT]
    now = latest(existing, keys, (*keys, "recorded_at"))
    new_text, old_text = as_text(stated, RESOLUTIONS), as_text(now, RESOLUTIONS)
    joined = new_text.merge(old_text, on=keys, how="left", suffixes=("", "_old"), indicator=True)
    known = (joined["_merge"] == "both").to_numpy()
    same = known & np.all([joined[c].to_numpy() == joined[f"{c}_old"].to_numpy() for c in _CONTENT], axis=0)
    out = stated.reset_index(drop=True)[~same].copy()
    later = known[~same]
    dated = out.loc[later, "recorded_at"].to_numpy(dtype=object)
    out.loc[later, "recorded_at"] = np.where(dated > as_of, dated, as_of)
    return out.reset_index(drop=True)


# -- forecasts and models -------------------------------------------------------------------------


def slug(text: str, dots: bool) -> str:
    allowed = r"[^a-z0-9._-]+" if dots else r"[^a-z0-9-]+"
    return re.sub(r"-{2,}", "-", re.sub(allowed, "-", text.strip().lower())).strip("-._")


def group_name(model: str) -> str:
    """The board name of an individual file's group: FB's "Superforecaster forecasts" → "Superforecaster
    median forecast" (as FB's boards name it); any other name gets " median forecast" appended."""
    base = model.strip()
    for tail in (" forecasts", " forecast"):
        if base.lower().endswith(tail):
            base = base[: -len(tail)]
            break
    return f"{base} median forecast"


def model_name(fset: Parsed) -> str:
    """The model's name: an individual file (members' rows) stands for its group's median."""
    return group_name(fset.header["model"]) if fset.header.get("individual") else fset.header["model"]


def model_id(fset: Parsed) -> str:
    return f"{slug(fset.header['organization'], False)}.{slug(model_name(fset), True)}"


# ForecastBench's boards and tournament rules, for the hub an import creates (Methodology page,
# "ForecastBench, rule by rule"): its three boards, p-values against its two human groups, the
# tournament board's market difficulty from the crowd, and a market without the crowd's value at the
# due date left out of it.
FB_LEADERBOARD = (
    '[leaderboard]\n# ForecastBench\'s boards and tournament rules (Methodology page, "ForecastBench, rule by rule").\n'
    'boards = ["tournament", "baseline", "preliminary"]\n'
    'reference = "forecastbench.superforecaster-median-forecast"\n'
    'public_reference = "forecastbench.public-median-forecast"\n'
    "market_difficulty = \"crowd\"   # the tournament board: each market's difficulty is the crowd's Brier\n"
    'missing_crowd = "drop"        # a market without the crowd\'s value at the due date leaves that board\n'
    "# ForecastBench ranks only rounds with >= 225 resolved dataset units and >= 50 resolved markets:\n"
    "# set min_dataset_rows = 225 and min_market_questions = 50 (or pass --fb-round-filter) to do the same.\n"
)

FB_ORGANIZATION = "ForecastBench"  # FB's own files (its runs and comparison models); any other team's is a submission


def model_meta(fset: Parsed) -> ModelMeta:
    """Metadata from a forecast set: FB's comparison models are baselines, the human medians human;
    ``ran_by`` says who ran it as FB tells it, by the organization (``forecastbench`` for FB's own
    files, ``team`` for a team's submission: never in the estimation sample)."""
    header, name = fset.header, model_name(fset)
    kind = "baseline" if name in BASELINE_NAMES else "human" if "median forecast" in name.lower() else "llm"
    variant = header.get("forecast_variant_key") or ""
    saw = name in SAW_CROWD_NAMES or "freeze" in variant.lower() or "freeze values" in name.lower()
    members = len(set(fset.rows[0].get("member", []))) if fset.header.get("individual") and fset.rows else 0
    method = "; ".join(
        x
        for x in (
            f"model organization: {header.get('model_organization') or ''}" if header.get("model_organization") else "",
            f"variant: {variant}" if variant else "",
            f"the median, per question and resolution date, of {members} forecasters' individual forecasts "
            "(the imported file keeps each member's rows)"
            if members
            else "",
            "imported from a ForecastBench forecast set",
        )
        if x
    )
    return ModelMeta(
        id=model_id(fset),
        name=name,
        organization=header["organization"],
        kind=kind,
        release_date=header.get("model_release_date") or "",
        method=method,
        saw_crowd=saw,
        ran_by="forecastbench" if header["organization"].strip() == FB_ORGANIZATION else "team",
        model_organization=header.get("model_organization") or "",
    )


def unit_keys(units: pd.DataFrame) -> dict[tuple[str, str], tuple[str, str]]:
    """The round's (question_id, resolution_date) pairs, for ``forecast_columns`` (each mapped to
    itself: kept rows take these string objects, so every forecast of a unit shares one)."""
    pairs = list(zip(units["question_id"].tolist(), units["resolution_date"].tolist(), strict=True))
    return dict(zip(pairs, pairs, strict=True))


_F_NAMES = (*_UNIT, "probability", "reasoning")


def forecast_columns(fset: Parsed, allowed: dict[tuple[str, str], tuple[str, str]]) -> tuple[dict[str, list], list[Problem]]:
    """The forecast set's rows on the round's units (``allowed``, see ``unit_keys``): the kept rows'
    columns, and one warning for repeated rows (the first is kept) and one for rows outside the
    round (dropped). ``fset.rows`` is the one dict of four plain columns ``parse.parse_forecast_set``
    makes (tests/interop/test_fb_fast_paths.py compares with the same done on a DataFrame)."""
    columns = fset.rows[0] if len(fset.rows) == 1 and isinstance(fset.rows[0], dict) else None
    if columns is None or set(columns) != set(_F_NAMES) or len({len(columns[c]) for c in _F_NAMES}) != 1:
        raise ValueError(f"{fset.label}: not the four forecast columns parse_forecast_set makes")
    ids, dates = columns["question_id"], columns["resolution_date"]
    if not (set(map(type, ids)) <= {str} and set(map(type, dates)) <= {str}):
        raise ValueError(f"{fset.label}: a question_id or resolution_date that is not text")
    pairs = list(zip(ids, dates, strict=True))
    distinct = set(pairs)
    if len(distinct) == len(pairs) and allowed.keys() >= distinct:  # every row kept, nothing to say
        return _columns(columns, allowed, pairs, None), []
    inside = list(map(allowed.__contains__, pairs))
    first = dict(zip(reversed(pairs), range(len(pairs) - 1, -1, -1), strict=True))  # each pair's first row
    keep = [i for i in sorted(first.values()) if inside[i]]
    repeats, outside = len(pairs) - len(first), inside.count(False)
    problems = []
    if repeats:
        problems.append(
            Problem(fset.label, None, "id", "duplicate-forecast", f"{repeats} repeated (id, resolution_date) row(s); the first is kept", "warning")
        )
    if outside:
        problems.append(
            Problem(
                fset.label, None, "id", "unknown-question", f"{outside} forecast(s) for questions or dates not in round {fset.due} dropped", "warning"
            )
        )
    return _columns(columns, allowed, pairs, None if len(keep) == len(pairs) else keep), problems


def _columns(columns: dict[str, list], allowed: dict, pairs: list, keep: list[int] | None) -> dict[str, list]:
    """The kept rows (all when ``keep`` is None), ids and dates as the round's own string objects."""
    if keep is not None:
        pairs = [pairs[i] for i in keep]
    units = [allowed[p] for p in pairs]
    return {
        "question_id": [u[0] for u in units],
        "resolution_date": [u[1] for u in units],
        **{c: list(columns[c]) if keep is None else [columns[c][i] for i in keep] for c in ("probability", "reasoning")},
    }
