"""What the evaluation ledger may do with each tool's result: serve it again from the cache, record its parts.

A judgment is served again only when it is complete (nothing unscored, no failure, no fallback text); refinement
loops never are (not idempotent); batches and loops record their items as child rows. Read by
tools/ledger_calls.py, which wraps each tool call.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

from pydantic import BaseModel

from gavel.tools.common import ToolResult


def _never(result: Any) -> bool:
    return False


def _no_children(result: Any) -> list[ToolResult]:
    return []


@dataclass(frozen=True)
class Policy:
    """How the ledger treats one result type."""

    # May an identical request be answered from the ledger? (refine_until_pass: no, it is not idempotent.)
    cacheable: bool
    # The rubric a request without `rubric`/`custom_rubric` is judged on (its version and text enter the key).
    default_rubric: str | None = None
    # Whether this judgment may be served again: only complete ones; an unscored or failed one never is.
    servable: Callable[[Any], bool] = _never
    # Nested judgments recorded as child rows, each with an evaluation_id of its own.
    children: Callable[[Any], list[ToolResult]] = _no_children
    # The field holding nested judgments that are marked cached when the whole result is served.
    served_children: str | None = None


RECORD_ONLY = Policy(cacheable=False)


def _rag_complete(result: Any) -> bool:
    metrics = [*result.dimensions(), *result.other_metrics]
    return (
        result.verdict != "unscored"
        and result.error is None
        and result.grounding_error is None
        and all(m.status != "unscored" for m in metrics)
    )


# Warnings score_candidates gives when a model call failed and a fallback was used (see tools/candidates.py).
_CANDIDATE_FAILURES = ("narrative explanation failed", "key points could not be produced")


def _candidates_complete(result: Any) -> bool:
    return (
        not result.unscored
        and all(item.explanation_source != "template_fallback" for item in result.selected)
        and not any(w.startswith(_CANDIDATE_FAILURES) for w in result.warnings)
    )


@cache
def _policies() -> dict[type[BaseModel], Policy]:
    # Imported here: the ledger's store and CLI readers do not need the tools loaded.
    from gavel.tools import assessment, candidates, rag, refine

    return {
        assessment.EvaluationResult: Policy(
            cacheable=True, default_rubric=assessment.DEFAULT_RUBRIC, servable=lambda r: r.passed is not None
        ),
        refine.RefinementResult: Policy(cacheable=False, children=lambda r: [item.evaluation for item in r.history]),
        rag.RagJudgment: Policy(cacheable=True, default_rubric=rag.DEFAULT_RUBRIC, servable=_rag_complete),
        rag.RagBatchResult: Policy(
            cacheable=True,
            default_rubric=rag.DEFAULT_RUBRIC,
            servable=lambda r: all(_rag_complete(item) for item in r.results),
            children=lambda r: list(r.results),
            served_children="results",
        ),
        candidates.ScoreCandidatesResult: Policy(cacheable=True, servable=_candidates_complete),
    }


def policy_for(result_model: type[BaseModel]) -> Policy:
    return _policies().get(result_model, RECORD_ONLY)
