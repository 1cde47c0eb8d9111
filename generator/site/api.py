"""The site's static JSON API (and the boards as CSV): machine-readable copies of what the pages
show, at stable URLs under ``/api/``. Pure: a ``SiteData`` in, {path under generated/: bytes} out.

``prescient build`` writes them under ``docs/generated/api/`` (the one folder it owns); the MkDocs
hook ``hooks/api.py`` serves that folder at ``/api/``. Every file has a JSON Schema, shipped
beside this module (``api_schemas/``) and published at ``/api/schemas/``; the Data page documents
them and the tests validate every built file against its schema. ``API_VERSION`` changes when a
field is removed or changes meaning (adding a field does not change it).
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import math
import re
from importlib import resources
from typing import Any

import pandas as pd

from ..leaderboard.hub_boards import headline_of
from ..leaderboard.question_effects import QuestionEffects
from ..timeutil import format_ts
from .api_page import PAGE, api_index_page
from .api_paths import board_file
from .listings import forecasters, model_rows
from .render import render_pages, safe_url
from .round_pages import column_records
from .sitedata import GENERATED, SiteData

API_VERSION = 1
API = "api"
SCHEMAS = ("index", "board", "models", "rounds", "questions", "question-effects")
EFFECTS = "question-effects.json.gz"  # gzip-compressed: 1.6 MB of JSON at ForecastBench scale is 0.3 MB so
EFFECT_DECIMALS = 6  # b on the Brier scale to 1e-6: far finer than any interval, and half the bytes
# a board row as the API gives it: the columns the Leaderboard shows, with their intervals
BOARD_COLUMNS = (
    "rank",
    "rank_low",
    "rank_high",
    "model",
    "name",
    "organization",
    "kind",
    "provisional",
    "overall",
    "overall_ci_low",
    "overall_ci_high",
    "dataset",
    "dataset_ci_low",
    "dataset_ci_high",
    "market",
    "market_ci_low",
    "market_ci_high",
    "n_dataset",
    "n_market",
    "peer",
    "log_score",
    "pct_rank1",
    "pct_top5",
    "p_value",
    "p_label",
)
INTEGER_COLUMNS = frozenset({"rank", "rank_low", "rank_high", "n_dataset", "n_market", "provisional"})
QUESTION_COLUMNS = ("id", "text", "source", "kind", "category", "url", "status", "resolved_on", "rounds", "first_round", "last_round", "page")


def _cell(column: str, value: Any) -> Any:
    """A cell as JSON: NaN and None as null, whole-number columns as integers, the rest as is."""
    if value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA:
        return None
    if column in INTEGER_COLUMNS:
        return int(value)
    if isinstance(value, float):
        return float(value)
    return value.item() if hasattr(value, "item") else value


def _json(payload: dict) -> bytes:
    return (json.dumps(payload, indent=1, sort_keys=True, ensure_ascii=False, allow_nan=False) + "\n").encode("utf-8")


def _csv(rows: list[dict], columns: tuple[str, ...]) -> bytes:
    frame = pd.DataFrame(rows, columns=list(columns))
    out = io.StringIO()
    frame.to_csv(out, index=False, lineterminator="\n")
    return out.getvalue().encode("utf-8")


def board_rows(frame: pd.DataFrame) -> list[dict]:
    """A board's rows in rank order (provisional rows last), each with ``BOARD_COLUMNS``."""
    if not len(frame):
        return []
    rows = frame.sort_values(["rank", "model"], na_position="last")
    present = [c for c in BOARD_COLUMNS if c in rows]
    return [{c: _cell(c, r.get(c)) if c in present else None for c in BOARD_COLUMNS} for r in column_records(rows[present])]


