"""Benchmark: a hub's git history growing for months, measured at several lengths.

The hub is made the way a new hub is (``prescient init --sources sim``: its hub.toml, workflows and
site skeleton, a git repository), on the offline sim world, at ForecastBench's density: 250 market
questions and 231 dataset questions × the 8 default horizons a round (2,098 units), fortnightly
rounds (``[rounds]`` as ``init`` writes them), and 100 team models that each submit every round's
forecast file as a pull request. Then, night after night, as the hub's workflows would:

- each round's pull requests, the day after it opens: per model, a head commit adding its file
  (and, the first time, its ``data/models/<id>.yml``) kept as ``refs/pull/<n>/head``, merged into
  ``main`` by a merge commit, and the receipt GitHub's run gives it (``store.receipts.receipt_rows``:
  attested at the push, for that head commit and blob) recorded in ``data/receipts/`` by the nightly,
  as ``receipts record`` / the nightly's walk do (the run ids are the pull requests' numbers: no
  GitHub API is called);
- every night, the nightly (``pipeline.nightly.nightly``, in this process, on one sim world drawn
  once) and one commit of what it changed by the hub's bot (``NightlyCommits``: one ``git
  fast-import`` stream for the whole history, the demo's writer).

Every night's nightly is timed (wall and CPU of this process), so the per-night cost is measured on
every night, not sampled. At each checkpoint (a night that opens a round, near each ``--months``
length), that night's nightly runs instead as the real command (``prescient nightly --as-of
--cache-dir``, a fresh process: "a nightly with a new round"), then again at the same time ("nothing
new"); then the nightly's audit after the night's commit (``verify --git --full --record-checkpoint``,
the whole walk and recompute) and the bot's commit of its checkpoint row; then, on a fresh clone (``git
clone --no-local``, timed, plus the fetch of the pull requests' heads ``ci.yml`` makes): ``prescient
validate --base --head --author --at`` of a one-file pull request, merged with ``--no-ff``, and on that
merge ``prescient verify`` and ``prescient verify --hub CHECKOUT --git`` (from the checkpoint: the
pull request's required check) from outside the checkout as the ``audit`` job runs it, and ``git gc``
with ``.git``'s size after it. Before the pull request, on that fresh clone of the night's commit, the
site job: ``prescient build`` with the nightly's cache (CPU, wall; the built ``site_src/site`` and
``site_src/docs`` measured by part: question pages, round pages, API files, copied downloads, the rest),
its check before upload both ways (plain ``verify`` and ``verify --git`` from the night's checkpoint, the
pages regenerated whole in both), and a second ``build`` with nothing new. The hub names its repository
(``[hub] repo_url``) as a deployed hub does, so the site links the data files rather than copying them.
Each command is a fresh process (``os.wait4``: wall, CPU, peak RSS); the load average is sampled around it.

The growth is fitted by least squares, per metric over the checkpoints, as a line in nights
(a + b·n) and as a power law (c·n^k, a line in log–log); the three-year figure (1,095 nights) is the
larger of the two. Per-night costs are fitted the same way over every night of the run (ordinary
nights and round nights apart).

Time: a month of this history costs ~15–20 min on the shared 2-CPU machine (load 8–16; the pull
requests ~20 s a round, the nights 1–16 CPU s each, a checkpoint 5–10 min as the audit grows), so a
year at full density does not fit a 30–40 min budget: the default lengths are 1, 2 and 3 months and
the three-year figures are fitted from them (``benchmarks/RESULTS.md``).

Run from the repository root: ``python -m benchmarks.bench_years [--months 1 2 3] [--work DIR]``;
``--small`` is a quick run of a tiny hub (the smoke test's).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
START = "2026-01-01T00:00:00Z"  # `prescient init --as-of`: the first round is due 2026-01-04
THREE_YEARS = 1095  # nights
REPO_URL = "https://github.com/example/prescient-hub"  # a deployed hub names its repository: downloads link there


@dataclass(frozen=True)
class Density:
    market_questions: int
    dataset_questions: int
    models: int
    markets: int  # in the sim world: enough open at any time to fill each round's market questions
    series: int


FULL = Density(market_questions=250, dataset_questions=231, models=100, markets=4000, series=260)
SMALL = Density(market_questions=12, dataset_questions=3, models=3, markets=150, series=6)


def hub_toml(text: str, density: Density) -> str:
    """``init``'s hub.toml with the benchmark's density (and the sim world started two months
    earlier, so that the first round has markets to ask), naming its repository as a hub deployed
    from GitHub does (the site then links the round and forecast files instead of copying them)."""
    subs = {
        r"^market_questions = \d+": f"market_questions = {density.market_questions}",
        r"^dataset_questions = \d+": f"dataset_questions = {density.dataset_questions}",
        r"^markets = \d+": f"markets = {density.markets}",
        r"^series = \d+": f"series = {density.series}",
        r"^span_days = \d+": f"span_days = {THREE_YEARS + 60}",
        r'^start = "[^"]*"': 'start = "2025-11-01T00:00:00Z"',
        r'^repo_url = ""': f'repo_url = "{REPO_URL}"',
    }
    for pattern, value in subs.items():
        text, n = re.subn(pattern, value, text, count=1, flags=re.M)
        if n != 1:
            raise SystemExit(f"hub.toml from init has no line {pattern!r}: the benchmark needs updating")
    return text


# -- each command as a fresh process --------------------------------------------------------------


def run(args: list[str], cwd: Path | None = None, check: bool = True, keep: int = 0) -> dict:
    """One command, a fresh process: wall and CPU seconds, peak RSS, load before → after, exit code
    (``keep``: also its first lines of output, e.g. what a verify took from the checkpoint)."""
    load = os.getloadavg()[0]
    start = time.perf_counter()
    with tempfile.TemporaryFile() as out:
        child = subprocess.Popen(args, cwd=cwd or tempfile.gettempdir(), stdout=out, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
        out.seek(0)
        text = out.read().decode(errors="replace")
    code = os.waitstatus_to_exitcode(status)
    if check and code != 0:
        raise RuntimeError(f"{' '.join(args[:3])} … failed ({code}): {text[-3000:]}")
    return {
        "wall": round(wall, 2),
        "cpu": round(usage.ru_utime + usage.ru_stime, 2),
        "rss_mb": round(usage.ru_maxrss / 1024),
        "load": f"{load:.1f}→{os.getloadavg()[0]:.1f}",
        "exit": code,
        "tail": text.strip().splitlines()[-1:] if code else [],
        **({"head": text.splitlines()[:keep]} if keep else {}),
    }


def prescient(*args: str, cwd: Path | None = None, check: bool = True, keep: int = 0) -> dict:
    return run([sys.executable, "-m", "generator", *args], cwd, check, keep)


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout.strip()


def du(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


# -- the hub and its history ----------------------------------------------------------------------


@dataclass
class Team:
    id: str
    login: str
    skill: float
    bias: float
    noise: float


def teams(n: int) -> list[Team]:
    rng = np.random.default_rng(39)
    skills = rng.permutation(np.linspace(0.05, 0.95, n))
    return [
        Team(f"team-{k:03d}.forecaster", f"team-{k:03d}", float(s), float(rng.normal(0, 0.25)), 0.3 + 1.5 * (1 - float(s)))
        for k, s in enumerate(skills)
    ]


def team_files(world, questions, due: datetime, roster: list[Team], layout, first: bool) -> dict[str, dict[str, bytes]]:
    """Each team's pull request for the round: its forecast file (checked as ``validate`` checks it)
    and, with its first, its model metadata. Skill s: logit p = (0.3 + 0.7 s)·logit(calibrated) + bias + noise."""
    from generator.forecasters.baselines import forecast_frame
    from generator.forecasters.synthetic import synthetic_forecasts
    from generator.models import ModelMeta
    from generator.schemas import ROUND_QUESTIONS
    from generator.store.csvio import to_csv_bytes
    from generator.store.fast_forecasts import forecast_bytes
    from generator.store.forecast_file import parse_forecast
    from generator.submissions.content import check_content, round_set
    from generator.timeutil import format_date

    calibrated = synthetic_forecasts(world, questions)["demo.calibrated"]["probability"].to_numpy(dtype=float)
    base = np.log(calibrated / (1 - calibrated))
    the_round = round_set(to_csv_bytes(questions, ROUND_QUESTIONS), format_date(due), layout.relative(layout.round_questions(due)))
    out: dict[str, dict[str, bytes]] = {}
    for team in roster:
        rng = np.random.default_rng([39, int(due.strftime("%Y%m%d")), int(team.login[-3:])])
        logits = (0.3 + 0.7 * team.skill) * base + team.bias + rng.normal(0, team.noise, len(base))
        probs = np.round(np.clip(1 / (1 + np.exp(-logits)), 0.001, 0.999), 4)
        path = layout.relative(layout.forecast(due, team.id))
        data = forecast_bytes(forecast_frame(questions, probs))
        errors = [p for p in check_content(parse_forecast(data, path, "csv"), the_round) if p.severity == "error"]
        if errors:
            raise RuntimeError(f"{path}: the benchmark's file fails validation: {errors[:3]}")
        files = {path: data}
        if first:
            meta = ModelMeta(
                id=team.id,
                name=f"Team {team.login[-3:]}",
                organization=team.login,
                kind="team",
                method="Synthetic benchmark forecaster (benchmarks/bench_years.py).",
                maintainers=(team.login,),
            )
            files[layout.relative(layout.model_meta(team.id))] = meta.to_yaml()
        out[team.login] = files
    return out


@dataclass
class History:
    density: Density
    work: Path
    hub_dir: Path = field(init=False)
    cache: Path = field(init=False)
    nights: list[dict] = field(default_factory=list)
    checkpoints: list[dict] = field(default_factory=list)
    prs: int = 0

    def __post_init__(self) -> None:
        self.hub_dir, self.cache = self.work / "hub", self.work / "cache"


def build_and_measure(density: Density, work: Path, checkpoint_nights: list[int], log=print) -> History:
    """Grow the hub night by night up to the last checkpoint, measuring at each."""
    from generator.pipeline.demo_git import NightlyCommits
    from generator.pipeline.hubinit import init_hub
    from generator.pipeline.nightly import nightly
    from generator.sources.sim import SimSource, world_from_options
    from generator.store import readers, receipts
    from generator.store.atomic import write_bytes_atomic
    from generator.store.git import blob_id
    from generator.store.hub import Hub
    from generator.timeutil import days, format_ts, parse_ts

    history = History(density, work)
    hub_dir = history.hub_dir
    os.environ["PRESCIENT_CACHE_DIR"] = str(history.cache)  # the in-process nightlies' cache; the commands get --cache-dir
    start = parse_ts(START)
    init_hub(hub_dir, start, title="A hub three years old", sources=("sim",))
    toml = hub_dir / "data" / "hub.toml"
    toml.write_text(hub_toml(toml.read_text(), density))
    hub = Hub.load(hub_dir)
    options = dict(next(s for s in hub.settings.sources if s.name == "sim").options)
    sim = SimSource(options, world_from_options(options))
    roster, submitted = teams(density.models), set()
    last = max(checkpoint_nights)
    with NightlyCommits(hub_dir, hub.settings.bot_email) as commits:
        commits.commit(start - days(1), "hub: prescient init", ("Hub Maintainer", "maintainer@hub.invalid"))
        opened: list[datetime] = []  # rounds opened last night: their pull requests come today
        for n in range(1, last + 1):
            night = start + days(n - 1)
            t_pr = time.perf_counter()
            rows = []
            for due in opened:
                questions = readers.load_round(hub, due)
                for login, files in team_files(sim.world, questions, due, roster, hub.layout, not submitted).items():
                    when = night - days(1) + (len(rows) + 60) * days(1) / 1440 * 5  # pushes from 05:00, five minutes apart
                    for path, data in files.items():
                        write_bytes_atomic(hub_dir / path, data)
                    history.prs += 1
                    head = commits.pull_request(
                        history.prs,
                        sorted(files),
                        f"{login}: forecasts for the round due {due:%Y-%m-%d}",
                        pushed=when,
                        merged=when + timedelta(minutes=1),
                        author=(login, f"{login}@teams.invalid"),
                        login=login,
                    )
                    forecast = {p: blob_id(d) for p, d in files.items() if p.startswith("data/forecasts/")}
                    rows.append(
                        receipts.receipt_rows(
                            forecast,
                            attested_at=format_ts(when),
                            head_sha=head,
                            pr=history.prs,
                            run_id=history.prs,
                            verdict="pass",
                            as_of=night,
                            author=login,
                        )
                    )
                submitted.add(due)
            if rows:
                receipts.record(hub, rows, night)
            pr_seconds = time.perf_counter() - t_pr
            before = set(p.name for p in hub.layout.round_dirs())
            if n in checkpoint_nights:
                commits.checkpoint()
                history.checkpoints.append(checkpoint(history, n, night, before, commits, log))
                hub = Hub.load(hub_dir)  # the commands wrote the hub: read it afresh
                how = "command"
            else:
                wall, cpu = time.perf_counter(), _cpu()
                nightly(hub, night, env={}, sources={"sim": sim})
                history.nights.append({"night": n, "wall": round(time.perf_counter() - wall, 2), "cpu": round(_cpu() - cpu, 2), "round": False})
                how = "in process"
            new = sorted(set(p.name for p in hub.layout.round_dirs()) - before)
            opened = [parse_ts(f"{d}T00:00:00Z") for d in new]
            if history.nights and history.nights[-1]["night"] == n:
                history.nights[-1]["round"] = bool(new)
            commits.nightly(night)
            if n % 7 == 0 or new or rows:
                log(
                    f"night {n} ({night:%Y-%m-%d}, {how}): {history.nights[-1] if history.nights and history.nights[-1]['night'] == n else ''}"
                    f"{' opened ' + ', '.join(new) if new else ''}{f' {len(rows)} pull requests ({pr_seconds:.1f} s)' if rows else ''}"
                )
    return history


def _cpu() -> float:
    """CPU seconds of this process and its ended children (the nightly forks to score rounds)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def checkpoint(history: History, n: int, night: datetime, rounds_before: set[str], commits, log) -> dict:
    """The night's nightly as the command (a new round if one opens tonight), once more with nothing
    new, then the pull request's and the audit's commands on a fresh clone."""
    from generator.timeutil import format_ts

    hub_dir, cache, as_of = history.hub_dir, history.cache, format_ts(night)
    point: dict = {"night": n, "date": f"{night:%Y-%m-%d}", "prs": history.prs}
    point["nightly"] = prescient("nightly", "--hub", str(hub_dir), "--as-of", as_of, "--cache-dir", str(cache))
    point["opened"] = sorted({p.name for p in (hub_dir / "data" / "rounds").iterdir() if p.is_dir()} - rounds_before)
    commits.nightly(night)
    point["nightly_nothing_new"] = prescient("nightly", "--hub", str(hub_dir), "--as-of", as_of, "--cache-dir", str(cache))
    point["nothing_new_changed_files"] = commits.nightly(night)  # a rerun with nothing new changes no byte: False
    log(f"checkpoint {n}: nightly {point['nightly']} · nothing new {point['nightly_nothing_new']}")
    # the nightly's audit (nightly.yml, after the night's commit): the full walk and recompute up to
    # tonight's commit, its checkpoint row committed by the hub's bot for the pull requests' checks
    commits.checkpoint()
    point["verify_git_full"] = prescient("verify", "--hub", str(hub_dir), "--git", "--full", "--record-checkpoint", check=False, keep=12)
    commits.commit(night + timedelta(hours=2), "nightly: the audit's checkpoint")
    tip = commits.checkpoint()  # the checkpoint's commit, on disk for the clone
    point["data_mb"] = round(du(hub_dir / "data") / 1e6, 1)
    clone = history.work / f"clone-{n}"
    point["clone"] = run(["git", "clone", "--quiet", "--no-local", "--no-tags", str(hub_dir), str(clone)])
    point["fetch_pulls"] = run(["git", "-C", str(clone), "fetch", "--quiet", "--no-tags", "origin", "+refs/pull/*/head:refs/prescient/pull/*"])
    site_and_deploy_check(point, clone, cache)  # the site job: a checkout of the night's commit, the nightly's cache
    # a one-file pull request: a team's file for the round open now
    due = max(point["opened"]) if point["opened"] else None
    base = git(clone, "rev-parse", "HEAD")
    if due:  # validate the pull request, then check its merge as ci.yml does (pull_request: the merge commit)
        point["validate"] = one_file_pr(clone, history, due, night)
    point["verify"] = prescient("verify", "--hub", str(clone), check=False)
    point["verify_git"] = prescient("verify", "--hub", str(clone), "--git", check=False, keep=12)
    git(clone, "reset", "--quiet", "--hard", base)
    point["git_before_gc_mb"] = round(du(clone / ".git") / 1e6, 1)
    point["gc"] = run(["git", "-C", str(clone), "gc", "--quiet"])
    point["git_after_gc_mb"] = round(du(clone / ".git") / 1e6, 1)
    point["commits"] = int(git(clone, "rev-list", "--count", "HEAD"))
    point["tip"] = tip
    shutil.rmtree(clone)
    log(f"checkpoint {n}: {json.dumps({k: v for k, v in point.items() if k not in ('nightly', 'nightly_nothing_new')})}")
    return point


