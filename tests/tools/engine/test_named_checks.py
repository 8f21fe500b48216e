"""Checks of kind 'named': each paragraph is asked a which-question, and a reply that starts "None" is the mistake.
The scripted model answers by the paragraph it is shown; the tests assert on what Gavel asked and what it made of
the answers."""

from __future__ import annotations

import math

import pytest
from pydantic import ValidationError

from gavel.tools.assessment import EvaluateAssessmentRequest, evaluate_assessment
from gavel.tools.engine.backend import ChatRequest, TokenLogprob
from gavel.tools.engine.check_items import paragraphs
from gavel.tools.engine.derived_checks import checks_for
from gavel.tools.engine.judge import Judge
from gavel.tools.engine.logprobs import named_probability
from gavel.tools.engine.prompts import check_floor, evidence_named, finding_cut
from gavel.tools.revision import feedback_for
from gavel.tools.rubric_checks import Checks
from gavel.tools.rubric_registry import parse_rubric
from tests.support.config import engine_config
from tests.support.deps import make_deps
from tests.support.scripted import ScriptedBackend, last_block, token_reply

QUESTION = "Which specific place, study or figure does this paragraph name as evidence?"
RUBRIC = {
    "id": "essay-evidence",
    "version": "1",
    "title": "Essay evidence",
    "description": "Judges an essay's evidence.",
    "scale": {"min": 1, "max": 5, "integer": True},
    "pass_threshold": 3.5,
    "prompt": {"subject": "essay", "source_label": "essay prompt"},
    "metrics": [
        {
            "id": "evidence",
            "name": "Evidence",
            "description": "Are the essay's claims supported by specific evidence?",
            "levels": {"1": "only assertions", "3": "some general support", "5": "every point backed"},
            "checks": {"kind": "named", "question": QUESTION},
        }
    ],
}
BACKED = "Pontevedra closed its centre to cars in 1999, and road deaths fell to almost nothing."
BARE = "Studies show that car-free centres are much safer for everyone."
ESSAY = f"Cities should ban cars from their centres.\n\n{BACKED}\n  \n{BARE}"


def by_paragraph(p_none: dict[str, float]) -> ScriptedBackend:
    def reply(request: ChatRequest):
        p = next(p for text, p in p_none.items() if text in last_block(request))
        return token_reply({"None": p, "Pont": (1 - p) / 2, "The": (1 - p) / 2})

    return ScriptedBackend(default=reply, probabilities=True)


async def evaluate(backend: ScriptedBackend, text: str = ESSAY, rubric: dict = RUBRIC):
    request = EvaluateAssessmentRequest(assessment=text, source="Should cities ban cars?", custom_rubric=rubric)
    return await evaluate_assessment(request, make_deps(backend))


def test_paragraphs_are_what_blank_lines_separate():
    assert paragraphs(ESSAY) == ["Cities should ban cars from their centres.", BACKED, BARE]
    assert paragraphs("One line.\nAnother line.") == ["One line.\nAnother line."]


async def test_each_paragraph_is_asked_to_name_its_evidence_and_one_answered_none_is_quoted():
    backend = by_paragraph({"Cities should": 0.6, "Pontevedra": 0.1, "Studies show": 0.8})
    result = await evaluate(backend)
    evidence = result.scores[0]
    assert evidence.checks == 3 and evidence.expected_mistakes == pytest.approx(1.5, abs=1e-4)
    assert evidence.score == pytest.approx(1 + 4 * (1 - 1.5 / 3), abs=1e-4)
    assert [f.item for f in evidence.findings or []] == [BARE, "Cities should ban cars from their centres."]
    assert "answered 'None' to: Which specific place" in evidence.explanation
    assert result.passed is False
    assert all("quote them exactly" in r.messages[0].content for r in backend.requests)
    assert all(
        r.messages[-1].content.endswith("Answer with the name, or None if it names none.") for r in backend.requests
    )
    assert BARE in feedback_for(result, parse_rubric(RUBRIC, origin="test"))["evidence"]


async def test_a_paragraph_check_without_log_probabilities_leaves_the_metric_unscored():
    def reply(request: ChatRequest):
        return token_reply({}) if "Studies" in last_block(request) else token_reply({"None": 0.1, "Pont": 0.9})

    result = await evaluate(ScriptedBackend(default=reply, probabilities=True))
    assert result.scores[0].status == "unscored" and result.scores[0].reason_code == "no_logprobs"
    assert result.passed is None


def test_none_is_read_in_every_spelling_and_any_other_first_token_starts_a_name():
    top = [TokenLogprob(t, math.log(p)) for t, p in (("None", 0.5), (" none", 0.1), ("Nonetheless", 0.05), ("Os", 0.3))]
    readout = named_probability([top])
    assert readout.value == pytest.approx(0.4) and readout.distribution["none"] == pytest.approx(0.6)
    assert named_probability([[TokenLogprob("Oslo", math.log(0.9))]]).value == pytest.approx(1.0)
    assert named_probability(None).reason_code == "no_logprobs"


