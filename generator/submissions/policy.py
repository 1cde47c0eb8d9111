"""Checks of who may change what, and when: the round's deadline, model metadata, maintainers,
one model per pull request, and the immutability of past rounds. Pure: values in, problems out.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from datetime import datetime, timedelta

import yaml
from yaml.composer import ComposerError

from ..codes import problem
from ..errors import Problem
from ..models import DEFAULT_OWN, HUB_KINDS, check_model, is_login, is_own, maintainer_problems, team_of
from ..store.git import GitTree
from ..store.spreadsheet import formula_like
from ..timeutil import format_ts, parse_ts
from .content import RoundSet
from .paths import Target, model_path

MAX_METADATA_BYTES = 64 * 1024
TEXT_FIELDS = ("name", "organization", "method")  # free text shown on the site and in downloads
_BIDI = re.compile("[\u202a-\u202e\u2066-\u2069]")
_ZERO_WIDTH = re.compile("[\u200b-\u200d\u2060\ufeff]")


class _PlainLoader(yaml.SafeLoader):
    """``SafeLoader`` without aliases: ``*name`` lets a few bytes expand into billions of nodes (a
    "YAML bomb"), and model metadata has no use for them."""

    def compose_node(self, parent, index):
        if self.check_event(yaml.AliasEvent):
            raise ComposerError(None, None, "aliases (*name) are not allowed in model metadata", self.peek_event().start_mark)
        return super().compose_node(parent, index)


def load_metadata(data: bytes) -> object:
    """Plain YAML data; raises yaml.YAMLError, UnicodeDecodeError or RecursionError (absurd nesting)."""
    return yaml.load(data.decode("utf-8"), Loader=_PlainLoader)


def describe_delta(due: datetime, at: datetime) -> str:
    seconds = int(abs((due - at).total_seconds()))
    d, h, m = seconds // 86400, seconds % 86400 // 3600, seconds % 3600 // 60
    return f"{d}d {h}h {m}m"


def round_note(rnd: RoundSet, at: datetime) -> str:
    due = parse_ts(rnd.due_ts)
    state = f"open, {describe_delta(due, at)} left" if at < due else f"closed {describe_delta(due, at)} ago"
    return f"round {rnd.due} is due {rnd.due_ts} (UTC); at {format_ts(at)} it is {state}"


def check_timing(target: Target, status: str, rnd: RoundSet | None, at: datetime, open_rounds: Callable[[], list[str]] = list) -> list[Problem]:
    """A = new file, M = replaced, D = deleted. New files need an open round; past rounds are frozen.
    ``open_rounds``: the due dates of the rounds open at ``at``, named when the file's round does not exist."""
    if rnd is None:
        if status == "D":
            return []
        dues = open_rounds()
        where = (
            f"the open round{'s are' if len(dues) > 1 else ' is'} {', '.join(dues)}: put the file in "
            f"data/forecasts/{dues[0]}/" + (" (or another open round's folder)" if len(dues) > 1 else "")
            if dues
            else f"no round is open at {format_ts(at)} (`prescient rounds` lists the published ones)"
        )
        return [
            problem(
                "unknown-round",
                target.path,
                None,
                None,
                f"no round is due on {target.due}: data/rounds/{target.due}/questions.csv does not exist; {where}",
            )
        ]
    if at < parse_ts(rnd.due_ts):
        return []
    when = f"the round was due {rnd.due_ts} (UTC) and this was checked at {format_ts(at)}, {describe_delta(parse_ts(rnd.due_ts), at)} later"
    if status == "A":
        before = format_ts(parse_ts(rnd.due_ts) - timedelta(seconds=1))
        return [
            problem(
                "round-closed",
                target.path,
                None,
                None,
                f"too late: {when}; to check a file for this past round as it stood before the deadline, "
                f"run `prescient validate --at {before} {target.path}`",
            )
        ]
    verb = {"M": "edited", "D": "deleted", "R": "renamed"}.get(status, "changed")
    return [problem("past-round-changed", target.path, None, None, f"a forecast file of a past round cannot be {verb}: {when}")]


