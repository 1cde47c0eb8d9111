"""The README's Commands section is held to the argparse parser (sqlite-utils' and git-history's
``tests/repo/test_docs.py``): every command and every option is documented, every option has help
text, every ``--help`` runs, nothing documented is gone, and every ``generator/`` or ``tests/``
path the README and CONTRIBUTING.md name exists.

Where an option counts as documented: in its command's table row, or in a code span under the
table that starts with the command (``serve --port N``). ``--hub`` and ``--as-of`` are documented
once, in the sentence under the table.
"""

from __future__ import annotations

import argparse
import re

import pytest

from generator.cli import build_parser

from helpers import ROOT

README = ROOT / "README.md"
CONTRIBUTING = ROOT / "CONTRIBUTING.md"
COMMON = {"--hub", "--as-of"}  # every command's; documented once, under the table
BUILT = ("site_src/site", "site_src/docs/generated")  # written by `prescient build`, not in the repository
OPTION = re.compile(r"--[a-z][a-z-]*")


def commands() -> dict[tuple[str, ...], argparse.ArgumentParser]:
    """Every parser by its command path: () is `prescient`, ("round", "open") is `prescient round open`."""
    found: dict[tuple[str, ...], argparse.ArgumentParser] = {}

    def walk(parser: argparse.ArgumentParser, path: tuple[str, ...]) -> None:
        found[path] = parser
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, child in action.choices.items():
                    walk(child, (*path, name))

    walk(build_parser(), ())
    return found


def runs_alone(parser: argparse.ArgumentParser) -> bool:
    """A command that does something without a sub-command: none, or an optional one (`prescient oracle`)."""
    return not any(isinstance(a, argparse._SubParsersAction) and a.required for a in parser._actions)


COMMANDS = commands()
LEAVES = [p for p, parser in COMMANDS.items() if p and runs_alone(parser)]


