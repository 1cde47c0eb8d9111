"""Every read and write of a hub's files goes through ``generator/store/``: a module outside it that
opens, reads, writes or removes a file is named here with the reason it may, and what it touches is
never under ``data/``.

The scan is of calls, not of paths (a path's value is known only at run time): ``open``,
``Path.read_*``/``write_*``/``unlink``/``mkdir``/``rmdir``/``touch``/``rename``, ``os.open``/``replace``/
``remove``/``rename`` and ``shutil``'s copies and removals. A stage above ``store`` that needs a hub
file's bytes calls ``store.files.read_bytes`` (or a reader of ``store``), which the scan lets
through, as it does a package's own files (``importlib.resources``, ``Path(__file__)``).
"""

from __future__ import annotations

import ast
import re

from helpers import ROOT

PACKAGE = ROOT / "generator"

# Modules outside store/ that touch files, each with what it touches (none of it under data/).
ALLOWED = {
    # site/ writes its own output: the generated Markdown under site_src/, the built site, and the pages
    # it serves. That output is not the hub's data (it is rebuilt from it, never read back as input), so
    # it has no place in store/; the site reads the hub's files through store like every stage.
    "site/build.py": "the site's source tree (site_src/generated) and the built site it replaces",
    "site/write.py": "the generated pages under site_src/generated, written and pruned",
    "site/shell.py": "the built site's pages, filled from their fragments after MkDocs",
    "site/serve.py": "the built site, served",
    "cli/__init__.py": "the terminal: stdout sent to /dev/null when a pipe closes",
    "cli/submissions.py": "a file the user names with --output",
    "pipeline/hubinit.py": "a hub repository's files outside data/: workflows, CODEOWNERS, .ci/run, site skeleton",
    "pipeline/hubpin.py": "a hub's pin and lock files under .github/ and a kept wheel",
    "pipeline/commitments.py": "a team's salt and commitment files, kept outside the hub until the reveal",
    "pipeline/submit.py": "a team's own forecast files, read before they are pushed",
    "interop/forecastbench/parse.py": "ForecastBench's published JSON files, outside the hub",
    "interop/forecastbench/forecast_files.py": "a ForecastBench file kept as published, read from FB's folder",
    "oracle/importer.py": "a question file the user names",
    "llm/templates.py": "the prompt templates' folder (the package's, or one the hub names)",
}

DISK_ATTRS = {"read_bytes", "read_text", "write_bytes", "write_text", "unlink", "mkdir", "rmdir", "touch", "symlink_to", "open"}
DISK_FUNCTIONS = {
    ("os", "open"),
    ("os", "replace"),
    ("os", "remove"),
    ("os", "unlink"),
    ("os", "rename"),
    ("os", "makedirs"),
    ("shutil", "copytree"),
    ("shutil", "rmtree"),
    ("shutil", "copy"),
    ("shutil", "copy2"),
    ("shutil", "copyfile"),
    ("shutil", "move"),
}
NOT_A_FILE = {"files", "os", "io", "gzip", "tarfile", "zipfile", "webbrowser"}  # store.files, and modules whose .open is not a path's
PACKAGE_DATA = re.compile(r"resources\.files\(|Path\(__file__\)")


def disk_calls(source: str) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        if isinstance(f, ast.Name) and f.id == "open":
            found.append((node.lineno, "open"))
        elif isinstance(f, ast.Attribute):
            receiver = f.value
            if isinstance(receiver, ast.Name) and (receiver.id, f.attr) in DISK_FUNCTIONS:
                found.append((node.lineno, f"{receiver.id}.{f.attr}"))
            elif f.attr in DISK_ATTRS:
                if not (isinstance(receiver, ast.Name) and receiver.id in NOT_A_FILE) and not PACKAGE_DATA.search(ast.unparse(receiver)):
                    found.append((node.lineno, f.attr))
            elif f.attr == "rename" and len(node.args) == 1 and not node.keywords:  # Path.rename(target), not a frame's
                found.append((node.lineno, "rename"))
    return sorted(found)


def outside_store() -> dict[str, list[tuple[int, str]]]:
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel.startswith("store/"):
            continue
        calls = disk_calls(path.read_text(encoding="utf-8"))
        if calls:
            out[rel] = calls
    return out


def test_only_store_touches_the_hubs_files():
    found = outside_store()
    unlisted = [f"generator/{rel}:{line} {what}" for rel, calls in found.items() if rel not in ALLOWED for line, what in calls]
    assert not unlisted, (
        "a hub file is touched outside generator/store/: read it with store.files.read_bytes (or a store reader), "
        "write it through store, or add the module to ALLOWED with what it touches:\n" + "\n".join(unlisted)
    )


def test_every_allowed_module_still_needs_its_exception():
    stale = sorted(set(ALLOWED) - set(outside_store()))
    assert not stale, f"these modules no longer touch files; remove them from ALLOWED: {stale}"


def test_the_scan_finds_each_kind_of_disk_call():
    source = (
        "from pathlib import Path\nimport os, shutil\n"
        "p = Path('data/x')\np.read_bytes()\np.write_text('a')\nopen(p)\nos.replace(p, p)\nshutil.rmtree(p)\np.rename(p)\n"
        "files.read_bytes(p)\nframe.rename(columns={})\nresources.files('generator').joinpath('a').read_bytes()\n"
    )
    assert [what for _, what in disk_calls(source)] == ["read_bytes", "write_text", "open", "os.replace", "shutil.rmtree", "rename"]


def test_store_files_is_the_door_the_scan_lets_through():
    """The exemption for ``files.`` is sound only if that name is ``store.files`` wherever it is called."""
    wrong = []
    for path in sorted(PACKAGE.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        calls = re.search(r"\bfiles\.(read_bytes|read_text)\(", text) and not path.is_relative_to(PACKAGE / "store")
        if calls and not re.search(r"^from \.+store import (.*\b)?files\b", text, re.MULTILINE):
            wrong.append(str(path.relative_to(ROOT)))
    assert not wrong, f"`files` is not store.files in: {wrong}"
