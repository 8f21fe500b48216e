"""A Yes means the metric is met, so on a lower-is-better scale it lands at the low end, and the anchor a Yes is
read against (and the writer's feedback) is the scale's best level, not its highest number."""

from __future__ import annotations

import pytest

from gavel.tools.engine.judge import Judge
from gavel.tools.rubric_registry import RubricRegistry
from gavel.tools.rubrics import Scale
from tests.support.config import engine_config
from tests.support.scripted import ScriptedBackend, yes_no

IDEA = RubricRegistry.load().get("idea-quality")
LOWER = Scale(min=0, max=10, higher_is_better=False)
LEVELS = {"10": "many mistakes", "5": "some mistakes", "0": "no mistakes"}


def test_a_share_of_the_way_to_the_best_end_follows_the_scale_direction():
    assert Scale(min=0, max=10).from_share(0.9) == pytest.approx(9.0)
    assert LOWER.from_share(0.9) == pytest.approx(1.0)


def test_share_of_undoes_from_share_whichever_way_the_scale_points():
    assert Scale(min=1, max=5).share_of(4) == pytest.approx(0.75)
    assert LOWER.share_of(1.0) == pytest.approx(0.9)
    assert LOWER.share_of(LOWER.from_share(0.3)) == pytest.approx(0.3)


def test_the_best_level_is_the_lowest_score_when_lower_is_better():
    assert Scale(min=0, max=10).best_level(LEVELS) == ("10", "many mistakes")
    assert LOWER.best_level(LEVELS) == ("0", "no mistakes")
    assert LOWER.best_level({}) is None


async def test_on_a_lower_is_better_rubric_a_likely_yes_scores_near_the_best_end():
    rubric = IDEA.model_copy(update={"scale": LOWER})
    backend = ScriptedBackend(default=lambda request: yes_no(0.9), probabilities=True)
    judgment = await Judge(backend, engine_config()).score_metrics(rubric=rubric, metrics=rubric.metrics, subject="x")
    assert [s.score for s in judgment.scores] == [pytest.approx(1.0)] * 4


async def test_a_yes_is_read_against_the_best_level_when_lower_is_better():
    metric = IDEA.metrics[0].model_copy(update={"question": None, "levels": LEVELS})
    rubric = IDEA.model_copy(update={"scale": LOWER, "metrics": [metric]})
    backend = ScriptedBackend(default=lambda request: yes_no(0.5), probabilities=True)
    await Judge(backend, engine_config()).score_metrics(rubric=rubric, metrics=[metric], subject="x")
    (request,) = backend.requests
    assert "Yes means: no mistakes." in request.messages[-1].content