def check_metadata(model: str, path: str, data: bytes | None) -> tuple[tuple[str, ...] | None, list[Problem]]:
    """(maintainers, problems) of ``data/models/<model>.yml``; maintainers is None when unusable."""
    if data is None:
        return None, [problem("missing-model-metadata", path, None, None, f"add {path} (see the Submit page) in this pull request or an earlier one")]
    if len(data) > MAX_METADATA_BYTES:
        return None, [problem("file-too-large", path, None, None, f"the file has {len(data):,} bytes; the cap is {MAX_METADATA_BYTES:,}")]
    try:
        body = load_metadata(data)
    except (yaml.YAMLError, UnicodeDecodeError, RecursionError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        return None, [problem("bad-yaml", path, None, None, f"not valid YAML: {first}")]
    problems = [problem(p.code, p.file, p.row, p.column, p.message) for p in check_model(model, body, path)]
    problems += check_metadata_text(body, path) + check_maintainers(body, path) if isinstance(body, dict) else []
    if any(p.severity == "error" for p in problems):
        return None, problems
    return maintainers_of(body), problems


def check_maintainers(body: dict, path: str) -> list[Problem]:
    """Each entry of ``maintainers`` is a GitHub login written as text (``null`` would read as "None")."""
    values = body.get("maintainers")
    return [
        problem("bad-maintainer", path, None, "maintainers", message) for message in maintainer_problems(values if isinstance(values, list) else [])
    ]


def check_metadata_text(body: dict, path: str) -> list[Problem]:
    """The free-text fields: text, free of control characters and bidirectional overrides (errors);
    zero-width characters and formula-like starts are warnings."""
    out = []
    for key in (k for k in TEXT_FIELDS if body.get(k) is not None):
        value = body[key]
        if not isinstance(value, str):
            out.append(problem("bad-value", path, None, key, f"{key} must be text, not a YAML {type(value).__name__}"))
        else:
            out += _text_problems(key, value, path)
    return out


def _text_problems(key: str, value: str, path: str) -> list[Problem]:
    out = []
    hidden = [ch for ch in value if (unicodedata.category(ch) == "Cc" and ch not in "\n\t") or _BIDI.match(ch)]
    if hidden:
        out.append(problem("control-character", path, None, key, f"{key} contains U+{ord(hidden[0]):04X}; remove it"))
    if zero_width := _ZERO_WIDTH.search(value):
        ch = zero_width.group()
        out.append(problem("invisible-character", path, None, key, f"{key} contains the invisible U+{ord(ch):04X}"))
    if formula_like(value):
        out.append(problem("formula-like-text", path, None, key, f"{key} starts with {value[:1]!r}; a spreadsheet may run it as a formula"))
    return out


def maintainers_of(body: object) -> tuple[str, ...]:
    """The valid GitHub logins among ``maintainers`` (``null``, numbers and non-logins grant nothing)."""
    values = body.get("maintainers") if isinstance(body, dict) else None
    return tuple(v for v in values if is_login(v)) if isinstance(values, list) else ()


def metadata_in(tree: GitTree, path: str) -> object:
    """The YAML data of a model's metadata file as stored in ``tree`` (None when it is missing, too large
    or not YAML)."""
    entry = tree.entry(path)
    if not entry or entry[0] != "file" or entry[1] > MAX_METADATA_BYTES:
        return None
    try:
        return load_metadata(tree.read(path))
    except (yaml.YAMLError, UnicodeDecodeError, RecursionError):
        return None


def maintainers_in(tree: GitTree, model: str) -> tuple[str, ...]:
    """The maintainers a model's metadata lists in ``tree``."""
    return maintainers_of(metadata_in(tree, model_path(model)))


def is_maintainer(author: str, maintainers: tuple[str, ...]) -> bool:
    """GitHub logins are case-insensitive."""
    return author.lower() in {m.lower() for m in maintainers}


def check_author(model: str, path: str, maintainers: tuple[str, ...], author: str, new: bool = False) -> list[Problem]:
    """``new``: the model is registered by this pull request, so the author fixes the file itself."""
    if is_maintainer(author, maintainers):
        return []
    listed = ", ".join(maintainers) if maintainers else "nobody"
    hint = (
        f"add your login to maintainers in this file (maintainers: [{author}])"
        if new
        else "A current maintainer can add you to the maintainers list in a separate pull request"
    )
    return [problem("not-a-maintainer", path, None, "maintainers", f"@{author} may not submit for {model}: its maintainers are {listed}. {hint}")]


def check_reserved_prefix(target: Target, own: str = DEFAULT_OWN) -> list[Problem]:
    """No pull request adds, edits or deletes a file of the hub's own ``<own>.*`` forecasters (``own``: the
    hub's ``[hub] own_prefix``)."""
    if target.model is None or not is_own(target.model, own):
        return []
    return [
        problem(
            "reserved-prefix",
            target.path,
            None,
            None,
            f"the team prefix {own}. belongs to the hub's own forecasters; choose your own team prefix (e.g. acme.gpt-x)",
        )
    ]


def check_reserved_kind(target: Target, base: object, head: object) -> list[Problem]:
    """A model metadata file whose ``kind`` is (or was) one of the hub's own kinds (``baseline``)."""
    kinds = {body.get("kind") for body in (base, head) if isinstance(body, dict)}
    reserved = sorted(k for k in HUB_KINDS if k in kinds)
    if not reserved:
        return []
    return [
        problem(
            "reserved-kind", target.path, None, "kind", f"kind {reserved[0]} is kept for the hub's own forecasters; use llm, human, team or synthetic"
        )
    ]


def check_team_prefix(target: Target, author: str, team_models: dict[str, tuple[str, ...]], own: str = DEFAULT_OWN) -> list[Problem]:
    """A new model joins an existing team only when the author maintains one of that team's models.

    ``team_models``: each existing model of the team at base and its maintainers. A new team is free.
    """
    team = team_of(target.model or "")
    if team == own or not team_models or any(is_maintainer(author, m) for m in team_models.values()):
        return []  # the hub's prefix is reported once, as reserved-prefix
    existing = ", ".join(sorted(team_models)[:5]) + (", ..." if len(team_models) > 5 else "")
    return [
        problem(
            "team-prefix-taken",
            target.path,
            None,
            None,
            f"the team prefix {team}. is taken ({existing}) and @{author} maintains none of its models; "
            "a maintainer of that team can add you, or choose your own team prefix",
        )
    ]


SCORING_FIELDS = ("kind", "saw_crowd", "release_date", "knowledge_cutoff", "ran_by")  # what a board counts (store.model_log)


def check_scoring_fields(target: Target, base: object, head: object, author: str, hub_maintainers: tuple[str, ...]) -> list[Problem]:
    """An edit of a model's scoring-relevant fields needs a hub maintainer: a board of tonight counts
    them (past nights keep theirs, ``store.model_log``)."""
    if not isinstance(base, dict) or not isinstance(head, dict) or is_maintainer(author, hub_maintainers):
        return []
    changed = [k for k in SCORING_FIELDS if str(base.get(k) or "") != str(head.get(k) or "")]
    if not changed:
        return []
    who = ", ".join(hub_maintainers) if hub_maintainers else "nobody ([hub] maintainers in data/hub.toml is empty)"
    return [
        problem(
            "scoring-metadata-changed",
            target.path,
            None,
            changed[0],
            f"{', '.join(changed)} changed: these decide which boards count the model, so only a hub maintainer "
            f"({who}) may change them; open an issue for them, or leave these fields as they are",
        )
    ]


def check_one_model(targets: list[Target]) -> list[Problem]:
    models = sorted({t.model for t in targets if t.model})
    if len(models) <= 1:
        return []
    first = min(t.path for t in targets if t.model)
    return [
        problem(
            "multiple-models",
            first,
            None,
            None,
            f"this pull request changes files of {len(models)} models ({', '.join(models)}); open one pull request per model",
        )
    ]


def check_metadata_change(target: Target, status: str) -> list[Problem]:
    if status in ("D", "R"):
        return [problem("metadata-deleted", target.path, None, None, "model metadata cannot be deleted or renamed: past forecasts refer to it")]
    if status == "A":
        return [
            problem("new-model", target.path, None, None, f"this registers the new model {target.model}; a hub maintainer reviews it before merging")
        ]
    return []
