"""A metric that states no checks but asks whether the text covers its source is read as checks of kind 'covered':
each statement of the source against the text. The scripted model answers by the statement it is shown."""

from __future__ import annotations

from gavel.tools.assessment import EvaluateAssessmentRequest, evaluate_assessment
from gavel.tools.engine.derived_checks import checks_for
from gavel.tools.revision import feedback_for
from gavel.tools.rubric_checks import Checks
from gavel.tools.rubric_registry import parse_rubric
from gavel.tools.rubrics import Metric
from tests.support.deps import make_deps
from tests.tools.engine.test_repeated_checks import by_sentence, document_in

COVERAGE = {
    "id": "action_coverage",
    "name": "Decisions, owners and dates",
    "description": "Does the email capture all the decisions and action items from the notes, and the open questions?",
    "levels": {"1": "most items missing", "3": "some owners or dates missing", "5": "every item with its owner"},
}
RUBRIC = {
    "id": "status-email", "version": "1", "title": "Status email", "description": "Judges a status email.",
    "scale": {"min": 1, "max": 5, "integer": True}, "pass_threshold": 4,
    "prompt": {"subject": "email", "source_label": "meeting notes"}, "metrics": [COVERAGE],
}  # fmt: skip
NOTES = "- Launch stays on Monday 24 March.\n- Marcus submits the build by Friday 14 March.\n- Lena fixes the bugs."
# Two paragraphs: one short paragraph after notes of several lines would be read as a reply to a conversation.
EMAIL = "Hi all,\n\nWe launch on Monday 24 March. Marcus submits the build for review by Friday 14 March."


def metric(**changes: object) -> Metric:
    return Metric.model_validate({**COVERAGE, **changes})


def test_only_a_metric_that_asks_to_cover_its_source_with_a_source_and_states_nothing_else_is_read_that_way() -> None:
    assert checks_for(metric()) == Checks(kind="covered")
    assert checks_for(metric(), has_source=False) is None
    assert checks_for(metric(id="coverage", name="Coverage of key points", description="The main points?")) is not None
    # Covering the question a text answers is not stating every statement of its source (rag-answer's completeness).
    question = metric(
        id="completeness", name="Completeness", description="Does the answer cover what the question needs?"
    )
    assert checks_for(question) is None
    assert checks_for(metric(id="tone", name="Tone", description="Is it calm and courteous?")) is None
    assert checks_for(metric(question="Does the email state every action item?")) is None
    # Nothing invented and nothing missing: read for faithfulness, as the sentences of the text checked.
    both = metric(description="Is every fact faithful to the notes, with no decision missing?")
    assert checks_for(both) == Checks(kind="supported")


async def test_each_statement_of_the_source_is_checked_against_the_text_and_the_missing_one_is_quoted() -> None:
    backend = by_sentence({"Launch stays": 0.95, "Marcus submits": 0.9, "Lena fixes": 0.05})
    request = EvaluateAssessmentRequest(assessment=EMAIL, source=NOTES, custom_rubric=RUBRIC)
    result = await evaluate_assessment(request, make_deps(backend))
    score = result.scores[0]
    assert score.checks == 3 and [f.item for f in score.findings or []] == ["Lena fixes the bugs."]
    assert score.explanation.startswith("Decisions, owners and dates states no checks and asks whether the text covers")
    assert all(document_in(r) == EMAIL for r in backend.requests)
    assert "Lena fixes the bugs" in feedback_for(result, parse_rubric(RUBRIC, origin="test"))["action_coverage"]
