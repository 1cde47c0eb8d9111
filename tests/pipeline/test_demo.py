"""The demo: a whole season on the offline world, whose leaderboard recovers the known order."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pandas as pd
import pytest

from generator.arena.bets import cash_before, max_bet
from generator.arena.gather import load_cohorts
from generator.arena.portfolio import arena_table
from generator.config import BOT_EMAIL
from generator.forecasters.synthetic import ORDER, TEAM_LOGIN, synthetic_forecasts, synthetic_models
from generator.forecasters.synthetic_views import BETTORS, ORACLE_SET
from generator.oracle import oracle_board, oracle_scores, temporal_view
from generator.pipeline.demo import SEASON_END, run_demo, season
from generator.pipeline.nightly import nightly
from generator.pipeline.receipts import receipt_files
from generator.site.build import build_site
from generator.sources.sim import world_from_options
from generator.store import readers
from generator.store.hub import Hub
from generator.store.receipts import load_receipts, load_run_at
from generator.store.seals import load_seals
from generator.submissions import validate_files
from generator.timeutil import format_ts, parse_ts
from generator.vocabulary import MARKET

from helpers import PRESCIENT, ROOT, git, run_cli, tree_bytes

pytestmark = pytest.mark.e2e


def _final(demo_hub: Path, board: str = "tournament") -> pd.DataFrame:
    history = pd.read_csv(demo_hub / "data/leaderboard/history.csv", dtype={"model": str})
    rows = history[(history["board"] == board) & (history["view"] == "overall")]
    return rows[rows["as_of"] == rows["as_of"].max()].sort_values("rank")


def test_leaderboard_ranks_the_synthetic_forecasters_in_their_known_order(demo_hub: Path):
    final = _final(demo_hub)
    assert tuple(m for m in final["model"] if m in ORDER) == ORDER
    assert final["provisional"].eq(0).all()
    assert final["n"].min() >= 400
    rank = dict(zip(final["model"], final["rank"], strict=True))
    for worse in ("prescient.always-0", "prescient.always-1", "prescient.random-uniform"):
        assert rank[worse] > rank["prescient.always-0.5"]  # no skill at all, and it shows
    assert final.loc[final["model"] == "prescient.always-0.5", "overall"].item() == pytest.approx(50)


def test_the_baseline_board_leaves_out_everyone_who_saw_the_crowd(demo_hub: Path):
    on_board = set(_final(demo_hub, "baseline")["model"])
    assert "demo.market-copier" not in on_board and "prescient.imputed" not in on_board
    assert not any(m.startswith("prescient.crowd-") for m in on_board)
    assert {"demo.calibrated", "prescient.always-0.5"} <= on_board


@pytest.mark.parametrize("night", [-1, 60])
def test_cli_leaderboard_as_of_a_past_night_reproduces_the_published_history(demo_hub: Path, night: int):
    """Scores are recomputed from the ledgers as recorded by that night: later observations and
    resolutions are ignored, so the board printed today equals the one published then."""
    history = pd.read_csv(demo_hub / "data/leaderboard/history.csv", dtype={"model": str}, keep_default_na=False, na_values=[""])
    nights = sorted(history["as_of"].unique())
    as_of = nights[night]
    tonight = history[(history["as_of"] == as_of) & (history["board"] == "tournament")]
    assert {"overall", "dataset", "market"} <= set(tonight["view"]), "history records every view of the Leaderboard"
    for view in ("overall", "dataset", "market"):
        published = tonight[tonight["view"] == view].set_index("model")
        result = run_cli("leaderboard", "--hub", str(demo_hub), "--as-of", as_of, "--replicates", "0", "--view", view, "--format", "json")
        assert result.returncode == 0, result.stderr
        printed = pd.DataFrame(json.loads(result.stdout)).set_index("model")
        assert sorted(printed.index) == sorted(published.index), view
        for column in ("rank", "overall", "dataset", "market", "n_dataset", "n_market", "provisional"):
            assert printed.loc[published.index, column].astype(float).tolist() == pytest.approx(
                published[column].astype(float).tolist(), rel=1e-8, nan_ok=True
            ), (view, column)
    adjusted = run_cli("leaderboard", "--hub", str(demo_hub), "--as-of", nights[-1], "--replicates", "99", "--format", "json")
    assert adjusted.returncode == 0, adjusted.stderr
    assert tuple(row["model"] for row in json.loads(adjusted.stdout) if row["model"] in ORDER) == ORDER


def test_rerunning_the_last_night_and_rebuilding_changes_no_byte(demo_hub: Path):
    before = tree_bytes(demo_hub)
    site_before = {p: p.read_bytes() for p in (demo_hub / "site_src/docs/generated").rglob("*") if p.is_file()}
    world = world_from_options({"seed": 7, "start": "2026-01-04T00:00:00Z", "markets": 260, "series": 12, "span_days": 200})
    nightly(demo_hub, SEASON_END, extra=lambda q: synthetic_forecasts(world, q), extra_models=synthetic_models(), env={})
    assert tree_bytes(demo_hub) == before
    assert build_site(demo_hub, SEASON_END, run_mkdocs=False) == []
    assert {p: p.read_bytes() for p in (demo_hub / "site_src/docs/generated").rglob("*") if p.is_file()} == site_before


def test_the_site_is_built_with_a_chart_and_one_local_plotly(demo_hub: Path):
    site = demo_hub / "site_src/site"
    home = (site / "index.html").read_text(encoding="utf-8")
    assert 'class="prescient-table prescient-board"' in home
    figures = re.findall(r'class="prescient-chart" data-figure="([^"]+)"', home)
    assert len(figures) == 1  # the first board and view's dots; its score over time grows nightly: a file
    on_demand = re.findall(r'class="prescient-chart" data-figure-src="([^"]+)"', home)  # every other panel's
    assert len(on_demand) >= 2 * 5 + 1 and all(json.loads((site / src).read_bytes())["data"] for src in on_demand)
    assert "generated/figures/history-tournament-overall.json" in on_demand
    assert "plotly" not in home.lower() and "cdn" not in home.lower()  # prescient.js loads it where a chart is
    assert "generated/assets/plotly.min.js" in (site / "assets/prescient.js").read_text(encoding="utf-8")
    assert (site / "generated/assets/plotly.min.js").stat().st_size > 1_000_000
    for page in (
        "methodology/index.html",
        "submit/index.html",
        "data/index.html",
        "generated/models/demo.calibrated/index.html",
        "generated/rounds/index.html",
    ):
        assert (site / page).is_file(), page
    data_page = (site / "data/index.html").read_text(encoding="utf-8")
    assert "payload_sha256" in data_page and "recorded_at" in data_page  # dictionary from schemas.py


# -- the secondary views: Arena bets and the demo oracle set ----------------------------------------


def _bet_files(demo_hub: Path) -> list[Path]:
    return sorted((demo_hub / "data/bets").glob("*/*.csv"))


def test_the_demo_bets_every_round_and_every_bet_file_validates_clean(demo_hub: Path):
    rounds = sorted(p.name for p in (demo_hub / "data/rounds").iterdir() if (p / "questions.csv").is_file())
    files = _bet_files(demo_hub)
    assert {(f.parent.name, f.stem) for f in files} == {(r, m) for r in rounds for m in BETTORS}
    for due in rounds:  # each round's bets, judged at the time they were placed (its freeze time)
        questions = pd.read_csv(demo_hub / f"data/rounds/{due}/questions.csv", dtype=str, keep_default_na=False)
        markets = set(questions.loc[questions["kind"] == MARKET, "question_id"])
        placed = questions["freeze_time"].iloc[0]
        for model in BETTORS:
            bets = pd.read_csv(demo_hub / f"data/bets/{due}/{model}.csv", dtype={"amount": str})
            assert len(bets) >= 5 and set(bets["question_id"]) <= markets
            assert (bets["placed_at"] == placed).all() and placed < questions["due"].iloc[0]
        noisy = pd.read_csv(demo_hub / f"data/bets/{due}/demo.noisy.csv").sort_values(["placed_at", "question_id"])
        cash = cash_before(noisy["amount"].tolist())
        assert any(a >= max_bet(c) - 0.01 for a, c in zip(noisy["amount"], cash, strict=True))  # the 25% limit binds, and holds
        report = validate_files(demo_hub, sorted((demo_hub / f"data/bets/{due}").glob("*.csv")), parse_ts(placed))
        assert [p.code for p in report.problems] == ["author-unchecked"], report.problems  # the one thing files cannot tell
    oracle = sorted((demo_hub / "data/oracle").glob("*/forecasts/*.csv"))
    first = min(pd.read_csv(f, dtype=str)["placed_at"].min() for f in files)
    result = run_cli("validate", "--hub", str(demo_hub), "--at", first, *map(str, files + oracle))
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"{len(files) + len(oracle)} file(s) checked" in result.stdout


def test_the_arena_shows_each_bettors_cohorts_and_a_calibrated_forecast_earns_more(demo_hub: Path):
    table = arena_table(load_cohorts(demo_hub, SEASON_END))
    bets = table[table["view"] == "bets"]
    assert set(bets["model"]) == set(BETTORS)
    rounds = len([p for p in (demo_hub / "data/rounds").glob("*/questions.csv") if p.parent.name <= f"{SEASON_END:%Y-%m-%d}"])
    by_model = bets.groupby("model")  # the round still open at the season's end shows no bets yet
    assert by_model.size().to_dict() == {m: rounds for m in BETTORS}
    assert (by_model["n_resolved"].sum() > 100).all()
    pnl = by_model["total_value"].sum() - by_model["start"].sum()
    assert pnl["demo.calibrated"] > 0 and pnl["demo.calibrated"] > pnl["demo.noisy"] + 10_000, pnl.to_dict()


def test_the_demo_oracle_set_is_scored_and_shows_the_decline_after_the_cutoff(demo_hub: Path):
    hub_files = Hub(demo_hub)
    layout = hub_files.layout
    assert layout.oracle_sets() == ["demo-news", ORACLE_SET]  # the Sim Wire's set too: see the test below
    questions = readers.load_oracle_questions(hub_files, ORACLE_SET)
    assert 150 <= len(questions) <= 300 and set(questions["kind"]) == {"tf", "mc"}
    assert questions["resolution_date"].str[:7].nunique() == 24
    models = readers.load_models(hub_files)
    cutoffs = {m: meta.knowledge_cutoff for m, meta in models.items()}
    board = oracle_board(oracle_scores(hub_files, SEASON_END, [ORACLE_SET]), cutoffs).set_index("model")
    assert set(board.index) == {"demo.calibrated", "demo.noisy", "demo.overconfident"}
    assert (board["n"] == len(questions)).all() and (board["answered"] == board["n"]).all()
    assert board.loc["demo.calibrated", "accuracy"] > board.loc["demo.noisy", "accuracy"] + 0.15
    declining = board.loc["demo.overconfident"]
    assert declining["knowledge_cutoff"] == models["demo.overconfident"].knowledge_cutoff != ""
    assert declining["yoy_months_before"] >= 3 and declining["yoy_months_after"] >= 3
    assert declining["yoy_accuracy_after"] < -0.15 < declining["yoy_accuracy_before"]
    months = temporal_view(oracle_scores(hub_files, SEASON_END, [ORACLE_SET]), cutoffs, by=("model",))
    own = months[months["model"] == "demo.overconfident"]
    before, after = own[own["months_from_cutoff"] <= 0], own[own["months_from_cutoff"] > 0]
    assert after["accuracy"].mean() < before["accuracy"].mean() - 0.15


def test_the_demo_makes_questions_from_its_own_news_with_the_labelled_template_maker(demo_hub: Path):
    """The Sim Wire, read each night from its start by the news intake; its questions written by the
    template maker (labelled as such, never as an LLM) and answered by the synthetic forecasters."""
    layout = Hub(demo_hub)
    news = readers.load_news(layout)
    assert len(news) and set(news["source"]) == {"sim"} and news["published_at"].min() >= "2026-07-11"
    generated = readers.load_oracle_generated(layout, "demo-news")
    assert set(generated["maker"]) == {"template"} and set(generated["kept"]) == {0, 1}
    assert ((generated["total"] >= 13) | (generated["kept"] == 0)).all()
    questions = readers.load_oracle_questions(layout, "demo-news")
    assert set(questions["id"]) == set(generated.loc[generated["kept"] == 1, "question_id"])
    assert set(readers.load_oracle_forecasts(layout, "demo-news")) == {"demo.calibrated", "demo.noisy", "demo.overconfident"}
    page = (demo_hub / "site_src/docs/generated/oracle/sets/demo-news.md").read_text(encoding="utf-8")
    assert "template-generated, not an LLM" in page and "LLM template" not in page
    assert not list(demo_hub.rglob("*.txt")), "no article text in the hub (they stay in the cache folder)"


def test_rerunning_the_demo_on_its_last_night_changes_no_byte(demo_hub: Path):
    """The oracle import, the oracle forecasts and the bets are each made once: a rerun keeps them,
    and commits nothing."""
    before, head = tree_bytes(demo_hub), git(demo_hub, "rev-parse", "HEAD")
    run_demo(demo_hub, nights=[SEASON_END], build=False)
    assert tree_bytes(demo_hub) == before
    assert git(demo_hub, "rev-parse", "HEAD") == head and git(demo_hub, "status", "--porcelain") == ""


def test_the_demo_is_a_git_repository_with_a_commit_a_night_by_the_hubs_bot(demo_hub: Path):
    """The demo's history is a real hub's: its maintainer's setup, then each night's data
    committed by the hub's bot at the night's time with the workflow's message, the oracle answers and
    the site's sources last; nothing left uncommitted, nothing ignored committed."""
    log = [line.split("|") for line in git(demo_hub, "log", "--reverse", "--format=%an|%ae|%at|%ct|%s").splitlines()]
    assert log[0][0] == "Demo Maintainer" and log[0][4].startswith("hub: set up")
    nights = [entry for entry in log if entry[4].startswith("nightly: data as of ")]
    assert [entry[4].removeprefix("nightly: data as of ") for entry in nights] == [format_ts(n) for n in season()]
    assert {(e[0], e[1]) for e in nights} == {("github-actions[bot]", BOT_EMAIL)}
    assert all(e[2] == e[3] == str(int(parse_ts(e[4][20:]).timestamp())) for e in nights)
    assert [e[4].split(":")[0] for e in log[-2:]] == ["demo teams", "site"]
    assert git(demo_hub, "status", "--porcelain", "--ignored=no") == ""
    tracked = git(demo_hub, "ls-files").splitlines()
    assert "data/hub.toml" in tracked and "site_src/mkdocs.yml" in tracked
    assert not [p for p in tracked if p.startswith(("site_src/site/", "site_src/docs/generated/")) or p.endswith(".lock")]
    first = git(
        demo_hub, "log", "--first-parent", "--reverse", "--format=%cI|%s", "--", "data/forecasts/2026-01-25/demo.calibrated.csv"
    ).splitlines()[0]
    assert first.split("|")[0] < "2026-01-25" and first.split("|")[1].startswith("Merge pull request #1 from demo-teams/"), (
        "the team's pull request was merged before the round's due time"
    )


