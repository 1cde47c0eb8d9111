"""Path and name rules: what a changed path is (a forecast file, model metadata, a file only the hub
writes, or none of these).

Pure string checks on the path relative to the hub root, written with ``/``. Nothing here touches
the disk, so a hostile path (``../``, absolute, a backslash) is judged, never opened.

Every path under ``data/`` is one of three kinds (DESIGN.md §6, "The trust model"):
- **submitted by pull request** and judged by the validate check: forecasts, bets, commitments,
  oracle forecasts, model metadata, the maintainers' decisions (``data/maintainer/actions.csv``);
- **written by the hub's bot** in its own non-merge commits (``hub_written``): the sources' records,
  rounds, scores, history, manifest, receipts, seals, checkpoints, news and the oracle's sets, every
  run log of the hub's LLM forecasters and Arena agents (``data/llm/``), and the hub's own
  forecasters' files (``<own>.*``, ``[hub] own_prefix``). No pull request may touch them (``hub-ledger``), and
  ``verify --git`` refuses a change to them by any other commit (``hub-ledger-edited``);
- **the maintainers' own files** (``REVIEWED``: ``data/hub.toml``, ``data/README.md``), reviewed like
  the code by the hub's maintainers (``.github/CODEOWNERS``); the validate workflow leaves a pull
  request that changes nothing else under ``data/`` to that review.
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass

from ..codes import problem
from ..errors import Problem
from ..models import DEFAULT_OWN, MODEL_ID
from ..schemas import ALL_TABLES
from ..timeutil import is_iso_date

FORECAST, MODEL, OTHER = "forecast", "model", "other"
ORACLE = "oracle"  # an oracle forecast file, data/oracle/<set>/forecasts/<team>.<model>.csv
BETS = "bets"  # an Arena bet file, data/bets/<due>/<team>.<model>.csv
MAINTAINER = "maintainer"  # the maintainers' ledger, data/maintainer/actions.csv (``submissions.maintainer``)
MAINTAINER_LEDGER = "data/maintainer/actions.csv"
COMMITMENT = "commitment"  # a commit–reveal round's data/commitments/<due>/<team>.<model>.sha256 (or its .salt)
DATED = (FORECAST, BETS, COMMITMENT)  # the submission files of a round, with its due time
COMMITMENT_FORMATS = ("sha256", "salt")
FORECAST_FORMATS = ("csv", "json")
_WINDOWS_DRIVE = re.compile(r"^[A-Za-z]:")
ORACLE_SET = re.compile(r"^[a-z0-9][a-z0-9-]*$")


@dataclass(frozen=True)
class Target:
    """A classified path. ``model`` and ``due`` are set only when the path is well-formed."""

    path: str
    kind: str
    model: str | None = None
    due: str | None = None
    fmt: str | None = None
    question_set: str | None = None  # oracle forecast files only


def classify(path: str) -> tuple[Target, list[Problem]]:
    unsafe = _unsafe(path)
    if unsafe:
        return Target(path, OTHER), [problem("unsafe-path", path, None, None, unsafe)]
    parts = path.split("/")
    if parts[:2] == ["data", "forecasts"]:
        return _forecast(path, parts)
    if parts[:2] == ["data", "models"]:
        return _model(path, parts)
    if parts[:2] == ["data", "oracle"] and parts[3:4] == ["forecasts"]:
        return _oracle(path, parts)
    if parts[:2] == ["data", "bets"]:
        return _forecast(path, parts, BETS)
    if parts[:2] == ["data", "commitments"]:
        return _forecast(path, parts, COMMITMENT)
    if path == MAINTAINER_LEDGER:
        return Target(path, MAINTAINER), []
    if is_hub_written(path):  # a record of the hub (its own forecasters' files were classified above, by their folder)
        return Target(path, OTHER), [
            problem(
                "hub-ledger",
                path,
                None,
                None,
                "this file is written only by the hub's own runs (the nightly's commits): sources, "
                "resolutions, rounds, scores, history, receipts, seals, checkpoints and agent logs; "
                "leave it out of the pull request",
            )
        ]
    return Target(path, OTHER), [
        problem(
            "outside-submission-area",
            path,
            None,
            None,
            "only files under data/forecasts/, data/bets/, data/commitments/, "
            "data/oracle/<set>/forecasts/ and data/models/ may be changed by a submission",
        )
    ]


def _unsafe(path: str) -> str:
    if not path:
        return "the path is empty"
    if path.startswith("/") or _WINDOWS_DRIVE.match(path):
        return "the path is absolute; give it relative to the repository root"
    if "\\" in path:
        return "the path contains a backslash; use / between folders"
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in path):
        return "the path contains a control character"
    if any(part in ("", ".", "..") for part in path.split("/")):
        return "the path contains an empty, '.' or '..' component"
    return ""


def _split_name(name: str) -> tuple[str, str]:
    stem, dot, ext = name.rpartition(".")
    return (stem, ext) if dot else (name, "")


def _forecast(path: str, parts: list[str], kind: str = FORECAST) -> tuple[Target, list[Problem]]:
    """A forecast file, or (kind BETS) an Arena bet file, or (kind COMMITMENT) a commit–reveal round's
    commitment or salt: the same rules, each in its own folder with its own extensions."""
    noun, formats = {BETS: ("bet", ("csv",)), COMMITMENT: ("commitment", COMMITMENT_FORMATS)}.get(kind, ("forecast", FORECAST_FORMATS))
    if len(parts) != 4:
        return Target(path, kind), [
            problem(
                "bad-round-folder",
                path,
                None,
                None,
                f"{noun} files sit directly in data/{parts[1]}/<due date>/, e.g. data/{parts[1]}/2026-01-25/acme.gpt-x.csv",
            )
        ]
    due, (stem, ext) = parts[2], _split_name(parts[3])
    problems = []
    if not is_iso_date(due):
        problems.append(problem("bad-round-folder", path, None, None, f"folder {due!r} is not a due date written as YYYY-MM-DD"))
    if ext not in formats:
        problems.append(
            problem(
                "bad-extension",
                path,
                None,
                None,
                f"{noun} files end in {' or '.join('.' + f for f in formats)}, not {'.' + ext if ext else 'nothing'}",
            )
        )
    if not MODEL_ID.match(stem):
        problems.append(bad_name(path, stem))
    ok = not problems
    return Target(path, kind, stem if ok else None, due if ok else None, ext if ok else None), problems


def _model(path: str, parts: list[str]) -> tuple[Target, list[Problem]]:
    stem, ext = _split_name(parts[-1])
    problems = []
    if len(parts) != 3:
        problems.append(problem("outside-submission-area", path, None, None, "model metadata sits directly in data/models/"))
    elif ext != "yml":
        problems.append(problem("bad-extension", path, None, None, "model metadata files end in .yml"))
    elif not MODEL_ID.match(stem):
        problems.append(bad_name(path, stem))
    ok = not problems
    return Target(path, MODEL, stem if ok else None, None, "yml" if ok else None), problems


def _oracle(path: str, parts: list[str]) -> tuple[Target, list[Problem]]:
    """``data/oracle/<set>/forecasts/<team>.<model>.csv`` (its content is checked by ``submissions.oracle``)."""
    stem, ext = _split_name(parts[-1])
    problems = []
    if len(parts) != 5 or not ORACLE_SET.match(parts[2]):
        problems.append(
            problem(
                "bad-oracle-folder",
                path,
                None,
                None,
                "oracle forecast files sit directly in data/oracle/<set>/forecasts/, e.g. data/oracle/daily-oracle/forecasts/acme.gpt-x.csv",
            )
        )
    elif ext != "csv":
        problems.append(problem("bad-extension", path, None, None, "oracle forecast files end in .csv"))
    elif not MODEL_ID.match(stem):
        problems.append(bad_name(path, stem))
    ok = not problems
    return Target(path, ORACLE, stem if ok else None, None, "csv" if ok else None, parts[2] if ok else None), problems


def bad_name(path: str, stem: str) -> Problem:
    """``bad-file-name`` for a file named ``stem``, with the id to rename it to when one is plain (``Acme.My_Bot`` → acme.my_bot)."""
    fix, (folder, _, name) = suggested_id(stem), path.rpartition("/")
    rename = f"; rename it {folder}/{fix}{name[len(stem) :]}" if fix else ""
    return problem(
        "bad-file-name", path, None, None, f"{stem!r} is not <team>.<model> in lower-case letters, digits and dashes (e.g. acme.gpt-x){rename}"
    )


def suggested_id(stem: str) -> str | None:
    """The model id ``stem`` most likely means: lower case, spaces as dashes (and underscores in the team,
    where no underscore may be); None when that is still no id, or is ``stem`` itself."""
    team, dot, model = stem.strip().lower().partition(".")
    fix = re.sub(r"[\s_]+", "-", team) + dot + re.sub(r"\s+", "-", model)
    return fix if fix != stem and MODEL_ID.match(fix) else None


def oracle_questions_path(question_set: str) -> str:
    return f"data/oracle/{question_set}/questions.csv"


def forecast_path(due: str, model: str, fmt: str) -> str:
    return f"data/forecasts/{due}/{model}.{fmt}"


def commitment_path(due: str, model: str, fmt: str = "sha256") -> str:
    return f"data/commitments/{due}/{model}.{fmt}"


HUB_LEDGERS = ("data/receipts/", "data/seals/", "data/metadata/")  # the hub's records of what was submitted when

# The tables a pull request writes (``schemas``); every other table is written by the hub's bot.
SUBMITTED_TABLES = ("forecasts", "bets", "oracle_forecasts", "maintainer_actions")
_FIELD = re.compile(r"<[^>]+>")
# What only the hub's own runs write, as fnmatch patterns (``*`` crosses ``/``): every table's path but
# the submitted ones', then the files that are no table (``HUB_RECORDS``, whatever the hub's prefix), and
# the hub's own forecasters' files, named by its prefix (``hub_written``). A placeholder such as
# data/scores/.gitkeep matches none of them (it is the maintainers', like data/README.md).
HUB_RECORDS: tuple[str, ...] = tuple(
    dict.fromkeys(
        [_FIELD.sub("*", t.path) for t in ALL_TABLES if t.name not in SUBMITTED_TABLES]
        + [
            "data/rounds/*/*",  # a round's files: questions.csv, question_sets.csv, reveal.csv, questions.json
            "data/llm/*/*",  # the run logs of the hub's LLM forecasters and Arena agents (data/llm/<due>/<model>.jsonl)
            "data/oracle/*/calls/*",
            "data/oracle/*/answers/*",  # the oracle's question maker's and answerers' logs
            *(f"{folder}*" for folder in HUB_LEDGERS),
        ]
    )
)  # any file there, as before 0.14


def hub_written(own: str = DEFAULT_OWN) -> tuple[str, ...]:
    """Every path only the hub's own runs write: ``HUB_RECORDS`` and the files of its own forecasters,
    ``<own>.*`` (``[hub] own_prefix``) in the forecast, bet, model and oracle-answer folders."""
    return (
        *HUB_RECORDS,
        *(f"data/{folder}/*/{own}.*" for folder in ("forecasts", "bets")),
        f"data/models/{own}.*",
        f"data/oracle/*/forecasts/{own}.*",
    )


REVIEWED = ("data/hub.toml", "data/README.md")  # the maintainers' files under data/: reviewed as code is (CODEOWNERS)


def is_hub_written(path: str, own: str = DEFAULT_OWN) -> bool:
    """A path only the hub's own runs write (``hub_written(own)``): no pull request may add, change or
    delete it, and no commit but the bot's own (not a merge) may change it."""
    return path.startswith("data/") and any(fnmatch.fnmatchcase(path, pattern) for pattern in hub_written(own))


MODELS_DIR = "data/models"


def model_path(model: str) -> str:
    return f"{MODELS_DIR}/{model}.yml"


ROUNDS_DIR = "data/rounds"


def round_path(due: str) -> str:
    return f"{ROUNDS_DIR}/{due}/questions.csv"