def site_parts(site_src: Path) -> dict:
    """Bytes of the built site (``site_src/site``) and of the generated docs (``site_src/docs``), each by
    its folders one level down and, under ``generated/``, one more (question pages, round pages, model
    pages, assets, API files, search index, copied downloads …); how many question and round pages."""

    def size(folder: Path) -> int:
        return du(folder) if folder.is_dir() else 0

    out: dict = {}
    for name, top in (("site", site_src / "site"), ("docs", site_src / "docs")):
        parts: dict[str, int] = {}
        for child in sorted(top.iterdir()) if top.is_dir() else []:
            if child.name == "generated" and child.is_dir():
                parts.update({f"generated/{g.name}": size(g) if g.is_dir() else g.stat().st_size for g in sorted(child.iterdir())})
            else:
                parts[child.name] = size(child) if child.is_dir() else child.stat().st_size
        out[name] = {"bytes": size(top), "parts": parts}
    built = site_src / "site" / "generated"
    out["question_pages"] = sum(1 for _ in (built / "questions").glob("*/index.html")) if built.is_dir() else 0
    out["round_pages"] = sum(1 for _ in (built / "rounds").glob("*/index.html")) if built.is_dir() else 0
    out["files"] = sum(1 for f in (site_src / "site").rglob("*") if f.is_file()) if (site_src / "site").is_dir() else 0
    return out


