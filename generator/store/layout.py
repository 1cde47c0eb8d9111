"""Every path under a hub's ``data/`` folder, in one place (paths only: the command's cache is its
``store.hub.Hub``'s)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from ..timeutil import format_date


@dataclass(frozen=True)
class Layout:
    root: Path

    @property
    def data(self) -> Path:
        return self.root / "data"

    @property
    def hub_toml(self) -> Path:
        return self.data / "hub.toml"

    def questions(self, source: str) -> Path:
        return self.data / "questions" / f"{source}.csv"

    def question_files(self) -> list[Path]:
        return sorted((self.data / "questions").glob("*.csv"))

    def observations(self, source: str, recorded_at: datetime) -> Path:
        return self.data / "observations" / source / f"{recorded_at:%Y-%m}.csv"

    def observation_files(self, source: str | None = None) -> list[Path]:
        pattern = f"{source}/*.csv" if source else "*/*.csv"
        return sorted((self.data / "observations").glob(pattern))

    def round_dir(self, due: datetime) -> Path:
        return self.data / "rounds" / format_date(due)

    def round_questions(self, due: datetime) -> Path:
        return self.round_dir(due) / "questions.csv"

    def round_sets(self, due: datetime) -> Path:
        return self.round_dir(due) / "question_sets.csv"

    def round_json(self, due: datetime) -> Path:
        return self.round_dir(due) / "questions.json"

    def round_stats(self, due: datetime) -> tuple[Stat | None, Stat | None]:
        """The ``Stat`` of a round's questions and question sets files (None: absent), by paths as
        text, not Paths (a night asks it of every round)."""
        folder = f"{self.data}{os.sep}rounds{os.sep}{format_date(due)}{os.sep}"
        return stat_of(folder + "questions.csv"), stat_of(folder + "question_sets.csv")

    def round_dirs(self) -> list[Path]:
        """The folders of the open rounds: those holding a questions.csv, hidden ones aside (as
        ``glob("*")``; one directory read, then a stat per folder: a night lists them several times)."""
        return [
            folder
            for folder in _named(self.data / "rounds", None, folders=True)
            if not folder.name.startswith(".") and os.path.isfile(os.path.join(folder, "questions.csv"))
        ]

    def forecast_dir(self, due: datetime) -> Path:
        return self.data / "forecasts" / format_date(due)

    def forecast(self, due: datetime, model: str) -> Path:
        return self.forecast_dir(due) / f"{model}.csv"

    def forecast_files(self, due: datetime) -> list[Path]:
        """A round's forecast files: CSV, or the same content as a ForecastBench forecast-set JSON."""
        return _named(self.forecast_dir(due), FORECAST_SUFFIXES)

    def bets(self, due: datetime, model: str) -> Path:
        return self.data / "bets" / format_date(due) / f"{model}.csv"

    def bet_files(self, due: datetime) -> list[Path]:
        """A round's bet files (the Arena cohort of the round due at ``due``)."""
        return sorted((self.data / "bets" / format_date(due)).glob("*.csv"))

    def model_meta(self, model: str) -> Path:
        return self.data / "models" / f"{model}.yml"

    def model_files(self) -> list[Path]:
        return sorted((self.data / "models").glob("*.yml"))

    def llm_log(self, due: datetime, model: str) -> Path:
        """The LLM forecaster's append-only run log for one round (its resume state)."""
        return self.data / "llm" / format_date(due) / f"{model}.jsonl"

    def scores(self, due: datetime) -> Path:
        return self.data / "scores" / f"{format_date(due)}.csv"

    @property
    def history(self) -> Path:
        return self.data / "leaderboard" / "history.csv"

    def manifest(self, recorded_at: datetime) -> Path:
        return self.data / "manifest" / f"{recorded_at:%Y}.csv"

    def manifest_files(self) -> list[Path]:
        return sorted((self.data / "manifest").glob("*.csv"))

    def receipts(self, recorded_at: datetime) -> Path:
        return self.data / "receipts" / f"{recorded_at:%Y-%m}.csv"

    def receipt_files(self) -> list[Path]:
        return sorted((self.data / "receipts").glob("*.csv"))

    def seals(self, due: datetime) -> Path:
        """The seals ledger of the year of ``due`` (``schemas.SEALS``)."""
        return self.data / "seals" / f"{due:%Y}.csv"

    def seal_files(self) -> list[Path]:
        return sorted((self.data / "seals").glob("*.csv"))

    @property
    def model_log(self) -> Path:
        """The scoring-relevant metadata as each night recorded it (``schemas.MODEL_LOG``)."""
        return self.data / "metadata" / "models.csv"

    @property
    def audit_checkpoints(self) -> Path:
        """The audit's checkpoints, written by the nightly's full audit (``schemas.AUDIT_CHECKPOINTS``)."""
        return self.data / "metadata" / "checkpoints.csv"

    @property
    def maintainer_actions(self) -> Path:
        """The maintainers' decisions: void, correct, exclude (``schemas.MAINTAINER_ACTIONS``)."""
        return self.data / "maintainer" / "actions.csv"

    def round_reveal(self, due: datetime) -> Path:
        """Present only in a commit–reveal round (``schemas.ROUND_REVEAL``)."""
        return self.round_dir(due) / "reveal.csv"

    def commitment(self, due: datetime, model: str) -> Path:
        """A commit–reveal round's commitment: the sha256 (hex) of the salt file's bytes followed by the forecast file's."""
        return self.data / "commitments" / format_date(due) / f"{model}.sha256"

    def commitment_salt(self, due: datetime, model: str) -> Path:
        return self.data / "commitments" / format_date(due) / f"{model}.salt"

    def all_forecast_files(self) -> list[Path]:
        """Every forecast file in every round folder of ``data/forecasts`` (CSV or JSON)."""
        return [path for folder in self.forecast_folders() for path in _named(folder, FORECAST_SUFFIXES)]

    def forecast_folders(self) -> list[Path]:
        """The round folders of ``data/forecasts``, sorted (``all_forecast_files`` lists their files)."""
        return _named(self.data / "forecasts", None, folders=True)

    def forecast_stats(self) -> dict[str, FileStats]:
        """Every round folder of ``data/forecasts`` by name (its due date), with its forecast files'
        stats (``file_stats``): what a night's manifest and incremental derive tell changed rounds by."""
        return {folder.name: file_stats(folder) for folder in self.forecast_folders()}

    def oracle_questions(self, qset: str) -> Path:
        return self.data / "oracle" / qset / "questions.csv"

    def oracle_sets(self) -> list[str]:
        """Names of the oracle question sets (folders of ``data/oracle/`` holding a questions.csv)."""
        return sorted(p.parent.name for p in (self.data / "oracle").glob("*/questions.csv"))

    def oracle_forecast(self, qset: str, model: str) -> Path:
        return self.data / "oracle" / qset / "forecasts" / f"{model}.csv"

    def oracle_forecast_files(self, qset: str) -> list[Path]:
        return sorted((self.data / "oracle" / qset / "forecasts").glob("*.csv"))

    def news(self, recorded_at: datetime) -> Path:
        """The news ledger's file for the month a row is recorded in."""
        return self.data / "news" / f"{recorded_at:%Y-%m}.csv"

    def news_files(self) -> list[Path]:
        return sorted((self.data / "news").glob("*.csv"))

    def oracle_articles(self, qset: str) -> Path:
        """The set's article selections, one row per day × article."""
        return self.data / "oracle" / qset / "articles.csv"

    def oracle_generated(self, qset: str) -> Path:
        """Every question the set's maker wrote, kept or dropped, with its filter scores."""
        return self.data / "oracle" / qset / "generated.csv"

    def oracle_calls(self, qset: str, recorded_at: datetime) -> Path:
        """The question maker's call log (its resume state) for the month a call is made in."""
        return self.data / "oracle" / qset / "calls" / f"{recorded_at:%Y-%m}.jsonl"

    def oracle_call_files(self, qset: str) -> list[Path]:
        return sorted((self.data / "oracle" / qset / "calls").glob("*.jsonl"))

    def oracle_answer_log(self, qset: str, model: str) -> Path:
        """The hub's answer run log of one model on one set (its resume state)."""
        return self.data / "oracle" / qset / "answers" / f"{model}.jsonl"

    def relative(self, path: Path) -> str:
        """``path`` relative to the hub root, with slashes (as ``relative_to``; by text, a night asks
        it for every forecast file); ``str(path)`` for a path outside the hub."""
        text, root = str(path), str(self.root)
        if text.startswith(root) and text[len(root) : len(root) + 1] == os.sep and root != os.sep:
            return text[len(root) + 1 :].replace(os.sep, "/")
        try:
            return path.relative_to(self.root).as_posix()
        except ValueError:
            return str(path)


