"""Load a hub's ledgers and files into typed frames. Every read is checked against its schema."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import pandas as pd

from ..errors import LedgerError, Problem, SchemaError
from ..models import ModelMeta
from ..schemas import (
    BETS,
    FORECASTS,
    HISTORY,
    MAINTAINER_ACTIONS,
    MANIFEST,
    NEWS,
    OBSERVATIONS,
    ORACLE_ARTICLES,
    ORACLE_FORECASTS,
    ORACLE_GENERATED,
    ORACLE_QUESTIONS,
    QUESTION_SETS,
    QUESTIONS,
    RESOLUTIONS,
    ROUND_QUESTIONS,
    SCORES,
    Table,
)
from ..timeutil import format_ts, parse_ts
from . import ledger, maintainer, model_log
from .cache import Share, Slot, file_signature, signatures
from .csvio import check_frame, coerce, empty_frame
from .forecast_file import group_median, is_individual, member_keyed, parse_forecast
from .hub import Hub
from .layout import Layout


def _read_all(hub: Hub, paths: list[Path], table: Table, share: Share | None = None) -> pd.DataFrame:
    frames = hub.cache.read_tables(paths, table, [hub.layout.relative(p) for p in paths], share)
    return pd.concat(frames, ignore_index=True) if frames else empty_frame(table)


def load_bank(hub: Hub) -> pd.DataFrame:
    return _read_all(hub, hub.layout.question_files(), QUESTIONS)


def load_observations(hub: Hub, share: Share | None = None) -> pd.DataFrame:
    """Every observation row; ``share``: the files parsed by forked processes (``ReadCache.read_tables``)."""
    return _read_all(hub, hub.layout.observation_files(), OBSERVATIONS, share)


def resolution_files(layout: Layout) -> list[Path]:
    """The stated-resolutions ledgers, ``data/resolutions/<source>.csv``."""
    return sorted((layout.data / "resolutions").glob("*.csv"))


def load_resolutions(hub: Hub) -> pd.DataFrame:
    """Every stated resolution (see ``schemas.RESOLUTIONS``); empty when the hub has none."""
    return _read_all(hub, resolution_files(hub.layout), RESOLUTIONS)


def load_statements(hub: Hub) -> pd.DataFrame:
    """What scoring takes as stated: every stated resolution (``load_resolutions``) and the maintainers'
    ``void`` and ``correct`` rows as statements recorded at their ``effective_at`` (``store.maintainer``)."""
    stated, actions = load_resolutions(hub), load_acting_actions(hub)
    if actions.empty:
        return stated
    voided = maintainer.voided_questions(actions)
    dates = maintainer.unit_dates([load_round(hub, due) for due in round_dues(hub)], voided) if voided else {}
    own = maintainer.statements(actions, dates)
    return pd.concat([stated, own], ignore_index=True) if len(stated) else own


def load_acting_actions(hub: Hub) -> pd.DataFrame:
    """The maintainers' decisions as scoring takes them: each from when the nightly took it up
    (``store.maintainer.acting``; a decision merged after a night it was meant to act from acts from
    the next night)."""
    actions = maintainer.load_actions(hub)
    if actions.empty:
        return actions
    history = load_history(hub)
    return maintainer.acting(actions, maintainer.load_taken(hub), str(history["as_of"].max()) if len(history) else "")


def load_models(hub: Hub, as_of: datetime | None = None) -> dict[str, ModelMeta]:
    """Every model file's metadata, by model (parsed once per command while a file is unchanged);
    with ``as_of``, its scoring-relevant fields as the model log recorded them by then
    (``store.model_log``), and ``excluded`` set on each model the maintainers excluded by then
    (``store.maintainer``): what a board of that night counts."""
    files = hub.layout.model_files()
    models = {p.name.removesuffix(".yml"): hub.cache.read_model(p, hub.layout.relative(p)) for p in files}
    if as_of is None:
        return models
    stamp, layout = format_ts(as_of), hub.layout
    ledgers = [p for p in (layout.model_log, layout.maintainer_actions, maintainer.taken_file(hub), layout.history) if p.is_file()]
    made: dict[str, ModelMeta] = hub.cache.kept(
        MODELS_AS_OF,
        (signatures([*files, *ledgers]), stamp),
        lambda: maintainer.with_exclusions(model_log.as_of(models, model_log.load_log(hub), stamp), load_acting_actions(hub), stamp),
    )
    return dict(made)  # a copy: the kept one is shared


MODELS_AS_OF: Slot[dict[str, ModelMeta]] = Slot("models as of a time")  # ``load_models``: a night asks it several times


def round_dues(hub: Hub) -> list[datetime]:
    return [parse_ts(p.name) for p in hub.layout.round_dirs()]


def load_round(hub: Hub, due: datetime) -> pd.DataFrame:
    layout = hub.layout
    path = layout.round_questions(due)
    return hub.cache.read_table(path, ROUND_QUESTIONS, layout.relative(path))


def load_round_sets(hub: Hub, due: datetime) -> pd.DataFrame:
    """The round's question sets (``schemas.QUESTION_SETS``); empty when it has one set, the whole round."""
    layout = hub.layout
    path = layout.round_sets(due)
    return hub.cache.read_table(path, QUESTION_SETS, layout.relative(path)) if path.is_file() else empty_frame(QUESTION_SETS)


