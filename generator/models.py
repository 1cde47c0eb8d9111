"""Model metadata: ``data/models/<team>.<model>.yml``, loaded safely and checked field by field."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import TypeGuard

import yaml

from .errors import Problem, SchemaError

MODEL_ID = re.compile(r"^[a-z0-9][a-z0-9-]*\.[a-z0-9][a-z0-9._-]*$")
# A GitHub login: 1 to 39 ASCII letters, digits and single hyphens, no hyphen at either end.
GITHUB_LOGIN = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}", re.ASCII)
# The team prefix of the hub's own forecasters (``<own>.<model>``, written by the nightly only):
# ``[hub] own_prefix`` of data/hub.toml, this by default. Every function that tells the hub's own
# models from a team's takes the prefix as an argument (``own``), passed down from the hub's Settings.
DEFAULT_OWN = "prescient"
TEAM_ID = re.compile(r"^[a-z0-9][a-z0-9-]*$")  # a team prefix: the part of a model id before its dot (``MODEL_ID``)
# Team prefixes a hub may not take for its own: the demo's teams, and ForecastBench's own runs (an import names them so).
RESERVED_TEAMS = ("demo", "forecastbench")
HUB_ORGANIZATION = "Prescient"  # the organization of the hub's own baselines' metadata (``forecasters.baselines``)
OWN_MARK = "always-0.5"  # the baseline every nightly writes: data/models/<own>.always-0.5.yml tells the prefix in use
HUB_KINDS = ("baseline",)  # kinds only the hub's own forecasters may have
KINDS = ("llm", "human", "team", "baseline", "synthetic")
# Who ran a forecaster (ForecastBench's estimation sample is its own runs): empty for a hub's models.
RAN_BY = ("forecastbench", "team")
FIELDS = {
    "name": "Display name.",
    "organization": "Who built or runs the forecaster.",
    "kind": "One of " + ", ".join(KINDS) + ".",
    "knowledge_cutoff": "Training-data cutoff (YYYY-MM-DD), if known.",
    "release_date": "Release date (YYYY-MM-DD), if known.",
    "method": "How forecasts are made (prompt, tools, whether the crowd value was seen).",
    "saw_crowd": "true when the forecaster saw the market value; such models are left off the baseline board.",
    "maintainers": "GitHub logins allowed to submit for this model.",
    "prompt_variant": "LLM forecasters: the prompt used (e.g. `zero-shot`, `scratchpad`).",
    "prompt_sha256": "LLM forecasters: sha256 of the prompt template file, so a changed prompt is visible.",
    "ran_by": "Who ran the forecaster: `forecastbench` (ForecastBench's own runs) or `team` (a team's submission, "
    "never in the estimation sample); empty for a hub's own models. A ForecastBench import sets it.",
    "model_organization": "Who made the model, when not the organization that runs it (ForecastBench's Model Organization).",
}
OPTIONAL = ("prompt_variant", "prompt_sha256", "ran_by", "model_organization")  # left out of the YAML when empty


@dataclass(frozen=True)
class ModelMeta:
    id: str
    name: str
    organization: str
    kind: str
    knowledge_cutoff: str = ""
    release_date: str = ""
    method: str = ""
    saw_crowd: bool = False
    maintainers: tuple[str, ...] = ()
    prompt_variant: str = ""
    prompt_sha256: str = ""
    ran_by: str = ""
    model_organization: str = ""
    # Not a field of the file: set on a board's metadata when the maintainers' ledger excludes the model
    # at the board's time (``store.maintainer``); the board then leaves the model's rows out.
    excluded: bool = False

    def to_yaml(self) -> bytes:
        body = {k: v for k, v in asdict(self).items() if k not in ("id", "excluded") and (k not in OPTIONAL or v)}
        body["maintainers"] = list(self.maintainers)
        return yaml.safe_dump(body, sort_keys=False, allow_unicode=True).encode("utf-8")


def model_from_yaml(model_id: str, data: bytes, label: str) -> ModelMeta:
    """A model's metadata from the bytes of its ``data/models/<id>.yml`` (read by ``store.files.load_model``)."""
    try:
        body = yaml.safe_load(data.decode("utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise SchemaError(f"{label}: not valid YAML", [Problem(label, None, None, "bad-yaml", str(exc).splitlines()[0])]) from None
    problems = check_model(model_id, body, label)
    if problems:
        raise SchemaError(f"{label}: invalid model metadata", problems)
    text = {k: "" if body.get(k) is None else str(body[k]) for k in FIELDS}  # a field left out reads as ""
    return ModelMeta(
        id=model_id,
        name=text["name"],
        organization=text["organization"],
        kind=text["kind"],
        knowledge_cutoff=text["knowledge_cutoff"],
        release_date=text["release_date"],
        method=text["method"],
        saw_crowd=bool(body.get("saw_crowd")),
        maintainers=tuple(v for v in body.get("maintainers") or () if is_login(v)),
        prompt_variant=text["prompt_variant"],
        prompt_sha256=text["prompt_sha256"],
        ran_by=text["ran_by"],
        model_organization=text["model_organization"],
    )


def check_model(model_id: str, body: object, label: str) -> list[Problem]:
    if not MODEL_ID.match(model_id):
        return [Problem(label, None, None, "bad-model-id", f"{model_id!r} is not <team>.<model> in lower-case letters, digits and dashes")]
    if not isinstance(body, dict):
        return [Problem(label, None, None, "bad-yaml", "the file must hold a mapping of fields")]
    problems = [Problem(label, None, k, "unknown-field", f"unknown field {k!r}") for k in body if k not in FIELDS]
    problems += [Problem(label, None, k, "missing-field", f"{k!r} is required") for k in ("name", "organization", "kind") if not body.get(k)]
    if body.get("kind") and body["kind"] not in KINDS:
        problems.append(Problem(label, None, "kind", "bad-value", f"kind {body['kind']!r} is not one of {', '.join(KINDS)}"))
    if body.get("ran_by") and body["ran_by"] not in RAN_BY:
        problems.append(Problem(label, None, "ran_by", "bad-value", f"ran_by {body['ran_by']!r} is not one of {', '.join(RAN_BY)}"))
    if not isinstance(body.get("maintainers", []), list):
        problems.append(Problem(label, None, "maintainers", "bad-value", "maintainers must be a list of GitHub logins"))
    return problems


def team_of(model_id: str) -> str:
    """``acme`` of ``acme.gpt-x``."""
    return model_id.partition(".")[0]


def is_own(model_id: str, own: str = DEFAULT_OWN) -> bool:
    """A model of the hub's own forecasters: its team prefix is the hub's ``own`` (``[hub] own_prefix``)."""
    return team_of(model_id) == own


def own_prefix_problem(value: str) -> str:
    """Why ``value`` cannot be a hub's own team prefix ("" when it can): a team id, and not one reserved."""
    if not TEAM_ID.match(value):
        return f"{value!r} is not a team prefix (the part of a model id before its dot): lower-case letters, digits and dashes, alphanumeric first"
    if value in RESERVED_TEAMS:
        return f"{value!r} is reserved ({', '.join(RESERVED_TEAMS)}: the demo's teams and ForecastBench's own runs); choose the lab's own name"
    return ""


def is_login(value: object) -> TypeGuard[str]:
    return isinstance(value, str) and GITHUB_LOGIN.fullmatch(value) is not None


def maintainer_problems(values: list) -> list[str]:
    """One message per entry of ``maintainers`` that is not a GitHub login (null, empty, a number, ...).

    The submission check refuses such entries (``bad-maintainer``); ``load_model`` drops them, so a
    file merged before that check existed grants nothing and still loads."""
    out = []
    for i, value in enumerate(values, 1):
        if not isinstance(value, str):
            shown = "null" if value is None else f"a YAML {type(value).__name__}"
            hint = f" (write it in quotes: '{value}')" if isinstance(value, int) and not isinstance(value, bool) else ""
            out.append(f"maintainer {i} is {shown}, not a GitHub login{hint}")
        elif not is_login(value):
            out.append(
                f"maintainer {i}, {value[:60]!r}, is not a GitHub login (1 to 39 ASCII letters, digits and single hyphens, no hyphen first or last)"
            )
    return out
