"""Render the generated pages from a ``SiteData`` bundle. Pure: data in, {path: bytes} out.

Templates are files in ``templates/`` and are rendered with autoescape on. Every string that came
from a submitter or a source is placed inside HTML elements or attributes (where Markdown does not
reach) or in JSON front matter, so it is escaped once, correctly, and never interpreted.
"""

from __future__ import annotations

import html
import json
from collections.abc import Callable
from functools import partial
from importlib import resources

import jinja2
import markupsafe
import pandas as pd

from ..codes import OTHER_CODES
from ..config import hub_schema
from ..config_schema import HTTP_OVERRIDES, allowed, describe_kind, toml_value
from ..leaderboard.calibration import murphy, reliability_table
from ..leaderboard.fb_rules import orphan_text
from ..leaderboard.hub_boards import RECORDED_BEFORE_VIEWS, headline_of, history_views
from ..models import DEFAULT_OWN, ModelMeta
from ..models import FIELDS as MODEL_FIELDS
from ..parallel import in_background
from ..schemas import ALL_TABLES, SCORES
from ..store.csvio import empty_frame
from ..timeutil import format_ts
from . import charts, shell
from .api_paths import board_file
from .arena_page import arena_pages
from .breakdowns import breakdowns
from .downloads import for_spreadsheets, raw_url
from .explore_page import explore_pages
from .hub_settings import hub_settings_values, prose_values
from .human_groups import human_columns
from .listings import changes_page, forecasters, methodology_versions, model_rows, question_index
from .oracle_sets import oracle_pages
from .payloads import models_script, rounds_from, script_json
from .questions import RECENT_ROUNDS, QuestionInfo, question_slug
from .round_pages import friendly_time, open_now, round_page
from .sitedata import GENERATED, SiteData
from .speak import board_sentence
from .summaries import outcome_text, resolution_text, time_marks, unit_summary

MODELS_SCRIPT = "assets/question-models.js"  # under generated/: the model ids every question page names by index


def data_dictionary(env: jinja2.Environment) -> str:
    """The Data page's snippet: every table's columns, the model metadata fields, the problem codes
    reported outside the submission checks (the Submit page lists those) and every key of hub.toml,
    one section each."""
    settings = {table: [_setting_row(spec) for spec in keys] for table, keys in hub_schema().items()}
    return env.get_template("data_dictionary.md.j2").render(
        tables=ALL_TABLES, model_fields=MODEL_FIELDS, problem_codes=OTHER_CODES, hub_settings=settings, http_overrides=HTTP_OVERRIDES
    )


def hub_settings_page(env: jinja2.Environment, settings) -> str:
    """The Methodology page's snippet of this hub's numbers (``hub_settings``); empty without settings."""
    return env.get_template("hub_settings.md.j2").render(**hub_settings_values(settings)) if settings is not None else ""


def _setting_row(spec) -> dict[str, str]:
    """One key of hub.toml as the Data page lists it (Markdown table cells; text never holds a pipe)."""
    default = "required" if spec.required else "not set" if spec.default is None else f"`{toml_value(spec.default)}`"
    return {
        "key": spec.name,
        "type": describe_kind(spec.kind),
        "default": default,
        "allowed": allowed(spec),
        "meaning": html.escape(spec.meta.doc, quote=False).replace("|", "\\|"),
    }


def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("generator.site", "templates"),
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined,
    )
    env.filters["num"] = lambda x, digits=3: "–" if pd.isna(x) else f"{x:.{digits}f}"
    env.filters["safe_url"] = safe_url
    env.filters["title_json"] = title_json
    env.globals["n_varies"] = n_varies
    return env


def n_varies(rows: list[dict]) -> bool:
    """Whether the board's rows differ in N (scored forecasts): a column of one number is noise."""
    return len({int(r["n_dataset"]) + int(r["n_market"]) for r in rows}) > 1