def site_and_deploy_check(point: dict, hub_dir: Path, cache: Path) -> None:
    """The deploy job on a fresh checkout of the night's commit (``hub_dir``): ``prescient build`` with
    the nightly's cache (the job restores it), the built site's size by part, then its check before upload, both ways: the whole
    ``verify`` (every score, night and page recomputed) and ``verify --git`` from the checkpoint the
    night's audit just recorded (the pages regenerated whole all the same)."""
    point["build"] = prescient("build", "--hub", str(hub_dir), "--cache-dir", str(cache), check=False)
    point["site"] = site_parts(hub_dir / "site_src")
    point["deploy_verify_git"] = prescient("verify", "--hub", str(hub_dir), "--git", check=False, keep=14)
    point["deploy_verify"] = prescient("verify", "--hub", str(hub_dir), check=False, keep=14)
    point["build_again"] = prescient("build", "--hub", str(hub_dir), "--cache-dir", str(cache), check=False)
    for built in ("site", "docs/generated"):  # the pull request's checks run on a checkout without them
        shutil.rmtree(hub_dir / "site_src" / built, ignore_errors=True)
    print(
        f"build: {point['build']} · site {point['site']['site']['bytes'] / 2**20:.1f} MiB · "
        f"verify --git {point['deploy_verify_git']} · verify {point['deploy_verify']}",
        file=sys.stderr,
        flush=True,
    )