def load_forecasts(hub: Hub, due: datetime, quarantine: list[Problem] | None = None) -> dict[str, pd.DataFrame]:
    """Every forecast file of a round, by model. A model with both a CSV and a JSON file is an error.

    Strict by default (the first unreadable file raises SchemaError); with a ``quarantine`` list,
    an unreadable file is set aside there (see ``set_aside``) and every other file is returned."""
    layout = hub.layout
    by_model: dict[str, list[Path]] = {}
    for path in layout.forecast_files(due):
        by_model.setdefault(path.stem, []).append(path)
    plain = [p for (p, *more) in by_model.values() if not more and p.suffix == ".csv" and not p.is_symlink() and p.is_file()]
    hub.cache.read_forecasts_together(plain, [layout.relative(p) for p in plain])  # parsed as one, then taken one by one
    return _read_each(hub, by_model, _one_forecast, quarantine)


def _one_forecast(hub: Hub, paths: list[Path]) -> pd.DataFrame:
    layout = hub.layout
    if len(paths) > 1:
        label = layout.relative(paths[-1])
        raise SchemaError(
            f"{label}: {paths[-1].stem} has two forecast files for this round",
            [Problem(label, None, None, "duplicate-submission", "keep either the .csv or the .json file")],
        )
    return _forecast_frame(hub, paths[0])


def _read_each(hub: Hub, files: dict[str, list[Path]], read, quarantine: list[Problem] | None) -> dict[str, pd.DataFrame]:
    """``read(hub, paths)`` for each model's submitted files; unreadable ones raise, or with a
    ``quarantine`` list are set aside there."""
    layout = hub.layout
    out: dict[str, pd.DataFrame] = {}
    for model, paths in files.items():
        try:
            out[model] = _submitted(hub, paths, read)
        except SchemaError as exc:
            if quarantine is None:
                raise
            set_aside(quarantine, exc, layout.relative(paths[0]))
    return out


def _submitted(hub: Hub, paths: list[Path], read) -> pd.DataFrame:
    """A submitted file's frame; a symlink or a CSV the parser cannot tokenise is a coded SchemaError too."""
    layout = hub.layout
    label = layout.relative(paths[0])
    if any(p.is_symlink() or not p.is_file() for p in paths):
        raise SchemaError(
            f"{label}: not a regular file", [Problem(label, None, None, "not-a-regular-file", "a symbolic link or a folder is never read")]
        )
    try:
        return read(hub, paths)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeError) as exc:
        raise SchemaError(f"{label}: cannot parse the file", [Problem(label, None, None, "bad-csv", f"cannot parse the CSV: {exc}")]) from None


def set_aside(quarantine: list[Problem], exc: SchemaError, label: str) -> None:
    """Record one unreadable submitted file in ``quarantine``: its first problem (with how many more
    there were), once however often the file is read."""
    code = "bad-json" if label.endswith(".json") else "bad-csv"
    first = exc.problems[0] if exc.problems else Problem(label, None, None, code, str(exc))
    more = f" (and {len(exc.problems) - 1} more problem(s))" if len(exc.problems) > 1 else ""
    entry = Problem(first.file, first.row, first.column, first.code, f"quarantined, not read: {first.message}{more}")
    if entry not in quarantine:
        quarantine.append(entry)


def quarantined_files(quarantine: list[Problem]) -> set[str]:
    """The labels (hub-relative paths) of the files set aside in ``quarantine``."""
    return {p.file for p in quarantine}


def remember_forecasts(hub: Hub, path: Path, frame: pd.DataFrame) -> None:
    """Tell ``load_forecasts`` what the CSV file at ``path`` holds: ``frame`` must be exactly the
    frame ``csvio.read_table`` returns for the file's current bytes (checked and typed). It is kept
    in the hub's read cache under the file's current signature, so the next read gives it without
    parsing; any later change of the file (a new inode, mtime or size) makes read_table read it
    again. The import calls it for the forecast files it has just written
    (``fast_forecasts.as_read``; tests/store/test_fast_paths.py compares with reads from disk)."""
    hub.cache.remember(path, FORECASTS, hub.layout.relative(path), frame)


