"""bench.ideas' separation measure: concrete ideas scored above the weak ones."""

from __future__ import annotations

from typing import Any

import pytest

from bench.ideas import CONCRETE, IDEAS, separation


@pytest.mark.parametrize(
    ("scores", "expected"),
    [
        pytest.param({"a": 0.9, "b": 0.8, "x": 0.2, "y": 0.1}, (1.0, 2), id="perfectly-separated"),
        pytest.param({"a": 0.1, "b": 0.2, "x": 0.8, "y": 0.9}, (0.0, 0), id="inverted"),
        pytest.param({"a": 0.5, "b": 0.5, "x": 0.5, "y": 0.5}, (0.5, 2), id="all-tied-count-half-and-keep-input-order"),
        pytest.param({"a": 0.9, "b": None, "x": 0.2, "y": None}, (1.0, 1), id="unscored-left-out"),
    ],
)
def test_separation_counts_concrete_over_weak_pairs_and_the_top_half(
    scores: dict[str, float | None], expected: tuple[float, int]
) -> None:
    result: dict[str, Any] = separation(scores, {"a", "b"})
    assert (result["concrete_over_weak"], result["concrete_in_top_half"]) == expected


def test_half_of_the_benchmark_ideas_are_labelled_concrete_and_every_label_names_an_idea() -> None:
    titles = {title for title, _ in IDEAS}
    assert CONCRETE.issubset(titles)
    assert len(CONCRETE) * 2 == len(IDEAS)
