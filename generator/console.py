"""What the command line shows while it works: progress bars on a terminal, plain lines otherwise,
and the per-source summary of a nightly run."""

from __future__ import annotations

import contextlib
import functools
import json
import math
import sys
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from .store.csvio import encode
from .store.spreadsheet import spreadsheet_safe
from .timeutil import format_ts, parse_ts

if TYPE_CHECKING:  # rich is imported only when a terminal shows the bar
    from rich.progress import Progress, TaskID


def print_sources(report) -> None:
    for s in getattr(report, "sources", []):
        if s.skipped:
            print(f"{s.name}: skipped ({s.skipped})")
            continue
        status = f"FAILED: {s.error}" if s.error else "ok"
        print(
            f"{s.name}: {status}; new questions {s.new_questions}, new observations {s.new_observations}, "
            f"resolved {s.resolved}, voided {s.voided}, item failures {len(s.failures)}"
            + (f"; resolved markets read again {s.reread}" if getattr(s, "reread", 0) else "")
        )
        for failure in s.failures[:20]:
            print(f"  - {failure}")
    for note in getattr(report, "round_notes", []):
        print(note)
    if getattr(report, "oracle", None) is not None:
        from .oracle.describe import night_lines  # the oracle stage's libraries load only where it ran

        print("\n".join(night_lines(report.oracle)))
    if getattr(report, "agents", None) is not None:
        from .forecasters.agents import describe

        night = report.agents
        failed = [p.message for p in night.problems if p.code == "agent-failed"]
        lines = [line for r in night.reports for line in describe(r)] + night.notes + failed
        if lines:
            print("\n".join(f"arena: {line}" for line in lines))


def settings_summary(settings, as_of: datetime) -> str:
    """What ``prescient check-config`` says of a hub.toml without a problem: the hub, its schedule, its sources."""
    from .config_schema import NEEDS
    from .pipeline.sampling import next_round

    rounds = settings.rounds
    due, freeze = next_round(rounds, as_of)
    late = " (its freeze time has passed: the next nightly freezes it then)" if freeze <= as_of else ""
    enabled = [s.name + (f" (needs {NEEDS[s.name]})" if s.name in NEEDS else "") for s in settings.enabled_sources]
    return "\n".join(
        [
            f"{settings.root / 'data/hub.toml'}: no problem found",
            f"  hub: {settings.title} · maintainers: {', '.join(settings.maintainers) or 'none (no review is required)'}",
            f"  rounds: due every {rounds.cadence_days} day(s) from {format_ts(rounds.first_due)}, frozen "
            f"{rounds.open_days_before_due} day(s) before; the next is due {format_ts(due)} (frozen and published {format_ts(freeze)}){late}",
            f"  sources enabled: {', '.join(enabled) or 'none (the nightly fetches nothing)'}",
        ]
    )


def init_summary(result, hub: str, program: str) -> str:
    """What ``prescient init`` (or ``init --upgrade``) did, and a new hub's next steps."""
    from .pipeline.hubpin import version_key

    lines = []
    if result.previous_version is not None or result.first_due is None:
        previous = result.previous_version
        went = "downgraded" if previous and version_key(previous) > version_key(result.version) else "upgraded"
        lines.append(
            f"{went} {hub} to Prescient {result.version} (from {previous or 'an unrecorded version'}): "
            f"{len(result.written)} file(s) written, {len(result.unchanged)} already current"
        )
        lines += [f"  {result.pin_note}"] if result.pin_note else []
        lines += [f"  wrote {p}" for p in result.written]
        for p in result.kept:
            copy = result.new_copies.get(p)
            lines.append(
                f"  kept {p}: changed by the hub, so not replaced; this version's copy is in {p}.new ({copy} against yours): "
                "merge it by hand, then delete the .new file"
                if copy
                else f"  kept {p}: changed by the hub, so not replaced (this version ships the copy it started from)"
            )
        return "\n".join(lines)
    lines.append(f"created the hub {hub} ({len(result.written)} files{', a new git repository' if result.created_git else ''})")
    if result.pin is not None:
        lines.append(f"  pinned Prescient: {result.pin.requirement} ({result.pin.source})")
    lines += [f"  kept your {p}" for p in result.kept]
    lines += [
        f"  its first round is due {format_ts(result.first_due)}: the first `prescient nightly` freezes and publishes it",
        "next:",
        f"  edit {hub}/data/hub.toml (sources, schedule, maintainers), then `{program} check-config --hub {hub}`",
        f"  `{program} nightly --hub {hub}`, `{program} build --hub {hub}`, `{program} serve --hub {hub}`",
        f'  commit everything, push it to GitHub and set the repository up: {hub}/README.md, "Maintaining"',
    ]
    return "\n".join(lines)


