"""Names that cannot be squatted, and maintainers that are GitHub logins.

Each pull-request case runs ``validate_pr`` on a real git repository whose base holds a team
(acme), the hub's own baseline (prescient.always-0.5) and a legacy model whose maintainers list
holds a YAML null.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from generator.models import is_login
from generator.submissions import validate_pr
from generator.submissions.policy import check_metadata, maintainers_of
from generator.timeutil import parse_ts

AT = parse_ts("2026-01-20T12:00:00Z")
ACME = "data/models/acme.gpt-x.yml"
HUB = "data/models/prescient.always-0.5.yml"
LEGACY = "data/models/legacy.bot.yml"


def meta(maintainers: str, kind: str = "llm", name: str = "Bot") -> str:
    return f"name: {name}\norganization: Org\nkind: {kind}\nmaintainers: {maintainers}\n"


def git(repo: Path, *args: str) -> str:
    env = {
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.org",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.org",
        "PATH": "/usr/bin:/bin",
        "HOME": str(repo),
    }
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, env=env, check=True).stdout.strip()


def commit(repo: Path, files: dict[str, str]) -> str:
    for rel, text in files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text, encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--allow-empty", "-m", "step")
    return git(repo, "rev-parse", "HEAD")


@pytest.fixture()
def base(tmp_path) -> tuple[Path, str]:
    git(tmp_path, "init", "-q", "-b", "main")
    sha = commit(tmp_path, {ACME: meta("[alice, bob]"), HUB: meta("[]", kind="baseline"), LEGACY: meta("[null, carol]")})
    return tmp_path, sha


def check(base, files: dict[str, str], author: str) -> tuple[dict[str, str], object]:
    repo, sha = base
    report = validate_pr(repo, sha, commit(repo, files), author, AT)
    return {p.code: p.message for p in report.problems}, report


def test_a_new_model_under_another_teams_prefix_is_refused(base):
    codes, report = check(base, {"data/models/acme.gpt-y.yml": meta("[mallory]")}, "mallory")
    assert not report.ok and set(codes) == {"team-prefix-taken", "new-model"}
    (p,) = [p for p in report.problems if p.code == "team-prefix-taken"]
    assert p.file == "data/models/acme.gpt-y.yml" and "acme.gpt-x" in p.message and "@mallory" in p.message


def test_a_maintainer_of_the_team_may_add_a_model_whatever_the_case_of_the_login(base):
    codes, report = check(base, {"data/models/acme.gpt-y.yml": meta("[BOB]")}, "Bob")
    assert report.ok and set(codes) == {"new-model"}


def test_a_brand_new_team_prefix_is_free(base):
    codes, report = check(base, {"data/models/zeta.bot.yml": meta("[mallory]")}, "mallory")
    assert report.ok and set(codes) == {"new-model"}


def test_a_null_maintainer_of_the_team_grants_nobody_the_prefix(base):
    codes, report = check(base, {"data/models/legacy.bot-2.yml": meta("[None]")}, "None")
    assert not report.ok and "team-prefix-taken" in codes


@pytest.mark.parametrize(
    "rel",
    ["data/models/prescient.mine.yml", HUB, "data/forecasts/2026-01-25/prescient.always-0.5.csv", "data/bets/2026-01-25/prescient.always-0.5.csv"],
)
def test_the_hub_prefix_is_the_hubs_alone(base, rel):
    codes, report = check(base, {rel: meta("[mallory]")}, "mallory")
    assert not report.ok and "reserved-prefix" in codes and "team-prefix-taken" not in codes
    assert [p.file for p in report.problems if p.code == "reserved-prefix"] == [rel]


def test_deleting_a_hub_file_is_refused(base):
    repo, sha = base
    git(repo, "rm", "-q", HUB)
    codes, _ = check(base, {}, "mallory")
    assert {"reserved-prefix", "metadata-deleted"} <= set(codes)


def test_the_baseline_kind_is_the_hubs_alone(base):
    codes, report = check(base, {"data/models/zeta.bot.yml": meta("[mallory]", kind="baseline")}, "mallory")
    assert not report.ok and set(codes) == {"reserved-kind", "new-model"}
    (p,) = [p for p in report.problems if p.code == "reserved-kind"]
    assert (p.file, p.column) == ("data/models/zeta.bot.yml", "kind")


def test_an_existing_model_cannot_become_a_baseline(base):
    codes, report = check(base, {ACME: meta("[alice, bob]", kind="baseline")}, "alice")
    assert not report.ok and set(codes) == {"reserved-kind", "scoring-metadata-changed"}


def test_a_new_model_without_its_author_among_maintainers_gets_the_hint(base):
    codes, report = check(base, {"data/models/zeta.bot.yml": meta("[someone-else]")}, "mallory")
    assert not report.ok and "add your login to maintainers in this file" in codes["not-a-maintainer"]
    codes, _ = check(base, {"data/models/zeta.bot2.yml": "name: B\norganization: O\nkind: llm\n"}, "mallory")
    assert "add your login to maintainers in this file" in codes["not-a-maintainer"]


def test_an_existing_models_refusal_keeps_the_separate_pull_request_hint(base):
    codes, _ = check(base, {ACME: meta("[alice, bob, mallory]")}, "mallory")
    assert "separate pull request" in codes["not-a-maintainer"]
    assert "add your login" not in codes["not-a-maintainer"]


def test_a_null_maintainer_in_the_base_file_is_not_the_login_none(base):
    codes, report = check(base, {LEGACY: meta("[null, carol]", name="Renamed")}, "None")
    assert not report.ok and {"not-a-maintainer", "bad-maintainer"} <= set(codes)


@pytest.mark.parametrize(
    "value, shown",
    [
        ("[null]", "null"),
        ("['']", "''"),
        ("[123]", "quotes"),
        ("[true]", "bool"),
        ("[[alice]]", "list"),
        ("['-alice']", "'-alice'"),
        ("['alice-']", "'alice-'"),
        ("['al--ice']", "'al--ice'"),
        ("['" + "a" * 40 + "']", "aaaa"),
        ("['ålice']", "'ålice'"),
        ("['alice bob']", "'alice bob'"),
        ("['@alice']", "'@alice'"),
        ("['alice_b']", "'alice_b'"),
        ("['ａlice']", "lice"),
    ],
)
def test_maintainers_that_are_not_github_logins_are_refused(value, shown):
    path = "data/models/acme.gpt-x.yml"
    maintainers, problems = check_metadata("acme.gpt-x", path, meta(value).encode())
    assert maintainers is None
    assert [(p.code, p.file, p.column) for p in problems] == [("bad-maintainer", path, "maintainers")]
    assert shown in problems[0].message


def test_valid_logins():
    assert all(is_login(v) for v in ("a", "A1", "al-ice", "1234", "a" * 39, "x-y-z"))
    assert not any(is_login(v) for v in ("", "a" * 40, "-a", "a-", "a--b", "a_b", "a.b", "ä", "a\n", None, 1))
    assert check_metadata("acme.gpt-x", "m.yml", meta("['1234', Al-ice]").encode()) == (("1234", "Al-ice"), [])
    assert maintainers_of({"maintainers": [None, "", 5, "ok", "no way"]}) == ("ok",)


def test_a_bad_maintainer_is_refused_in_a_pull_request(base):
    codes, report = check(base, {"data/models/zeta.bot.yml": meta("[mallory, null]")}, "mallory")
    assert not report.ok and "bad-maintainer" in codes


def test_a_model_file_merged_with_a_null_maintainer_still_loads_and_grants_nothing(tmp_path):
    from generator.store.files import load_model

    path = tmp_path / "legacy.bot.yml"
    path.write_text(meta("[null, '', 123, carol]"))
    assert load_model(path).maintainers == ("carol",)