FORECAST_SUFFIXES = (".csv", ".json")
Stat = tuple[int, int, int, int]  # a file's (inode, size, mtime, ctime): changed whenever its bytes are
FileStats = tuple[tuple[str, Stat], ...]  # a folder's files by name, sorted, each with its Stat


def stat_of(path: Path | str) -> Stat | None:
    """The ``Stat`` of the file at ``path``; None when there is none."""
    try:
        return stat_key(os.stat(path))
    except (FileNotFoundError, NotADirectoryError):
        return None


def stat_key(st: os.stat_result) -> Stat:
    """A file's ``Stat`` from its ``os.stat`` result."""
    return st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns


def file_stats(folder: Path, suffixes: tuple[str, ...] = FORECAST_SUFFIXES) -> FileStats:
    """The files of ``folder`` whose names end in one of ``suffixes`` (``_named``'s), sorted by name,
    each with its ``Stat``: one directory read and a stat per file, without a Path per file, so a
    night can tell which round folders changed by stats alone (a value kept for a folder while its
    stats are the same: a file added, removed, replaced or written in place changes them)."""
    found = []
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                if entry.name.endswith(suffixes):
                    try:
                        st = entry.stat()
                    except FileNotFoundError:  # removed since the directory was read
                        continue
                    found.append((entry.name, stat_key(st)))
    except (FileNotFoundError, NotADirectoryError):
        return ()
    return tuple(sorted(found))


def _named(folder: Path, suffixes: tuple[str, ...] | None, folders: bool = False) -> list[Path]:
    """The entries of ``folder`` whose names end in one of ``suffixes`` (files) or, with ``folders``,
    its subfolders, sorted: what ``glob("*.csv")`` and ``glob("*.json")`` find, with one directory
    read instead of two globs (a night lists every round's folder)."""
    try:
        with os.scandir(folder) as entries:
            names = [e.name for e in entries if (e.is_dir() if folders else suffixes is not None and e.name.endswith(suffixes))]
    except (FileNotFoundError, NotADirectoryError):
        return []
    return [folder / name for name in sorted(names)]