def _merges(demo_hub: Path) -> list[list[str]]:
    """(commit, first parent, second parent, author, committer, committer time, subject) of each merge on main."""
    out = git(demo_hub, "log", "--merges", "--first-parent", "--reverse", "--format=%H %P|%an|%cn|%cI|%s", "main")
    return [line.split("|")[0].split() + line.split("|")[1:] for line in out.splitlines()]


def test_each_synthetic_teams_forecasts_are_a_pull_request_the_maintainer_merged(demo_hub: Path):
    """Every round's synthetic files came in by pull request, one a model: a head commit by
    the teams kept as GitHub keeps it (refs/pull/<n>/head), merged with a merge commit by the demo's
    maintainer before the round's due time."""
    merges = _merges(demo_hub)
    rounds = sorted(p.name for p in (demo_hub / "data/rounds").iterdir())
    assert len(merges) == len(rounds) * len(synthetic_models()) and len(rounds) >= 13
    assert f"pull requests\n#1 to #{len(merges)} " in (ROOT / "site_src/docs/submit.md").read_text(encoding="utf-8")
    refs = dict(line.split()[::-1] for line in git(demo_hub, "for-each-ref", "--format=%(objectname) %(refname)", "refs/pull/").splitlines())
    for number, (merge, first, second, author, committer, when, subject) in enumerate(merges, start=1):
        assert (author, committer) == ("Demo Maintainer", "Demo Maintainer") and subject.startswith(f"Merge pull request #{number} ")
        assert refs[f"refs/pull/{number}/head"] == second and git(demo_hub, "rev-parse", f"{second}^").strip() == first
        head = git(demo_hub, "log", "-1", "--format=%an|%ae|%cI|%s", second).strip().split("|")
        assert head[:2] == ["Demo Teams", "teams@demo.invalid"] and head[2] < when
        changed = git(demo_hub, "diff", "--name-only", first, merge).split()
        model, due = head[3].split(": round ")
        assert changed and all(p.endswith(f"/{due}/{model}.csv") for p in changed), (subject, changed)
        assert when < due, f"#{number} was merged after its round's due time"


