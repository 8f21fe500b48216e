"""Checks of kind 'leads': each point of the text (a list item or paragraph, or a sentence of a text in one
paragraph) asked how serious it is (a question and its opposite), and a point counted against the text as far as a
later one reads more serious; and the metrics read that way without being asked, because their words ask for the
most serious problems first. The scripted model answers by the point and the question it is shown; the tests
assert on what Gavel asked and made of it."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from gavel.tools.assessment import EvaluateAssessmentRequest, evaluate_assessment
from gavel.tools.engine.backend import ChatRequest
from gavel.tools.engine.derived_checks import checks_for
from gavel.tools.engine.leading import ahead, points
from gavel.tools.engine.prompts import leads
from gavel.tools.engine.sentences import sentences_outside_code
from gavel.tools.revision import feedback_for
from gavel.tools.rubric_checks import Checks
from gavel.tools.rubric_registry import parse_rubric
from tests.support.deps import make_deps
from tests.support.scripted import ScriptedBackend, token_reply, yes_no

PRIORITIES = {
    "id": "prioritization",
    "name": "Focus on what matters",
    "description": "Does the comment spend its attention on the most important issues, leading with them?",
    "levels": {"1": "nitpicks first, the bug buried", "3": "minor points first", "5": "leads with the most serious"},
}
RUBRIC = {
    "id": "review",
    "version": "1",
    "title": "Review comments",
    "description": "Judges a review comment.",
    "scale": {"min": 1, "max": 5, "integer": True},
    "pass_threshold": 4,
    "prompt": {"subject": "review comment", "source_label": "change"},
    "metrics": [PRIORITIES],
}
CHANGE = "Adds a cache.\n\n+_cache = {}"
NIT = "Rename `data` to `config`."
DOCS = "Add a docstring."
BUG = "Every caller shares one dict, so one handler's change leaks into the others."
BURIED = f"{NIT} {DOCS} {BUG}"
# How serious the scripted model finds each sentence: P(yes) to the question, P(yes) to the opposite.
THANKS = "Thanks!"
SERIOUS = {NIT: (0.5, 0.8), DOCS: (0.55, 0.75), BUG: (0.9, 0.3), THANKS: (0.3, 0.6)}


def sentence_in(request: ChatRequest) -> str:
    return request.messages[-1].content.rsplit("<<<\n", 1)[1].split("\n>>>", 1)[0]


def scripted(serious: dict[str, tuple[float, float]] = SERIOUS) -> ScriptedBackend:
    def reply(request: ChatRequest):
        yes, opposite = serious[sentence_in(request)]
        return yes_no(opposite if "only a minor point" in request.messages[-1].content else yes)

    return ScriptedBackend(default=reply, probabilities=True)


async def evaluate(backend: ScriptedBackend, text: str = BURIED, rubric: dict = RUBRIC):
    request = EvaluateAssessmentRequest(assessment=text, source=CHANGE, custom_rubric=rubric)
    return await evaluate_assessment(request, make_deps(backend))


def metric(**fields):
    return parse_rubric({**RUBRIC, "metrics": [{**PRIORITIES, **fields}]}, origin="test").metrics[0]


def seriousness(sentence: str) -> float:
    yes, opposite = SERIOUS[sentence]
    return (yes + 1 - opposite) / 2


def expected(said: list[str]) -> float:
    """The score judge.toml's [leads] gives these points: the share not ahead of a more serious one, each point
    counted by its length when [leads] weighs by length."""
    shipped = leads()
    behind = ahead([seriousness(s) for s in said], shipped.spread, shipped.tolerance)
    weights = [len(s) if shipped.by_length else 1 for s in said]
    return 1 + 4 * (1 - sum(b * w for b, w in zip(behind, weights, strict=True)) / sum(weights))


async def test_a_comment_that_buries_its_bug_under_nits_scores_low_and_its_nits_are_quoted():
    backend = scripted()
    result = await evaluate(backend)
    score = result.scores[0]
    assert score.score == pytest.approx(expected([NIT, DOCS, BUG]), abs=1e-4) and score.score < 4
    assert [f.item for f in score.findings or []] == [NIT, DOCS]
    assert score.checks == 6 and len(backend.requests) == 6
    assert score.explanation.startswith("Focus on what matters states no checks and asks that the most important")
    assert "reads as point 3" in score.explanation and BUG in score.explanation
    assert "of the review comment's length (3 points) not ahead of a more serious point" in score.explanation
    assert all(CHANGE in r.messages[-1].content for r in backend.requests)
    feedback = feedback_for(result, parse_rubric(RUBRIC, origin="test"))["prioritization"]
    assert NIT in feedback and "lead with the most serious problems" in feedback


async def test_the_same_points_with_the_bug_first_score_the_best_end():
    score = (await evaluate(scripted(), text=f"{BUG} {DOCS} {NIT}")).scores[0]
    assert score.score == pytest.approx(expected([BUG, DOCS, NIT]))
    assert score.findings == []


async def test_a_short_opening_ahead_of_the_bug_costs_as_much_as_its_length():
    score = (await evaluate(scripted(), text=f"{THANKS}\n\n{BUG}\n\n{NIT}")).scores[0]
    assert leads().by_length and score.score == pytest.approx(expected([THANKS, BUG, NIT])) and score.score > 4.5
    assert [f.item for f in score.findings or []] == [THANKS]


def test_a_point_counts_as_far_as_a_later_one_reads_more_serious_over_the_texts_spread():
    assert ahead([0.2, 0.4, 0.6], 0.1) == pytest.approx([1.0, 0.5, 0.0])
    assert ahead([0.6, 0.4, 0.2], 0.1) == [0.0, 0.0, 0.0]
    assert ahead([0.50, 0.52], 0.2) == pytest.approx([0.1, 0.0])  # alike: the spread, not the noise, measures
    assert ahead([0.50, 0.505, 0.7], 0.1, tolerance=0.01) == pytest.approx([0.95, 0.925, 0.0])
    assert ahead([0.50, 0.505], 0.1, tolerance=0.01) == [0.0, 0.0]  # within the tolerance: no order to speak of


def test_fenced_code_makes_no_point_of_its_own():
    text = f"{BUG} Use this:\n```python\nreturn copy.deepcopy(data)\n```\n{NIT}"
    assert sentences_outside_code(text) == [BUG, "Use this:", NIT]


def test_a_text_is_read_as_its_list_items_and_paragraphs_a_heading_joining_the_point_after_it():
    text = f"Thanks! A few notes:\n- {NIT}\n- {DOCS}\n  More on the docs.\n\n**Blocker**\n\n{BUG}\n```\ncode\n```"
    assert points(text) == [f"Thanks! A few notes: {NIT}", f"{DOCS} More on the docs.", f"**Blocker** {BUG}"]
    assert points("Two things:\n1. fix it\n2) name it") == ["Two things: fix it", "name it"]


def test_a_text_in_one_paragraph_is_read_as_its_sentences():
    assert points(BURIED) == [NIT, DOCS, BUG]


async def test_an_unanswered_check_leaves_the_metric_unscored():
    def reply(request: ChatRequest):
        return token_reply({"The": 0.9, "Yes": 0.1}) if sentence_in(request) == DOCS else yes_no(0.5)

    result = await evaluate(ScriptedBackend(default=reply, probabilities=True))
    assert result.scores[0].status == "unscored" and result.scores[0].reason_code == "answer_mass_low"
    assert result.passed is None


async def test_a_rubric_may_state_its_own_question_for_the_order():
    backend = ScriptedBackend(default=lambda request: yes_no(0.5), probabilities=True)
    rubric = {**RUBRIC, "metrics": [{**PRIORITIES, "checks": {"kind": "leads", "question": "Is this a bug?"}}]}
    score = (await evaluate(backend, rubric=rubric)).scores[0]
    assert score.score == 5 and score.checks == 3
    assert all(r.messages[-1].content.endswith("Is this a bug? Answer Yes or No.") for r in backend.requests)


def test_only_a_metric_asking_for_the_most_serious_problems_first_is_read_for_order():
    assert checks_for(metric()) == Checks(kind="leads")
    assert checks_for(metric(id="focus", name="Focus", description="Are the bugs prioritised over style?")) is not None
    assert checks_for(metric(description="Does it lead with the most serious problems?")) is not None
    assert checks_for(metric(id="organization", name="Organized", description="Status first, then risks?")) is None
    assert checks_for(metric(description="Does it lead with the most important news?")) is None  # no problems
    assert checks_for(metric(question="Does it lead with the bug?")) is None


def test_a_leads_check_takes_an_opposite_only_with_its_own_question_and_no_mistake():
    with pytest.raises(ValidationError, match="opposite only with their own question"):
        Checks(kind="leads", opposite="Is it minor?")
    with pytest.raises(ValidationError, match="leave mistake out"):
        Checks(kind="leads", mistake="yes")
