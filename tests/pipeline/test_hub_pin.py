"""The supply chain of a hub made by `prescient init`: Prescient pinned by a commit id or a wheel's
sha256 (never a movable tag), every dependency and the build backend installed hash-checked from the
shipped lock in every job and in `.ci/run`; `init --upgrade` keeps the hub's own pin, refuses a
downgrade without --force, and writes each kept file's new version beside it (FILE.new).

Offline, pip's hash check of a wheel pin is run for real (`pip install --dry-run --no-index`); the
lock's packages themselves come from the package index, which no test reaches."""

from __future__ import annotations

import base64
import hashlib
import json
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from generator import __version__
from generator.pipeline.hubinit import MANIFEST, shipped_files
from generator.pipeline.hubpin import LOCK, PIN_FILE, UPSTREAM, current_pin, legacy_pin

from helpers import INIT_AT, PRESCIENT, ROOT
from helpers import scene_ok as ok
from helpers import scene_run as run

pytestmark = pytest.mark.e2e

FORK = "git+https://github.com/lab/prescient-fork@" + "ab" * 20
LATER_FORK = "git+https://github.com/lab/prescient-fork@" + "cd" * 20


def fake_wheel(folder: Path, version: str = __version__) -> Path:
    """A minimal valid wheel named as Prescient's (metadata only): what pip needs to check and plan an install."""
    folder.mkdir(parents=True, exist_ok=True)
    info = f"prescient-{version}.dist-info"
    files = {
        f"{info}/METADATA": f"Metadata-Version: 2.1\nName: prescient\nVersion: {version}\n",
        f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    path = folder / f"prescient-{version}-py3-none-any.whl"
    record = []
    with zipfile.ZipFile(path, "w") as wheel:
        for name, text in files.items():
            wheel.writestr(name, text)
            digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode()
            record.append(f"{name},sha256={digest},{len(text)}")
        wheel.writestr(f"{info}/RECORD", "\n".join([*record, f"{info}/RECORD,,"]) + "\n")
    return path


def install_lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if "pip install" in line and not line.lstrip().startswith("#")]


def test_init_pins_this_checkouts_commit_and_every_install_is_hash_checked(tmp_path):
    hub = tmp_path / "hub"
    said = ok(PRESCIENT, "init", str(hub), "--as-of", INIT_AT)
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
    assert current_pin(hub) == f"prescient @ git+{UPSTREAM}@{head}", "the commit id, not a tag"
    assert "@v" not in (hub / PIN_FILE).read_text() and f"pinned Prescient: prescient @ git+{UPSTREAM}@{head}" in said
    assert (hub / LOCK).read_bytes() == (ROOT / LOCK).read_bytes() and "\nhatchling==" in (hub / LOCK).read_text()
    scripts = {p.relative_to(hub).as_posix(): p.read_text() for p in [hub / ".ci/run", *sorted((hub / ".github/workflows").glob("*.yml"))]}
    jobs_installing = 0
    for path, text in scripts.items():
        lines = install_lines(text)
        for line in lines:
            locked = "--require-hashes --no-deps -r" in line and line.rstrip('"').endswith("requirements.lock")
            pinned = "--no-deps --no-build-isolation -r .github/prescient.txt" in line
            assert locked or pinned, (path, line)  # nothing resolved at run time, no build backend from the index
        pins = [i for i, line in enumerate(lines) if "prescient.txt" in line]
        locks = [i for i, line in enumerate(lines) if "requirements.lock" in line]
        assert len(pins) == len(locks) and all(lock < pin for lock, pin in zip(locks, pins, strict=True)), (path, lines)  # the lock first, each time
        jobs_installing += len(pins)
    assert jobs_installing >= 5, "ci (two jobs: .ci/run and the verifier), validate, nightly (two jobs), receipts"
    assert "pip check" in scripts[".ci/run"], "a dependency the lock lacks fails the check, not the first import"


def test_init_refuses_a_movable_package_and_writes_nothing(tmp_path):
    for package in (
        f"prescient @ git+{UPSTREAM}@v0.13.3",
        "prescient==0.14.0",
        f"git+{UPSTREAM}@main",
        "https://example.org/prescient-0.14.0-py3-none-any.whl",
    ):
        hub = tmp_path / re.sub(r"\W+", "-", package)[-30:]
        done = run(PRESCIENT, "init", str(hub), "--package", package, "--as-of", INIT_AT)
        assert done.returncode == 2, (package, done.stderr)
        assert "not pinned by a commit id or a wheel's sha256" in done.stderr and not hub.exists(), package


