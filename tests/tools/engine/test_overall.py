"""A rubric's overall judgment on a 0-10 scale: its own yes/no question and four general ones, averaged."""

from __future__ import annotations

import pytest

from gavel.tools.engine.backend import ChatRequest
from gavel.tools.engine.judge import Judge
from gavel.tools.rubrics import Rubric
from tests.support.config import engine_config
from tests.support.scripted import ScriptedBackend, token_reply, yes_no

OVERALL = {
    "id": "overall", "name": "Overall quality",
    "description": "Does the response answer the request helpfully, correctly and completely?",
}  # fmt: skip
RUBRIC = Rubric.model_validate(
    {
        "id": "response-quality", "version": "1", "title": "Response quality", "description": "d",
        "scale": {"min": 0, "max": 10}, "pass_threshold": 6,
        "prompt": {"subject": "response", "source_label": "request"},
        "metrics": [OVERALL],
    }
)  # fmt: skip
# P(yes) to each question, told apart by its last line.
ANSWERS = {"Metric: Overall": 0.8, "helpful to": 0.9, "everything": 0.7, "every part": 0.6, "fail the request": 0.2}


def by_question(request: ChatRequest):
    asked = request.messages[-1].content.splitlines()[-1]
    (p,) = [p for key, p in ANSWERS.items() if key in asked]
    return yes_no(p)


async def _judge(rubric: Rubric, backend: ScriptedBackend, source: str | None = "What is 2 + 2?"):
    judgment = await Judge(backend, engine_config()).score_metrics(
        rubric=rubric, metrics=rubric.metrics, subject="4", source=source
    )
    return judgment.scores


async def test_the_overall_metric_is_the_mean_of_five_questions_with_failing_counted_against():
    backend = ScriptedBackend(default=by_question, probabilities=True)
    (score,) = await _judge(RUBRIC, backend)
    assert len(backend.requests) == 5
    assert score.score == pytest.approx(10 * (0.8 + 0.9 + 0.7 + 0.6 + 0.8) / 5)
    assert "helpful 0.90" in (score.explanation or "") and "fails 0.20" in (score.explanation or "")


async def test_the_general_questions_name_the_rubrics_subject_and_source():
    backend = ScriptedBackend(default=by_question, probabilities=True)
    await _judge(RUBRIC, backend)
    assert "Is the response helpful to the user who made the request? Answer Yes or No." in backend.prompts[1]


async def test_one_unanswered_question_leaves_the_metric_unscored_not_averaged_over_the_rest():
    def no_answer_to_correct(request: ChatRequest):
        if "everything" in request.messages[-1].content.splitlines()[-1]:
            return token_reply({"The": 1.0})
        return by_question(request)

    (score,) = await _judge(RUBRIC, ScriptedBackend(default=no_answer_to_correct, probabilities=True))
    assert score.status == "unscored" and score.score is None and score.reason_code


async def test_without_a_source_or_under_another_id_a_metric_keeps_its_one_question():
    backend = ScriptedBackend(default=lambda request: yes_no(0.8), probabilities=True)
    (score,) = await _judge(RUBRIC, backend, source=None)
    assert len(backend.requests) == 1 and score.score == pytest.approx(8.0)

    short = {**OVERALL, "id": "short", "name": "Short", "description": "Is the response short?"}
    alone = Rubric.model_validate({**RUBRIC.model_dump(), "metrics": [short]})
    backend = ScriptedBackend(default=by_question_or_short, probabilities=True)
    (score,) = await _judge(alone, backend)
    assert len(backend.requests) == 1 and score.score == pytest.approx(3.0)

    narrow = {**OVERALL, "id": "concise", "name": "Concise", "description": "Is the response short?"}
    rubric = Rubric.model_validate({**RUBRIC.model_dump(), "metrics": [narrow, OVERALL]})
    backend = ScriptedBackend(default=by_question_or_short, probabilities=True)
    concise, overall = await _judge(rubric, backend)
    assert concise.score == pytest.approx(3.0) and overall.score == pytest.approx(7.6)
    assert len(backend.requests) == 6


def by_question_or_short(request: ChatRequest):
    if "short?" in request.messages[-1].content:
        return yes_no(0.3)
    return by_question(request)