def _history_charts(data: SiteData, names: dict[str, str]) -> list[dict]:
    """The Score over time chart of every board × view the Leaderboard shows, each line the view's
    headline Brier Index night by night; ``data.history`` alone (the first board's overall view)
    when the history of every board is not given. A view's chart says when its history starts
    later than the overall view's because the nights before recorded the overall view only."""
    baselines = _baselines(data)
    first = next(iter(data.boards), ("",))[0]
    history = data.board_history if len(data.board_history) else data.history.assign(board=first)
    if "view" not in history:
        history = history.assign(view=RECORDED_BEFORE_VIEWS)
    named = history["view"] != RECORDED_BEFORE_VIEWS
    since = str(history.loc[named, "as_of"].min()) if named.any() and not named.all() else ""
    history = history_views(history)
    parts = list(data.boards) or [(b, "overall") for b in sorted(set(history["board"]))]
    out = []
    for board, view in parts:
        own = history[history["board"] == board]
        if own.empty:
            continue
        rows = own[own["view"] == view]
        start = str(rows["as_of"].min()) if len(rows) else ""
        late = bool(since) and view != "overall" and str(own["as_of"].min()) < since and (not start or start >= since)
        figure = charts.history_lines(rows, names, baselines, score=headline_of(view, rows)) if len(rows) else None
        out.append(
            {
                "board": board,
                "view": view,
                "figure": charts.to_json(figure) if figure is not None else "",
                "starts": start[:10] if late else "",
                "since": since[:10] if late else "",
            }
        )
    return out


def _baselines(data: SiteData) -> set[str]:
    return {m for m, meta in data.models.items() if meta.kind == "baseline"}


def title_json(text: str) -> markupsafe.Markup:
    """A page title as a YAML front-matter scalar (a JSON string, which YAML reads as double-quoted).

    Material puts ``page.meta.title`` into ``<title>`` and the header unescaped (MkDocs' theme
    environment has no autoescape), so the value is HTML-escaped here, with every non-ASCII
    character as a character reference: then the JSON holds no surrogate-pair escape, which
    PyYAML rejects (and MkDocs would silently drop the whole front matter). Marked safe so that
    the template's autoescape does not turn the quotes into ``&#34;`` (which YAML reads as an anchor).
    """
    escaped = html.escape(str(text), quote=True).encode("ascii", "xmlcharrefreplace").decode("ascii")
    return markupsafe.Markup(json.dumps(escaped))


def safe_url(url: str) -> str:
    """The URL when it is plain http(s); otherwise empty (no javascript:, data: or relative tricks)."""
    text = str(url).strip()
    return text if text.lower().startswith(("https://", "http://")) else ""


def download_link(data: SiteData):
    """``link(name, prefix)``: the URL of a download (``downloads/...``) from a page whose way to
    generated/ is ``prefix``: the repository's raw file when ``repo_url`` is set, else the site's
    copy; empty when the file is not offered."""
    repo = safe_url(data.repo_url)

    def link(name: str, prefix: str) -> str:
        if name not in data.offered:
            return ""
        return raw_url(repo, data.offered[name]) if repo else f"{prefix}{name}"

    return link


def forecast_file(data: SiteData, due: str, model: str) -> str:
    """The download name of ``model``'s forecast file for the round due ``due`` (CSV or JSON), or ""."""
    for suffix in (".csv", ".json"):
        name = f"downloads/forecasts/{due}/{model}{suffix}"
        if name in data.offered:
            return name
    return ""


QUESTIONS_IN_WORKER = 100  # fewer question pages: rendering them takes less than a worker costs to start (~6 ms)


def render_site(data: SiteData) -> dict[str, bytes]:
    """Every page of the site and the files they fetch, by path (under generated/). The method, top to
    bottom: the pages every build has (leaderboard, changes, models, rounds, the Data and Methodology
    snippets), each question's page, the pages of the question index, the Oracle, the Arena and Explore,
    then the files they fetch (downloads, figures on demand, plotly.js). ``render_pages`` is the same,
    faster."""
    env = page_environment(data)
    main, on_demand = _main_pages(env, data)
    questions = _question_pages(env, data.questions, format_ts(data.as_of), frozenset(_baselines(data)))
    return _site_files(data, {**main, **questions, **_other_pages(env, data)}, on_demand)


