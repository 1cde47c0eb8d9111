"""The validator and the readers agree: a file ``prescient validate`` accepts (no error) is one the
nightly and ``build`` read, with the same values.

Thousands of files of each submission kind are made by a seeded mutator from one valid seed file
(deterministic: the same files on every run): Unicode digits, no-break and other odd spaces, signs,
exponents, inf and nan, empty cells, extra columns, a BOM, CRLF line ends, quotes, commas and byte
flips. Each is validated by the validator's own function and, when accepted, read by the hub's
strict reader (``store.readers``, ``models.load_model``), which must not raise and must give the
values the validator understood.
"""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

import pytest

from generator.oracle import import_oracle
from generator.store import readers
from generator.store.files import load_model
from generator.store.forecast_file import parse_forecast
from generator.store.hub import Hub
from generator.store.layout import Layout
from generator.submissions.bets import check_bet_file
from generator.submissions.content import RoundSet, check_content, plain_number
from generator.submissions.oracle import check_oracle_forecast
from generator.submissions.policy import check_metadata
from generator.timeutil import parse_ts

from helpers import DATA

DUE = "2026-01-25"
ROUND = RoundSet(
    DUE, f"{DUE}T00:00:00Z", {"manifold:m1": "binary", "manifold:m2": "binary", "fred:GDP": "dataset"}, {"fred:GDP": frozenset({"2026-02-01"})}
)
SEEDS = {
    "forecast-csv": "question_id,resolution_date,probability,reasoning\n"
    "manifold:m1,,0.7,looks likely\nmanifold:m2,,0.25,\nfred:GDP,2026-02-01,1e-1,trend\n",
    "forecast-json": json.dumps(
        {
            "organization": "Acme",
            "model": "x",
            "question_set": f"{DUE}-llm.json",
            "forecasts": [
                {"id": "m1", "source": "manifold", "forecast": 0.7, "reasoning": "r"},
                {"id": "m2", "source": "manifold", "forecast": 0.25},  # a string ("0.25") is refused: probability-as-text
                {"id": "GDP", "source": "fred", "forecast": 0.5, "resolution_date": "2026-02-01"},
            ],
        }
    ),
    "bets": "question_id,placed_at,side,amount,reasoning\n"
    "manifold:m1,2026-01-20T10:00:00Z,YES,500,cheap\nmanifold:m2,2026-01-21T00:00:00Z,NO,1250.5,\n",
    "oracle": "question_id,prob_a,prob_b,prob_c,prob_d,reasoning\ntf-1,0.8,0.2,,,sure\ntf-2,,,,,\nmc-1,0.1,0.6,0.2,0.1,\n",
    "model": "name: GPT-X\norganization: Acme\nkind: llm\nmaintainers: [alice, bob]\nmethod: zero-shot, 500 words\nsaw_crowd: false\n",
}
CASES = 700  # per kind; about 4,000 files in all
ODD = ["\u00a0", "\u2009", "\u3000", "\u2028", "\u0085", "\u200b", "\ufeff", "\t", " ", "\x0b", "\x0c", "\n", "\r", "\x00", "\x1c"]
DIGITS = ["\u0660", "\u0665", "\u06f5", "\u0967", "\uff15", "\U0001d7d3", "\u00b2", "\u2155"]
NUMBERS = [
    "inf",
    "-inf",
    "nan",
    "NaN",
    "Infinity",
    "-0",
    "+0.5",
    ".5",
    "5.",
    "1e-400",
    "1e400",
    "0x1p-1",
    "1_0",
    "0,5",
    "1E0",
    "-1",
    "9" * 30,
    "0." + "3" * 30,
    "2500",
    "2500.0000000000005",
    "١",
    "0.7\u00a0",
    "",
]
INSERTS = [",", '"', "'", "+", "-", "e", "E", "e-5", ".", "0", "\\", "#", ":", "[", "{", "&a", "*a", "!!", "%", "- x"]


def mutate(text: str, rng: random.Random) -> bytes:
    for _ in range(rng.randint(1, 3)):
        text = rng.choice(_MUTATIONS)(text, rng)
    data = text.encode("utf-8", "surrogatepass")
    if rng.random() < 0.05:
        data = b"\xef\xbb\xbf" + data
    if rng.random() < 0.08 and data:
        i = rng.randrange(len(data))
        data = data[:i] + bytes([data[i] ^ (1 << rng.randrange(8))]) + data[i + 1 :]
    return data


def _at(text: str, rng: random.Random, pred) -> int:
    spots = [i for i, c in enumerate(text) if pred(c)]
    return rng.choice(spots) if spots else rng.randrange(len(text) + 1)


def _unicode_digit(text, rng):
    i = _at(text, rng, str.isdigit)
    return text[:i] + rng.choice(DIGITS) + text[i + 1 :]


def _odd_space(text, rng):
    i = _at(text, rng, lambda c: c in ",\n:[") + rng.choice((0, 1))
    return text[:i] + rng.choice(ODD) + text[i:]


def _insert(text, rng):
    i = _at(text, rng, lambda c: c.isdigit() or c in ",\n")
    return text[:i] + rng.choice(INSERTS) + text[i:]


def _number(text, rng):
    i = _at(text, rng, str.isdigit)
    j = i
    while j < len(text) and (text[j].isdigit() or text[j] in ".eE+-"):
        j += 1
    while i > 0 and (text[i - 1].isdigit() or text[i - 1] in ".eE+-"):
        i -= 1
    return text[:i] + rng.choice(NUMBERS) + text[j:]


def _crlf(text, rng):
    return text.replace("\n", "\r\n")