def demo_summary(result, start: datetime, seconds: float, hub: str, program: str) -> str:
    """What ``prescient demo`` says when it is done: what it made, how to look at it, how to go on."""
    end = result.as_of
    minutes, rest = divmod(round(seconds), 60)
    took = f"{minutes} min {rest} s" if minutes else f"{rest} s"
    following = format_ts(end + timedelta(days=1))
    return "\n".join(
        [
            f"Demo hub written to {hub} in {took}: {result.nights} nightly runs on the offline sim world, {start:%Y-%m-%d} to {end:%Y-%m-%d}.",
            "",
            f"  {program} serve --hub {hub}          preview the site at http://127.0.0.1:8000/",
            f"  {program} leaderboard --hub {hub}    the board in this terminal",
            f"  {program} verify --hub {hub}         recompute every derived file from the ledgers and compare",
            "",
            f"The demo's clock stopped at its last night, {format_ts(end)}. To look at the hub as of another",
            "time, pass --as-of; to go on, run the next night on the offline world:",
            f"  {program} nightly --hub {hub} --as-of {following}",
            "Then try the Submit page's walkthrough, your first forecast file, on this hub.",
        ]
    )


class progress_bar:
    """A rich progress bar on a terminal, plain lines otherwise."""

    def __init__(self, title: str):
        self.title = title
        self.bar: tuple[Progress, TaskID] | None = None  # the rich bar and its one task, on a terminal

    def __enter__(self) -> Callable[[int, int, str], None]:
        if sys.stderr.isatty():
            from rich.progress import Progress

            bar = Progress(transient=False)
            bar.start()
            self.bar = bar, bar.add_task(self.title, total=None)
        return self.advance

    def advance(self, done: int, total: int, message: str) -> None:
        if self.bar is not None:
            bar, task = self.bar
            bar.update(task, completed=done, total=total, description=f"{self.title}: {message}")
        elif done == total or done % 30 == 0:
            print(f"{self.title}: {done}/{total} ({message})", file=sys.stderr)

    def __exit__(self, *exc) -> None:
        if self.bar is not None:
            self.bar[0].stop()


@contextlib.contextmanager
def requests_progress():
    """Per-source request counters: a rich bar on a terminal, one plain log line otherwise."""
    if not sys.stderr.isatty():

        def plain(source: str):
            print(f"fetching {source} ...", file=sys.stderr)
            return lambda n: None

        yield plain
        return
    from rich.progress import Progress, SpinnerColumn, TextColumn

    with Progress(SpinnerColumn(), TextColumn("{task.description}: {task.completed} requests"), transient=False) as bar:
        yield lambda source: functools.partial(bar.advance, bar.add_task(source, total=None))


def print_frame(frame: pd.DataFrame, fmt: str, hide: tuple[str, ...] = (), digits: int | None = None) -> None:
    """A board as CSV (every column), JSON records (every column) or a table for people."""
    if fmt == "csv":  # for spreadsheets: formula-like text neutralised, cells quoted as the ledgers quote them
        safe = spreadsheet_safe(frame)
        cells = [np.array([_csv_cell(v) for v in safe[c].tolist()], dtype=object) for c in safe.columns]
        sys.stdout.write(encode(tuple(map(str, safe.columns)), cells).decode("utf-8"))
    elif fmt == "json":
        print(json.dumps(json.loads(frame.to_json(orient="records")), indent=2))
    else:
        shown = frame.drop(columns=[c for c in hide if c in frame.columns])
        print(shown.to_string(index=False, float_format=(lambda x: f"{x:.{digits}f}") if digits is not None else None))


MONEY = ("start", "cash", "positions_value", "total_value", "realised_pnl", "unrealised_pnl", "pnl")


def frame_text(frame: pd.DataFrame, compact: tuple[str, ...], wide: bool, width: int) -> str:
    """A view (the Arena's, the oracle board) as an aligned table, as ``board_text`` prints the
    leaderboard: money with 2 decimals, percentages with 1, rates and scores with 3, whole counts
    as integers, a missing value empty; without ``wide`` only the ``compact`` columns, the model
    names shortened to fit ``width``, and a last line naming what was left out."""
    columns = list(frame.columns) if wide else [c for c in frame.columns if c in compact]
    cells = pd.DataFrame({c: [_cell(c, v) for v in frame[c].tolist()] for c in columns}, columns=columns)
    if cells.empty:
        return "(no rows)\n"
    if not wide and "model" in cells:
        others = sum(max(len(c), int(cells[c].str.len().max())) + 2 for c in columns if c != "model")
        room = max(12, width - others)
        cells["model"] = cells["model"].map(lambda m: m if len(m) <= room else m[: room - 1] + "…")
    widths = {c: max(len(c), int(cells[c].str.len().max())) for c in columns}
    numeric = {c for c in columns if pd.api.types.is_numeric_dtype(frame[c])}

    def line(row: dict) -> str:
        return "  ".join(str(row[c]).rjust(widths[c]) if c in numeric else str(row[c]).ljust(widths[c]) for c in columns).rstrip()

    rows = [line({c: c for c in columns})] + [line(r) for r in cells.to_dict("records")]
    hidden = len(frame.columns) - len(columns)
    more = [f"({hidden} more column(s): --wide shows every one, --format csv or json the full data)"] if hidden else []
    return "\n".join(rows + more) + "\n"