def one_file_pr(clone: Path, history: History, due: str, night: datetime) -> dict:
    """``prescient validate --base --head --author --at`` of a pull request adding one team's file for
    the round due ``due`` (open tonight), committed on a branch of the clone."""
    from generator.forecasters.baselines import forecast_frame
    from generator.store import readers
    from generator.store.fast_forecasts import forecast_bytes
    from generator.store.hub import Hub
    from generator.timeutil import days, format_ts, parse_ts

    hub = Hub.load(clone)
    rows = readers.load_round(hub, parse_ts(f"{due}T00:00:00Z"))
    team = teams(history.density.models)[0]
    path = hub.layout.forecast(parse_ts(f"{due}T00:00:00Z"), team.id)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(forecast_bytes(forecast_frame(rows, np.full(len(rows), 0.5))))
    base = git(clone, "rev-parse", "HEAD")
    git(clone, "add", str(path))
    env_commit = ["-c", f"user.name={team.login}", "-c", f"user.email={team.login}@teams.invalid"]
    subprocess.run(
        ["git", "-C", str(clone), *env_commit, "commit", "--quiet", "-m", "one file"],
        check=True,
        env=dict(os.environ, GIT_AUTHOR_DATE=format_ts(night + days(2 / 24)), GIT_COMMITTER_DATE=format_ts(night + days(2 / 24))),
    )
    head = git(clone, "rev-parse", "HEAD")
    result = prescient(
        "validate", "--hub", str(clone), "--base", base, "--head", head, "--author", team.login, "--at", format_ts(night + days(3 / 24)), check=False
    )
    git(clone, "checkout", "--quiet", "--detach", base)
    subprocess.run(
        [
            "git",
            "-C",
            str(clone),
            "-c",
            "user.name=Hub Maintainer",
            "-c",
            "user.email=maintainer@hub.invalid",
            "merge",
            "--quiet",
            "--no-ff",
            "-m",
            "Merge pull request: one file",
            head,
        ],
        check=True,
        env=dict(os.environ, GIT_AUTHOR_DATE=format_ts(night + days(4 / 24)), GIT_COMMITTER_DATE=format_ts(night + days(4 / 24))),
    )
    return result


