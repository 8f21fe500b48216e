"""A metric that states no checks but asks whether the text is faithful to its source is read as checks of kind
'supported': each sentence against the source. The scripted model answers by the sentence it is shown."""

from __future__ import annotations

from gavel.tools.assessment import EvaluateAssessmentRequest, evaluate_assessment
from gavel.tools.engine.derived_checks import checks_for
from gavel.tools.engine.scores import MetricScore
from gavel.tools.revision import feedback_for
from gavel.tools.rubric_checks import Checks
from gavel.tools.rubric_registry import parse_rubric
from gavel.tools.rubrics import Metric
from tests.support.deps import make_deps
from tests.support.scripted import ScriptedBackend, token_reply
from tests.tools.engine.test_repeated_checks import by_sentence, document_in

FAITHFULNESS = {
    "id": "faithfulness",
    "name": "Faithfulness to the article",
    "description": "Does every statement in the summary agree with the article, with no claims it does not make?",
    "levels": {"1": "invents or changes facts", "3": "a minor error", "5": "every statement is in the article"},
}
RUBRIC = {
    "id": "summary", "version": "1", "title": "Summary", "description": "Judges a summary of an article.",
    "scale": {"min": 1, "max": 5, "integer": True}, "pass_threshold": 4,
    "prompt": {"subject": "summary", "source_label": "article"}, "metrics": [FAITHFULNESS],
}  # fmt: skip
ARTICLE = "The council voted 7-2 on Tuesday to build bike lanes on Main Street. Work starts in May."
RIGHT = "The council approved Main Street bike lanes 7-2."
WRONG = "Work starts in March."


def metric(**changes: object) -> Metric:
    return Metric.model_validate({**FAITHFULNESS, **changes})


def test_only_a_metric_that_asks_for_faithfulness_with_a_source_and_states_nothing_else_is_read_that_way() -> None:
    assert checks_for(metric()) == Checks(kind="supported")
    assert checks_for(metric(), has_source=False) is None
    hallucination = metric(id="grounding", name="Grounding", description="Does it avoid hallucinated details?")
    assert checks_for(hallucination) is not None
    # "Accuracy" alone may ask what no sentence of the source states (are the bugs a review names real?).
    assert checks_for(metric(id="issue_accuracy", name="Issue accuracy", description="Are the bugs real?")) is None
    assert checks_for(metric(question="Is it faithful to the article?")) is None
    assert checks_for(metric(checks={"kind": "whole", "question": "Is it faithful?"})) is None


async def test_each_sentence_is_checked_against_the_source_and_the_unsupported_one_is_quoted() -> None:
    backend = by_sentence({RIGHT: 0.95, WRONG: 0.05})
    request = EvaluateAssessmentRequest(assessment=f"{RIGHT} {WRONG}", source=ARTICLE, custom_rubric=RUBRIC)
    result = await evaluate_assessment(request, make_deps(backend))
    score = result.scores[0]
    assert score.checks == 2 and [f.item for f in score.findings or []] == [WRONG]
    assert score.explanation.startswith("Faithfulness to the article states no checks and asks whether the text is")
    assert all(document_in(r) == ARTICLE for r in backend.requests)
    assert WRONG in feedback_for(result, parse_rubric(RUBRIC, origin="test"))["faithfulness"]


async def test_without_a_source_the_metric_keeps_its_plain_readout() -> None:
    backend = ScriptedBackend(default=lambda _: token_reply({"4": 1.0}), probabilities=True)
    request = EvaluateAssessmentRequest(assessment=f"{RIGHT} {WRONG}", custom_rubric=RUBRIC)
    result = await evaluate_assessment(request, make_deps(backend))
    assert result.scores[0].checks is None and result.scores[0].score == 4


async def nine_right_and(last: str) -> MetricScore:
    """The faithfulness of nine sentences the model finds supported and `last`, which no model call reads."""
    right = [f"Work on the lanes starts in May, as {who} said." for who in "ABCDEFGHI"]
    request = EvaluateAssessmentRequest(assessment=" ".join([*right, last]), source=ARTICLE, custom_rubric=RUBRIC)
    return (await evaluate_assessment(request, make_deps(by_sentence(dict.fromkeys(right, 1.0))))).scores[0]


async def test_a_fact_the_source_contradicts_costs_the_best_anchor_not_only_its_share() -> None:
    # One sentence the article contradicts (6-3 where it says 7-2): as a share 4.6 and passing, though the best
    # anchor says every statement is in the article. One contradiction: the anchor below, 3.
    score = await nine_right_and("The council approved the Main Street bike lanes 6-3.")
    assert score.score == 3 and score.checks == 10
    assert "a fact its source contradicts places it at the anchor 3 (below)" in score.explanation
    assert "contradicted by the article: 3 where it states 2, 6 where it states 7" in score.explanation


async def test_a_quantity_the_source_only_never_states_costs_its_share() -> None:
    score = await nine_right_and("The plan has 3 stages.")
    assert score.score == 1 + 4 * 0.9 and "contradict" not in score.explanation
    assert "never states: 3" in score.explanation


async def test_a_contradicted_fact_past_the_sentences_the_model_checks_still_costs_its_anchor() -> None:
    # The model reads the first 24 sentences; the 25th contradicts the article (6-3 where it says 7-2).
    who = ["Ann", "Bob", "Cal", "Dee", "Eve", "Fay", "Gus", "Hal", "Ivy", "Jon", "Kim", "Lou"]
    who += ["Max", "Ned", "Oda", "Pam", "Quin", "Ray", "Sal", "Tom", "Uma", "Val", "Wes", "Xia"]
    right = [f"Work on the lanes starts in May, as {name} said." for name in who]
    wrong = "The council approved the Main Street bike lanes 6-3."
    request = EvaluateAssessmentRequest(assessment=" ".join([*right, wrong]), source=ARTICLE, custom_rubric=RUBRIC)
    backend = by_sentence(dict.fromkeys(right, 1.0))
    score = (await evaluate_assessment(request, make_deps(backend))).scores[0]
    assert score.score == 3 and score.checks == 24
    assert "contradicted by the article: 3 where it states 2, 6 where it states 7" in score.explanation
    assert all(wrong not in str(r) for r in backend.requests)
