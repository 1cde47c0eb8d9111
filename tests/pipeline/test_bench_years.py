"""``benchmarks/bench_years.py`` on a tiny history (``--small``, two checkpoints), so the script
cannot rot: the hub is made by ``init``, its pull requests are real merge commits with receipts, each
checkpoint's commands ran and exited as a healthy hub's do, and the fit has its figures. No timing
is asserted (the machine is shared)."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pandas as pd
import pytest

from helpers import benchmark

pytestmark = pytest.mark.e2e


def _bench():
    return benchmark("bench_years")


def _git(repo, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout.strip()


def test_a_small_history_is_grown_and_measured_at_each_checkpoint(tmp_path, capsys):
    bench = _bench()
    result = bench.main(["--small", "--months", "0.2", "0.5", "--work", str(tmp_path), "--json", str(tmp_path / "r.json")])
    assert json.loads((tmp_path / "r.json").read_text())["prs"] == result["prs"]
    points = result["checkpoints"]
    assert [p["night"] for p in points] == [8, 22]  # the nights that open the rounds due 2026-01-18 and 2026-02-01
    assert [p["opened"] for p in points] == [["2026-01-18"], ["2026-02-01"]]
    models = bench.SMALL.models
    assert result["prs"] == 2 * models  # the rounds opened on nights 1 and 8 get theirs the next day (22's after the run)
    for point in points:
        for step in ("verify_git_full", "nightly", "nightly_nothing_new", "validate", "verify", "verify_git", "clone", "fetch_pulls", "gc"):
            assert point[step]["exit"] == 0, (point["night"], step, point[step])
        # the nightly's full audit recorded a checkpoint; the pull request's check (on its merge) started from it
        assert point["verify_git_full"]["head"][-1] == "checkpoint recorded in data/metadata/checkpoints.csv for HEAD"
        scoped = "\n".join(point["verify_git"]["head"])
        assert "git history from checkpoint" in scoped and "unchanged since checkpoint" in scoped
        # the audit ran after the night's commit: only the pull request's round is rescored, for its file
        assert "1 round(s) rescored" in scoped and ".forecaster.csv added" in scoped
        assert point["nothing_new_changed_files"] is False  # a rerun with nothing new wrote no byte
        # the site job on the night's commit: built, measured by part, checked both ways from the checkpoint
        for step in ("build", "build_again", "deploy_verify", "deploy_verify_git"):
            assert point[step]["exit"] == 0, (point["night"], step, point[step])
        deploy = "\n".join(point["deploy_verify_git"]["head"])
        assert "git history from checkpoint" in deploy and "0 round(s) rescored" in deploy
        assert re.search(r"ok\s+pages: [1-9]\d* page\(s\) regenerated", deploy), deploy
        site = point["site"]
        assert site["site"]["bytes"] == sum(site["site"]["parts"].values()) > 0
        assert site["site"]["parts"]["generated/questions"] > 0 and site["question_pages"] > 0 and site["round_pages"] > 0
        assert "generated/downloads" not in site["site"]["parts"], "a hub naming its repository links the files"
        assert point["git_after_gc_mb"] > 0 and point["data_mb"] > 0
    assert points[1]["commits"] > points[0]["commits"]
    assert points[0]["prs"] == models and points[1]["prs"] == 2 * models

    hub = tmp_path / "hub"
    # each pull request: a head commit kept as refs/pull/<n>/head, merged into main by a merge commit
    heads = _git(hub, "for-each-ref", "--format=%(refname) %(objectname)", "refs/pull").splitlines()
    assert len(heads) == result["prs"]
    merges = _git(hub, "rev-list", "--merges", "main").splitlines()
    assert len(merges) == result["prs"]
    head_of = dict(line.split() for line in heads)
    assert _git(hub, "rev-parse", f"{merges[-1]}^2") == head_of["refs/pull/1/head"]
    # the receipts name those heads and the blobs the heads hold
    receipts = pd.concat([pd.read_csv(p) for p in sorted((hub / "data" / "receipts").glob("*.csv"))])
    assert set(receipts["head_sha"]) == set(head_of.values())
    row = receipts.iloc[0]
    assert _git(hub, "rev-parse", f"{row['head_sha']}:{row['path']}") == row["blob"]
    assert (hub / ".github" / "prescient-hub.json").is_file()  # made the way `prescient init` makes a hub

    fits = result["summary"]["fits"]
    for name in ("verify --git (s)", ".git after gc (MB)", "nightly with nothing new (s)"):
        assert "linear" in fits[name] and "three_years" in fits[name]
    assert "| verify --git (s) |" in capsys.readouterr().out

    # the checks timed again on the kept hub at each checkpoint's commit, and .git after gc --aggressive
    again = bench.main(["--retime", "verify", "--gc-aggressive", "--work", str(tmp_path), "--json", str(tmp_path / "r.json")])
    rows = again["retime"]["verify"]
    assert [r["night"] for r in rows] == [8, 22] and all(r["command"]["exit"] == 0 for r in rows)
    assert all("round(s) rescored" in "\n".join(r["command"]["head"]) for r in rows)
    assert all(r["git_after_gc_aggressive_mb"] > 0 and r["git_after_gc_mb"] > 0 for r in rows)
    built = bench.main(["--retime", "build", "--work", str(tmp_path), "--json", str(tmp_path / "r.json")])["retime"]["build"]
    assert [r["command"]["exit"] for r in built] == [0, 0]
    assert [r["site"]["round_pages"] for r in built] == [p["site"]["round_pages"] for p in points]  # the same commits, the same site
    assert [r["site"]["site"]["parts"] for r in built] == [p["site"]["site"]["parts"] for p in points]
    # the site job's check, alone at each checkpoint's commit (a command with options, quoted as one argument)
    checks = bench.main(["--retime", "verify --git", "--work", str(tmp_path), "--json", str(tmp_path / "r.json")])["retime"]["verify --git"]
    for row in checks:
        head = "\n".join(row["command"]["head"])
        assert row["command"]["exit"] == 0 and "git history from checkpoint" in head and "0 round(s) rescored" in head, head

    # the nightly's headline boards on the kept hub's score rows, copied into more rounds (bench_boards_years)
    boards = benchmark("bench_boards_years").main(["--hub", str(hub), "--rounds", "3", "--copies", "2"])
    scored = pd.concat([pd.read_csv(p, dtype=str, keep_default_na=False) for p in sorted((hub / "data" / "scores").glob("*.csv"))])
    firsts = scored.groupby("round").size().sort_index().iloc[:2].tolist()  # its oldest scored rounds, taken in turn
    assert [b["score_rows"] for b in boards] == [2 * sum(firsts[k % len(firsts)] for k in range(3))]
    assert boards[0]["history_rows"] > 0 and boards[0]["boards_cpu_s"] > 0 and boards[0]["peak_rss_gb"] > 0
    # --replicates: the site's bootstrapped boards instead, each tree's compared to the last bit (here the same tree twice)
    root = Path(__file__).resolve().parents[2]
    booted = benchmark("bench_boards_years").main(["--hub", str(hub), "--rounds", "3", "--copies", "2", "--replicates", "19", "--base", str(root)])
    assert [b["code"] for b in booted] == ["base", "this"] and {b["replicates"] for b in booted} == {19}
    assert booted[0]["history_sha256"] == booted[1]["history_sha256"] != boards[0]["history_sha256"]
    assert booted[0]["history_rows"] == boards[0]["history_rows"]  # a row a model of each board × view, as the history has


def test_the_fit_recovers_a_line_and_a_power_law():
    bench = _bench()
    line = bench.fit([10, 20, 40], [3 + 0.5 * x for x in (10, 20, 40)], at=100)
    assert abs(line["linear"]["at"] - 53) < 1e-6 and line["three_years"] >= 53 - 1e-6
    power = bench.fit([10, 20, 40], [0.01 * x**2 for x in (10, 20, 40)], at=100)
    assert abs(power["power"]["k"] - 2) < 1e-3 and abs(power["three_years"] - 100) < 1e-3  # above the line's value
