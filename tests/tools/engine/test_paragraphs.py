"""A metric that asks for a text organized into paragraphs: a text that is not in paragraphs scores the worst end
from its layout, with no model call; a text in paragraphs is read as before. The scripted model answers every digit
question with one digit, so the tests see which metrics were asked."""

from __future__ import annotations

from gavel.tools.assessment import EvaluateAssessmentRequest, evaluate_assessment
from gavel.tools.engine.derived_checks import asks_for_paragraphs
from gavel.tools.engine.paragraphs import developed
from gavel.tools.revision import feedback_for
from gavel.tools.rubric_registry import parse_rubric
from tests.support.deps import make_deps
from tests.support.scripted import ScriptedBackend, token_reply

ORGANIZATION = {
    "id": "organization",
    "name": "Organization",
    "description": "Is the essay organized into paragraphs that develop one point each, in a logical order?",
    "levels": {"1": "no structure", "3": "some structure, loose order", "5": "clear paragraphs, one point each"},
}
THESIS = {"id": "thesis", "name": "Thesis", "description": "Does the essay take a clear position and keep to it?"}
RUBRIC = {
    "id": "essay-organization",
    "version": "1",
    "title": "Essay organization",
    "description": "Judges an essay's organization.",
    "scale": {"min": 1, "max": 5, "integer": True},
    "pass_threshold": 3.5,
    "prompt": {"subject": "essay", "source_label": "essay prompt"},
    "metrics": [ORGANIZATION, THESIS],
}
DRAFT = "Cities should ban cars from their centres.\nThe air would be cleaner.\nStreets would be safer."
ESSAY = (
    "Cities should ban cars from their centres. The gains outweigh the costs.\n\n"
    "Pontevedra closed its centre to cars in 1999. Its traffic deaths fell to none.\n"
    "Shops feared the change. Most of them now report more trade on foot."
)


async def evaluate(backend: ScriptedBackend, text: str):
    request = EvaluateAssessmentRequest(assessment=text, source="Should cities ban cars?", custom_rubric=RUBRIC)
    return await evaluate_assessment(request, make_deps(backend))


def test_a_block_counts_as_a_paragraph_when_it_holds_two_sentences_whatever_breaks_it():
    assert developed(DRAFT) == 0  # one sentence a line
    assert developed(DRAFT.replace("\n", " ")) == 1
    assert developed(ESSAY) == 3  # a single line break keeps paragraphs apart too


async def test_a_text_not_in_paragraphs_scores_the_worst_end_without_asking_and_the_rewrite_is_told_why():
    backend = ScriptedBackend(default=lambda request: token_reply({"4": 1.0}), probabilities=True)
    result = await evaluate(backend, DRAFT)
    organization, thesis = result.scores
    assert organization.score == 1 and organization.status == "scored" and organization.readout is None
    assert "not in paragraphs: it has 0 paragraphs of two or more sentences" in organization.explanation
    assert thesis.score == 4 and len(backend.requests) == 1  # only the thesis was asked
    assert not result.passed
    feedback = feedback_for(result, parse_rubric(RUBRIC, origin="test"))["organization"]
    assert feedback.startswith("Scored 1/5. The essay is not organized into paragraphs.")


async def test_a_text_in_paragraphs_is_read_by_the_model_as_before():
    backend = ScriptedBackend(default=lambda request: token_reply({"4": 1.0}), probabilities=True)
    result = await evaluate(backend, ESSAY)
    assert [s.score for s in result.scores] == [4, 4] and len(backend.requests) == 2
    assert all(s.readout == "probability" for s in result.scores)


def test_only_a_metric_that_asks_for_organized_paragraphs_and_states_nothing_else_reads_the_layout():
    def metric(**fields):
        return parse_rubric({**RUBRIC, "metrics": [{**ORGANIZATION, **fields}]}, origin="test").metrics[0]

    assert asks_for_paragraphs(metric(), "text")
    assert asks_for_paragraphs(metric(description="Is it structured in clear paragraphs?"), "text")
    assert asks_for_paragraphs(metric(description="Is the essay well organized?"), "text")
    assert asks_for_paragraphs(metric(description="Is it well organized?"), "essay")
    assert not asks_for_paragraphs(metric(description="Is it well organized?"), "assessment")
    topic = metric(id="topic", name="Topic sentences", description="Does each paragraph open with a topic sentence?")
    assert not asks_for_paragraphs(topic, "essay")
    assert not asks_for_paragraphs(metric(description="Is the answer well organized and clear?"), "answer")
    assert not asks_for_paragraphs(metric(question="Is it in paragraphs?"), "essay")
    assert not asks_for_paragraphs(metric(checks={"kind": "consistent"}), "essay")
    assert not asks_for_paragraphs(metric(id="overall", name="Overall"), "essay")