def _extra_column(text, rng):
    lines = text.split("\n")
    k = rng.randrange(len(lines))
    lines[k] += rng.choice((",x", ",", ',""'))
    return "\n".join(lines)


def _drop_or_copy_line(text, rng):
    lines = text.split("\n")
    k = rng.randrange(len(lines))
    return "\n".join(lines[:k] + ([lines[k]] * rng.choice((0, 2))) + lines[k + 1 :])


def _quote_cell(text, rng):
    i = _at(text, rng, lambda c: c == ",")
    j = text.find(",", i + 1)
    j = j if j != -1 else len(text)
    return text[: i + 1] + '"' + text[i + 1 : j] + '"' + text[j:]


def _case(text, rng):
    i = _at(text, rng, str.isalpha)
    return text[:i] + text[i : i + 1].swapcase() + text[i + 1 :]


_MUTATIONS = [_unicode_digit, _odd_space, _insert, _number, _number, _crlf, _extra_column, _drop_or_copy_line, _quote_cell, _case]


def files(kind: str):
    rng = random.Random(f"prescient-fuzz-{kind}")
    return [mutate(SEEDS[kind], rng) for _ in range(CASES)]


def accepted(problems) -> bool:
    return not any(p.severity == "error" for p in problems)


def same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == b


@pytest.fixture(scope="module")
def hub(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("fuzz")
    (root / "data").mkdir()
    import_oracle(root, DATA / "oracle" / "questions.csv", "news", parse_ts("2026-01-01T00:00:00Z"))
    return root


def _only(folder: Path, name: str, data: bytes) -> None:
    """``name`` (with ``data``) as the only file of ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.iterdir():
        old.unlink()
    (folder / name).write_bytes(data)


def test_the_seeds_are_accepted_and_read(hub):
    assert all(accepted(validate(kind, SEEDS[kind].encode(), hub)) for kind in SEEDS)


def validate(kind: str, data: bytes, hub: Path):
    label = f"f.{'json' if kind == 'forecast-json' else 'csv'}"
    if kind.startswith("forecast"):
        parsed = parse_forecast(data, label, "json" if kind == "forecast-json" else "csv")
        return parsed.problems + (check_content(parsed, ROUND) if parsed.columns else []) + parsed.summary()
    if kind == "bets":
        return check_bet_file(data, label, ROUND)
    if kind == "oracle":
        questions = Layout(hub).oracle_questions("news")
        return check_oracle_forecast(data, label, questions.read_bytes(), "questions.csv")
    return check_metadata("acme.gpt-x", "acme.gpt-x.yml", data)[1]


@pytest.mark.parametrize("kind", ["forecast-csv", "forecast-json"])
def test_accepted_forecasts_are_read_with_the_same_probabilities(hub, kind):
    hub_files, n = Hub(hub), 0
    for i, data in enumerate(files(kind)):
        if not accepted(validate(kind, data, hub)):
            continue
        n += 1
        _only(hub / "data/forecasts" / DUE, f"acme.m{i}.{'json' if kind == 'forecast-json' else 'csv'}", data)
        frame = readers.load_forecasts(hub_files, parse_ts(f"{DUE}T00:00:00Z"))[f"acme.m{i}"]
        parsed = parse_forecast(data, "f", "json" if kind == "forecast-json" else "csv")
        expected = [float(plain_number(r.cells["probability"])) for r in parsed.rows]
        assert list(frame["probability"]) == expected, data
        assert list(frame["question_id"]) == [r.cells["question_id"] for r in parsed.rows], data
    assert n > 20  # enough accepted mutants for the property to mean something


def test_accepted_bets_are_read_with_the_same_amounts(hub):
    hub_files, n = Hub(hub), 0
    for i, data in enumerate(files("bets")):
        if not accepted(validate("bets", data, hub)):
            continue
        n += 1
        _only(hub / "data/bets" / DUE, f"acme.m{i}.csv", data)
        frame = readers.load_bets(hub_files, parse_ts(f"{DUE}T00:00:00Z"))[f"acme.m{i}"]
        parsed = parse_forecast(data, "f", "csv")
        assert list(frame["amount"]) == [float(plain_number(r.cells["amount"])) for r in parsed.rows], data
        assert list(frame["side"]) == [r.cells["side"] for r in parsed.rows], data
    assert n > 20


@pytest.mark.slow  # thousands of oracle files through the validator and the reader, ~10 s of CPU
def test_accepted_oracle_answers_are_read_with_the_same_probabilities(hub):
    hub_files, n = Hub(hub), 0
    for i, data in enumerate(files("oracle")):
        if not accepted(validate("oracle", data, hub)):
            continue
        n += 1
        _only(hub / "data/oracle/news/forecasts", f"acme.m{i}.csv", data)
        frame = readers.load_oracle_forecasts(hub_files, "news")[f"acme.m{i}"]
        parsed = parse_forecast(data, "f", "csv")
        for column in ("prob_a", "prob_b", "prob_c", "prob_d"):
            cells = [r.cells[column] for r in parsed.rows]
            expected = [float(plain_number(c)) if plain_number(c) else math.nan for c in cells]
            assert all(map(same, frame[column], expected)), (column, data)
    assert n > 20


def test_accepted_model_metadata_is_loaded_with_the_same_maintainers(hub):
    n = 0
    for i, data in enumerate(files("model")):
        maintainers, problems = check_metadata("acme.gpt-x", "acme.gpt-x.yml", data)
        if not accepted(problems):
            continue
        n += 1
        path = hub / "models" / f"case{i}" / "acme.gpt-x.yml"
        path.parent.mkdir(parents=True)
        path.write_bytes(data)
        assert load_model(path).maintainers == maintainers, data
    assert n > 20