def render_pages(data: SiteData) -> Callable[[], dict[str, bytes]]:
    """``render_site``, to be taken by calling the function returned: the question pages (~40% of the
    rendering at ForecastBench scale) are rendered by a forked worker (above ``QUESTIONS_IN_WORKER``)
    while this process renders the rest, so a caller has the other core's time meanwhile for its own
    work (``api.site_files``: the API's files) before it waits. The same bytes whichever process renders
    them (``parallel.in_background``; tests/site/test_site_boards.py compares with ``render_site``)."""
    env = page_environment(data)
    make_questions = partial(_question_pages, env, data.questions, format_ts(data.as_of), frozenset(_baselines(data)))
    question_pages = in_background(make_questions, len(data.questions) >= QUESTIONS_IN_WORKER)
    main, on_demand = _main_pages(env, data)
    other = _other_pages(env, data)
    return lambda: _site_files(data, {**main, **question_pages(), **other}, on_demand)  # the question pages waited for last


def page_environment(data: SiteData) -> jinja2.Environment:
    """The templates' environment with this site's download links."""
    env = environment()
    env.globals.update(download=download_link(data), forecast_file=lambda due, model: forecast_file(data, due, model))
    return env


def _common(data: SiteData) -> dict:
    """What every page's template is given. ``prefix`` leads from the page a snippet is shown on to
    generated/: the leaderboard snippet is included by index.md (the site root), the changes snippet
    by changes.md (served as changes/)."""
    return {"data": data, "updated": format_ts(data.as_of), "updated_friendly": friendly_time(data.as_of), "prefix": f"{GENERATED}/"}


def _names(data: SiteData) -> dict[str, str]:
    """Each model's display name, those on the board without metadata by their id."""
    return {
        **{m: meta.name for m, meta in data.models.items()},
        **{m: (data.models[m].name if m in data.models else m) for m in data.board.get("model", [])},
    }


def _main_pages(env: jinja2.Environment, data: SiteData) -> tuple[dict[str, str], dict[str, bytes]]:
    """The leaderboard, changes, model and round pages and the snippets, by path under generated/; and
    the figures moved to files of their own (``figures_on_demand``)."""
    common, names, everyone = _common(data), _names(data), forecasters(data)
    first_round = min((r.due for r in data.rounds), default="")
    history_start = str(data.history["as_of"].min())[:10] if len(data.history) else ""
    panels, history = _panels(data.boards), _history_charts(data, names)
    # every Score over time chart, the first board and view's too: its lines gain a point a night, so
    # in the page it would make a first visit grow with the history; the page's script fetches it
    # when a reader scrolls to it
    on_demand = {**figures_on_demand(panels, "dots", "board"), **figures_on_demand(history, "figure", "history", first=True)}
    pages = {
        "leaderboard.md": env.get_template("leaderboard.md.j2").render(
            **common,
            panels=panels,
            board_help=BOARD_HELP,
            view_help=VIEW_HELP,
            methodology="methodology/",
            boards=list(dict.fromkeys(b for b, _ in data.boards)),
            views=list(dict.fromkeys(v for _, v in data.boards)),
            history=history,
            first_round=first_round,
            round_age_days=data.round_age_days,
            history_start=history_start if data.round_age_days and first_round and history_start > first_round else "",
        ),
        "changes.md": changes_page(env, data, common),
        "models/index.md": env.get_template("models_index.md.j2").render(**common, models=model_rows(data, everyone)),
        "rounds/index.md": env.get_template("rounds_index.md.j2").render(
            **common, rounds=data.rounds, open_now=open_now(env, data, prefix="../", root="../../")
        ),
        "open-now.md": open_now(env, data, prefix=f"{GENERATED}/", root="", only_open=True),
        "data-dictionary.md": data_dictionary(env),
        "hub-settings.md": hub_settings_page(env, data.settings),
        **({"hub-settings.json": json.dumps(prose_values(data.settings), indent=1) + "\n"} if data.settings is not None else {}),
        "methodology-versions.md": env.get_template("methodology_versions.md.j2").render(
            versions=methodology_versions(data.history, str(data.methodology_version)), current=data.methodology_version
        ),
    }
    per_model = {name: _by_model(getattr(data, name)) for name in ("history", "arena", "oracle_board", "arena_curves", "oracle_months")}
    board = without_attrs(data.board)
    tables = breakdowns(data.model_scores)
    pages.update(
        {f"models/{m}.md": _model_page(env, data, m, {k: v.get(m) for k, v in per_model.items()}, board, tables.get(m, [])) for m in everyone}
    )
    slugs = {q.id: q.slug for q in data.questions}
    for r in data.rounds:
        page, table = round_page(env, data, r, slugs, common)
        pages[f"rounds/{r.due}.md"] = page
        pages[f"{shell.ROUND_TABLES}/{r.due}.html"] = table
    return pages, on_demand