# -- the fit ----------------------------------------------------------------------------------------


def fit(xs: list[float], ys: list[float], at: float = THREE_YEARS) -> dict:
    """Least squares: a line a + b·n and a power law c·n^k (a line in log–log); their values at ``at``."""
    x, y = np.asarray(xs, float), np.asarray(ys, float)
    out: dict = {"points": len(x)}
    if len(x) >= 2 and np.ptp(x) > 0:
        b, a = np.polyfit(x, y, 1)
        out["linear"] = {"a": round(float(a), 4), "b_per_night": round(float(b), 6), "at": round(float(a + b * at), 2)}
        positive = y > 0
        if positive.sum() >= 2:
            k, logc = np.polyfit(np.log(x[positive]), np.log(y[positive]), 1)
            out["power"] = {"c": round(float(np.exp(logc)), 6), "k": round(float(k), 3), "at": round(float(np.exp(logc) * at**k), 2)}
        out["three_years"] = max(v["at"] for k_, v in out.items() if isinstance(v, dict))
    return out


def summarise(history: History) -> dict:
    points = history.checkpoints
    metrics = {
        "nightly with a new round (s)": [p["nightly"]["wall"] for p in points],
        "nightly with nothing new (s)": [p["nightly_nothing_new"]["wall"] for p in points],
        "validate, one-file pull request (s)": [p.get("validate", {}).get("wall", 0) for p in points],
        "verify (s)": [p["verify"]["wall"] for p in points],
        "verify --git (s)": [p["verify_git"]["wall"] for p in points],
        "verify --git --full (s)": [p["verify_git_full"]["wall"] for p in points],
        "verify, CPU (s)": [p["verify"]["cpu"] for p in points],
        "verify --git, CPU (s)": [p["verify_git"]["cpu"] for p in points],
        "verify --git --full, CPU (s)": [p["verify_git_full"]["cpu"] for p in points],
        "fresh clone (s)": [p["clone"]["wall"] for p in points],
        "build (s)": [p["build"]["wall"] for p in points],
        "build, CPU (s)": [p["build"]["cpu"] for p in points],
        "build again, nothing new, CPU (s)": [p["build_again"]["cpu"] for p in points],
        "site_src/site (MiB)": [p["site"]["site"]["bytes"] / 2**20 for p in points],
        "site_src/docs (MiB)": [p["site"]["docs"]["bytes"] / 2**20 for p in points],
        "deploy check: verify --git, CPU (s)": [p["deploy_verify_git"]["cpu"] for p in points],
        "deploy check: verify, CPU (s)": [p["deploy_verify"]["cpu"] for p in points],
        ".git after gc (MB)": [p["git_after_gc_mb"] for p in points],
        "data/ (MB)": [p["data_mb"] for p in points],
    }
    xs = [p["night"] for p in points]
    fits = {name: fit(xs, ys) for name, ys in metrics.items()}
    ordinary = [r for r in history.nights if not r["round"]]
    rounds = [r for r in history.nights if r["round"]]
    fits["in-process nightly, ordinary night (s)"] = fit([r["night"] for r in ordinary], [r["wall"] for r in ordinary])
    fits["in-process nightly, round night (s)"] = fit([r["night"] for r in rounds], [r["wall"] for r in rounds])
    return {"nights": xs, "metrics": metrics, "fits": fits}


