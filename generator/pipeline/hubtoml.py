"""The commented ``data/hub.toml`` that ``prescient init`` writes, made from the schema
(``config_schema``): every table and key in its declared order, each with its meaning as a comment,
the value a new hub starts with, and the advanced keys commented out at their defaults. What is
checked, what is documented and what a new hub starts with therefore cannot drift apart; a test
loads what this writes, for every choice of sources, with no problem.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterable, Mapping
from datetime import datetime, timedelta
from typing import Any

from ..config import TABLES
from ..config_schema import SOURCE_OPTIONS, Spec, specs, toml_value
from ..timeutil import format_ts

WIDTH = 100
SIM_LEAD_DAYS = 35  # an enabled sim world starts this many days before the hub's first due time
HEADER = """\
# The settings of {title}.
# Every command checks this file first (`prescient check-config` says what it found: each mistake
# with its line, key and code); every table and key, its type, range and default, is listed on the
# site's Data page. A commented-out key shows its default. Change the file by pull request; after
# changing [hub] maintainers, run `python .github/codeowners.py`.
"""
ORACLE_NOTE = (
    "Daily Oracle, living: questions made every night from the news (the site's Methodology page). "
    "Off without an [oracle] table: uncomment it and list real feeds to run it; the question maker "
    "uses the PRESCIENT_LLM_* endpoint."
)
# What the tables say before their keys, besides each key's own meaning.
TABLE_NOTES = {
    "rounds": "A round is due every cadence_days from first_due (UTC); its question set is frozen and published "
    "open_days_before_due days before. A round whose freeze time passed before the hub had any data "
    "is frozen at the first nightly that has (at least a day before its due time).",
    "http": "How the sources' requests are made; a source's own table may override any of these for itself.",
    "sources": "The sources the nightly asks, one table each; `prescient sources` lists them with their status.",
}


def render_hub_toml(title: str, maintainers: Iterable[str], first_due: datetime, sources: Iterable[str], receipts: str = "github") -> bytes:
    """The new hub's ``data/hub.toml``: ``sources`` enabled, every other known source listed, disabled;
    ``receipts``: where its seals learn of pull-request pushes ("github": the hub runs the GitHub
    workflows ``init`` writes, whose nightly reads the validation runs)."""
    given: dict[str, dict[str, Any]] = {
        "hub": {"title": title, "maintainers": list(maintainers), "receipts": receipts},
        "rounds": {"first_due": format_ts(first_due)},
    }
    enabled = set(sources)
    parts = [HEADER.format(title=title)]
    for table, cls in TABLES.items():
        if table == "oracle":
            continue
        parts.append(_table(table, specs(table, cls).values(), given.get(table, {}), TABLE_NOTES.get(table)))
    parts.append(_comment(TABLE_NOTES["sources"]))
    for name in SOURCE_OPTIONS:
        values: dict[str, Any] = {"enabled": name in enabled}
        if name == "sim" and name in enabled:  # the world begins a little before the hub: markets are open from its first night on
            values["start"] = format_ts(first_due - timedelta(days=SIM_LEAD_DAYS))
        # its own keys only: the [http] keys its table may also set are described once, under [http]
        parts.append(_table(f"sources.{name}", specs(f"sources.{name}", SOURCE_OPTIONS[name]).values(), values, None))
    parts.append(_comment(ORACLE_NOTE) + _commented(_table("oracle", specs("oracle", TABLES["oracle"]).values(), {}, None)))
    return "\n".join(parts).encode("utf-8")


def _table(label: str, keys: Iterable[Spec], given: Mapping[str, Any], note: str | None) -> str:
    lines = [f"[{label}]"] + (_comment(note).splitlines() if note else [])
    for spec in keys:
        value = given.get(spec.name, _start_value(spec))
        if value is None:
            continue  # a key that is unset by default (base_url, budget_seconds): described on the Data page
        lines += _comment(spec.meta.doc).splitlines()
        line = f"{spec.name} = {toml_value(value)}"
        lines.append(f"# {line}" if spec.meta.advanced and spec.name not in given else line)
    return "\n".join(lines) + "\n"


def _start_value(spec: Spec) -> Any:
    """What a new hub.toml writes for a key: its example where the default is empty, else its default."""
    if spec.meta.example is not None and not spec.default:
        return spec.meta.example
    return None if spec.required else spec.default


def _comment(text: str) -> str:
    return "\n".join(textwrap.wrap(text, WIDTH - 2, initial_indent="# ", subsequent_indent="# ", break_on_hyphens=False)) + "\n"


def _commented(text: str) -> str:
    return "".join(line if line.startswith("#") else f"# {line}" for line in text.splitlines(keepends=True))