def test_the_teams_files_are_sealed_on_receipts_as_the_receipts_workflow_writes_them(demo_hub: Path):
    """Each pull request has its validation run's receipt: on the receipts branch as the receipts
    workflow pushes it, in data/receipts/ as the nightly's walk records it; the rows are what the
    workflow's own code (``pipeline.receipts.receipt_files``) makes of the head; and every synthetic
    model's sealed file rests on its receipt."""
    hub = Hub.load(demo_hub)
    recorded = load_receipts(hub).astype(str)
    assert sorted(recorded["pr"].astype(int).unique()) == list(range(1, len(_merges(demo_hub)) + 1))
    for pr, rows in recorded.groupby("pr"):
        head, at, run = rows["head_sha"].iloc[0], rows["attested_at"].iloc[0], rows["run_id"].iloc[0]
        files, why = receipt_files(demo_hub, f"{head}^", head, TEAM_LOGIN, at)
        assert why == "" and files == dict(zip(rows["path"], rows["blob"], strict=True)), pr
        assert (rows["author"] == TEAM_LOGIN).all() and (rows["verdict"] == "success").all()
        assert at < rows["recorded_at"].iloc[0] and all(at < p.split("/")[2] for p in rows["path"])
        branch = load_run_at(demo_hub, "prescient-receipts", int(run)).astype(str)
        assert branch.drop(columns="recorded_at").values.tolist() == rows.drop(columns="recorded_at").sort_values("path").values.tolist()
    seals = load_seals(hub).astype(str)
    sealed_rounds = set(seals.loc[seals["model"] == "*", "due"])
    teams = seals[seals["model"].isin(list(synthetic_models()))]
    expected = {(p, b) for p, b in zip(recorded["path"], recorded["blob"], strict=True) if p.split("/")[2] in sealed_rounds}
    assert len(expected) > 40 and set(zip(teams["path"], teams["blob"], strict=True)) == expected
    assert set(teams["status"]) == {"sealed"} and set(teams["evidence"]) == {"receipt"}
    assert set(teams["head_sha"]) <= set(recorded["head_sha"])