def options(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    return [a for a in parser._actions if not isinstance(a, argparse._HelpAction | argparse._SubParsersAction)]


def section(text: str, title: str) -> str:
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    assert match, f"README has no '## {title}' section"
    return match[1]


def command_of(span: str) -> tuple[str, ...] | None:
    """The longest command path a code span starts with (`prescient ` optional), else None."""
    words = span.split()
    if words[:1] == ["prescient"]:
        words = words[1:]
    elif not words or (words[0],) not in COMMANDS:
        return None
    path: tuple[str, ...] = ()
    for word in words:
        if (*path, word) not in COMMANDS:
            break
        path = (*path, word)
    return path


def documented() -> dict[tuple[str, ...], str]:
    """For each command path, the README text that documents it: the code spans of its table row
    that start with it or with an option (not `mkdocs build --strict`), and the code spans under
    the table that start with it."""
    text = section(README.read_text(encoding="utf-8"), "Commands")
    rows = [line for line in text.splitlines() if line.startswith("| `prescient")]
    prose = " ".join(line for line in text.splitlines() if not line.startswith("|"))
    docs: dict[tuple[str, ...], str] = {}
    for row in rows:
        spans = re.findall(r"`([^`]+)`", row)
        path = command_of(spans[0])
        if not path:  # a row for a command that does not exist: test_every_row_of_the_readme_table_is_a_command
            continue
        docs[path] = docs.get(path, "") + " " + " ".join(s for s in spans if s.startswith("-") or command_of(s) == path)
    for span in re.findall(r"`([^`]+)`", prose):
        path = command_of(span)
        if path is not None:
            docs[path] = docs.get(path, "") + " " + span
    return docs


def table() -> set[tuple[str, ...]]:
    text = section(README.read_text(encoding="utf-8"), "Commands")
    spans = [re.findall(r"`([^`]+)`", line)[0] for line in text.splitlines() if line.startswith("| `prescient")]
    return {command_of(span) or tuple(span.split()[1:2]) for span in spans}


DOCS, TABLE = documented(), table()


def name(path: tuple[str, ...]) -> str:
    return " ".join(("prescient", *path))


@pytest.mark.parametrize("path", LEAVES, ids=name)
def test_every_command_has_a_row_in_the_readme_table(path):
    assert path in TABLE, f"`{name(path)}` has no row in README.md's Commands table"


def test_every_row_of_the_readme_table_is_a_command():
    stale = sorted(TABLE - set(LEAVES))
    assert stale == [], f"README.md's Commands table has rows for commands that do not exist: {stale}"


@pytest.mark.parametrize("path", list(COMMANDS), ids=name)
def test_every_option_is_in_the_readme(path):
    text = section(README.read_text(encoding="utf-8"), "Commands")
    prose = " ".join(line for line in text.splitlines() if not line.startswith("|"))  # the sentence under the table
    mine = DOCS.get(path, "")
    missing = []
    for action in options(COMMANDS[path]):
        if not action.option_strings:  # a positional: its metavar in the row (`demo [DIR]`)
            word = action.metavar or action.dest.upper()
            if word not in mine:
                missing.append(word)
            continue
        long = max(action.option_strings, key=len)
        if long in COMMON:
            if f"`{long} " not in prose:
                missing.append(long)
        elif not re.search(rf"{re.escape(long)}(?![a-z-])", mine):
            missing.append(long)
    assert missing == [], f"`{name(path)}`: not in README.md's Commands section: {missing}"


@pytest.mark.parametrize("path", list(DOCS), ids=name)
def test_every_option_the_readme_names_exists(path):
    known = {s for a in options(COMMANDS[path]) for s in a.option_strings} | COMMON
    stale = sorted(set(OPTION.findall(DOCS[path])) - known - {"--help"})
    assert stale == [], f"README.md documents options `{name(path)}` does not have: {stale}"


@pytest.mark.parametrize("path", list(COMMANDS), ids=name)
def test_every_command_and_option_has_help_text(path):
    parser = COMMANDS[path]
    empty = [
        max(a.option_strings, key=len) if a.option_strings else a.dest
        for a in options(parser)
        if not (a.help and a.help.strip()) or a.help == argparse.SUPPRESS
    ]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            empty += [f"{name((*path, c.dest))} (command)" for c in action._choices_actions if not (c.help or "").strip()]
            assert len(action._choices_actions) == len(action.choices), f"{name(path)}: a sub-command without help"
    assert empty == [], f"`{name(path)}`: no help text for {empty}"


@pytest.mark.parametrize("path", list(COMMANDS), ids=name)
def test_help_runs_and_lists_every_option(path, capsys):
    with pytest.raises(SystemExit) as exit_:
        build_parser().parse_args([*path, "--help"])
    assert exit_.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: {name(path)}")
    for action in options(COMMANDS[path]):
        assert (max(action.option_strings, key=len) if action.option_strings else action.metavar or action.dest) in out
    if path == ():
        assert all(c in out for c in {p[0] for p in COMMANDS if p}) and "exit codes" in out


@pytest.mark.parametrize("doc", [README, CONTRIBUTING], ids=lambda p: p.name)
def test_every_path_the_docs_name_exists(doc):
    """Paths under generator/, tests/, benchmarks/ and site_src/ that a doc names are real files or
    folders (a pattern such as `tests/sources/test_source_<name>.py` is skipped; build outputs too)."""
    words = re.findall(r"(?<![\w./-])(?:generator|tests|benchmarks|site_src)/[^\s`'\"()|,;:]*", doc.read_text(encoding="utf-8"))
    named = {w.rstrip(".") for w in words if not re.search(r"[<>*{]", w)}
    missing = sorted(p for p in named if not (ROOT / p).exists() and not p.startswith(BUILT))
    assert len(named) > 5 and missing == [], f"{doc.name} names paths that do not exist: {missing}"


def test_ci_runs_the_readmes_test_command():
    """The README's second command (the tests) is the line `.ci/run` runs, `--everything` included: CI
    runs what a contributor is told to run, and both run every marker the fast suite leaves out."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = readme.split("```sh\n")
    command = blocks[2].split("\n```")[0].strip()
    assert command.endswith("python -m pytest -n auto --everything"), command
    assert command in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
