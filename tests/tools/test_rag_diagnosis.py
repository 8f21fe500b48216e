"""Where a RAG answer went wrong (retrieval or the answer), read from the judgment without the model."""

from __future__ import annotations

from typing import Any

import pytest

from gavel.tools.rag.diagnosis import diagnose, question_terms_in_passages
from gavel.tools.rag.grounding import GroundingCheck
from gavel.tools.rubric_registry import RubricRegistry
from tests.support.rag_cases import GROUNDED

REGISTRY = RubricRegistry.load()
RAG_RUBRIC = REGISTRY.get("rag-answer")
RULES = RAG_RUBRIC.contexts


# -- diagnose ---------------------------------------------------------------------------------------------------


def check(**changes: Any) -> GroundingCheck:
    return GroundingCheck(**{**GROUNDED, **changes})


@pytest.mark.parametrize(
    ("verdict", "context", "sources", "grounding_check", "accuracy", "expected"),
    [
        pytest.param("approved", "RAG", 2, check(), 0.9, "ok", id="approved-is-ok"),
        pytest.param("rejected", "RAG", 0, None, 0.2, "retrieval_miss", id="rag-no-passages"),
        pytest.param("rejected", "RAG", 2, check(passages_relevant=False, is_grounded=False), 0.2, "retrieval_miss",
                     id="rag-irrelevant-passages"),
        pytest.param("needs_improvement", "TOOLS", 2, check(passages_relevant=False), 0.9, "retrieval_miss",
                     id="tools-irrelevant-tool-output"),
        pytest.param("needs_improvement", "RAG", 2, check(is_grounded=False), 0.6, "unsupported_by_context",
                     id="rag-ungrounded-without-contradiction"),
        pytest.param("rejected", "RAG", 2, check(is_grounded=False, contradicts_passages=True), 0.2, "answer_miss",
                     id="rag-contradicts-relevant-passages"),
        pytest.param("rejected", "RAG", 2, check(passages_relevant=False, is_grounded=False, contradicts_passages=True),
                     0.0, "answer_miss", id="rag-contradiction-outweighs-a-judged-irrelevance"),
        pytest.param("needs_improvement", "RAG", 2, check(), 0.4, "answer_miss", id="rag-grounded-but-low-accuracy"),
        pytest.param("needs_improvement", "RAG", 2, check(), 0.9, "ok", id="rag-quality-problem-elsewhere"),
        pytest.param("unscored", "RAG", 2, None, None, "undetermined", id="rag-unscored-is-not-ok"),
        pytest.param("rejected", "DIAGNOSTIC", 0, None, 0.2, "ok", id="diagnostic-without-passages-is-not-retrieval"),
        pytest.param("needs_improvement", "DIAGNOSTIC", 2, check(is_grounded=False), 0.9, "ok",
                     id="diagnostic-ungrounded-is-expected"),
        pytest.param("rejected", "DIAGNOSTIC", 2, check(is_grounded=False, contradicts_passages=True), 0.3,
                     "answer_miss", id="diagnostic-contradicting-background"),
    ],
)  # fmt: skip
def test_diagnose(verdict, context, sources, grounding_check, accuracy, expected):
    diagnosis, reason = diagnose(
        verdict=verdict, rules=RULES[context], source_count=sources, grounding=grounding_check, accuracy=accuracy,
        pass_threshold=RAG_RUBRIC.pass_threshold,
    )  # fmt: skip
    assert diagnosis == expected
    assert reason


@pytest.mark.parametrize(
    ("grounding_check", "accuracy", "on_topic", "expected"),
    [
        pytest.param(check(passages_relevant=False, is_grounded=False), 0.0, 0.75, "unsupported_by_context",
                     id="judged-irrelevant-but-on-topic-is-not-a-retrieval-miss"),
        pytest.param(check(passages_relevant=False), 0.2, 0.75, "answer_miss",
                     id="judged-irrelevant-but-on-topic-with-low-accuracy-is-an-answer-miss"),
        pytest.param(check(passages_relevant=False, is_grounded=False), 0.0, 0.25, "retrieval_miss",
                     id="judged-irrelevant-and-off-topic-is-a-retrieval-miss"),
    ],
)  # fmt: skip
def test_passages_holding_most_of_the_questions_terms_are_not_blamed_on_retrieval(
    grounding_check, accuracy, on_topic, expected
):
    diagnosis, _ = diagnose(
        verdict="rejected", rules=RULES["RAG"], source_count=1, grounding=grounding_check, accuracy=accuracy,
        pass_threshold=RAG_RUBRIC.pass_threshold, on_topic=on_topic,
    )  # fmt: skip
    assert diagnosis == expected


@pytest.mark.parametrize(
    ("question", "passages", "expected"),
    [
        pytest.param("When was the Eiffel Tower completed?", "The Eiffel Tower was completed in 1889.", 1.0,
                     id="every-term-present"),
        pytest.param("When was the Eiffel Tower completed?", "Bananas grow in tropical climates.", 0.0,
                     id="no-term-present"),
        pytest.param("Why was it built?", None, 0.0, id="no-passages"),
        pytest.param("What is it?", "Anything at all.", 0.0, id="a-question-of-stopwords-only"),
    ],
)  # fmt: skip
def test_question_terms_in_passages(question, passages, expected):
    assert question_terms_in_passages(question, passages) == expected
