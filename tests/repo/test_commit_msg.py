"""The commit-message hook (`.githooks/commit-msg`, CONTRIBUTING.md "Commit messages") run on messages
as git hands them to it: a file, comment lines included."""

from __future__ import annotations

import subprocess
import sys

import pytest

from helpers import ROOT

HOOK = ROOT / ".githooks" / "commit-msg"


def verdict(tmp_path, message: str) -> tuple[int, str]:
    path = tmp_path / "COMMIT_EDITMSG"
    path.write_text(message, encoding="utf-8")
    done = subprocess.run([sys.executable, str(HOOK), str(path)], capture_output=True, text=True, check=False)
    return done.returncode, done.stderr


@pytest.mark.parametrize(
    "message",
    [
        "Seal a round's rows before its files\n",
        "Seal a round's rows before its files\n\nA run stopped between them lost rows.\n",
        "x" * 72 + "\n",
        "Subject with a comment after\n# Please enter the commit message\n",
        "Ünïcödé counts characters, not bytes: " + "é" * 30 + "\n",
    ],
)
def test_the_hook_takes_a_short_subject_and_a_body_after_a_blank_line(tmp_path, message):
    assert verdict(tmp_path, message) == (0, "")


@pytest.mark.parametrize(
    ("message", "said"),
    [
        ("x" * 73 + "\n", "73 characters"),
        ("a subject\nthe body glued to it\n", "second line blank"),
        ("\n\nbody only\n", "subject line is empty"),
        ("# only a comment\n", "subject line is empty"),
    ],
)
def test_the_hook_refuses_a_long_subject_a_glued_body_and_no_subject(tmp_path, message, said):
    code, stderr = verdict(tmp_path, message)
    assert code == 1 and said in stderr
