"""What a judgment's provenance carries of a stored calibration report (`fitness_of`)."""

from __future__ import annotations

from typing import Any

import pytest

from gavel.tools.calibration.records import fitness_of, summary_of
from gavel.tools.engine.fitness import fitness_line

NONE = {"value": None, "low": None, "high": None}


def report(balanced: dict[str, Any], spearman: dict[str, Any] | None) -> dict[str, Any]:
    return {
        "calibration_id": "c1", "fitness_key": "k1", "set": "topicalchat-usr", "n": 60, "complete": True,
        "balanced_accuracy": balanced, "auroc": NONE, "spearman": spearman, "cut": {"best": None},
        "created_at": "2026-11-25T20:00:00Z", "judge": {},
    }  # fmt: skip


@pytest.mark.parametrize(
    ("low", "high", "near"), [(0.21, 0.62, False), (-0.1, 0.4, True), (-0.5, -0.2, True), (None, None, True)]
)
def test_a_graded_set_is_near_chance_unless_its_spearman_interval_lies_above_zero(
    low: float | None, high: float | None, near: bool
) -> None:
    fitness = fitness_of(report(NONE, {"value": 0.4, "low": low, "high": high}))
    assert fitness.spearman == 0.4 and fitness.spearman_ci95 == (low, high) and fitness.balanced_accuracy is None
    assert fitness.near_chance is near


def test_a_graded_fitness_line_names_spearman() -> None:
    fitness = fitness_of(report(NONE, {"value": 0.41, "low": 0.2, "high": 0.6}))
    assert "better than chance (Spearman 0.41 [0.20, 0.60] on topicalchat-usr, n=60" in fitness_line(fitness, "k1")
    assert summary_of(report(NONE, {"value": 0.41, "low": 0.2, "high": 0.6}))["spearman"] == 0.41


def test_a_labelled_set_keeps_balanced_accuracy_as_its_fitness() -> None:
    fitness = fitness_of(report({"value": 0.8, "low": 0.45, "high": 0.9}, {"value": 0.9, "low": 0.8, "high": 1.0}))
    assert fitness.near_chance is True  # decided by the balanced accuracy, whose interval includes 0.5
    assert "balanced accuracy 0.80" in fitness_line(fitness, "k1")
    older = report({"value": 0.8, "low": 0.6, "high": 0.9}, None) | {"spearman": None}
    assert fitness_of(older).spearman is None and fitness_of(older).near_chance is False