def test_a_forged_receipt_fails_verify_git(demo_hub: Path, tmp_path: Path):
    """A receipt row changed to name other bytes than its head commit holds, even committed as the
    hub's bot, is caught by `verify --git` with its code (and the seal that rests on it no longer matches)."""
    demo = tmp_path / "demo"
    shutil.copytree(demo_hub, demo, symlinks=True)
    ledger = sorted((demo / "data/receipts").glob("*.csv"))[0]
    lines = ledger.read_text(encoding="utf-8").splitlines(keepends=True)
    cells = lines[1].split(",")
    other = git(demo, "rev-parse", f"HEAD:{lines[2].split(',')[2]}").strip()  # the blob of another submitted file
    lines[1] = ",".join(cells[:3] + [other] + cells[4:])
    ledger.write_text("".join(lines), encoding="utf-8")
    bot = {
        "GIT_AUTHOR_NAME": "github-actions[bot]",
        "GIT_AUTHOR_EMAIL": BOT_EMAIL,
        "GIT_COMMITTER_NAME": "github-actions[bot]",
        "GIT_COMMITTER_EMAIL": BOT_EMAIL,
        "GIT_AUTHOR_DATE": "2026-07-19T06:00:00Z",
        "GIT_COMMITTER_DATE": "2026-07-19T06:00:00Z",
    }
    subprocess.run(["git", "-C", str(demo), "commit", "-qam", "nightly: a receipt rewritten"], check=True, env={**os.environ, **bot})
    result = subprocess.run([PRESCIENT, "verify", "--hub", str(demo), "--git", "HEAD"], capture_output=True, text=True, timeout=900)
    assert result.returncode == 10, result.stdout[-2000:]
    out = result.stdout + result.stderr
    assert "[receipt-blob-mismatch]" in out and f"held blob {other[:12]}" in out and "[seal-differs]" in out
    first = next(line for line in result.stdout.splitlines() if line.startswith("error:"))
    assert "[receipt-blob-mismatch]" in first  # the forgery leads the report, before the seal and the pages it changed


