"""A metric that asks for a position, on a source that is one yes/no question: the text as the document, each answer
as the claim, the likelier answer's P(yes) placed on the scale. The scripted model answers by the claim it is shown;
the tests assert on what Gavel asked and made of it."""

from __future__ import annotations

import pytest

from gavel.tools.assessment import EvaluateAssessmentRequest, evaluate_assessment
from gavel.tools.engine.backend import ChatRequest
from gavel.tools.engine.checks import counted
from gavel.tools.engine.derived_checks import asks_for_position
from gavel.tools.engine.position import question_of
from gavel.tools.engine.prompts import check_floor
from gavel.tools.revision import feedback_for
from gavel.tools.rubrics import parse_rubric
from tests.support.deps import make_deps
from tests.support.scripted import ScriptedBackend, token_reply, yes_no

THESIS = {
    "id": "thesis",
    "name": "Thesis",
    "description": "Does the essay take a clear position on the prompt and keep to it?",
    "levels": {"1": "no position", "3": "a position, but vague", "5": "a clear position, kept"},
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
ESSAY = "Cities should ban cars from their centres. Pontevedra did so in 1999, and its traffic deaths fell to none."


def answering(p_yes: float, p_no: float) -> ScriptedBackend:
    def reply(request: ChatRequest):
        return yes_no(p_yes if "is yes." in request.messages[-1].content else p_no)

    return ScriptedBackend(default=reply, probabilities=True)


async def evaluate(backend: ScriptedBackend, source: str = PROMPT):
    request = EvaluateAssessmentRequest(assessment=ESSAY, source=source, custom_rubric=RUBRIC)
    return await evaluate_assessment(request, make_deps(backend))


async def test_the_likelier_answer_is_how_clearly_the_text_takes_a_position():
    backend = answering(0.6, 0.2)
    thesis = (await evaluate(backend)).scores[0]
    assert thesis.score == pytest.approx(1 + 4 * (1 - counted(0.4, check_floor("position"))), abs=1e-4)
    assert thesis.checks == 2 and thesis.findings == []
    assert "answers yes (P 0.60)" in thesis.explanation and "the likelier, yes" in thesis.explanation
    claims = [r.messages[-1].content for r in backend.requests]
    assert any(f'The answer to the question "{PROMPT}" is no.' in c for c in claims)
    assert all("Does the document state everything the claim says?" in c and ESSAY in c for c in claims)


async def test_a_text_that_states_neither_answer_is_a_finding_and_the_rewrite_is_told_to_answer():
    result = await evaluate(answering(0.3, 0.25))
    thesis = result.scores[0]
    assert thesis.score < 3.5 and [f.item for f in thesis.findings or []] == [PROMPT]
    feedback = feedback_for(result, parse_rubric(RUBRIC, origin="test"))["thesis"]
    assert f'does not clearly answer the essay prompt: "{PROMPT}"' in feedback


async def test_an_unanswered_check_leaves_the_metric_unscored():
    backend = ScriptedBackend(default=lambda request: token_reply({"The": 1.0}), probabilities=True)
    thesis = (await evaluate(backend)).scores[0]
    assert thesis.status == "unscored" and thesis.score is None and "answers yes was not answered" in thesis.reason


async def test_a_source_that_is_not_a_yes_no_question_keeps_the_metric_its_own_readout():
    backend = ScriptedBackend(default=lambda request: token_reply({"4": 1.0}), probabilities=True)
    thesis = (await evaluate(backend, source="Discuss the effects of cars on city centres.")).scores[0]
    assert thesis.score == 4 and len(backend.requests) == 1


def test_which_metrics_and_sources_are_read_this_way():
    def metric(**fields):
        return parse_rubric({**RUBRIC, "metrics": [{**THESIS, **fields}]}, origin="test").metrics[0]

    assert asks_for_position(metric())
    assert asks_for_position(metric(id="stance", name="Stance", description="Is the view clear?"))
    assert not asks_for_position(metric(id="clarity", name="Clarity", description="Is it clear?"))
    assert not asks_for_position(metric(question="Does it argue one side?"))
    assert not asks_for_position(metric(description="A clear position, without repetition?"))  # read as repetition
    assert question_of(" Should zoos be abolished? ") == "Should zoos be abolished?"
    assert question_of("Why do cities ban cars?") is None
    assert question_of("Should zoos be abolished?\nDiscuss.") is None
    assert question_of(None) is None
