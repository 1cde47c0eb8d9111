"""Benchmark: the whole site of a ForecastBench-scale hub, and the weight of its leaderboard page.

Workload: the hub of ``bench_fb_leaderboard`` (all real FB rounds + ``synth_fb.py --rounds 14
--models 100 --seed 1``), imported and scored once before timing (not timed here; that is the other
benchmark's job). Then, timed in this process:

- **generate**: ``site.build.gather`` (every configured board and view with its bootstrap, question
  infos, downloads, diffs) + ``render_site`` + ``write_tree`` into ``site_src/docs/generated``;
- **mkdocs**: ``mkdocs build --strict`` of the result, including its post-build hook that writes
  the question pages from the shell page (``generator/site/shell.py``);
- **rebuild**: the same generate step again, which must write no file.

The hub is opened as `prescient build` opens it: with its disk cache (``Hub.opened``), where the
import kept the checked forecast frames its workers parsed (a ``--hub`` made without it has its
forecast files read into it once before timing), so the forecast files are not parsed again; the
first build makes the bootstrapped boards and keeps them there, and the rebuild takes them.
``--no-cache`` measures a cold build instead (`prescient build --no-cache`; what this benchmark
measured before the 2026-11-27 pass): every file parsed, the boards made each time.

The leaderboard page's weight is what a first visit transfers apart from the one cached
plotly.js: ``index.html`` and every local stylesheet and script it links, raw and gzip-compressed
(GitHub Pages serves gzip).

The hub's ``[hub] repo_url`` is set to ``REPO_URL`` first (unless ``--local-downloads``), as a
deployed hub sets it: the pages then link the round and forecast files to the repository's own raw
files and the site carries no copy of them. The built site's size is reported by part, with a
linear estimate of its size after three years of fortnightly rounds (78) at the same scale.

Run from the repository root: ``python -m benchmarks.bench_site [--hub DIR | --synth DIR] [--local-downloads]``.
Prints a Markdown block for benchmarks/RESULTS.md.
"""

from __future__ import annotations

import argparse
import gzip
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.bench_fb_leaderboard import AS_OF, FB, SYNTH, _machine

REPO_URL = "https://github.com/example/prescient-hub"
ROUNDS_IN_THREE_YEARS = 78  # fortnightly


def set_repo_url(hub: Path, url: str) -> None:
    """Write ``[hub] repo_url`` into the hub's hub.toml (replacing one that is there)."""
    import re as _re

    toml = hub / "data" / "hub.toml"
    text = toml.read_text(encoding="utf-8")
    text = _re.sub(r"(?m)^repo_url\s*=.*\n", "", text)
    text = text.replace("[hub]\n", f'[hub]\nrepo_url = "{url}"\n', 1) if "[hub]\n" in text else f'[hub]\nrepo_url = "{url}"\n' + text
    toml.write_text(text, encoding="utf-8")


def prepare(synth: Path, hub: Path, cache: bool = True) -> None:
    """Import and score the FB-scale hub once (not timed), with the hub's disk cache as `prescient
    import forecastbench` opens it (it keeps the checked forecast frames its workers parse)."""
    from generator.interop.forecastbench.importer import import_forecastbench
    from generator.pipeline.recompute import hub_view, write_round_scores
    from generator.store import readers
    from generator.timeutil import parse_ts

    with opened(hub, cache, settings=False) as files:  # no hub.toml yet: the import writes it
        import_forecastbench(files, FB, synth / "forecast_sets", as_of=AS_OF)
        write_round_scores(files, hub_view(files, readers.load_observations(files), parse_ts(AS_OF)), 0.5)


def opened(hub: Path, cache: bool, settings: bool = True):
    """The hub as a command opens it: with its disk cache (``Hub.opened``), or without (``--no-cache``)."""
    from generator.store.hub import Hub

    return Hub.opened(hub, disk=cache, settings=settings)


def warm(hub: Path) -> int:
    """Read every ledger the build reads once through the hub's disk cache (not timed): what the import
    and the nightlies keep there, for a ``--hub`` prepared without it. Returns the forecast files read."""
    from generator.store import maintainer, readers

    with opened(hub, True) as files:
        for load in (
            readers.load_scores,
            readers.load_history,
            readers.load_observations,
            readers.load_statements,
            readers.load_bank,
            maintainer.load_actions,
        ):
            load(files)
        dues = readers.round_dues(files)
        for due in dues:
            readers.load_round(files, due)
            readers.load_bets(files, due, [])
        return sum(len(readers.load_forecasts(files, due, [])) for due in dues)


def page_weight(site: Path) -> tuple[int, int, list[str]]:
    """Bytes (raw, gzip) of index.html plus every local CSS/JS it links, except plotly.min.js."""
    html = (site / "index.html").read_text(encoding="utf-8")
    links = sorted(set(re.findall(r'(?:href|src)="([^"#?]+\.(?:css|js))"', html)))
    local = [link for link in links if "://" not in link and not link.endswith("plotly.min.js")]
    files = [site / "index.html", *(site / link for link in local)]
    raw = sum(len(p.read_bytes()) for p in files)
    zipped = sum(len(gzip.compress(p.read_bytes(), 6)) for p in files)
    return raw, zipped, local