def test_the_readmes_audit_lines_run_on_the_demo(demo_hub: Path):
    """The README's four-line audit, run as written from the folder that holds the demo: the fourth anchored
    at the data of 1 June, as a reader who kept the id the site showed then; the demo's own audit ends clean."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split("### Audit the demo through git", 1)[1].split("```sh\n", 1)[1].split("```", 1)[0]
    lines = [line.replace(".venv/bin/prescient", PRESCIENT) for line in block.strip().splitlines()]
    assert len(lines) == 4
    outputs = [subprocess.run(line, shell=True, cwd=demo_hub.parent, capture_output=True, text=True, timeout=900) for line in lines]
    assert [o.returncode for o in outputs] == [0, 0, 0, 0], [o.stderr[-2000:] for o in outputs]
    assert outputs[0].stdout.count("github-actions[bot]: nightly: data as of") == 3
    assert "github-actions[bot]" in outputs[1].stdout
    assert "ok      git: " in outputs[2].stdout and "verified: every check passed" in outputs[2].stdout
    assert "no-maintainers" not in outputs[2].stdout  # the demo's hub.toml lists its maintainer
    assert "ok      anchor: anchor " in outputs[3].stdout and "an ancestor of the head; its ledgers only appended to since" in outputs[3].stdout
    assert "since the anchor " in outputs[3].stdout and "verified: every check passed" in outputs[3].stdout


def test_the_changes_page_lists_each_nights_ledger_digest(demo_hub: Path):
    """The night's anchor, as in history.csv, is published on the Changes page."""
    page = (demo_hub / "site_src/docs/generated/changes.md").read_text(encoding="utf-8")
    history = (demo_hub / "data/leaderboard/history.csv").read_text(encoding="utf-8").splitlines()
    latest = history[-1].split(",")
    assert history[0].endswith(",ledger_digest,view") and len(latest[-2]) == 64
    assert f"<tr><td>{latest[0]}</td><td><code>{latest[-2]}</code></td></tr>" in page