def table(history: History, summary: dict) -> str:
    heads = " | ".join(f"{p['night']} nights ({p['date']})" for p in history.checkpoints)
    lines = [f"| measure | {heads} | fit | three years |", "|---|" + "---|" * (len(history.checkpoints) + 2)]
    for name, ys in summary["metrics"].items():
        f = summary["fits"][name]
        model = f"{f['linear']['a']:.2f} + {f['linear']['b_per_night']:.4f}·n; {f['power']['c']:.3g}·n^{f['power']['k']:.2f}" if "power" in f else ""
        lines.append(f"| {name} | " + " | ".join(f"{y:,.1f}" for y in ys) + f" | {model} | {f.get('three_years', '')} |")
    return "\n".join(lines)


def checkpoint_nights(months: list[float]) -> list[int]:
    """The first night at or after each length that opens a round (the nightly's round opens 10 days
    before a due Sunday, every 14 days from 2026-01-04): night n is the date START + n − 1."""
    first_open = -7  # 2026-01-04 − 10 days − START, in days (nights count from 1)
    out = []
    for m in months:
        n = max(1, round(m * 30.44))
        k = max(0, -(-(n - 1 - first_open) // 14))
        out.append(first_open + 14 * k + 1)
    return sorted(set(out))


def retime(work: Path, result: dict, command: list[str], aggressive: bool = False, log=print) -> list[dict]:
    """Time ``prescient COMMAND --hub CLONE`` again at each checkpoint of a finished run (``result``, its
    JSON) on a fresh clone of the kept hub at that checkpoint's commit, without growing the history again
    (a fix of one command's code, re-measured on the same commits); with ``aggressive``, also ``.git``'s
    size after ``git gc`` and after ``git gc --aggressive`` of that clone."""
    out = []
    for point in result["checkpoints"]:
        clone = work / f"retime-{point['night']}"
        shutil.rmtree(clone, ignore_errors=True)
        run(["git", "clone", "--quiet", "--no-local", "--no-tags", "--single-branch", str(work / "hub"), str(clone)])
        git(clone, "reset", "--quiet", "--hard", point["tip"])
        git(clone, "remote", "remove", "origin")  # nothing after the checkpoint's commit stays reachable
        git(clone, "reflog", "expire", "--expire=now", "--all")
        row = {"night": point["night"], "command": prescient(*command, "--hub", str(clone), check=False, keep=12)}
        if command[0] == "build":  # the site it built, by part (a cold build: the run's cache is of its last night)
            row["site"] = site_parts(clone / "site_src")
        if aggressive:
            row["gc"] = run(["git", "-C", str(clone), "gc", "--quiet", "--prune=now"])
            row["git_after_gc_mb"] = round(du(clone / ".git") / 1e6, 1)
            row["gc_aggressive"] = run(["git", "-C", str(clone), "gc", "--quiet", "--aggressive", "--prune=now"])
            row["git_after_gc_aggressive_mb"] = round(du(clone / ".git") / 1e6, 1)
        shutil.rmtree(clone)
        log(f"retime {point['night']}: {json.dumps(row)}")
        out.append(row)
    return out


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--months", type=float, nargs="+", default=[1, 2, 3], help="lengths to measure at")
    parser.add_argument("--small", action="store_true", help="a tiny hub (3 models, 48 units a round): a quick run")
    parser.add_argument("--work", help="keep the hub here (default: a temporary folder)")
    parser.add_argument("--json", help="write the measurements here")
    parser.add_argument(
        "--retime",
        nargs="+",
        metavar="ARG",
        help="with --work and --json of a finished run: time `prescient ARG…` again at each checkpoint's "
        "commit (e.g. --retime verify; quote a command with options: --retime 'verify --git') and add "
        "it to the JSON under `retime`",
    )
    parser.add_argument("--gc-aggressive", action="store_true", help="with --retime: also `.git` after gc vs gc --aggressive")
    args = parser.parse_args(argv)
    if args.retime:
        args.retime = [word for arg in args.retime for word in arg.split()]  # 'verify --git': one argument, two words
        if not (args.work and args.json):
            parser.error("--retime needs the finished run's --work and --json")
        result = json.loads(Path(args.json).read_text())
        result.setdefault("retime", {})[" ".join(args.retime)] = retime(
            Path(args.work), result, args.retime, args.gc_aggressive, log=lambda s: print(s, file=sys.stderr, flush=True)
        )
        Path(args.json).write_text(json.dumps(result, indent=1))
        return result
    density = SMALL if args.small else FULL
    nights = checkpoint_nights(args.months)
    with tempfile.TemporaryDirectory(prefix="bench-years-") as tmp:
        work = Path(args.work) if args.work else Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        started = time.perf_counter()
        history = build_and_measure(density, work, nights, log=lambda s: print(s, file=sys.stderr, flush=True))
        summary = summarise(history)
        result = {
            "density": density.__dict__,
            "checkpoints": history.checkpoints,
            "nights": history.nights,
            "prs": history.prs,
            "summary": summary,
            "seconds": round(time.perf_counter() - started),
            "load": os.getloadavg(),
            "cpus": os.cpu_count(),
        }
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1))
    print(table(history, summary))
    return result


if __name__ == "__main__":
    main()
