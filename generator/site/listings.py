"""The site's lists and their pages: the Changes page (the boards in words, the ledger digests), the
methodology versions in force, the Questions page, and the forecasters with a page and their
metadata (the Models page and the API). Pure: a ``SiteData`` in, records and text out."""

from __future__ import annotations

import jinja2
import pandas as pd

from ..models import ModelMeta
from .sitedata import GENERATED, SiteData
from .speak import CHANGES_NIGHTS, nights, since_last_night


def changes_page(env: jinja2.Environment, data: SiteData, common: dict) -> str:
    """The Changes page: what the latest night changed first, then each night's news with the
    reshuffles inside the boards' rank intervals set apart (``speak``), names linked."""
    overall = {b: frame for (b, v), frame in data.boards.items() if v == "overall"}
    said = nights(data.changes, overall)
    compared = sorted({str(a) for a in data.history["as_of"].unique()})[-CHANGES_NIGHTS:] if len(data.history) else []
    return env.get_template("changes.md.j2").render(
        **{**common, "prefix": f"../{GENERATED}/"},
        nights=said,
        lead=since_last_night(compared, said),
        corrections=data.corrections.to_dict("records"),
        decisions=data.decisions.to_dict("records"),
        digests=night_digests(data.board_history),
        names={m: meta.name for m, meta in data.models.items()},
    )


def methodology_versions(history: pd.DataFrame, current: str) -> list[dict]:
    """Each methodology version the history records, in the order it took force: its first and last
    night and how many nights; the version in force now is marked ``current``."""
    if not len(history) or "methodology_version" not in history:
        return []
    per_night = history[["as_of", "methodology_version"]].drop_duplicates("as_of").sort_values("as_of")
    spans = per_night.groupby("methodology_version", sort=False)["as_of"].agg(["min", "max", "count"]).sort_values("min")
    latest = str(per_night["methodology_version"].iloc[-1])
    return [
        {"version": str(v), "first": str(r["min"]), "last": str(r["max"]), "nights": int(r["count"]), "current": str(v) == latest == current}
        for v, r in spans.iterrows()
    ]


DIGEST_NIGHTS = 30  # nights whose ledger digest the Changes page lists (history.csv keeps them all)


def night_digests(history: pd.DataFrame) -> list[tuple[str, str]]:
    """(as_of, ledger_digest) of the latest nights that recorded one, newest first."""
    if "ledger_digest" not in history or history.empty:
        return []
    nights = history.loc[history["ledger_digest"] != "", ["as_of", "ledger_digest"]].drop_duplicates("as_of")
    return [(str(a), str(d)) for a, d in nights.sort_values("as_of", ascending=False).head(DIGEST_NIGHTS).itertuples(index=False)]


QUESTION_PAGE_SIZE = 100  # rows the Questions page draws at once (the list can hold thousands)


def question_index(env: jinja2.Environment, data: SiteData, common: dict) -> str:
    """The Questions page: a filterable, sortable list whose rows the browser loads from the API's
    questions.json on first view, a page of ``QUESTION_PAGE_SIZE`` at a time, so the page itself
    stays light at ForecastBench's scale. Its filters' choices are written in the page."""

    def values(field: str) -> list[str]:
        return sorted({str(q.question.get(field) or "") for q in data.questions} - {""})

    filters = [
        {"name": "source", "label": "Source", "choices": values("source")},
        {"name": "category", "label": "Category", "choices": values("category")},
        {"name": "status", "label": "Status", "choices": ["open", "resolved", "void"]},
    ]
    return env.get_template("questions_index.md.j2").render(**common, count=len(data.questions), filters=filters, page_size=QUESTION_PAGE_SIZE)


def forecasters(data: SiteData) -> list[str]:
    """Every model with a page: scored, taking part in a round (not resolved yet), betting in the
    Arena, answering an oracle set, or only registered (``data/models/``)."""
    found = set(data.model_scores) | set(data.models) | {m for r in data.rounds for m in r.participants}
    for frame in (data.arena, data.oracle_board):
        if len(frame) and "model" in frame:
            found |= set(frame["model"])
    return sorted(found)


def model_rows(data: SiteData, everyone: list[str]) -> list[dict]:
    """The Models page: every forecaster with a page and its metadata (kind, organization, knowledge
    cutoff, release date, whether it saw the crowd), the rounds it took part in, its place on the
    headline board, and what else it has (Arena bets, oracle answers)."""
    board = data.board.set_index("model") if len(data.board) else None
    arena = set(data.arena["model"]) if len(data.arena) else set()
    oracle = set(data.oracle_board["model"]) if len(data.oracle_board) else set()
    scored_rounds = {m: {str(r) for r in s["round"].unique()} for m, s in data.model_scores.items()}
    out = []
    for model in everyone:
        meta = data.models.get(model) or ModelMeta(id=model, name=model, organization="", kind="")
        rounds = sorted(scored_rounds.get(model, set()) | {r.due for r in data.rounds if model in r.participants})
        rank = board.at[model, "rank"] if board is not None and model in board.index else None
        if rank is None:
            place = "scored, not on the board yet" if model in data.model_scores else "not scored yet"
        else:
            place = "provisional" if pd.isna(rank) else f"#{int(rank)}"
        out.append(
            {
                "model": model,
                "name": meta.name,
                "organization": meta.organization,
                "kind": meta.kind,
                "knowledge_cutoff": meta.knowledge_cutoff,
                "release_date": meta.release_date,
                "saw_crowd": meta.saw_crowd,
                "rounds": len(rounds),
                "first": rounds[0] if rounds else "",
                "last": rounds[-1] if rounds else "",
                "place": place,
                "rank": "" if rank is None or pd.isna(rank) else int(rank),
                "also": ", ".join(w for w, has in (("Arena", model in arena), ("Oracle", model in oracle)) if has),
            }
        )
    return out
