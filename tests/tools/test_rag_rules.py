"""The RAG verdict's deterministic rules: the verdict from the overall score and grounding, the overall score
from the dimensions, and the confidence."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from gavel.tools.engine.backend import ChatReply, ChatRequest
from gavel.tools.engine.scores import MetricScore
from gavel.tools.rag import JudgeRagAnswerRequest, Passage, judge_rag_answer
from gavel.tools.rag.grounding import GroundingCheck
from gavel.tools.rag.orchestration import ranking
from gavel.tools.rag.rules import confidence_of, decide_verdict, overall_score
from gavel.tools.rubric_registry import RubricRegistry
from gavel.tools.rubrics import ContextRules, Rubric
from tests.support.deps import make_deps
from tests.support.rag_cases import GROUNDED
from tests.support.scripted import ScriptedBackend, yes_no

REGISTRY = RubricRegistry.load()
RAG_RUBRIC = REGISTRY.get("rag-answer")
RULES = RAG_RUBRIC.contexts
DIMENSIONS = ["relevance", "completeness", "accuracy", "source_attribution", "coherence"]


def uniform(value: float | str) -> dict[str, float | str]:
    return dict.fromkeys(DIMENSIONS, value)


def check(**changes: Any) -> GroundingCheck:
    return GroundingCheck(**{**GROUNDED, **changes})


# -- decide_verdict -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("context", "q", "grounded", "has_sources", "expected"),
    [
        pytest.param("RAG", 1.0, True, True, "approved", id="rag-perfect"),
        pytest.param("RAG", 0.7, True, False, "approved", id="rag-exactly-0.7-grounded-approves"),
        pytest.param("RAG", 0.69, True, True, "needs_improvement", id="rag-just-below-0.7-grounded"),
        pytest.param("RAG", 0.85, False, False, "approved", id="rag-exactly-0.85-ungrounded-approves"),
        pytest.param("RAG", 0.84, False, True, "needs_improvement", id="rag-0.84-ungrounded-with-sources"),
        pytest.param("RAG", 0.84, False, False, "needs_improvement", id="rag-0.84-ungrounded-unsourced"),
        pytest.param("RAG", 0.7, False, False, "needs_improvement",
                     id="rag-exactly-0.7-ungrounded-unsourced-not-rejected"),
        pytest.param("RAG", 0.69, False, False, "rejected", id="rag-below-0.7-ungrounded-unsourced-rejected"),
        pytest.param("RAG", 0.69, False, True, "needs_improvement", id="rag-below-0.7-ungrounded-but-cites"),
        pytest.param("RAG", 0.69, True, False, "needs_improvement", id="rag-below-0.7-grounded-uncited"),
        pytest.param("RAG", 0.5, True, True, "needs_improvement", id="rag-exactly-0.5-not-rejected"),
        pytest.param("RAG", 0.5, False, False, "rejected", id="rag-0.5-ungrounded-unsourced-rejected"),
        pytest.param("RAG", 0.49, True, True, "rejected", id="rag-below-0.5-rejected"),
        pytest.param("RAG", 0.0, True, True, "rejected", id="rag-zero"),
        pytest.param("TOOLS", 0.7, True, True, "approved", id="tools-exactly-0.7-grounded"),
        pytest.param("TOOLS", 0.85, False, False, "approved", id="tools-exactly-0.85-ungrounded"),
        pytest.param("TOOLS", 0.8, False, True, "needs_improvement", id="tools-0.8-ungrounded"),
        pytest.param("TOOLS", 0.6, False, False, "rejected", id="tools-ungrounded-unsourced-below-0.7"),
        pytest.param("TOOLS", 0.5, True, True, "needs_improvement", id="tools-exactly-0.5"),
        pytest.param("TOOLS", 0.49, True, True, "rejected", id="tools-below-0.5"),
        pytest.param("DIAGNOSTIC", 0.7, False, False, "approved", id="diagnostic-exactly-0.7-without-sources"),
        pytest.param("DIAGNOSTIC", 0.69, False, False, "needs_improvement", id="diagnostic-just-below-0.7"),
        pytest.param("DIAGNOSTIC", 0.5, False, False, "needs_improvement", id="diagnostic-exactly-0.5-no-penalty"),
        pytest.param("DIAGNOSTIC", 0.49, True, True, "rejected", id="diagnostic-below-0.5"),
    ],
)  # fmt: skip
def test_decide_verdict_follows_each_contexts_rules_at_and_around_the_boundaries(
    context, q, grounded, has_sources, expected
):
    verdict, reason = decide_verdict(RULES[context], q, grounded, has_sources, [])
    assert verdict == expected
    assert reason


@pytest.mark.parametrize(
    ("context", "q", "has_sources", "expected"),
    [
        pytest.param("RAG", 0.75, True, "unscored", id="rag-approval-depends-on-grounding"),
        pytest.param("RAG", 0.6, False, "unscored", id="rag-rejection-depends-on-grounding"),
        pytest.param("RAG", 0.6, True, "needs_improvement", id="rag-cited-mid-score-does-not-depend"),
        pytest.param("RAG", 0.85, False, "approved", id="rag-high-enough-without-grounding"),
        pytest.param("RAG", 0.3, True, "rejected", id="rag-low-whatever-the-grounding"),
        pytest.param("TOOLS", 0.75, True, "unscored", id="tools-approval-depends-on-grounding"),
        pytest.param("DIAGNOSTIC", 0.75, False, "approved", id="diagnostic-never-needs-grounding"),
        pytest.param("DIAGNOSTIC", 0.6, False, "needs_improvement", id="diagnostic-mid-without-grounding"),
    ],
)
def test_undecided_grounding_gives_no_verdict_only_when_the_verdict_depends_on_it(context, q, has_sources, expected):
    verdict, reason = decide_verdict(RULES[context], q, None, has_sources, [])
    assert verdict == expected
    if expected == "unscored":
        assert "could not decide" in reason
    elif context != "DIAGNOSTIC":
        assert "does not depend on it" in reason


def test_a_weighted_unscored_dimension_gives_no_verdict_and_names_it():
    verdict, reason = decide_verdict(RULES["RAG"], 0.9, True, True, ["accuracy"])
    assert verdict == "unscored"
    assert "accuracy" in reason


def test_no_overall_score_gives_no_verdict():
    assert decide_verdict(RULES["DIAGNOSTIC"], None, True, True, [])[0] == "unscored"


@pytest.mark.parametrize(
    ("codes", "advice"),
    [
        pytest.param(["context_too_long"], "raise GAVEL_NUM_CTX", id="prompt-too-long"),
        pytest.param(["timeout"], "GAVEL_TIMEOUT_S", id="backend-failed"),
        pytest.param(["answer_mass_low"], "stronger judge model", id="the-model-gave-no-answer"),
    ],
)
def test_an_unscored_verdict_says_what_to_change_by_why_the_scores_are_missing(codes, advice):
    verdict, reason = decide_verdict(RULES["RAG"], None, None, True, ["accuracy"], codes)
    assert verdict == "unscored" and advice in reason


def test_decide_verdict_reads_its_thresholds_from_the_rules_it_is_given():
    strict = ContextRules(
        sources_expected=True, approve_at=0.9, approve_ungrounded_at=0.95, reject_below=0.8,
        reject_ungrounded_unsourced_below=0.9, instructions="strict",
    )  # fmt: skip
    assert decide_verdict(strict, 0.85, True, True, [])[0] == "needs_improvement"
    assert decide_verdict(strict, 0.79, True, True, [])[0] == "rejected"
    assert decide_verdict(strict, 0.9, True, True, [])[0] == "approved"


# -- overall_score --------------------------------------------------------------------------------------------


def scored(values: dict[str, float | None]) -> list[MetricScore]:
    return [
        MetricScore(metric=k, name=k, score=v, status="scored" if v is not None else "unscored")
        for k, v in values.items()
    ]


@pytest.mark.parametrize(
    ("values", "context", "expected"),
    [
        pytest.param(uniform(0.7), "RAG", 0.7, id="all-0.7-is-exactly-0.7"),
        pytest.param(uniform(0.85), "RAG", 0.85, id="all-0.85-is-exactly-0.85"),
        pytest.param(uniform(0.5), "RAG", 0.5, id="all-0.5-is-exactly-0.5"),
        pytest.param({**uniform(1.0), "relevance": 0.0, "coherence": 0.0}, "RAG", 0.7,
                     id="weights-0.25-0.35-0.10-sum-to-exactly-0.7"),
        pytest.param(uniform(0.7), "DIAGNOSTIC", 0.7, id="diagnostic-renormalized-all-0.7-is-exactly-0.7"),
        pytest.param({**uniform(0.8), "source_attribution": 0.0}, "DIAGNOSTIC", 0.8,
                     id="diagnostic-ignores-source-attribution"),
        pytest.param({**uniform(0.0), "relevance": 1.0, "accuracy": 1.0}, "DIAGNOSTIC", float(Fraction(55, 90)),
                     id="diagnostic-weights-renormalized-over-0.90"),
    ],
)  # fmt: skip
def test_overall_score_is_the_rubric_weighted_mean_in_exact_decimal_arithmetic(values, context, expected):
    result = overall_score(scored(values), RAG_RUBRIC, RULES[context].not_applicable)
    assert result == expected


def test_naive_float_arithmetic_would_have_put_all_0_7_below_the_threshold():
    weights = [m.weight for m in RAG_RUBRIC.metrics]
    assert sum(w * 0.7 for w in weights) / sum(weights) < 0.7  # the bug exact arithmetic avoids
    assert overall_score(scored(uniform(0.7)), RAG_RUBRIC, []) == 0.7


def test_overall_score_is_null_when_a_weighted_dimension_is_unscored():
    assert overall_score(scored({**uniform(0.9), "accuracy": None}), RAG_RUBRIC, []) is None


def test_overall_score_ignores_an_unscored_dimension_that_is_not_applicable():
    values = {**uniform(0.6), "source_attribution": None}
    assert overall_score(scored(values), RAG_RUBRIC, ["source_attribution"]) == 0.6


def test_overall_score_ignores_an_unscored_zero_weight_metric():
    data = RAG_RUBRIC.model_dump()
    data["metrics"][4]["weight"] = 0
    rubric = Rubric.model_validate(data)
    assert overall_score(scored({**uniform(0.6), "coherence": None}), rubric, []) == 0.6


# -- confidence -------------------------------------------------------------------------------------------------


def test_confidence_from_samples_is_one_minus_the_mean_normalized_spread():
    scores = [
        MetricScore(metric="a", name="a", score=0.5, status="scored", spread=0.2),
        MetricScore(metric="b", name="b", score=0.5, status="scored", spread=0.0),
        MetricScore(metric="c", name="c", score=None, status="not_applicable"),
    ]
    assert confidence_of(scores, RAG_RUBRIC, 3, check(confidence=0.1)) == (pytest.approx(0.9), "sample_spread")


def test_confidence_with_one_sample_is_the_judges_stated_one_or_none():
    assert confidence_of([], RAG_RUBRIC, 1, check(confidence=0.4)) == (0.4, "judge_stated")
    assert confidence_of([], RAG_RUBRIC, 1, check(confidence=None)) == (None, None)
    assert confidence_of([], RAG_RUBRIC, 1, None) == (None, None)


# -- a verdict from the claims beside a dimension left unscored ---------------------------------------------


async def test_claims_decide_the_verdict_and_its_reason_says_what_is_unscored() -> None:
    def reply(request: ChatRequest) -> Any:
        if request.messages[0].content == "Answer the question from the document in a few words.":
            return "1889."
        if "Relevance" in request.messages[-1].content:
            return ChatReply(text="Yes", model="", top_logprobs=None)  # no log-probabilities for this one call
        return yes_no(0.95)

    request = JudgeRagAnswerRequest(
        question="When was the Eiffel Tower completed?", answer="The Eiffel Tower was completed in 1889 [1].",
        sources=[Passage(content="The Eiffel Tower was completed in 1889 as the entrance arch of a World's Fair.")],
    )  # fmt: skip
    result = await judge_rag_answer(request, make_deps(ScriptedBackend(default=reply, probabilities=True)))
    assert result.verdict == "approved" and result.overall_score is None
    assert "no overall score: relevance unscored (no_logprobs)" in result.verdict_reason


def test_an_answer_without_an_overall_ranks_below_those_of_its_verdict_and_above_worse_verdicts() -> None:
    order = sorted(
        [("rejected", 0.4), ("approved", None), ("approved", 0.8), ("unscored", None)],
        key=lambda item: ranking(item[0], item[1], None),
    )
    assert order == [("approved", 0.8), ("approved", None), ("rejected", 0.4), ("unscored", None)]