def _cell(column: str, value) -> str:
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        return str(value)
    if float(value).is_integer() and (isinstance(value, (int, np.integer)) or column.startswith("n")):
        return f"{int(value):,}"
    digits = 2 if column in MONEY else 1 if column.endswith("_pct") else 3
    return f"{float(value):,.{digits}f}"


def _csv_cell(value) -> str:
    """A value as the console's CSV writes it: empty for a missing one, floats to six significant digits."""
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return ""
    return f"{value:.6g}" if isinstance(value, float) else str(value)


def _num(value, digits: int) -> str:
    return "" if pd.isna(value) else f"{float(value):.{digits}f}"


def _rank(value) -> str:
    return "" if pd.isna(value) else str(int(value))


def board_columns(board: pd.DataFrame, view: str, wide: bool) -> pd.DataFrame:
    """The leaderboard as strings for people: ranks as integers, the Brier Index to one decimal
    with its CI, Brier and secondary scores to three, and no column that is empty on every row.
    Compact (not ``wide``): rank, model, Brier Index [CI], N and the rank interval."""
    if not wide:
        from .leaderboard.hub_boards import headline_of  # here: the leaderboard's imports (scipy) are slow

        score = headline_of(view, board)
        if score not in board.columns or board[score].isna().all():
            score = next((c for c in ("overall", "market", "dataset") if c in board.columns and board[c].notna().any()), score)
        counts = {"market": ("n_market",), "dataset": ("n_dataset",)}.get(score, ("n_dataset", "n_market"))
        n = sum((board[c].fillna(0) for c in counts if c in board.columns), pd.Series(0, index=board.index))
        low, high = board.get(f"{score}_ci_low"), board.get(f"{score}_ci_high")
        bi = [
            ("" if pd.isna(v) else f"{v:.1f}" + ("" if low is None or pd.isna(lo) else f" [{lo:.1f}, {hi:.1f}]"))
            for v, lo, hi in zip(
                board[score] if score in board.columns else [float("nan")] * len(board),
                low if low is not None else [None] * len(board),
                high if high is not None else [None] * len(board),
                strict=True,
            )
        ]
        ranks = [
            ("" if pd.isna(lo) else _rank(lo) if lo == hi else f"{_rank(lo)}–{_rank(hi)}")
            for lo, hi in zip(
                board.get("rank_low", pd.Series(float("nan"), index=board.index)),
                board.get("rank_high", pd.Series(float("nan"), index=board.index)),
                strict=True,
            )
        ]
        out = pd.DataFrame(
            {
                "rank": board["rank"].map(_rank),
                "model": board["model"],
                "Brier Index [95% CI]": bi,
                "N": n.astype(int).astype(str),
                "rank interval": ranks,
            }
        )
        if "provisional" in board.columns and board["provisional"].fillna(0).astype(bool).any():
            out["note"] = board["provisional"].fillna(0).astype(bool).map({True: "provisional", False: ""})
    else:
        out = pd.DataFrame(index=board.index)
        for c in board.columns:
            col = board[c]
            if c in ("rank", "rank_low", "rank_high", "n_dataset", "n_market", "provisional", "in_estimation", "n", "n_orphan"):
                out[c] = col.map(_rank)
            elif c.startswith("brier") or c in ("log_score", "peer", "bss", "accuracy", "p_value", "p_public"):
                out[c] = col.map(lambda x: _num(x, 3))
            elif pd.api.types.is_float_dtype(col):
                out[c] = col.map(lambda x: _num(x, 1))
            else:
                out[c] = col.fillna("").astype(str)
    keep = [c for c in out.columns if (out[c] != "").any() or c in ("rank", "model")]
    return out[keep]


