"""An essay's thesis metric against a prompt that is one question: gated on whether any sentence states the
writer's side more clearly than a sentence that takes none. The scripted model answers the side question by the
sentence it is shown and every digit question with a 4, so the tests see which way the gate went."""

from __future__ import annotations

from collections.abc import Mapping

from gavel.tools.assessment import EvaluateAssessmentRequest, evaluate_assessment
from gavel.tools.engine.backend import ChatRequest
from gavel.tools.engine.derived_checks import asks_for_thesis
from gavel.tools.engine.thesis import question_of
from gavel.tools.rubrics import parse_rubric
from tests.support.deps import make_deps
from tests.support.scripted import ScriptedBackend, token_reply, yes_no

THESIS = {
    "id": "thesis",
    "name": "Thesis",
    "description": "Does the essay take a clear position on the prompt and keep to it?",
    "levels": {"1": "no position", "3": "a position, but vague or drifting", "5": "a clear position, kept"},
}
RUBRIC = {
    "id": "essay-thesis",
    "version": "1",
    "title": "Essay thesis",
    "description": "Judges an essay's thesis.",
    "scale": {"min": 1, "max": 5, "integer": True},
    "pass_threshold": 3.5,
    "prompt": {"subject": "essay", "source_label": "essay prompt"},
    "metrics": [THESIS],
}
PROMPT = "Should cities ban cars from their centres?"
HEDGE = "There are good arguments on both sides."
SIDE = "Cities should ban cars from their centres."
RAMBLING = "Cars are everywhere in cities. Some people like them and some do not. It is hard to say."


def model(side: Mapping[str, float], default: float = 0.4) -> ScriptedBackend:
    def reply(request: ChatRequest):
        asked = request.messages[-1].content
        if "which answer to the question" not in asked:
            return token_reply({"4": 1.0})
        return yes_no(next((p for sentence, p in side.items() if sentence in asked), default))

    return ScriptedBackend(default=reply, probabilities=True)


async def evaluate(backend: ScriptedBackend, text: str, source: str = PROMPT):
    request = EvaluateAssessmentRequest(assessment=text, source=source, custom_rubric=RUBRIC)
    return await evaluate_assessment(request, make_deps(backend))


def side_questions(backend: ScriptedBackend) -> list[str]:
    asked = [r.messages[-1].content for r in backend.requests]
    return [text for text in asked if "which answer to the question" in text]


async def test_an_essay_with_no_sentence_clearer_than_the_hedge_scores_the_worst_end_and_says_why():
    backend = model({HEDGE: 0.4})
    result = await evaluate(backend, RAMBLING)
    (thesis,) = result.scores
    assert thesis.score == 1 and thesis.status == "scored" and thesis.readout == "probability"
    assert "no sentence of the essay says which answer to “Should cities ban cars from their centres?”" in (
        thesis.explanation
    )
    assert len(side_questions(backend)) == 4  # the hedge and three sentences
    assert f'the question "{PROMPT}"' in side_questions(backend)[0] and not result.passed


async def test_an_essay_whose_sentence_states_a_side_is_read_by_the_digit_as_before():
    backend = model({HEDGE: 0.4, SIDE: 0.6})
    result = await evaluate(backend, f"{SIDE} The air would be cleaner.")
    (thesis,) = result.scores
    assert thesis.score == 4 and len(side_questions(backend)) == 3


async def test_the_gate_needs_a_side_clearer_than_the_hedge_by_the_cut_not_any_side():
    result = await evaluate(model({HEDGE: 0.5, SIDE: 0.6}), f"{SIDE} The air would be cleaner.")
    assert result.scores[0].score == 1


async def test_a_source_that_is_not_one_question_asks_nothing_about_sides():
    backend = model({})
    result = await evaluate(backend, RAMBLING, source="Write about cars in cities.")
    assert result.scores[0].score == 4 and side_questions(backend) == []


async def test_an_unanswered_side_question_leaves_the_metric_unscored():
    def reply(request: ChatRequest):
        if "which answer to the question" in request.messages[-1].content:
            return token_reply({"Maybe": 1.0})
        return token_reply({"4": 1.0})

    result = await evaluate(ScriptedBackend(default=reply, probabilities=True), RAMBLING)
    assert result.scores[0].status == "unscored" and result.scores[0].score is None


def test_the_prompt_is_one_question_on_one_line():
    assert question_of(f"  {PROMPT}\n") == PROMPT
    assert question_of("Should cities ban cars?\nWrite 300 words.") is None
    assert question_of("Write about cars.") is None and question_of(None) is None


def test_only_an_essay_metric_about_a_thesis_or_position_that_states_nothing_else_is_gated():
    def metric(**fields):
        return parse_rubric({**RUBRIC, "metrics": [{**THESIS, **fields}]}, origin="test").metrics[0]

    assert asks_for_thesis(metric(), "text") and asks_for_thesis(metric(description="Is its stance clear?"), "essay")
    assert not asks_for_thesis(metric(description="Does it take a position?"), "answer")
    assert not asks_for_thesis(metric(question="Does the essay take a clear position?"), "essay")
    assert not asks_for_thesis(metric(id="clarity", name="Clarity", description="Is the essay clear?"), "essay")