def _other_pages(env: jinja2.Environment, data: SiteData) -> dict[str, str]:
    """The question index and the Oracle, Arena and Explore pages, by path under generated/."""
    common = _common(data)
    rest = {"questions/index.md": question_index(env, data, common)}  # after the question pages, as written
    rest.update(oracle_pages(env, data.oracle_sets, common))
    own = data.settings.own_prefix if data.settings is not None else DEFAULT_OWN  # the hub's Arena agents: <own>.<model>-arena
    curves, decisions = data.arena_curves, data.arena_decisions
    rest.update(
        arena_pages(env, data.arena, data.arena_brier, common, curves=curves, decisions=decisions, board=data.board, names=_names(data), own=own)
    )
    rest.update(explore_pages(env, data.boards, data.models, common))
    return rest


def _site_files(data: SiteData, pages: dict[str, str], on_demand: dict[str, bytes]) -> dict[str, bytes]:
    """The pages (text, by path under generated/) as bytes, then the files they fetch."""
    extra = {f"{GENERATED}/{path}": for_spreadsheets(content) if path.endswith(".csv") else content for path, content in data.downloads.items()}
    extra.update(on_demand)
    extra[f"{GENERATED}/assets/plotly.min.js"] = plotly_js()
    return {**{f"{GENERATED}/{path}": text.encode("utf-8") for path, text in pages.items()}, **extra}


def figures_on_demand(parts: list[dict], key: str, name: str, first: bool = False) -> dict[str, bytes]:
    """The home page opens on its first board and view; the figures of the others (``part[key]``,
    JSON) move to files of their own, fetched by the site's script when a reader switches to them, so
    a first visit does not load every board's charts; with ``first``, the first's too (the script
    fetches a shown chart's file when it nears the screen). Each moved part gets ``key_src``, the
    file's path from the site's root (its own is ""); returns the files by their path under docs/."""
    files = {}
    for i, part in enumerate(parts):
        part[f"{key}_src"] = ""
        if (i or first) and part[key]:
            path = f"{GENERATED}/figures/{name}-{question_slug(part['board'])}-{question_slug(part['view'])}.json"
            files[path], part[key], part[f"{key}_src"] = part[key].encode("utf-8"), "", path
    return files