def timed(hub: Path, cache: bool = True) -> dict:
    from generator.site.api import site_files as render_site
    from generator.site.build import ensure_site_src, gather, run_mkdocs_build
    from generator.site.render import GENERATED
    from generator.site.write import write_tree
    from generator.store.files import load_settings
    from generator.timeutil import parse_ts

    as_of = parse_ts(AS_OF)
    site_src = ensure_site_src(hub)
    out = site_src / "docs" / GENERATED
    t0, c0, w0 = time.perf_counter(), time.process_time(), _workers_cpu()
    with opened(hub, cache) as opened_hub:  # as `prescient build` opens it
        data = gather(opened_hub, as_of)
    t1, c1, w1 = time.perf_counter(), time.process_time(), _workers_cpu()
    files = {p.removeprefix(GENERATED + "/"): b for p, b in render_site(data).items()}
    written = write_tree(out, files)
    t2, c2, w2 = time.perf_counter(), time.process_time(), _workers_cpu()
    run_mkdocs_build(site_src / "mkdocs.yml", as_of, load_settings(hub).title)
    t3, c3, w3 = time.perf_counter(), time.process_time(), _workers_cpu()
    load_after = _load()
    with opened(hub, cache) as opened_hub:
        again = write_tree(out, {p.removeprefix(GENERATED + "/"): b for p, b in render_site(gather(opened_hub, as_of)).items()})
    t4, c4, w4 = time.perf_counter(), time.process_time(), _workers_cpu()
    raw, zipped, assets = page_weight(site_src / "site")
    questions = sum(1 for p in files if p.startswith("question-pages/") and p.endswith(".html"))
    pages = sum(1 for p in files if p.endswith(".md")) - 1 + questions  # the question shell is not a page
    built = site_src / "site"
    parts = {name: _mb(built / "generated" / name) for name in ("questions", "rounds", "models", "downloads")}
    parts["search index"], parts["api"] = _mb(built / "search"), _mb(built / "api")
    rounds = sum(1 for p in (hub / "data" / "rounds").iterdir() if p.is_dir())
    biggest = max(((built / "generated" / "questions").glob("*/index.html")), key=lambda p: p.stat().st_size, default=None)
    return {
        "gather": t1 - t0,
        "render": t2 - t1,
        "mkdocs": t3 - t2,
        "rebuild": t4 - t3,
        "parts": parts,
        "rounds": rounds,
        "cpu": {"gather": c1 - c0, "render": c2 - c1, "mkdocs": c3 - c2, "rebuild": c4 - c3},
        "load_after": load_after,
        "workers": {"gather": w1 - w0, "render": w2 - w1, "mkdocs": w3 - w2, "rebuild": w4 - w3},
        "largest_round_kb": max((p.stat().st_size for p in (built / "generated" / "rounds").glob("*/index.html")), default=0) / 1024,
        "largest_question_kb": biggest.stat().st_size / 1024 if biggest else 0,
        "mean_question_kb": parts["questions"] * 1024 / max(questions, 1),
        "files": len(files),
        "written": len(written),
        "rewritten": len(again),
        "pages": pages,
        "question_pages": questions,
        "raw": raw,
        "gzip": zipped,
        "assets": assets,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "site_mb": sum(p.stat().st_size for p in (site_src / "site").rglob("*") if p.is_file()) / 2**20,
    }


