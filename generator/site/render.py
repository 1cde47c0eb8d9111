"""Render the generated pages from a ``SiteData`` bundle. Pure: data in, {path: bytes} out.

Templates are files in ``templates/`` and are rendered with autoescape on. Every string that came
from a submitter or a source is placed inside HTML elements or attributes (where Markdown does not
reach) or in JSON front matter, so it is escaped once, correctly, and never interpreted.
"""

from __future__ import annotations

import html
import json
from dataclasses import dataclass, field
from datetime import datetime
from importlib import resources

import jinja2
import markupsafe
import pandas as pd

from ..models import FIELDS as MODEL_FIELDS
from ..models import ModelMeta
from ..schemas import ALL_TABLES
from ..timeutil import format_ts
from . import charts

GENERATED = "generated"


@dataclass(frozen=True)
class RoundInfo:
    due: str  # YYYY-MM-DD
    questions: pd.DataFrame
    participants: tuple[str, ...]


@dataclass(frozen=True)
class SiteData:
    title: str
    as_of: datetime
    methodology_version: str
    board: pd.DataFrame
    history: pd.DataFrame
    models: dict[str, ModelMeta]
    model_scores: dict[str, pd.DataFrame]
    rounds: list[RoundInfo] = field(default_factory=list)


def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("generator.site", "templates"),
        autoescape=True, trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined,
    )
    env.filters["num"] = lambda x, digits=3: "–" if pd.isna(x) else f"{x:.{digits}f}"
    env.filters["safe_url"] = safe_url
    env.filters["title_json"] = title_json
    return env


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


def render_site(data: SiteData) -> dict[str, bytes]:
    env = environment()
    names = {m: (data.models[m].name if m in data.models else m) for m in data.board.get("model", [])}
    common = {"data": data, "updated": format_ts(data.as_of), "prefix": ""}
    pages = {
        "leaderboard.md": env.get_template("leaderboard.md.j2").render(
            **common, board=data.board.to_dict("records"),
            dots=charts.to_json(charts.board_dots(data.board)) if len(data.board) else "",
            history=charts.to_json(charts.history_lines(data.history, names)) if len(data.history) else ""),
        "models/index.md": env.get_template("models_index.md.j2").render(**common, board=data.board.to_dict("records")),
        "rounds/index.md": env.get_template("rounds_index.md.j2").render(**common, rounds=data.rounds),
        "data-dictionary.md": env.get_template("data_dictionary.md.j2").render(
            **common, tables=ALL_TABLES, model_fields=MODEL_FIELDS),
    }
    pages.update({f"models/{m}.md": _model_page(env, data, m) for m in sorted(data.model_scores)})
    pages.update({f"rounds/{r.due}.md": env.get_template("round.md.j2").render(**common, round=r) for r in data.rounds})
    files = {f"{GENERATED}/{path}": text.encode("utf-8") for path, text in pages.items()}
    files[f"{GENERATED}/assets/plotly.min.js"] = plotly_js()
    return files


def _model_page(env: jinja2.Environment, data: SiteData, model: str) -> str:
    scores = data.model_scores[model]
    by_source = (scores.groupby(["kind", "source"], sort=True)["brier"].agg(["mean", "count"])
                 .reset_index().to_dict("records"))
    row = data.board[data.board["model"] == model].to_dict("records")
    history = data.history[data.history["model"] == model]
    meta = data.models.get(model) or ModelMeta(id=model, name=model, organization="", kind="")
    return env.get_template("model.md.j2").render(
        data=data, updated=format_ts(data.as_of), meta=meta, row=row[0] if row else None, by_source=by_source,
        history=charts.to_json(charts.history_lines(history, {model: meta.name})) if len(history) else "",
        rounds=sorted(scores["round"].unique()))


def plotly_js() -> bytes:
    """The one plotly.js bundle, taken from the installed plotly package (never a CDN)."""
    return resources.files("plotly").joinpath("package_data/plotly.min.js").read_bytes()