@pytest.mark.parametrize("model,bets", [("demo.calibrated", True), ("demo.noisy", True), ("demo.overconfident", False)])
def test_the_model_pages_show_the_arena_and_oracle_sections_with_charts(demo_hub: Path, model: str, bets: bool):
    page = (demo_hub / f"site_src/docs/generated/models/{model}.md").read_text(encoding="utf-8")
    sections = re.split(r"^## ", page, flags=re.MULTILINE)
    arena = next(s for s in sections if s.startswith("Arena view"))
    assert 'class="prescient-chart"' in arena
    assert ("<td>bets</td>" in arena) == bets and "<td>simulated</td>" in arena
    assert ("&#34;name&#34;:&#34;bets&#34;" in arena) == bets  # the P/L chart has a line for the bets
    quiz = next(s for s in sections if s.startswith("True/false and multiple-choice questions"))
    assert 'class="prescient-chart"' in quiz and f"<td>{ORACLE_SET}</td>" in quiz
    assert quiz.startswith("True/false and multiple-choice questions (self-reported)") and "<strong>Self-reported:</strong>" in quiz
    assert "measured at attested times" in arena  # Bets buy at the price of the push that made them
    html = (demo_hub / f"site_src/site/generated/models/{model}/index.html").read_text(encoding="utf-8")
    assert html.count('class="prescient-chart"') == page.count('class="prescient-chart"') >= 4


