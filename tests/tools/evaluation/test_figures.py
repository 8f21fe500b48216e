"""The figures of a `gavel eval` run: rates over every item, means over the scored ones, and --fail-under."""

from __future__ import annotations

from typing import Any

import pytest

from gavel.tools.evaluation.figures import Threshold, failures, figures, headline, parse_threshold


def rag(verdict: str, overall: float | None) -> dict[str, Any]:
    return {"result": {"verdict": verdict, "overall_score": overall, "is_grounded": verdict == "approved"}}


ERROR_ROW: dict[str, Any] = {"error": "invalid arguments: answer: is required"}


def test_rates_count_every_item_and_means_only_the_scored_ones() -> None:
    rows = [rag("approved", 0.9), rag("rejected", 0.3), rag("unscored", None), ERROR_ROW]
    found = figures("judge_rag_answer", rows)
    assert found["approved_rate"] == 0.25 and found["unscored_rate"] == 0.25 and found["error_rate"] == 0.25
    assert found["mean_overall"] == 0.6


def test_mean_average_leaves_out_an_item_with_a_metric_unscored() -> None:
    full = {"result": {"average": 2.5, "unscored_metrics": [], "passed": False}}
    partial = {"result": {"average": 5.0, "unscored_metrics": ["specificity", "accuracy"], "passed": None}}
    found = figures("evaluate_assessment", [full, partial])
    assert found["mean_average"] == 2.5 and found["unscored_rate"] == 0.5
    final = figures("refine_until_pass", [{"result": {"final_evaluation": partial["result"], "passed": None}}])
    assert final["mean_average"] is None


def test_a_mean_with_nothing_scored_has_no_value_and_fails_any_bar() -> None:
    found = figures("judge_rag_answer", [rag("unscored", None), ERROR_ROW])
    assert found["mean_overall"] is None
    assert failures(found, [Threshold("mean_overall", 0.0)]) == [
        "mean_overall has no value (no item was scored); --fail-under 0"
    ]


def test_failures_name_each_figure_below_its_value() -> None:
    found = {"mean_overall": 0.65, "approved_rate": 0.9}
    bars = [Threshold("mean_overall", 0.7), Threshold("approved_rate", 0.9)]
    assert failures(found, bars) == ["mean_overall 0.65 is below 0.7"]


@pytest.mark.parametrize("text", ["mean_overall", "=0.7", "mean_overall=high", "mean_overall=nan"])
def test_a_malformed_threshold_says_how_to_write_it(text: str) -> None:
    with pytest.raises(ValueError, match="write FIGURE=NUMBER"):
        parse_threshold(text)


def test_an_assessment_item_reads_its_average_and_pass() -> None:
    line = headline("evaluate_assessment", {"result": {"average": 3.5, "passed": None}})
    assert (line.score, line.verdict) == (3.5, "undecided")
    assert headline("evaluate_assessment", ERROR_ROW).verdict == "error"


def test_a_selection_reads_its_diversity_targets() -> None:
    result = {"selected": [{"judge_score": 0.8}, {"judge_score": 0.6}], "diversity": [{"met": False}],
              "unscored": []}  # fmt: skip
    line = headline("score_candidates", {"result": result})
    assert line.verdict == "targets_unmet" and line.score == pytest.approx(0.7)
    assert figures("score_candidates", [{"result": result}])["targets_met_rate"] == 0.0