def test_a_wheel_pin_is_kept_in_the_hub_and_pip_checks_its_hash_offline(tmp_path):
    wheel = fake_wheel(tmp_path / "dist")
    hub = tmp_path / "hub"
    ok(PRESCIENT, "init", str(hub), "--package", str(wheel), "--as-of", INIT_AT)
    kept = hub / ".github/wheels" / wheel.name
    assert kept.read_bytes() == wheel.read_bytes()
    digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
    assert current_pin(hub) == f"./.github/wheels/{wheel.name} --hash=sha256:{digest}"
    pip = [sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed", "--no-index", "--no-deps", "-r", PIN_FILE]
    planned = subprocess.run(pip, cwd=hub, capture_output=True, text=True, check=False)
    assert planned.returncode == 0 and f"Would install prescient-{__version__}" in planned.stdout, planned.stdout + planned.stderr
    kept.write_bytes(kept.read_bytes() + b"\0")  # a wheel changed after it was pinned
    refused = subprocess.run(pip, cwd=hub, capture_output=True, text=True, check=False)
    assert refused.returncode != 0 and "THESE PACKAGES DO NOT MATCH THE HASHES" in refused.stderr, refused.stderr


def test_upgrade_keeps_the_hubs_own_pin_refuses_a_downgrade_and_writes_new_copies_beside_kept_files(tmp_path):
    hub = tmp_path / "hub"
    ok(PRESCIENT, "init", str(hub), "--package", FORK, "--as-of", INIT_AT)
    own = f"prescient @ {FORK}"
    assert current_pin(hub) == own
    comment = hub / ".github/workflows/comment.yml"
    comment.write_text(comment.read_text() + "# the lab's own step\n")
    recorded = json.loads((hub / MANIFEST).read_text())
    recorded["version"] = "0.0.1"
    recorded["files"][".github/workflows/comment.yml"] = "0" * 64  # an older version shipped another copy
    (hub / MANIFEST).write_text(json.dumps(recorded))

    said = ok(PRESCIENT, "init", "--upgrade", str(hub))
    assert current_pin(hub) == own, "the hub's own pin is kept"
    assert f"kept the hub's own pin: {own} (give --package to change it)" in said
    new = hub / ".github/workflows/comment.yml.new"
    assert new.read_bytes() == shipped_files(own)[".github/workflows/comment.yml"]
    line = next(x for x in said.splitlines() if "kept .github/workflows/comment.yml" in x)
    assert re.search(r"this version's copy is in \.github/workflows/comment\.yml\.new \(\+0 -1 lines? against yours\)", line), line
    assert comment.read_text().endswith("# the lab's own step\n"), "the hub's change stays"

    told = ok(PRESCIENT, "init", "--upgrade", str(hub), "--package", LATER_FORK)
    assert current_pin(hub) == f"prescient @ {LATER_FORK}" and f"pin: {own} -> prescient @ {LATER_FORK}" in told

    recorded = json.loads((hub / MANIFEST).read_text())
    (hub / MANIFEST).write_text(json.dumps(dict(recorded, version="99.0.0")))
    before = {p: p.read_bytes() for p in sorted(hub.rglob("*")) if p.is_file() and ".git" not in p.parts}
    refused = run(PRESCIENT, "init", "--upgrade", str(hub))
    assert refused.returncode == 2, refused.stderr
    assert f"would downgrade it to {__version__}" in refused.stderr and "99.0.0" in refused.stderr and "--force" in refused.stderr
    assert {p: p.read_bytes() for p in before} == before and not (hub / ".github/workflows/nightly.yml.new").exists(), "nothing written"
    forced = ok(PRESCIENT, "init", "--upgrade", str(hub), "--force")
    assert f"downgraded {hub} to Prescient {__version__} (from 99.0.0)" in forced


def test_upgrade_moves_an_older_hubs_tag_pin_to_a_commit(tmp_path):
    """A hub made before pins were immutable holds the upstream tag init wrote then: that is not the hub's
    own choice, so the upgrade replaces it (the hub's own pin would be kept)."""
    hub = tmp_path / "hub"
    ok(PRESCIENT, "init", str(hub), "--as-of", INIT_AT)
    recorded = json.loads((hub / MANIFEST).read_text())
    old = (f"# The Prescient this hub runs, as a pip requirement.\n{legacy_pin('0.13.3')}\n").encode()
    (hub / PIN_FILE).write_bytes(old)
    recorded = {"version": "0.13.3", "files": dict(recorded["files"], **{PIN_FILE: hashlib.sha256(old).hexdigest()})}
    (hub / MANIFEST).write_text(json.dumps(recorded))
    said = ok(PRESCIENT, "init", "--upgrade", str(hub))
    assert re.fullmatch(rf"prescient @ git\+{re.escape(UPSTREAM)}@[0-9a-f]{{40}}", current_pin(hub)), current_pin(hub)
    assert f"pin: {legacy_pin('0.13.3')} -> {current_pin(hub)}" in said


def test_upgrade_to_an_older_wheel_is_a_downgrade_too(tmp_path):
    hub = tmp_path / "hub"
    ok(PRESCIENT, "init", str(hub), "--as-of", INIT_AT)
    before = current_pin(hub)
    old = fake_wheel(tmp_path / "dist", "0.0.1")
    refused = run(PRESCIENT, "init", "--upgrade", str(hub), "--package", str(old))
    assert refused.returncode == 2 and "the pinned wheel's Prescient (0.0.1)" in refused.stderr, refused.stderr
    assert current_pin(hub) == before and not (hub / ".github/wheels").exists()
    forced = ok(PRESCIENT, "init", "--upgrade", str(hub), "--package", str(old), "--force")
    assert current_pin(hub).startswith(f"./.github/wheels/{old.name} --hash=sha256:") and (hub / ".github/wheels" / old.name).is_file()
    assert f"pin: {before} -> ./.github/wheels/{old.name}" in forced