def question_rows(data: SiteData) -> list[dict]:
    """One row per question: what it asks, where it comes from, where it stands, its rounds. Plain
    arrays per question, no pandas call each (ForecastBench's scale has ~5,800 questions)."""
    out = []
    for q in data.questions:
        units, question = q.units, q.question
        status = [("open" if s is None or s != s else str(s)) for s in units["status"].tolist()] if len(units) else []
        resolved_at = (
            [str(t) for s, t in zip(status, units["resolved_at"].tolist(), strict=True) if s == "resolved" and t == t and t is not None]
            if len(units)
            else []
        )
        rounds = sorted({str(r) for r in units["round"].tolist()}) if len(units) else []
        state = "void" if status and all(s == "void" for s in status) else "open" if not status or "open" in status else "resolved"
        out.append(
            {
                "id": q.id,
                "text": str(question["text"]),
                "source": str(question["source"]),
                "kind": str(question["kind"]),
                "category": str(question.get("category") or ""),
                "url": safe_url(str(question.get("url") or "")),
                "status": state,
                "resolved_on": max(resolved_at)[:10] if resolved_at else None,
                "rounds": len(rounds),
                "first_round": rounds[0] if rounds else None,
                "last_round": rounds[-1] if rounds else None,
                "page": f"generated/questions/{q.slug}/",
            }
        )
    return out


def question_effects(data: SiteData) -> dict:
    """The question fixed effects of every board's overall view (``fb_board.question_effects``), one
    document for all boards, in columns: each unit (question, round, resolution date) once, by index
    into the sorted lists of questions, rounds and dates, sorted by question, round and date; then
    for each board the units' ``b`` (null: not on that board, or dropped by its fit). At
    ForecastBench scale (~37,000 units) a row per unit per board would be ~10 MB; this is ~1.6 MB,
    written gzip-compressed (``EFFECTS``): 0.3 MB."""
    parts = [
        frame.attrs["difficulty"].frame.assign(board=board)
        for (board, view), frame in data.boards.items()
        if view == "overall" and isinstance(frame.attrs.get("difficulty"), QuestionEffects) and len(frame.attrs["difficulty"].frame)
    ]
    boards = [board for (board, view) in data.boards if view == "overall"]
    if not parts:
        return {
            "boards": boards,
            "questions": [],
            "rounds": [],
            "resolution_dates": [],
            "units": {"question": [], "round": [], "resolution_date": []},
            "b": {b: [] for b in boards},
        }
    every = pd.concat(parts, ignore_index=True)
    every = every.assign(round=every["round"].astype(str).str[:10], resolution_date=every["resolution_date"].astype(str).str[:10])
    keys = ["question_id", "round", "resolution_date"]
    units = every.drop_duplicates(keys).sort_values(keys, kind="stable").reset_index(drop=True)
    lists = {key: sorted(units[key].unique().tolist()) for key in keys}
    position = pd.MultiIndex.from_frame(units[keys])
    b = {}
    for board in boards:
        mine = every[every["board"] == board]
        values = pd.Series(mine["b"].to_numpy(dtype=float), index=pd.MultiIndex.from_frame(mine[keys]))
        column = values.reindex(position).round(EFFECT_DECIMALS).tolist() if len(mine) else [math.nan] * len(units)
        b[board] = [None if math.isnan(x) else x for x in column]
    return {
        "boards": boards,
        "questions": lists["question_id"],
        "rounds": lists["round"],
        "resolution_dates": lists["resolution_date"],
        "units": {
            name: pd.Index(lists[key]).get_indexer(units[key]).tolist()
            for name, key in (("question", "question_id"), ("round", "round"), ("resolution_date", "resolution_date"))
        },
        "b": b,
    }


def _round_files(data: SiteData, due: str) -> list[dict]:
    """An open round's files as the API serves them (``rounds/<due>/<name>``, the bytes committed), with
    their sha256 and size: what ``prescient round fetch`` checks before it writes anything."""
    mine = sorted((name, content) for name, content in data.round_files.items() if name.startswith(f"{due}/"))
    return [
        {"name": name.split("/", 1)[1], "path": f"rounds/{name}", "sha256": hashlib.sha256(content).hexdigest(), "bytes": len(content)}
        for name, content in mine
    ]


def _compact_json(payload: dict) -> bytes:
    return (json.dumps(payload, separators=(",", ":"), sort_keys=True, ensure_ascii=False, allow_nan=False) + "\n").encode("utf-8")