def _forecast_frame(hub: Hub, path: Path) -> pd.DataFrame:
    layout = hub.layout
    label = layout.relative(path)
    if path.suffix == ".csv":
        return hub.cache.read_table(path, FORECASTS, label)
    parsed = parse_forecast(path.read_bytes(), label, "json")  # the validator's own JSON reader
    errors = [p for p in parsed.problems if p.severity == "error"]
    raw = pd.DataFrame([row.cells for row in parsed.rows], columns=list(FORECASTS.names), dtype=str)
    individual = is_individual(parsed)
    checked = check_frame(member_keyed(raw, parsed), FORECASTS, label)
    errors += [p for p in checked if p.severity == "error"]
    if errors:
        raise SchemaError(f"{label}: does not match the forecasts schema", errors)
    frame = coerce(raw, FORECASTS)
    if individual:  # a group's members, one row each: the group forecasts their median
        frame = group_median(frame.assign(member=[row.member for row in parsed.rows]))
    frame.attrs["question_set"] = parsed.question_set  # the set the file answers (None: the whole round)
    return frame


@dataclass(frozen=True)
class LedgerMark:
    """What a ledger file was when last looked at (``appended_rows``)."""

    signature: tuple  # (inode, mtime, size): the same means unchanged, not read again
    size: int
    sha256: str  # of its bytes: an append keeps them as the first ``size`` bytes of the file
    rows: int


def appended_rows(hub: Hub, path: Path, table: Table, before: LedgerMark | None) -> tuple[LedgerMark, pd.DataFrame | None]:
    """The file's mark now and its rows added since ``before`` (every row when None; none, unread,
    when its signature is unchanged). The rows are None when the file changed other than by
    appending rows: its first ``before.size`` bytes are no longer the bytes it had."""
    layout = hub.layout
    signature = file_signature(path)
    if before is not None and before.signature == signature:
        return before, empty_frame(table)
    if (
        before is not None and hub.cache.disk is not None and path.stat().st_size == before.size and hub.cache.sha256(path) == before.sha256
    ):  # the same bytes, in another process or checkout
        return LedgerMark(signature, before.size, before.sha256, before.rows), empty_frame(table)
    data = memoryview(path.read_bytes())
    frame = hub.cache.read_table(path, table, layout.relative(path))
    digest = hashlib.sha256(data[: before.size] if before is not None else data)
    prefix = digest.hexdigest()  # of the bytes the file had, if it only grew: one pass over the file for both
    if before is not None:
        digest.update(data[before.size :])
    mark = LedgerMark(signature, len(data), digest.hexdigest(), len(frame))
    if before is None:
        return mark, frame
    kept = len(data) >= before.size and len(frame) >= before.rows and prefix == before.sha256
    return mark, frame.iloc[before.rows :] if kept else None


def load_bets(hub: Hub, due: datetime, quarantine: list[Problem] | None = None) -> dict[str, pd.DataFrame]:
    """A round's bet files (``schemas.BETS``, the Arena cohort), by model; empty when there are none.
    With a ``quarantine`` list, unreadable files are set aside there (as in ``load_forecasts``)."""
    files = {p.stem: [p] for p in hub.layout.bet_files(due)}
    read = _read_each(hub, files, lambda h, paths: h.cache.read_table(paths[0], BETS, h.layout.relative(paths[0])), quarantine)
    return {model: _with_late(frame, BETS) for model, frame in read.items()}


def _with_late(frame: pd.DataFrame, table) -> pd.DataFrame:
    """``frame`` with every column of ``table``: a late column its file lacks (``Table.late``) empty."""
    missing = [name for name in table.late if name not in frame.columns]
    return (
        frame.assign(**{name: pd.Series([None] * len(frame), index=frame.index, dtype=object) for name in missing})[list(table.names)]
        if missing
        else frame
    )


def score_files(layout: Layout) -> list[Path]:
    """The score files, ``data/scores/<due>.csv``, in the order ``load_scores`` joins them."""
    return sorted((layout.data / "scores").glob("*.csv"))


def load_scores(hub: Hub, share: Share | None = None) -> pd.DataFrame:
    """Every score file's rows; ``share``: the files parsed by forked processes (``ReadCache.read_tables``)."""
    return _read_all(hub, score_files(hub.layout), SCORES, share)


def load_history(hub: Hub) -> pd.DataFrame:
    layout = hub.layout
    path = layout.history
    return hub.cache.read_table(path, HISTORY, layout.relative(path)) if path.is_file() else empty_frame(HISTORY)


def load_oracle_questions(hub: Hub, qset: str) -> pd.DataFrame:
    """Every recorded version of an oracle set's questions (``schemas.ORACLE_QUESTIONS``); empty if none."""
    layout = hub.layout
    path = layout.oracle_questions(qset)
    return hub.cache.read_table(path, ORACLE_QUESTIONS, layout.relative(path)) if path.is_file() else empty_frame(ORACLE_QUESTIONS)


