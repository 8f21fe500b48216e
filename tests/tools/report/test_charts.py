"""The numbers the calibration charts draw: the ROC curve's points and the reliability diagram's bins."""

from __future__ import annotations

from gavel.tools.report.charts import reliability_bins, roc_points


def test_roc_points_run_from_the_origin_to_one_one_a_point_per_distinct_cut() -> None:
    points = roc_points([(True, 0.9), (True, 0.6), (False, 0.6), (False, 0.2)])
    assert [(p["fpr"], p["tpr"]) for p in points] == [(0.0, 0.0), (0.0, 0.5), (0.5, 1.0), (1.0, 1.0)]
    assert [p["step"] for p in points] == [0, 1, 2, 3]


def test_roc_needs_both_labels() -> None:
    assert roc_points([(True, 0.9), (True, 0.1)]) == []


def test_reliability_bins_hold_the_mean_score_the_share_good_and_the_count() -> None:
    bins = reliability_bins([(True, 0.95), (False, 0.91), (True, 1.0), (False, 0.05)])
    assert bins == [
        {"bin": "0.0-0.1", "mean_score": 0.05, "observed_good": 0.0, "items": 1},
        {"bin": "0.9-1.0", "mean_score": 0.9533, "observed_good": 0.6667, "items": 3},
    ]
