"""k contradicted facts place a metric whose anchors count no mistakes at most k anchors below its best."""

from __future__ import annotations

from gavel.tools.engine.certain import anchor_below_best, at_most_anchor, certain_mistakes, within
from gavel.tools.rubrics import Metric, Scale

UP = Scale(min=1, max=5)
DOWN = Scale(min=1, max=5, higher_is_better=False)


def metric(*keys: str) -> Metric:
    return Metric(id="faithfulness", name="Faithful", description="Faithful?", levels={k: f"level {k}" for k in keys})


def test_each_contradiction_is_one_anchor_down_and_past_the_last_the_worst_stays() -> None:
    assert [anchor_below_best(UP, metric("1", "3", "5"), k) for k in (0, 1, 2, 3)] == [None, 3.0, 1.0, 1.0]
    assert anchor_below_best(UP, metric("1", "2", "3", "4", "5"), 1) == 4.0


def test_lower_is_better_counts_from_its_best_the_lowest() -> None:
    assert anchor_below_best(DOWN, metric("1", "3", "5"), 1) == 3.0
    assert within(DOWN, 2.0, 3.0) == 3.0 and within(UP, 4.6, 3.0) == 3.0 and within(UP, 2.5, 3.0) == 2.5


def test_without_two_anchors_nothing_says_what_a_mistake_costs() -> None:
    assert anchor_below_best(UP, metric("5"), 1) is None and anchor_below_best(UP, metric(), 2) is None
    assert at_most_anchor(UP, metric("5"), 4.6, 1, "how") == (4.6, "how")


def test_a_contradicted_fact_repeated_is_one_mistake_and_a_new_one_another() -> None:
    assert certain_mistakes([["23 where it states 16"], [], ["23 where it states 16"]]) == 1
    assert certain_mistakes([["23 where it states 16"], ["23 where it states 16", "Dan where it names Mick"]]) == 2
    assert certain_mistakes([[], []]) == 0


def test_the_explanation_says_when_the_anchor_lowers_the_share() -> None:
    assert at_most_anchor(UP, metric("1", "3", "5"), 4.6, 1, "0.90 of 10") == (
        3.0,
        "0.90 of 10, but a fact its source contradicts places it at the anchor 3 (below)",
    )
    assert at_most_anchor(UP, metric("1", "3", "5"), 2.0, 1, "how") == (2.0, "how")
