"""Checks of kind 'repeated': each sentence after the first against what the text says before it, Yes (already
stated) the mistake; and the metrics read that way without being asked, because their words speak of repetition.
The scripted model answers by the sentence it is shown; the tests assert on what Gavel asked and made of it."""

from __future__ import annotations

import math

import pytest
from pydantic import ValidationError

from gavel.tools.assessment import EvaluateAssessmentRequest, evaluate_assessment
from gavel.tools.engine.backend import ChatRequest
from gavel.tools.engine.check_items import check_items
from gavel.tools.engine.derived_checks import checks_for
from gavel.tools.engine.prompts import check_floor, evidence_named, repetition_counted
from gavel.tools.revision import feedback_for
from gavel.tools.rubric_checks import Checks
from gavel.tools.rubric_registry import parse_rubric
from tests.support.deps import make_deps
from tests.support.scripted import ScriptedBackend, yes_no

CLARITY = {
    "id": "clarity",
    "name": "Clarity and concision",
    "description": "Is the writing clear and concise, without filler, repetition or digression?",
    "levels": {"1": "confusing, padded or repetitive", "3": "mostly clear with some filler", "5": "clear throughout"},
}
RUBRIC = {
    "id": "essay-clarity",
    "version": "1",
    "title": "Essay clarity",
    "description": "Judges an essay's clarity.",
    "scale": {"min": 1, "max": 5, "integer": True},
    "pass_threshold": 3.5,
    "prompt": {"subject": "essay", "source_label": "essay prompt"},
    "metrics": [CLARITY],
}
THESIS = "Cities should ban cars from their centres."
NEW = "Pontevedra closed its centre to cars in 1999."
AGAIN = "So banning cars from city centres is what cities should do."
ESSAY = f"{THESIS} {NEW}\n\n{AGAIN}"


def claim_in(request: ChatRequest) -> str:
    return request.messages[-1].content.rsplit("<<<\n", 1)[1].split("\n>>>", 1)[0]


def document_in(request: ChatRequest) -> str:
    return request.messages[-1].content.split("<<<\n", 1)[1].split("\n>>>", 1)[0]


def by_sentence(p_yes: dict[str, float]) -> ScriptedBackend:
    def reply(request: ChatRequest):
        return yes_no(next(p for text, p in p_yes.items() if text in claim_in(request)))

    return ScriptedBackend(default=reply, probabilities=True)


async def evaluate(backend: ScriptedBackend, text: str = ESSAY, rubric: dict = RUBRIC):
    request = EvaluateAssessmentRequest(assessment=text, source="Should cities ban cars?", custom_rubric=rubric)
    return await evaluate_assessment(request, make_deps(backend))


def test_each_sentence_but_the_first_is_checked_against_the_sentences_before_it():
    items = check_items(Checks(kind="repeated"), ESSAY, None)
    assert [(i.text, i.claims[0].document) for i in items] == [(NEW, THESIS), (AGAIN, f"{THESIS} {NEW}")]


async def test_a_metric_that_speaks_of_repetition_is_read_as_repeated_checks_and_the_restatement_is_quoted():
    backend = by_sentence({NEW: 0.2, AGAIN: 0.9})
    result = await evaluate(backend)
    clarity = result.scores[0]
    floor = check_floor("repeated")
    expected = (0.2 - floor) / (1 - floor) + (0.9 - floor) / (1 - floor)
    assert clarity.checks == 2 and clarity.expected_mistakes == pytest.approx(expected, abs=1e-4)
    assert clarity.score == pytest.approx(1 + 4 * (1 - expected / 2), abs=1e-4)
    assert [f.item for f in clarity.findings or []] == [AGAIN]
    assert clarity.explanation.startswith("Clarity and concision states no checks and speaks of repetition")
    assert "sentences that restate what the essay says before them" in clarity.explanation
    assert [document_in(r) for r in backend.requests] == [THESIS, f"{THESIS} {NEW}"]
    assert all("Does the document state everything the claim says?" in r.messages[-1].content for r in backend.requests)
    feedback = feedback_for(result, parse_rubric(RUBRIC, origin="test"))["clarity"]
    assert AGAIN in feedback and "only restate what the essay says before them" in feedback


async def test_a_one_sentence_text_repeats_nothing_and_scores_the_best_without_a_model_call():
    backend = by_sentence({})
    clarity = (await evaluate(backend, text=THESIS)).scores[0]
    assert clarity.score == 5 and backend.requests == []


def test_only_a_metric_whose_words_speak_of_repetition_and_that_states_nothing_else_is_read_that_way():
    def metric(**fields):
        return parse_rubric({**RUBRIC, "metrics": [{**CLARITY, **fields}]}, origin="test").metrics[0]

    assert checks_for(metric()) == Checks(kind="repeated")
    assert checks_for(metric(id="redundancy", name="Redundancy", description="Is anything said twice?")) is not None
    assert checks_for(metric(id="concise", name="Concise", description="Is the response short?")) is None
    assert checks_for(metric(question="Does it repeat itself?")) is None
    assert checks_for(metric(id="overall", name="Overall", description="Good, without repetition?")) is None
    assert checks_for(metric(checks={"kind": "consistent"})) is None
    evidence = metric(id="evidence", name="Evidence", description="Backed by evidence, without repetition?")
    assert checks_for(evidence) == Checks(kind="named", question=evidence_named().question, enough=0.5)


CONCISION = {
    "id": "concision",
    "name": "Concision",
    "description": "Is the reply no longer than it needs to be, free of padding and repetition?",
    "levels": {"1": "bloated", "3": "some unnecessary sentences", "5": "tight"},
}


async def test_a_metric_that_also_speaks_of_length_counts_the_restated_sentences_instead_of_sharing_them():
    backend = by_sentence({NEW: 0.2, AGAIN: 0.9})
    result = await evaluate(backend, rubric={**RUBRIC, "metrics": [CONCISION]})
    concision = result.scores[0]
    floor, shipped = check_floor("repeated"), repetition_counted()
    expected = (0.2 - floor) / (1 - floor) + (0.9 - floor) / (1 - floor)
    share = 1 / (1 + math.exp((expected - shipped.centre) / shipped.spread))
    assert concision.expected_mistakes == pytest.approx(expected, abs=1e-4)
    assert concision.score == pytest.approx(1 + 4 * share, abs=1e-4)
    assert "sentences' worth restate what comes before, of 2 checked" in concision.explanation
    assert [f.item for f in concision.findings or []] == [AGAIN]


def test_the_count_is_chosen_by_length_words_and_placed_by_centre_and_spread_together():
    metric = parse_rubric({**RUBRIC, "metrics": [CONCISION]}, origin="test").metrics[0]
    shipped = repetition_counted()
    assert checks_for(metric) == Checks(kind="repeated", centre=shipped.centre, spread=shipped.spread)
    assert Checks(kind="repeated", centre=6, spread=1.5).centre == 6
    with pytest.raises(ValidationError, match="centre and spread together"):
        Checks(kind="repeated", centre=6)


def test_a_summary_asked_to_be_brief_keeps_the_share():
    # Padded summaries restate 1-4 sentences, under the count's cut (bench/README.md, "Concision counted").
    brief = {**CONCISION, "description": "Is the summary brief and economical, free of repetition and filler?"}
    metric = parse_rubric({**RUBRIC, "metrics": [brief]}, origin="test").metrics[0]
    assert checks_for(metric) == Checks(kind="repeated")
