"""Daily Oracle questions: the import format, the ledger, scoring by hand, and the view over time
on synthetic data with a built-in decline after the knowledge cutoff."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd
import pytest

from generator.cli import main
from generator.errors import PrescientError, SchemaError
from generator.models import ModelMeta
from generator.oracle import import_oracle, oracle_board, oracle_scores, temporal_view, yoy_summary
from generator.oracle.formats import parse_questions
from generator.oracle.temporal import moving_average
from generator.store import readers
from generator.store.hub import Hub
from generator.store.layout import Layout
from generator.timeutil import parse_ts

from helpers import LAYOFFS, ORACLE_DATA, ORACLE_FORECAST_HEADER, run_cli, tree_bytes, write_hub

AS_OF = parse_ts("2026-01-01T00:00:00Z")


def codes(parsed) -> list[tuple[str, int | None, str | None]]:
    return [(p.code, p.row, p.column) for p in parsed.problems]


# --- the import format -------------------------------------------------------------------------


def test_csv_and_jsonl_give_the_same_questions():
    csv_ = parse_questions((ORACLE_DATA / "questions.csv").read_bytes(), "questions.csv", "csv")
    jsonl = parse_questions((ORACLE_DATA / "questions.jsonl").read_bytes(), "questions.jsonl", "jsonl")
    assert csv_.problems == [] and jsonl.errors == []
    assert [p.code for p in jsonl.problems] == ["ignored-column"]
    assert csv_.rows == jsonl.rows
    tf, _, mc, derived = csv_.rows
    assert (tf["kind"], tf["choice_a"], tf["choice_b"], tf["choice_c"], tf["answer"]) == ("tf", "True", "False", "", "A")
    assert csv_.rows[1]["answer"] == "B"  # "No"
    assert (mc["kind"], mc["choice_c"], mc["answer"]) == ("mc", "Ridge, Athletic", "B")
    assert (derived["id"], derived["answer"], derived["url"]) == (LAYOFFS, "C", "")  # the answer given as a choice's text


def test_every_problem_of_a_bad_file_is_reported_with_row_and_column():
    parsed = parse_questions((ORACLE_DATA / "bad_questions.csv").read_bytes(), "bad_questions.csv", "csv")
    assert codes(parsed) == [
        ("ignored-column", 1, "notes"),
        ("bad-id", 3, "id"),
        ("empty-value", 4, "question"),
        ("empty-value", 4, "category"),
        ("bad-date", 4, "resolution_date"),
        ("bad-url", 4, "url"),
        ("bad-answer", 4, "answer"),
        ("bad-choices", 5, "choice_d"),
        ("bad-answer", 6, "answer"),
        ("duplicate-question", 7, "id"),
    ]
    assert [p.severity for p in parsed.problems].count("warning") == 1


def test_structural_problems_of_csv_and_jsonl():
    missing = parse_questions(b"question,answer\nQ?,True\n", "q.csv", "csv")
    assert codes(missing) == [("missing-column", 1, "resolution_date"), ("missing-column", 1, "category")]
    lines = (
        b'{"question": "Q?", "answer": "True", "resolution_date": "2024-01-01"}\nnot json\n[1]\n'
        b'{"question": "Q?", "choices": ["a", "b"], "answer": "A", "resolution_date": "2024-01-01", "category": "x"}\n'
    )
    assert codes(parse_questions(lines, "q.jsonl", "jsonl")) == [
        ("missing-field", 1, "category"),
        ("bad-json", 2, None),
        ("bad-json", 3, None),
        ("bad-choices", 4, "choices"),
    ]
    assert codes(parse_questions(b"", "q.jsonl", "jsonl")) == [("no-questions", None, None)]
    assert codes(parse_questions(b"\xff", "q.csv", "csv")) == [("not-utf8", None, None)]


# --- importing into the ledger -----------------------------------------------------------------


def test_import_appends_only_new_or_changed_versions(tmp_path):
    hub = write_hub(tmp_path / "hub")
    first = import_oracle(hub, ORACLE_DATA / "questions.csv", "news", AS_OF)
    assert (first.questions, first.added, first.path) == (4, 4, "data/oracle/news/questions.csv")
    before = tree_bytes(hub)
    again = import_oracle(hub, ORACLE_DATA / "questions.jsonl", "news", parse_ts("2026-02-01T00:00:00Z"))
    assert again.added == 0 and tree_bytes(hub) == before  # same questions in the other format: no byte changes

    corrected = tmp_path / "fix.csv"
    corrected.write_text(
        "id,question,answer,resolution_date,category\n"
        "tf-2,Will the central bank cut its main rate in March 2024?,Yes,2024-03-20,Economics & Business\n"
    )
    assert import_oracle(hub, corrected, "news", parse_ts("2026-03-01T00:00:00Z")).added == 1
    ledger = readers.load_oracle_questions(Hub(hub), "news")
    assert len(ledger) == 5 and list(ledger["recorded_at"])[-1] == "2026-03-01T00:00:00Z"
    assert (ORACLE_DATA / "questions.csv").read_bytes() != (hub / first.path).read_bytes()
    assert (hub / first.path).read_bytes().startswith(b"id,recorded_at,kind,text,choice_a,choice_b,choice_c,choice_d,answer,")


def test_import_refuses_bad_input_and_writes_nothing(tmp_path):
    hub = write_hub(tmp_path / "hub")
    with pytest.raises(SchemaError) as err:
        import_oracle(hub, ORACLE_DATA / "bad_questions.csv", "news", AS_OF)
    assert len(err.value.problems) == 9 and not (hub / "data" / "oracle").exists()
    with pytest.raises(PrescientError):
        import_oracle(hub, ORACLE_DATA / "questions.csv", "Bad Name", AS_OF)
    with pytest.raises(PrescientError):
        import_oracle(hub, ORACLE_DATA / "questions.csv".replace(".csv", ".txt"), "news", AS_OF)


# --- scoring, by hand --------------------------------------------------------------------------


def hub_with_forecasts(tmp_path: Path, files: dict[str, str], cutoffs: dict[str, str] | None = None) -> Path:
    hub = write_hub(tmp_path / "hub")
    import_oracle(hub, ORACLE_DATA / "questions.csv", "news", AS_OF)
    for model, body in files.items():
        path = Layout(hub).oracle_forecast("news", model)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(ORACLE_FORECAST_HEADER + body)
    for model, cutoff in (cutoffs or {}).items():
        meta = ModelMeta(model, model, "Acme", "llm", knowledge_cutoff=cutoff, maintainers=("octo",))
        Layout(hub).model_meta(model).parent.mkdir(parents=True, exist_ok=True)
        Layout(hub).model_meta(model).write_bytes(meta.to_yaml())
    return hub


ALPHA = f"tf-1,0.8,0.2,,,\ntf-2,0.5,0.5,,,a tie\nmc-1,0.1,0.6,0.2,0.1,\n{LAYOFFS},,,,,I cannot know\n"
BETA = "tf-1,0.3,0.7,,,\n"


def test_accuracy_and_multiclass_brier_match_a_hand_computation(tmp_path):
    hub = hub_with_forecasts(tmp_path, {"acme.alpha": ALPHA, "acme.beta": BETA})
    scores = oracle_scores(Hub(hub), AS_OF)
    alpha = scores[scores["model"] == "acme.alpha"].set_index("question_id")
    # tf-1: (0.8−1)² + (0.2−0)²; tf-2: a tie for the top is wrong; mc-1: .1² + .4² + .2² + .1²; a refusal: 1 − 1/4
    assert alpha.loc["tf-1", ["status", "correct"]].tolist() == ["answered", 1]
    assert alpha.loc["tf-2", ["status", "correct"]].tolist() == ["answered", 0]
    assert alpha.loc["mc-1", ["status", "correct"]].tolist() == ["answered", 1]
    assert alpha.loc[LAYOFFS, ["status", "correct"]].tolist() == ["refused", 0]
    assert alpha["brier"].to_dict() == pytest.approx({"tf-1": 0.08, "tf-2": 0.5, "mc-1": 0.22, LAYOFFS: 0.75})
    beta = scores[scores["model"] == "acme.beta"].set_index("question_id")
    assert beta["status"].to_dict() == {"tf-1": "answered", "tf-2": "missing", "mc-1": "missing", LAYOFFS: "missing"}
    assert beta["brier"].to_dict() == pytest.approx({"tf-1": 0.98, "tf-2": 0.5, "mc-1": 0.75, LAYOFFS: 0.75})

    board = oracle_board(scores, {}).set_index("model")
    assert board.loc["acme.alpha", ["n", "answered", "refused", "missing"]].tolist() == [4, 3, 1, 0]
    assert board.loc["acme.beta", ["n", "answered", "refused", "missing"]].tolist() == [4, 1, 0, 3]
    assert board.loc["acme.alpha", "accuracy"] == 0.5 and board.loc["acme.beta", "accuracy"] == 0.0
    assert board.loc["acme.alpha", "brier"] == pytest.approx(1.55 / 4)
    assert board.loc["acme.beta", "brier"] == pytest.approx(2.98 / 4)
    assert list(board.index) == ["acme.alpha", "acme.beta"]  # best accuracy first


def test_questions_resolving_after_as_of_or_recorded_later_are_not_scored(tmp_path):
    hub = hub_with_forecasts(tmp_path, {"acme.alpha": ALPHA})
    assert oracle_scores(Hub(hub), parse_ts("2025-12-31T00:00:00Z")).empty  # imported at AS_OF, after this time
    early = write_hub(tmp_path / "early")
    import_oracle(early, ORACLE_DATA / "questions.csv", "news", parse_ts("2024-03-01T00:00:00Z"))
    Layout(early).oracle_forecast("news", "acme.alpha").parent.mkdir(parents=True)
    Layout(early).oracle_forecast("news", "acme.alpha").write_text(ORACLE_FORECAST_HEADER + ALPHA)
    assert set(oracle_scores(Hub(early), parse_ts("2024-04-01T00:00:00Z"))["question_id"]) == {"tf-1", "tf-2"}


# --- the view over time on synthetic data ------------------------------------------------------

CUTOFF = "2022-06-15"
MONTHS = [f"{y}-{m:02d}" for y in range(2020, 2025) for m in range(1, 13)]  # 60 months, cutoff is month 29 (0-based)
PER_MONTH = 10


def synthetic_correct(model: str, month_number: int) -> int:
    """How many of a month's 10 questions the model gets right: 8 up to the cutoff, then a decline for
    acme.decline; always 7 for acme.steady."""
    after = month_number - MONTHS.index("2022-06")
    if model == "acme.steady":
        return 7
    return 8 if after <= 0 else max(8 - after // 3, 1)


def synthetic_hub(tmp_path: Path) -> tuple[Path, dict[tuple[str, str], list[tuple[str, int, list[float] | None]]]]:
    """Questions over 2020–2024, forecasts built to hit ``synthetic_correct``; returns the hub and, per
    model and month, (kind, answer index, probabilities or None for a refusal/missing) for the hand computation."""
    rows, truth = [], {}
    for number, month in enumerate(MONTHS):
        for j in range(PER_MONTH):
            kind = "tf" if j % 2 == 0 else "mc"
            choices = ["", "", "", ""] if kind == "tf" else ["w", "x", "y", "z"]
            answer = "ABCD"[(number + j) % (2 if kind == "tf" else 4)]
            rows.append(
                [
                    f"{month}-{j}",
                    f"Question {j} of {month}?",
                    *choices,
                    {"tf": {"A": "True", "B": "False"}}.get(kind, {}).get(answer, answer),
                    f"{month}-{1 + j:02d}",
                    "World",
                    "",
                ]
            )
    questions = tmp_path / "synthetic.csv"
    pd.DataFrame(
        rows, columns=["id", "question", "choice_a", "choice_b", "choice_c", "choice_d", "answer", "resolution_date", "category", "url"]
    ).to_csv(questions, index=False)
    hub = write_hub(tmp_path / "hub")
    import_oracle(hub, questions, "synthetic", AS_OF)
    for model in ("acme.decline", "acme.steady", "acme.unknown"):
        lines = []
        for number, month in enumerate(MONTHS):
            cases = truth.setdefault((model, month), [])
            for j in range(PER_MONTH):
                k = 2 if j % 2 == 0 else 4
                ans = (number + j) % k
                if j == PER_MONTH - 1 and number % 7 == 0:  # sometimes a refusal, sometimes no row at all
                    cases.append((k, ans, None))
                    if number % 2:
                        lines.append(f"{month}-{j},,,,,")
                    continue
                right = j < synthetic_correct(model, number)
                top = ans if right else (ans + 1) % k
                probs = [0.7 if i == top else 0.3 / (k - 1) for i in range(k)]
                cases.append((k, ans, probs))
                lines.append(f"{month}-{j}," + ",".join(f"{p:.6f}" for p in probs + [math.nan] * (4 - k)).replace("nan", "") + ",")
        path = Layout(hub).oracle_forecast("synthetic", model)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(ORACLE_FORECAST_HEADER + "\n".join(lines) + "\n")
    return hub, truth


def hand_month(cases) -> tuple[float, float]:
    """Accuracy and mean multi-class Brier of one month, computed directly from the definitions."""
    correct, briers = 0, []
    for k, ans, probs in cases:
        if probs is None:
            briers.append(1 - 1 / k)
            continue
        others = [p for i, p in enumerate(probs) if i != ans]
        correct += probs[ans] > max(others)
        briers.append(sum((p - (1.0 if i == ans else 0.0)) ** 2 for i, p in enumerate(probs)))
    return correct / len(cases), sum(briers) / len(briers)


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory):
    hub, truth = synthetic_hub(tmp_path_factory.mktemp("oracle"))
    cutoffs = {"acme.decline": CUTOFF, "acme.steady": CUTOFF}
    view = temporal_view(oracle_scores(Hub(hub), AS_OF), cutoffs)
    return hub, truth, view, cutoffs


def test_the_monthly_view_matches_a_direct_computation(synthetic):
    _, truth, view, _ = synthetic
    assert len(view) == 3 * len(MONTHS)
    for (model, month), cases in truth.items():
        row = view[(view["model"] == model) & (view["month"] == month)].iloc[0]
        accuracy, brier = hand_month(cases)
        assert row["n"] == PER_MONTH
        assert row["accuracy"] == pytest.approx(accuracy) and row["brier"] == pytest.approx(brier)
    decline = view[view["model"] == "acme.decline"].reset_index(drop=True)
    assert decline.loc[MONTHS.index("2022-06"), "months_from_cutoff"] == 0
    assert decline.loc[0, "months_from_cutoff"] == -29 and decline.loc[59, "months_from_cutoff"] == 30
    assert view[view["model"] == "acme.unknown"]["months_from_cutoff"].isna().all()


def test_the_five_month_moving_average_is_centred_and_needs_three_months(synthetic):
    _, truth, view, _ = synthetic
    decline = view[view["model"] == "acme.decline"].reset_index(drop=True)
    monthly = [hand_month(truth[("acme.decline", m)])[0] for m in MONTHS]
    for i in range(len(MONTHS)):
        window = monthly[max(i - 2, 0) : i + 3]
        assert decline.loc[i, "accuracy_ma5"] == pytest.approx(sum(window) / len(window))
    # calendar gaps: months 0, 1, 2 and 5 present; month 5's window (3..7) holds only itself, fewer than 3 months
    smooth = moving_average(pd.Series([0, 1, 2, 5]).to_numpy(), pd.Series([0.2, 0.4, 0.6, 0.9]).to_numpy())
    assert smooth[0] == pytest.approx(0.4) and smooth[1] == pytest.approx(0.4) and math.isnan(smooth[3])


def test_the_yoy_summary_detects_the_decline_and_matches_a_hand_computation(synthetic):
    _, truth, view, _ = synthetic
    summary = yoy_summary(view).set_index("model")
    cut = MONTHS.index("2022-06")
    for model in ("acme.decline", "acme.steady"):
        monthly = [hand_month(truth[(model, m)]) for m in MONTHS]
        for which, col in ((0, "accuracy"), (1, "brier")):
            changes = {i: monthly[i][which] - monthly[i - 12][which] for i in range(12, len(MONTHS))}
            before = [d for i, d in changes.items() if i <= cut]
            after = [d for i, d in changes.items() if i > cut]
            assert summary.loc[model, f"yoy_{col}_before"] == pytest.approx(sum(before) / len(before))
            assert summary.loc[model, f"yoy_{col}_after"] == pytest.approx(sum(after) / len(after))
        assert summary.loc[model, ["yoy_months_before", "yoy_months_after"]].tolist() == [cut - 11, len(MONTHS) - 1 - cut]
    decline, steady = summary.loc["acme.decline"], summary.loc["acme.steady"]
    assert decline["yoy_accuracy_after"] < -0.15 and abs(decline["yoy_accuracy_before"]) < 0.02
    assert decline["yoy_brier_after"] > 0.1  # worse Brier after the cutoff
    assert abs(steady["yoy_accuracy_after"]) < 0.02
    assert math.isnan(summary.loc["acme.unknown", "yoy_accuracy_after"])


def test_pooling_by_model_and_the_board_carry_the_same_summary(synthetic):
    hub, _, view, cutoffs = synthetic
    scores = oracle_scores(Hub(hub), AS_OF)
    pooled = temporal_view(scores.assign(set="all"), cutoffs, by=("model",))
    assert pooled[["accuracy", "brier"]].to_numpy().tolist() == view[["accuracy", "brier"]].to_numpy().tolist()
    board = oracle_board(scores, cutoffs).set_index("model")
    summary = yoy_summary(view).set_index("model")
    assert board.loc["acme.decline", "yoy_accuracy_after"] == summary.loc["acme.decline", "yoy_accuracy_after"]
    assert board.loc["acme.decline", "knowledge_cutoff"] == CUTOFF and board.loc["acme.unknown", "knowledge_cutoff"] == ""
    assert board.loc["acme.steady", "n"] == len(MONTHS) * PER_MONTH


# --- the command line --------------------------------------------------------------------------


def test_cli_import_then_board(tmp_path, capsys):
    hub = hub_with_forecasts(tmp_path, {"acme.alpha": ALPHA, "acme.beta": BETA}, {"acme.alpha": "2024-03-31"})
    before = tree_bytes(hub)
    again = run_cli("import", "oracle", str(ORACLE_DATA / "questions.jsonl"), "--set", "news", "--hub", str(hub), "--as-of", "2026-02-01T00:00:00Z")
    assert again.returncode == 0, again.stderr
    assert "0 new or changed version(s)" in again.stdout and "article_title" in again.stderr
    assert tree_bytes(hub) == before
    common = ["--hub", str(hub), "--as-of", "2026-02-01T00:00:00Z"]
    assert main(["oracle", *common, "--format", "json"]) == 0
    rows = {r["model"]: r for r in json.loads(capsys.readouterr().out)}
    assert rows["acme.alpha"]["accuracy"] == 0.5 and rows["acme.alpha"]["n"] == 4
    assert rows["acme.alpha"]["knowledge_cutoff"] == "2024-03-31"
    assert main(["oracle", *common, "--set", "news", "--months", "--format", "csv"]) == 0
    assert capsys.readouterr().out.splitlines()[0].startswith("set,model,month,n,accuracy,brier,accuracy_ma5")
    assert main(["oracle", *common, "--set", "nope"]) == 1
    assert "no such oracle set" in capsys.readouterr().err


def test_cli_import_of_a_bad_file_exits_3_listing_every_problem(tmp_path):
    hub = write_hub(tmp_path / "hub")
    result = run_cli(
        "import", "oracle", str(ORACLE_DATA / "bad_questions.csv"), "--set", "news", "--hub", str(hub), "--as-of", "2026-01-01T00:00:00Z"
    )
    assert result.returncode == 3
    assert all(code in result.stderr for code in ("bad-id", "bad-date", "bad-url", "bad-answer", "bad-choices", "duplicate-question"))
    assert "Traceback" not in result.stderr and not (hub / "data" / "oracle").exists()