def empty_board_note(
    as_of: datetime, dues: list[datetime], first_due: datetime, min_age_days: int, resolutions: pd.DataFrame | None = None, market_proxy: bool = False
) -> str:
    """Why a board is empty, and when the first scores can appear: a round counts ``min_age_days`` after
    its due time (FB's 50-day rule), so nothing shows before the first round's due time plus that.
    ``resolutions`` (the stated-resolutions ledger): resolutions of those rounds recorded only after
    ``as_of`` (an import records them at its own ``--as-of``) are named, with the time to ask at."""
    first = min(dues) if dues else first_due
    earliest = first + timedelta(days=min_age_days)
    if earliest > as_of:
        which = f"round {first:%Y-%m-%d}" if dues else f"the first round (due {first:%Y-%m-%d}, not yet published)"
        return (
            f"no scored forecasts as of {format_ts(as_of)}; first scores on {earliest:%Y-%m-%d} at the earliest: "
            f"{which} counts {min_age_days} days after its due time"
        )
    cutoff = as_of - timedelta(days=min_age_days)
    note = (
        f"no scored forecasts as of {format_ts(as_of)}: no forecast of a round due by {cutoff:%Y-%m-%d} "
        "has resolved yet, or every such file was left out by the imputation rule"
    )
    late = recorded_later(resolutions, as_of, cutoff)
    if late is None:
        return note
    count, when = late
    ask = parse_ts(when) + timedelta(days=1) if market_proxy else parse_ts(when)
    return (
        f"no scored forecasts as of {format_ts(as_of)}: {count:,} resolution(s) of rounds due by {cutoff:%Y-%m-%d} "
        f"are in the hub but were recorded after that time (the first at {when}, e.g. by `prescient import "
        "forecastbench --as-of`, which records what it imports at its own time); a board sees a resolution "
        f"from the time the hub recorded it: ask with --as-of {format_ts(ask)} or later"
        + (" (under market_proxy an open market takes the value recorded a day before the board's time)" if market_proxy else "")
    )


def recorded_later(resolutions: pd.DataFrame | None, as_of: datetime, cutoff: datetime) -> tuple[int, str] | None:
    """How many stated resolutions (resolved or void) of rounds due by ``cutoff``, resolved by ``as_of``,
    were recorded only after ``as_of``, and the earliest such recording time; None when none."""
    if resolutions is None or resolutions.empty:
        return None
    rows = resolutions[
        (resolutions["status"] != "open")
        & (resolutions["recorded_at"] > format_ts(as_of))
        & (resolutions["resolved_at"].fillna("") <= format_ts(as_of))
        & (resolutions["round"].fillna("").astype(str).str[:10] <= f"{cutoff:%Y-%m-%d}")
    ]
    return (len(rows), str(rows["recorded_at"].min())) if len(rows) else None


def board_text(board: pd.DataFrame, title: str, view: str, wide: bool, width: int) -> str:
    """The title line, then the board as an aligned table; compact boards shorten model names to
    fit ``width`` columns (``wide`` boards print every column, however wide)."""
    shown = board_columns(board, view, wide)
    if shown.empty:
        return title + "\n"
    if not wide:
        others = sum(max(len(c), shown[c].str.len().max()) + 2 for c in shown.columns if c != "model")
        room = max(12, width - others)
        shown = shown.assign(model=shown["model"].map(lambda m: m if len(m) <= room else m[: room - 1] + "…"))
    widths = {c: max(len(c), int(shown[c].str.len().max())) for c in shown.columns}
    left = {"model", "name", "organization", "kind", "note", "p_label"}

    def line(cells: dict) -> str:
        return "  ".join(str(cells[c]).ljust(widths[c]) if c in left else str(cells[c]).rjust(widths[c]) for c in shown.columns).rstrip()

    rows = [line({c: c for c in shown.columns})] + [line(r) for r in shown.to_dict("records")]
    return "\n".join([title, *rows]) + "\n"


def board_notes(board: pd.DataFrame) -> str:
    """What the board left out and why (``fb_board``'s ``attrs``): each unranked model and round with
    its reason, and where the market difficulties came from on a crowd board; empty when nothing."""
    lines = []
    unranked = board.attrs.get("unranked")
    if unranked is not None and len(unranked):
        lines.append(f"unranked ({len(unranked)} model-round(s) left off by the imputation rule):")
        lines += [f"  {r['model']} · round {r['round']}: {r['reason']}" for r in unranked.to_dict("records")]
    crowd = board.attrs.get("crowd_values")
    if crowd:
        lines.append(
            f"market difficulty: crowd value at the due time on {crowd['at_due']:,} unit(s), freeze value on "
            f"{crowd['at_freeze']:,}, estimated (no crowd value known) on {crowd['estimated']:,}"
            + (
                f'; {crowd["missing_at_due"]:,} without the crowd\'s value at the due time left out (missing_crowd = "drop")'
                if crowd.get("missing_at_due")
                else ""
            )
            + (f"; {crowd['average']:,} with neither (orphans) at the other markets' average" if crowd.get("average") else "")
        )
    return "".join(line + "\n" for line in lines)
