"""Options as the README states them: a maintainer's out-of-range `correct --outcome` is a usage
error (exit 2, as every bad value is), and `round template` takes `--as-of` as every command does."""

from __future__ import annotations

from helpers import prescient

AT = "2026-01-20T00:00:00Z"


def test_correct_with_an_outcome_out_of_range_is_a_usage_error(sim_hub):
    for value in ("2", "-0.5", "nan", "yes"):
        done = prescient("correct", "sim:m001", "--outcome", value, "--reason", "x", "--by", "hub-maintainer", "--hub", str(sim_hub), "--as-of", AT)
        assert done.returncode == 2 and "--outcome" in done.stderr, (value, done.stderr)
        assert "Traceback" not in done.stderr
    assert not (sim_hub / "data" / "maintainer").exists(), "nothing recorded"


def test_round_template_takes_as_of_and_says_when_the_round_is_past_due(sim_hub):
    opened = prescient("nightly", "--hub", str(sim_hub), "--as-of", AT)
    assert opened.returncode == 0, opened.stderr
    done = prescient("round", "template", "--hub", str(sim_hub), "--due", "2026-01-25", "--as-of", AT)
    assert done.returncode == 0 and done.stdout.startswith("question_id,"), done.stderr
    assert "past its due time" not in done.stderr and f"as of {AT}" in done.stderr, done.stderr
    late = prescient("round", "template", "--hub", str(sim_hub), "--due", "2026-01-25", "--as-of", "2026-01-26T00:00:00Z")
    assert late.returncode == 0 and late.stdout == done.stdout
    assert "warning: the round due 2026-01-25 is past its due time (2026-01-25T00:00:00Z) at 2026-01-26T00:00:00Z" in late.stderr, late.stderr
