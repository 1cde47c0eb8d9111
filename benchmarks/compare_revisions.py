"""Check that two revisions of the code write the same bytes: the demo hub and, with ``--fb``, the
ForecastBench-scale hub of the benchmarks, ledgers and site alike.

A refactor (such as the one that moved every stage into its own package) must change no output byte. Each
revision is exported with ``git archive`` into a temporary folder and driven only through its
command line (``python -m generator``, with that folder first on ``PYTHONPATH``), so the comparison
does not depend on either revision's internal API. Every file under the hub is compared, except
the lock file (never committed) and MkDocs' ``sitemap.xml.gz`` (gzip stamps no content difference
the uncompressed ``sitemap.xml`` would not show).

Usage, from the repository root:
    python -m benchmarks.compare_revisions BASE [HEAD] [--fb]
Exit 0 when every compared tree is identical, 1 otherwise (the differing files are listed).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
SKIP = {"data/.prescient.lock", "site_src/site/sitemap.xml.gz"}
FB_AS_OF = "2026-08-21T00:00:00Z"  # as in bench_fb_leaderboard


def export(rev: str, into: Path) -> Path:
    """The revision's files (not its history) in ``into``."""
    into.mkdir(parents=True)
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


def prescient(code: Path, *args: str, cwd: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(code), "PYTHONSAFEPATH": "1"}
    env.pop("SOURCE_DATE_EPOCH", None)
    result = subprocess.run([sys.executable, "-m", "generator", *args], cwd=cwd, env=env, capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(f"{code.name}: prescient {' '.join(args)} exited {result.returncode}\n{result.stderr[-2000:]}")


def demo(code: Path, out: Path) -> Path:
    prescient(code, "demo", str(out), cwd=out.parent)
    return out


def fb_hub(code: Path, out: Path, synth: Path) -> Path:
    """The benchmarks' ForecastBench-scale hub: FB's real sets plus the synthetic forecast sets."""
    prescient(
        code,
        "import",
        "forecastbench",
        str(SHARED / "forecastbench"),
        "--forecasts",
        str(synth / "forecast_sets"),
        "--hub",
        str(out),
        "--as-of",
        FB_AS_OF,
        cwd=out.parent,
    )
    prescient(code, "build", "--hub", str(out), "--as-of", FB_AS_OF, cwd=out.parent)
    return out


def tree(root: Path) -> dict[str, bytes]:
    files = {p.relative_to(root).as_posix(): p for p in root.rglob("*") if p.is_file()}
    return {name: path.read_bytes() for name, path in sorted(files.items()) if name not in SKIP}


def differences(a: Path, b: Path) -> list[str]:
    left, right = tree(a), tree(b)
    return sorted(name for name in left.keys() | right.keys() if left.get(name) != right.get(name))


def compare(name: str, make, base: Path, head: Path, work: Path) -> bool:
    started = time.perf_counter()
    (work / "base").mkdir(exist_ok=True)
    (work / "head").mkdir(exist_ok=True)
    a, b = make(base, work / "base" / name), make(head, work / "head" / name)
    diff = differences(a, b)
    print(
        f"{name}: {len(tree(a)):,} files compared in {time.perf_counter() - started:.0f} s: " + ("identical" if not diff else f"{len(diff)} differ")
    )
    for path in diff[:50]:
        print(f"  {path}")
    return not diff


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("base", help="the revision to compare against, e.g. the commit before a refactor")
    parser.add_argument("head", nargs="?", default="HEAD", help="the revision to check (default HEAD)")
    parser.add_argument("--fb", action="store_true", help="also the ForecastBench-scale hub (needs ../shared; minutes)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="prescient-compare-") as folder:
        work = Path(folder)
        base, head = export(args.base, work / "code-base"), export(args.head, work / "code-head")
        same = compare("demo", demo, base, head, work)
        if args.fb:
            synth = work / "synth"
            subprocess.run(
                [sys.executable, str(SHARED / "tools" / "synth_fb.py"), "--rounds", "14", "--models", "100", "--seed", "1", "--out", str(synth)],
                check=True,
                capture_output=True,
            )
            same &= compare("forecastbench", lambda code, out: fb_hub(code, out, synth), base, head, work)
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
