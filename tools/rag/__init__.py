"""`judge_rag_answer` and `judge_rag_answers`: verdicts on answers of retrieval-augmented agents.

The model scores the rubric's dimensions and makes the grounding check; everything else is decided by Gavel,
deterministically: which sources the answer cites, the overall score (the rubric-weighted mean, in exact
decimal arithmetic), the verdict (the rubric's per-context rules), the diagnosis, the issues, and the
prompt-injection check. A decision the model did not make is never filled in: it is `unscored`, with the
reason, unless the verdict provably does not depend on it.

One request, in order: requests (what is accepted) → prepare (checks, shared material) → model_part (the model's
part: generated via grounding, or per sentence via sentence_support) → assemble (citations, rules, diagnosis,
issues) → verdicts and render (what is returned and how it reads). orchestration runs the two tools.
"""

from typing import TYPE_CHECKING, Any

from gavel.tools.rag.requests import (
    DEFAULT_RUBRIC,
    AgentAnswer,
    JudgeRagAnswerRequest,
    JudgeRagAnswersRequest,
    Passage,
)
from gavel.tools.rag.verdicts import RagBatchResult, RagJudgment

if TYPE_CHECKING:
    from gavel.tools.rag.orchestration import judge_rag_answer, judge_rag_answers

_TOOLS = ("judge_rag_answer", "judge_rag_answers")


def __getattr__(name: str) -> Any:
    # The tools' code (and the engine under it) is imported at first use: a server lists its tools from the request
    # and result models alone.
    if name in _TOOLS:
        from gavel.tools.rag import orchestration

        return getattr(orchestration, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "DEFAULT_RUBRIC",
    "AgentAnswer",
    "JudgeRagAnswerRequest",
    "JudgeRagAnswersRequest",
    "Passage",
    "RagBatchResult",
    "RagJudgment",
    "judge_rag_answer",
    "judge_rag_answers",
]