def _question_pages(env: jinja2.Environment, questions: list[QuestionInfo], updated: str, baselines: frozenset[str] = frozenset()) -> dict[str, str]:
    """The question shell page, each question's body fragment and their titles (see ``site.shell``);
    the forecasts' summary leaves out the hub's ``baselines``."""
    if not questions:
        return {}
    body = env.get_template("question.html.j2")
    models = list(questions[0].models)  # shared by every question page (question_infos)
    pages = {f"questions/{shell.SHELL}.md": shell.shell_markdown(), MODELS_SCRIPT: models_script(models)}
    for q in questions:
        rounds = sorted({str(r) for r in q.units["round"].to_numpy()})
        shown, older = rounds[-RECENT_ROUNDS:], rounds[:-RECENT_ROUNDS]
        # the latest rounds only (RECENT_ROUNDS): the forecasts, their summary and the chart's round marks
        payload = rounds_from(q.payload, shown[0]) if older else q.payload
        recent = q.units[q.units["round"].astype(str).to_numpy() >= shown[0]] if older else q.units
        pages[f"{shell.FRAGMENTS}/{q.slug}.html"] = body.render(
            updated=updated,
            prefix="../../",
            q=q,
            forecasts=payload,
            payload=script_json(payload),
            summary=unit_summary(payload, models, baselines),
            outcome=outcome_text(q.question["kind"], q.units),
            resolution=resolution_text(q.question["kind"], q.units),
            rounds=shown,
            older=older,
            recent_rounds=RECENT_ROUNDS,
            marks=json.dumps(time_marks(recent), separators=(",", ":")),
            chart=charts.to_json(charts.question_history(q.history, q.question["kind"])) if len(q.history) else "",
        )
    heads = {
        q.slug: {"title": shell.page_title(q.question["text"]), "heading": html.escape(str(q.question["text"])), "search": shell.search_text(q.id)}
        for q in questions
    }
    pages[f"{shell.FRAGMENTS}/{shell.INDEX}"] = json.dumps(heads, sort_keys=True, indent=1, ensure_ascii=False) + "\n"
    return pages


BOARD_HELP = {
    "tournament": "Every forecaster, including those that saw the crowd's forecast when they forecast.",
    "baseline": "Only forecasters that did not see the crowd's forecast (model metadata saw_crowd: false).",
    "preliminary": "ForecastBench's preliminary board: every forecaster on dataset questions only, without the 50-day "
    "rule, so a new forecaster appears days after its first round instead of fifty; ranked by the "
    "dataset Brier Index.",
}
VIEW_HELP = {
    "overall": "Ranked by the overall Brier Index, the mean of the dataset and market difficulty-adjusted scores.",
    "dataset": "Dataset questions only, ranked by their Brier Index.",
    "market": "Market questions only, ranked by their Brier Index.",
    "resolved-only": "Only questions scored against a final resolution (no market proxy).",
}


def _panels(boards: dict[tuple[str, str], pd.DataFrame]) -> list[dict]:
    """One switchable panel per (board, view): its rows, headline column and CI dot-plot."""
    panels = []
    for (board, view), frame in boards.items():
        headline = headline_of(view, frame)
        unranked = frame["p_value"].isna() & frame[headline].notna() if len(frame) else frame.get("p_value", [])
        reference = frame.loc[unranked, "model"].iloc[0] if len(frame) and unranked.sum() == 1 else ""
        label = "Brier Index" if headline == "overall" else f"{headline.capitalize()} Brier Index"
        reference_name = reference
        if reference and "name" in frame:
            named = frame.loc[frame["model"] == reference, "name"]
            reference_name = str(named.iloc[0]) if len(named) else reference
        panels.append(
            {
                "board": board,
                "view": view,
                "headline": headline,
                "reference": reference,
                "label": label,
                "reference_name": reference_name,
                "sentence": board_sentence(frame, headline, label),
                "rows": frame.to_dict("records"),
                "dots": charts.to_json(charts.board_dots(frame, headline)) if len(frame) else "",
                "left_off": _left_off(frame),
                "orphans": orphan_text(frame.attrs["orphans"]) if frame.attrs.get("orphans") else "",
                "humans": human_columns(frame, headline) if len(frame) else {},
                "api": board_file(board, view),  # its CSV and JSON under api/
            }
        )
    return panels