def test_named_checks_need_their_question_and_take_no_opposite_or_mistake():
    with pytest.raises(ValidationError, match="need a question"):
        Checks(kind="named")
    with pytest.raises(ValidationError, match="count the answer None"):
        Checks(kind="named", question=QUESTION, mistake="yes")
    with pytest.raises(ValidationError, match="count the answer None"):
        Checks(kind="named", question=QUESTION, opposite="Which does it not name?")


async def test_a_paragraph_is_named_as_a_finding_from_the_kinds_own_cut_below_one_half():
    backend = by_paragraph({"Cities should": 0.45, "Pontevedra": 0.1, "Studies show": 0.42})
    evidence = (await evaluate(backend)).scores[0]
    assert check_floor("named") == 0.0 and finding_cut("named", 0.5) == pytest.approx(0.4)
    assert [f.item for f in evidence.findings or []] == ["Cities should ban cars from their centres.", BARE]
    assert "none likely" not in evidence.explanation


def counted_rubric(enough: float) -> dict:
    metric = {**RUBRIC["metrics"][0], "checks": {"kind": "named", "question": QUESTION, "enough": enough}}
    return {**RUBRIC, "metrics": [metric]}


async def test_with_enough_the_paragraphs_that_name_something_are_counted_not_shared():
    # The opening names nothing (P(None) 0.6), which as a share would pull the essay down; counted, the one
    # paragraph the model is sure names something (P 0.1 of the cut 0.4: three quarters of a paragraph) is what
    # earns the score, and the bare one (0.8) adds nothing.
    backend = by_paragraph({"Cities should": 0.6, "Pontevedra": 0.1, "Studies show": 0.8})
    evidence = (await evaluate(backend, rubric=counted_rubric(1.5))).scores[0]
    assert evidence.score == pytest.approx(1 + 4 * 0.75 / 1.5, abs=1e-4)
    assert "0.75 paragraphs' worth named, of the 1.5" in evidence.explanation
    assert [f.item for f in evidence.findings or []] == [BARE, "Cities should ban cars from their centres."]


async def test_with_enough_met_the_score_is_the_best_and_no_more():
    backend = by_paragraph({"Cities should": 0.0, "Pontevedra": 0.0, "Studies show": 0.0})
    evidence = (await evaluate(backend, rubric=counted_rubric(2))).scores[0]
    assert evidence.score == 5 and evidence.findings == []


async def test_with_enough_a_text_without_paragraphs_scores_the_worst_end_without_asking():
    # The tools refuse a blank text; the engine, called directly (as the bench's probes do), scores it.
    backend = by_paragraph({})
    rubric = parse_rubric(counted_rubric(1), origin="test")
    judgment = await Judge(backend, engine_config()).score_metrics(
        rubric=rubric, metrics=rubric.metrics, subject=" \n\n "
    )
    assert judgment.scores[0].score == 1 and backend.requests == []


def test_enough_is_for_named_checks_only():
    assert Checks(kind="named", question=QUESTION, enough=1).enough == 1
    with pytest.raises(ValidationError, match="take no enough"):
        Checks(kind="sentence", question="Is it vague?", enough=1)
    with pytest.raises(ValidationError):
        Checks(kind="named", question=QUESTION, enough=0)


PLAIN = {**RUBRIC, "metrics": [{k: v for k, v in RUBRIC["metrics"][0].items() if k != "checks"}]}


async def test_a_metric_that_asks_for_evidence_and_states_no_checks_is_read_as_named_evidence():
    backend = by_paragraph({"Cities should": 0.9, "Pontevedra": 0.7, "Studies show": 0.8})
    result = await evaluate(backend, rubric=PLAIN)
    evidence = result.scores[0]
    assert evidence.checks == 3 and evidence.score == 1 and BARE in [f.item for f in evidence.findings or []]
    assert evidence.explanation.startswith("Evidence states no checks and is named for evidence")
    asked = backend.requests[0].messages[-1].content
    assert asked.endswith(f"{evidence_named().question} Answer with the name, or None if it names none.")
    assert BARE in feedback_for(result, parse_rubric(PLAIN, origin="test"))["evidence"]


def test_only_a_metric_that_asks_for_evidence_or_examples_and_states_nothing_else_is_read_that_way():
    def metric(**fields):
        return parse_rubric({**RUBRIC, "metrics": [{**PLAIN["metrics"][0], **fields}]}, origin="test").metrics[0]

    assert checks_for(metric()) == Checks(kind="named", question=evidence_named().question, enough=0.5)
    assert checks_for(metric(id="use_of_examples", name="Examples", description="Does it give some?")) is not None
    assert checks_for(metric(id="clarity", name="Clarity", description="Is it clear and concise?")) is None
    # Without a source: with one, "completeness" asks that the text cover it (engine/coverage.py).
    completeness = metric(id="completeness", name="Completeness", description="All the evidence stated?")
    assert checks_for(completeness, has_source=False) is None
    assert checks_for(metric(question="Does it give evidence?")) is None
    assert checks_for(metric(id="overall", name="Overall", description="Good, with evidence?")) is None
    assert checks_for(metric(checks={"kind": "named", "question": QUESTION})) is None