def load_oracle_forecasts(hub: Hub, qset: str, quarantine: list[Problem] | None = None) -> dict[str, pd.DataFrame]:
    """An oracle set's forecast files, by model (``schemas.ORACLE_FORECASTS``). With a
    ``quarantine`` list, unreadable files are set aside there (as in ``load_forecasts``)."""
    files = {p.stem: [p] for p in hub.layout.oracle_forecast_files(qset)}
    return _read_each(hub, files, lambda h, paths: h.cache.read_table(paths[0], ORACLE_FORECASTS, h.layout.relative(paths[0])), quarantine)


def load_news(hub: Hub) -> pd.DataFrame:
    """Every recorded version of every article of the news ledger (``schemas.NEWS``); empty if none."""
    return _read_all(hub, hub.layout.news_files(), NEWS)


def load_oracle_articles(hub: Hub, qset: str) -> pd.DataFrame:
    """An oracle set's article selections (``schemas.ORACLE_ARTICLES``); empty if none."""
    return _read_all(hub, [p for p in [hub.layout.oracle_articles(qset)] if p.is_file()], ORACLE_ARTICLES)


def load_oracle_generated(hub: Hub, qset: str) -> pd.DataFrame:
    """Every question an oracle set's maker wrote, with its filter scores (``schemas.ORACLE_GENERATED``)."""
    return _read_all(hub, [p for p in [hub.layout.oracle_generated(qset)] if p.is_file()], ORACLE_GENERATED)


# -- time never runs backwards --------------------------------------------------------------------


def _recording_ledgers(layout: Layout) -> list[tuple[Path, Table, str]]:
    """The files whose newest row says when the hub last learned something, with the column that
    says when (``schemas``: recorded_at, and history's as_of). Observations are filed by the month
    of the run that recorded them, manifests by its year, so only the latest of each is needed."""
    latest_obs = {p.parent: p for p in layout.observation_files()}  # sorted: the last one per source wins
    files = [(p, OBSERVATIONS, "recorded_at") for p in latest_obs.values()]
    files += [(p, QUESTIONS, "recorded_at") for p in layout.question_files()]
    files += [(p, RESOLUTIONS, "recorded_at") for p in resolution_files(layout)]
    files += [(layout.maintainer_actions, MAINTAINER_ACTIONS, "recorded_at")] if layout.maintainer_actions.is_file() else []
    files += [(p, MANIFEST, "recorded_at") for p in layout.manifest_files()[-1:]]
    files += [(layout.oracle_questions(s), ORACLE_QUESTIONS, "recorded_at") for s in layout.oracle_sets()]
    files += [(p, NEWS, "recorded_at") for p in layout.news_files()[-1:]]  # filed by the month recorded
    files += [
        (path, table, "recorded_at")
        for s in layout.oracle_sets()
        for path, table in ((layout.oracle_articles(s), ORACLE_ARTICLES), (layout.oracle_generated(s), ORACLE_GENERATED))
        if path.is_file()
    ]
    return files + ([(layout.history, HISTORY, "as_of")] if layout.history.is_file() else [])


def latest_recorded(hub: Hub) -> tuple[str, str, str] | None:
    """The latest time the ledgers record, and where: ``(stamp, file, column)``; None for a new hub."""
    layout = hub.layout
    latest = None
    for path, table, column in _recording_ledgers(layout):
        label = layout.relative(path)
        stamp = _latest_stamp(path, table, column, label, hub)
        if stamp is not None and (latest is None or stamp > latest[0]):
            latest = (stamp, label, column)
    return latest


def _latest_stamp(path: Path, table: Table, column: str, label: str, hub: Hub) -> str | None:
    """The largest value of ``column`` in the ledger at ``path`` (None when it has no row). When the
    table's sort key starts with it, that is the first cell of the ledger's largest sort key, which
    the command's cache keeps from night to night (``ledger.last_key``) instead of a scan of the
    whole column each night."""
    if table.sort[0] == column:
        last = ledger.last_key(path, table, label, hub.cache)
        if last is not None:
            return last[0]
    stamps = hub.cache.read_table(path, table, label)[column]
    return str(stamps.max()) if len(stamps) else None


def check_as_of(hub: Hub, as_of: str) -> None:
    """Refuse a run dated before a row already recorded: rows dated ``as_of`` would be appended
    after later ones, and boards as of any time in between would silently change."""
    latest = latest_recorded(hub)
    if latest is None or as_of >= latest[0]:
        return
    stamp, label, column = latest
    message = (
        f"--as-of {as_of} is earlier than {stamp}, the latest time the ledgers record; time never runs "
        f"backwards in a ledger: run with --as-of {stamp} or later"
    )
    raise LedgerError(
        f"--as-of {as_of} is before the ledgers' latest record ({stamp}): refused, nothing was written",
        [Problem(label, None, column, "as-of-before-ledger", message)],
    )
