"""Where the oracle's scikit-learn arithmetic runs (``oracle.tfidf``): here, or in the companion of an
``elsewhere`` block, with the same values and the same errors."""

from __future__ import annotations

import os
import subprocess
import sys

import pandas as pd
import pytest

from generator import parallel
from generator.oracle import tfidf
from generator.oracle.retrieval import retrieve
from generator.oracle.selection import select_day

TEXTS = [
    "Veloria's central bank raised its main interest rate by half a point as inflation stays high.",
    "The central bank of Veloria raised the main interest rate half a point; inflation is too high.",
    "Veloria central bank governor: main interest rate raised by half a point to fight inflation.",
    "Storm Ida flooded Port Elm when the river Elm burst its banks; 400 homes were flooded.",
    "The river Elm burst its banks in Port Elm as Storm Ida brought floods; 400 homes flooded.",
    "About 400 homes in Port Elm were flooded after Storm Ida made the river Elm burst its banks.",
    "Astronomers found water vapour on a distant planet.",
]
URLS = [f"https://n.example.org/{i:02d}" for i in range(len(TEXTS))]


def _oracle_values():
    news = pd.DataFrame(
        {
            "url": URLS,
            "title": [t.split(" ")[0] for t in TEXTS],
            "source": "wire",
            "published_at": [f"2026-11-{i + 1:02d}T08:00:00Z" for i in range(len(TEXTS))],
            "text": TEXTS,
        }
    )
    questions = pd.DataFrame(
        {"id": ["q1", "q2"], "text": ["Will the interest rate rise?", "Will the river flood?"], "resolution_date": ["2026-11-20"] * 2}
    )
    found = retrieve(questions, news, lambda row: row.text, cutoff="2026-11-30")
    return select_day("2026-11-25", URLS, TEXTS), {q: [a.title for a in found[q]] for q in found}


def _pid() -> int:
    return os.getpid()


def _here_only(pid: int) -> str:
    if os.getpid() != pid:
        raise RuntimeError("not in the test's process")
    return "here"


def _refused() -> None:
    raise ValueError("no word in any article")


@pytest.mark.parametrize("sound", [True, False])
def test_the_oracles_selection_and_retrieval_are_the_same_in_the_companion(monkeypatch, sound):
    monkeypatch.setattr(parallel, "fork_sound", lambda: sound)
    here = _oracle_values()
    assert any(p.reason.startswith("hot-topic") for p in here[0]) and here[1]["q1"]  # the values use scikit-learn
    with tfidf.elsewhere():
        there = _oracle_values()
        assert (tfidf.call(_pid) != os.getpid()) is sound  # made in the companion where forking is sound
    assert there == here


def test_a_call_that_fails_in_the_companion_is_made_here_and_so_are_the_rest():
    with tfidf.elsewhere():
        assert tfidf.call(_here_only, os.getpid()) == "here"  # failed there, made again here
        assert tfidf.call(_pid) == os.getpid()  # the companion has ended: every call is made here
        with pytest.raises(ValueError, match="no word in any article"):
            tfidf.call(_refused)  # an error raised as it would be without a companion


def test_a_process_forked_in_the_block_makes_its_calls_itself():
    with tfidf.elsewhere():
        companion = tfidf.call(_pid)
        worker = parallel.in_background(lambda: (os.getpid(), tfidf.call(_pid)))()
    assert worker[0] == worker[1] != companion and companion != os.getpid()


def test_no_block_and_a_block_not_wanted_make_the_calls_here():
    assert tfidf.call(_pid) == os.getpid()
    with tfidf.elsewhere(wanted=False):
        assert tfidf.call(_pid) == os.getpid()


def test_the_command_and_the_oracle_load_without_scikit_learn():
    """What makes the demo's main process spared the import: only ``selection`` and ``retrieval``, in
    their functions, import scikit-learn (and with it scipy.stats)."""
    code = (
        "import sys, generator.cli, generator.pipeline.demo, generator.oracle.stage;"
        "print(sorted(m for m in ('sklearn', 'scipy.stats') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
