"""evaluate_assessment on a backend with log-probabilities: a 1-5 metric is the probability-weighted mean of
the digits the model would write (G-Eval), with the distribution kept."""

from __future__ import annotations

import pytest

from gavel.tools.assessment import EvaluateAssessmentRequest, evaluate_assessment
from tests.support.deps import make_deps
from tests.support.rubrics import digit_clinical
from tests.support.scripted import ScriptedBackend, token_reply

TEXT = "Depressed mood most days for three weeks; sleeps four hours a night; PHQ-8 item 1 scored 3."


async def test_a_digit_scale_is_read_as_the_expected_score():
    backend = ScriptedBackend(default=lambda r: token_reply({"4": 0.6, "5": 0.3, "3": 0.1}), probabilities=True)
    result = await evaluate_assessment(
        EvaluateAssessmentRequest(assessment=TEXT, custom_rubric=digit_clinical()), make_deps(backend)
    )
    assert all(s.score == pytest.approx(4.2) for s in result.scores)
    assert result.scores[0].distribution == pytest.approx({"1": 0, "2": 0, "3": 0.1, "4": 0.6, "5": 0.3})
    assert "expected score 4.20" in result.scores[0].explanation
    assert result.passed is True
    assert all(r.max_tokens == 1 and "one digit from 1 (worst) to 5 (best)" in r.messages[-1].content
               for r in backend.requests)  # fmt: skip


async def test_a_reply_that_is_no_digit_leaves_the_metric_unscored_and_the_pass_undecided():
    backend = ScriptedBackend(default=lambda r: token_reply({"The": 0.95, "4": 0.05}), probabilities=True)
    result = await evaluate_assessment(
        EvaluateAssessmentRequest(assessment=TEXT, custom_rubric=digit_clinical()), make_deps(backend)
    )
    assert {s.status for s in result.scores} == {"unscored"}
    assert {s.reason_code for s in result.scores} == {"answer_mass_low"}
    assert result.passed is None