def _workers_cpu() -> float:
    """CPU seconds (user + system) of the forked workers that have ended (``parallel.in_background``: the
    boards' bootstrap, the rounds' own boards and the Arena in gather, the question pages in render): with
    two free cores a stage's wall is at least the larger of the main process's CPU and half of the two together."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _load() -> str:
    return "{:.1f} {:.1f} {:.1f}".format(*os.getloadavg())


def _mb(folder: Path) -> float:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) / 2**20 if folder.is_dir() else 0.0


def _size_markdown(r: dict) -> str:
    # sizes in MiB (2**20 bytes), the unit of every site size in benchmarks/RESULTS.md, 0.6.4's 144 included
    parts = ", ".join(f"{name} {mb:,.1f} MiB" for name, mb in r["parts"].items())
    per_round = r["site_mb"] / max(r["rounds"], 1)
    return (
        f"Built site: **{r['site_mb']:,.1f} MiB** (target ≤ 150, in the same unit) over {r['rounds']} rounds: {parts}. "
        f"Question pages: {r['question_pages']:,}, mean {r['mean_question_kb']:.1f} KB, largest "
        f"{r['largest_question_kb']:,.0f} KB. Three years of fortnightly rounds ({ROUNDS_IN_THREE_YEARS}) at this "
        f"scale, growing linearly per round ({per_round:.2f} MiB a round): about "
        f"**{per_round * ROUNDS_IN_THREE_YEARS:,.0f} MiB**."
    )


OPENED = {
    True: "The hub opened with its disk cache, as `prescient build` opens it (the checked forecast frames the import "
    "kept; the boards made by the first build, kept for the rebuild)",
    False: "The hub opened without its disk cache (`prescient build --no-cache`): every file parsed, the boards made each time",
}


def _markdown(runs: list[dict], load: str, cache: bool = True) -> str:
    """The RESULTS.md block: each step's wall and CPU seconds per run and their medians."""
    r = runs[-1]
    steps = [
        ("gather", "gather (boards × views with their bootstraps, questions, round states, diffs)"),
        ("render", f"render + write {r['files']:,} files ({r['pages']:,} pages, {r['question_pages']:,} question pages)"),
        ("mkdocs", "`mkdocs build --strict` (with the hook writing the question pages)"),
    ]
    head = " | ".join(f"run {i + 1}" for i in range(len(runs)))

    def cells(get) -> str:
        values = [get(x) for x in runs]
        shown = " | ".join(f"{v:.1f} s" for v in values)
        return shown + (f" | **{statistics.median(values):.1f} s**" if len(runs) > 1 else "")

    rows = [
        f"| {label} | {cells(lambda x, s=step: x[s])} | {cells(lambda x, s=step: x['cpu'][s])} | {cells(lambda x, s=step: x['workers'][s])} |"
        for step, label in steps
    ]
    total = cells(lambda x: x["gather"] + x["render"] + x["mkdocs"])
    total_cpu = cells(lambda x: sum(x["cpu"][s] for s, _ in steps))
    total_workers = cells(lambda x: sum(x["workers"][s] for s, _ in steps))
    rebuild = ", ".join(f"{x['rebuild']:.1f} s ({x['rewritten']} written)" for x in runs)
    median = " | median" if len(runs) > 1 else ""
    date = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())  # when the report is written: the run's date
    return f"""
Date {date}. Machine: {_machine()}. Load average at the start: {load}; after the last build: {r["load_after"]}.
Command: `python -m benchmarks.bench_site --runs {len(runs)}{"" if cache else " --no-cache"}`. Hub: all real FB rounds + `synth_fb.py --rounds 14
--models 100 --seed 1`, imported and scored before timing; site as of {AS_OF}. {OPENED[cache]}.

| step | wall: {head}{median} | CPU, main process: {head}{median} | CPU, forked workers: {head}{median} |
|---|{"---|" * (3 * (len(runs) + (len(runs) > 1)))}
{chr(10).join(rows)}
| **total** | {total} (target ≤ 60 s) | {total_cpu} | {total_workers} |

Rebuild with no new data: {rebuild}.
Leaderboard page weight, without plotly.js: {r["raw"] / 1024:,.0f} KB raw, **{r["gzip"] / 1024:,.0f} KB gzip**
(target ≤ 300 KB; index.html + {", ".join(r["assets"])}).
{_size_markdown(r)} Largest round page {r["largest_round_kb"]:,.0f} KB.
Peak RSS {r["peak_rss_mb"]:,.0f} MB.
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--synth", help="an existing synth_fb.py output folder (default: generate one)")
    parser.add_argument("--hub", help="an already imported and scored hub (skips the preparation)")
    parser.add_argument("--local-downloads", action="store_true", help=f"leave [hub] repo_url as it is (default: set it to {REPO_URL})")
    parser.add_argument("--runs", type=int, default=1, help="timed builds, each on a fresh site_src (default 1)")
    parser.add_argument("--no-cache", action="store_true", help="open the hub without its disk cache (`prescient build --no-cache`: a cold build)")
    args = parser.parse_args()
    load = _load()
    with tempfile.TemporaryDirectory(prefix="bench-site-") as tmp:
        hub = Path(args.hub) if args.hub else Path(tmp) / "hub"
        if not args.hub:
            synth = Path(args.synth) if args.synth else Path(tmp) / "synth"
            if not args.synth:
                subprocess.run(
                    [sys.executable, str(SYNTH), "--rounds", "14", "--models", "100", "--seed", "1", "--out", str(synth)],
                    check=True,
                    capture_output=True,
                )
            prepare(synth, hub, not args.no_cache)
        elif not args.no_cache:
            print(f"{warm(hub):,} forecast files read into the hub's disk cache (not timed)", file=sys.stderr)
        if not args.local_downloads:
            set_repo_url(hub, REPO_URL)
        runs = []
        for _ in range(args.runs):
            shutil.rmtree(hub / "site_src", ignore_errors=True)  # each run builds a fresh site_src from the skeleton
            runs.append(timed(hub, not args.no_cache))
        print(_markdown(runs, load, not args.no_cache))


if __name__ == "__main__":
    main()