def _left_off(frame: pd.DataFrame) -> list[dict]:
    """The forecasters and rounds the imputation rule left off this board, with the reason."""
    unranked = frame.attrs.get("unranked")
    return [] if unranked is None else unranked[["model", "name", "round", "reason"]].to_dict("records")


def without_attrs(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame``'s columns without its attrs: pandas deep-copies a frame's attrs into every column and
    row taken from it (a board's ``unranked`` frame, each time), so a frame read piece by piece, page
    after page, is read from this."""
    plain = frame.copy(deep=False)
    plain.attrs = {}
    return plain


def _model_page(
    env: jinja2.Environment, data: SiteData, model: str, mine: dict[str, pd.DataFrame | None], board: pd.DataFrame, tables: list[dict]
) -> str:
    """One model's page; ``mine`` holds its rows of the per-model frames (None: it has none); ``board``
    is ``data.board`` (``without_attrs``); ``tables`` its ``breakdowns``."""
    scores = data.model_scores.get(model)
    if scores is None:  # nothing scored yet: the page still shows its metadata, rounds, bets and answers
        scores = empty_frame(SCORES)
    own = scores[scores["imputed"] == 0]  # calibration of the forecasts the model made itself
    table = reliability_table(own["probability"], own["outcome"])
    row = board[board["model"] == model].to_dict("records")
    history = mine["history"] if mine["history"] is not None else data.history.iloc[:0]
    meta = data.models.get(model) or ModelMeta(id=model, name=model, organization="", kind="")
    return env.get_template("model.md.j2").render(
        data=data,
        updated=format_ts(data.as_of),
        meta=meta,
        row=row[0] if row else None,
        breakdowns=tables,
        history=charts.to_json(charts.history_lines(history, {model: meta.name})) if len(history) else "",
        calibration=charts.to_json(charts.reliability(table)) if len(table) else "",
        bins=table.to_dict("records"),
        murphy=murphy(own["probability"], own["outcome"]),
        arena=_records(mine["arena"]),
        oracle=_records(mine["oracle_board"]),
        arena_chart=_chart(mine["arena_curves"], charts.arena_curves),
        oracle_chart=_chart(mine["oracle_months"], charts.oracle_months),
        rounds=sorted({str(r) for r in scores["round"].unique()} | {r.due for r in data.rounds if model in r.participants}),
        seals=data.seals.by_model.get(model, []),
        exclusion=exclusion_of(data.decisions, model),
    )


def exclusion_of(decisions: pd.DataFrame, model: str) -> dict | None:
    """The maintainers' exclusion of ``model`` (the earliest in effect: its ``effective_at``, ``by`` and
    ``reason``), from ``SiteData.decisions``; None when none names it."""
    if not len(decisions) or "action" not in decisions:
        return None
    rows = decisions[(decisions["action"] == "exclude") & (decisions["target"] == model)]
    return rows.sort_values("effective_at", kind="mergesort").iloc[0].to_dict() if len(rows) else None


def _by_model(frame: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """A frame's rows by model, split once (not filtered again for every model page)."""
    if not len(frame) or "model" not in frame:
        return {}
    return {m: g for m, g in frame.groupby("model", sort=False)}


def _records(rows: pd.DataFrame | None) -> list[dict]:
    return rows.to_dict("records") if rows is not None else []


def _chart(rows: pd.DataFrame | None, chart) -> str:
    return charts.to_json(chart(rows)) if rows is not None and len(rows) else ""


PLOTLY_TRACES = ("scatter", "bar")  # the trace types of the bundle plotly_js() returns


def plotly_js() -> bytes:
    """The one plotly.js bundle: a partial bundle of plotly.js with the site's trace types
    (``PLOTLY_TRACES``) and the components its charts use, built and vendored beside this module
    (``assets/README.md``; never a CDN). Only pages with a chart load it."""
    return resources.files("generator.site").joinpath("assets/plotly-site.min.js").read_bytes()
