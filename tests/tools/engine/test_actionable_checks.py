"""A code review's metric named for actionability, stating no checks: each sentence outside fenced code is asked
which line, function or variable it points to, and the mean P(it names one) is placed on the scale
(engine/actionable.py). The scripted model answers by the sentence it is shown."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from gavel.tools.assessment import EvaluateAssessmentRequest, evaluate_assessment
from gavel.tools.engine.backend import ChatRequest
from gavel.tools.engine.check_items import check_items
from gavel.tools.engine.derived_checks import checks_for
from gavel.tools.engine.likelihood import placed
from gavel.tools.engine.prompts import actionable
from gavel.tools.revision import feedback_for
from gavel.tools.rubric_checks import Checks
from gavel.tools.rubric_registry import parse_rubric
from tests.support.deps import make_deps
from tests.support.scripted import ScriptedBackend, last_block, token_reply

RUBRIC = {
    "id": "review",
    "version": "1",
    "title": "Review comments",
    "description": "Judges a review comment on a code change.",
    "scale": {"min": 1, "max": 5, "integer": True},
    "pass_threshold": 4,
    "prompt": {"subject": "review comment", "source_label": "change"},
    "metrics": [
        {
            "id": "actionability",
            "name": "Actionable",
            "description": "Does the comment tell the author what to change and where?",
            "levels": {"1": "only worries", "5": "names where and how to fix each point"},
        }
    ],
}
POINTED = "The loop stops at `page < totalPages`, so the last page is skipped; use `<=`."
VAGUE = "Something seems off with how the pages are collected."
CHANGE = (
    "Fetches every page of users.\n\n--- a/users.ts\n+++ b/users.ts\n@@ -1,3 +1,4 @@\n"
    "-for (let page = 1; page < totalPages; page++) {\n+for (let page = 1; page < totalPages; page++) {"
)
REVIEW = f"{POINTED}\n\n```ts\nfor (let page = 1; page <= totalPages; page++) {{}}\n```\n\n{VAGUE}"


def by_sentence(p_none: dict[str, float]) -> ScriptedBackend:
    def reply(request: ChatRequest):
        p = next(p for text, p in p_none.items() if text in last_block(request))
        return token_reply({"None": p, "page": 1 - p})

    return ScriptedBackend(default=reply, probabilities=True)


async def evaluate(backend: ScriptedBackend, text: str = REVIEW, rubric: dict = RUBRIC):
    request = EvaluateAssessmentRequest(assessment=text, source=CHANGE, custom_rubric=rubric)
    return await evaluate_assessment(request, make_deps(backend))


async def test_each_sentence_outside_code_is_asked_where_it_points_and_the_mean_is_placed_on_the_scale():
    backend = by_sentence({"The loop stops": 0.25, "Something seems": 0.95})
    result = await evaluate(backend)
    score = result.scores[0]
    shipped = actionable()
    assert len(backend.requests) == 2 and score.checks == 2
    assert score.score == pytest.approx(1 + 4 * placed(0.4, shipped.centre, shipped.spread), abs=1e-4)
    assert [f.item for f in score.findings or []] == [VAGUE]
    assert score.explanation.startswith("Actionable states no checks and is named for actionability")
    assert "0.40 of the 2 sentences' worth named" in score.explanation
    assert last_block(backend.requests[0]) in (POINTED, VAGUE)
    assert (
        backend.requests[0]
        .messages[-1]
        .content.endswith(f"{shipped.question} Answer with the name, or None if it names none.")
    )
    assert result.passed is False
    feedback = feedback_for(result, parse_rubric(RUBRIC, origin="test"))["actionability"]
    assert VAGUE in feedback and "in these sentences" in feedback


async def test_a_review_whose_sentences_each_name_the_code_scores_near_the_best_end():
    also = "`users.push(items)` nests each page; spread it: `users.push(...items)`."
    result = await evaluate(by_sentence({"The loop stops": 0.05, "`users.push": 0.0}), text=f"{POINTED}\n\n{also}")
    assert result.scores[0].score is not None and result.scores[0].score > 4.9 and result.passed is True


def test_a_text_all_in_fenced_code_still_has_its_lines_asked():
    checks = Checks(kind="named", per="sentence", question="Which variable does this sentence point to?")
    assert [i.text for i in check_items(checks, "```\nx = 1\n```", None)] == ["```", "x = 1", "```"]
    assert [i.text for i in check_items(checks, REVIEW, None)] == [POINTED, VAGUE]


def test_only_a_metric_named_for_actionability_on_a_rubric_about_code_is_read_this_way():
    def metric(**fields):
        return parse_rubric({**RUBRIC, "metrics": [{**RUBRIC["metrics"][0], **fields}]}, origin="test").metrics[0]

    code = "review comment change"
    shipped = actionable()
    expected = Checks(kind="named", per="sentence", question=shipped.question, centre=shipped.centre,
                      spread=shipped.spread)  # fmt: skip
    assert checks_for(metric(), about=code) == expected
    assert checks_for(metric(), about="reply customer message") is None  # a support reply's next steps
    assert checks_for(metric(id="clarity", name="Clear"), about=code) is None
    assert checks_for(metric(question="Does it say where?"), about=code) is None


def test_named_checks_are_placed_by_centre_and_spread_together_and_not_with_enough():
    question = "Which variable does this sentence point to?"
    assert Checks(kind="named", question=question, centre=0.5, spread=0.1).per == "paragraph"
    with pytest.raises(ValidationError, match="centre and spread together"):
        Checks(kind="named", question=question, centre=0.5)
    with pytest.raises(ValidationError, match="not both"):
        Checks(kind="named", question=question, centre=0.5, spread=0.1, enough=1)
    with pytest.raises(ValidationError, match="take no per"):
        Checks(kind="sentence", question="Is it vague?", per="sentence")