# -- a demo folder left by an earlier or interrupted run ------------------------------------------


def test_an_interrupted_demo_resumes_to_the_bytes_of_a_fresh_run(tmp_path: Path):
    nights = season(end=parse_ts("2026-01-26T00:00:00Z"))  # the first round opens and closes
    fresh = run_demo(tmp_path / "fresh", nights=nights, build=False).root
    resumed = tmp_path / "resumed"
    # stopped after night 12, the night the first round opens and the teams' pull requests are merged
    # after the nightly's commit: run again, that night's nightly would see their files and its
    # history rows would conflict with those recorded (`demo --until 2026-07-02` then `demo` did)
    run_demo(resumed, nights=nights[:12], build=False)
    assert git(resumed, "log", "-1", "--format=%s").startswith("Merge pull request #")
    run_demo(resumed, nights=nights, build=False)
    assert tree_bytes(resumed) == tree_bytes(fresh)
    assert run_demo(resumed, nights=nights, build=False).nights == len(nights)
    assert tree_bytes(resumed) == tree_bytes(fresh), "a finished demo run again changes nothing"


def test_a_demo_stopped_on_a_night_of_pull_requests_and_resumed_passes_the_git_audit(tmp_path: Path):
    """`demo --until` a night on which the teams' pull requests are merged (night 12, 2026-01-15, from an
    hour past midnight) commits the site's sources after those merges: dated at the night, that commit
    was earlier than its parent and `verify --git` failed (commit-date-backwards). It is dated at the last
    merge; and the demo run on from there passes the audit too."""
    root = tmp_path / "demo"
    run_demo(root, nights=season(end=parse_ts("2026-01-15T00:00:00Z")))
    log = git(root, "log", "-3", "--format=%ct %s").splitlines()
    assert log[0].endswith("site: the hub's pages (site_src)") and log[1].split(" ", 1)[1].startswith("Merge pull request #")
    assert int(log[0].split()[0]) == int(log[1].split()[0]) > int(parse_ts("2026-01-15T00:00:00Z").timestamp())
    audit = run_cli("verify", "--git", "--hub", str(root))
    assert audit.returncode == 0, audit.stdout + audit.stderr
    run_demo(root, nights=season(end=parse_ts("2026-01-17T00:00:00Z")))
    audit = run_cli("verify", "--git", "--hub", str(root))
    assert audit.returncode == 0, audit.stdout + audit.stderr