def api_files(data: SiteData) -> dict[str, bytes]:
    """Every API file, by its path under generated/ (``api/...``)."""
    stamp = {"api_version": API_VERSION, "title": data.title, "as_of": format_ts(data.as_of), "methodology_version": str(data.methodology_version)}
    files: dict[str, bytes] = {}
    boards = []
    for (board, view), frame in data.boards.items():
        rows = board_rows(frame)
        path = board_file(board, view)
        base = f"{API}/{path}"
        reference = [r["model"] for r in rows if r["p_value"] is None and r["rank"] is not None]
        files[f"{base}.json"] = _json(
            {
                **stamp,
                "board": board,
                "view": view,
                "headline": headline_of(view, frame) if len(frame) else "overall",
                "reference": reference[0] if len(reference) == 1 else None,
                "rows": rows,
            }
        )
        files[f"{base}.csv"] = _csv(rows, BOARD_COLUMNS)
        boards.append({"board": board, "view": view, "json": f"{path}.json", "csv": f"{path}.csv"})
    models = [{k: (v if v != "" else None) for k, v in row.items()} for row in model_rows(data, forecasters(data))]
    files[f"{API}/models.json"] = _json({**stamp, "models": models})
    files[f"{API}/rounds.json"] = _json(
        {
            **stamp,
            "rounds": [
                {
                    "due": r.due,
                    "state": r.status.state if r.status else None,
                    "status": r.status.label if r.status else None,
                    "due_time": r.status.due if r.status else None,
                    "questions": len(r.questions),
                    "participants": list(r.participants),
                    "page": f"generated/rounds/{r.due}/",
                    **({"files": _round_files(data, r.due)} if r.status and r.status.state == "open" else {}),
                }
                for r in data.rounds
            ],
        }
    )
    files.update({f"{API}/rounds/{name}": content for name, content in data.round_files.items()})
    questions = question_rows(data)
    files[f"{API}/questions.json"] = _json({**stamp, "questions": questions})
    files[f"{API}/questions.csv"] = _csv(questions, QUESTION_COLUMNS)
    files[f"{API}/{EFFECTS}"] = gzip.compress(
        _compact_json({**stamp, "view": "overall", **question_effects(data)}), compresslevel=9, mtime=0
    )  # mtime 0: the same bytes for the same data
    files[f"{API}/index.json"] = _json(
        {
            **stamp,
            "boards": boards,
            "models": "models.json",
            "rounds": "rounds.json",
            "questions": {"json": "questions.json", "csv": "questions.csv"},
            "question_effects": EFFECTS,
            "schemas": {name: f"schemas/{name}.schema.json" for name in SCHEMAS},
            **built_from(data),
        }
    )
    for name in SCHEMAS:
        files[f"{API}/schemas/{name}.schema.json"] = schema_bytes(name)
    files[PAGE] = api_index_page(json.loads(files[f"{API}/index.json"]))  # what /api/ shows
    return files


def built_from(data: SiteData) -> dict[str, Any]:
    """The index's anchor: the last commit that changed data/ when the site was built (None outside git), its
    page on the repository (with ``repo_url``), and whether data/ then held changes not committed; with ``as_of``
    (the night), what every page's footer names (site_src/hooks/anchor.py) and ``verify --git --anchor`` checks."""
    commit = data.data_commit if re.fullmatch(r"[0-9a-f]{40}|[0-9a-f]{64}", data.data_commit) else ""
    url = safe_url(data.repo_url)
    return {
        "data_commit": commit or None,
        "data_commit_url": f"{url.rstrip('/')}/commit/{commit}" if url and commit else None,
        "data_uncommitted": bool(commit) and data.data_uncommitted,
    }


def site_files(data: SiteData) -> dict[str, bytes]:
    """Every generated file of the site: the pages (``render.render_site``) and the API, whose files are
    made while the question pages are rendered in the background (``render.render_pages``)."""
    pages = render_pages(data)
    api = {f"{GENERATED}/{path}": content for path, content in api_files(data).items()}
    return {**pages(), **api}


def schema_bytes(name: str) -> bytes:
    """The JSON Schema of one API file, as shipped in ``api_schemas/``."""
    return resources.files("generator.site").joinpath(f"api_schemas/{name}.schema.json").read_bytes()
