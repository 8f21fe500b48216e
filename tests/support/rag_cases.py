"""The RAG tests' shared case: a question, its passages, a good answer, and a grounding check that finds it
grounded."""

from __future__ import annotations

from typing import Any

from gavel.tools.rag import Passage

QUESTION = "What are the four perspectives of the Balanced Scorecard?"
PASSAGES = [
    Passage(
        id="S1",
        title="Kaplan & Norton 1996",
        content="The BSC has four perspectives: financial, customer, internal processes, and learning and growth.",
    ),
    Passage(id="S2", title="Strategy Maps", content="Strategy maps link the four perspectives by cause and effect."),
]
GOOD_ANSWER = "Financial, customer, internal processes, and learning and growth [S1]."

GROUNDED: dict[str, Any] = {
    "reasoning": "Every perspective named is in passage 1.",
    "passages_relevant": True,
    "is_grounded": True,
    "contradicts_passages": False,
    "unsupported_claims": [],
    "confidence": 0.9,
}
