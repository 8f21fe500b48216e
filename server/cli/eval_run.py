"""The run behind `gavel eval`: every item of a dataset judged by one tool, through the evaluation ledger.

Each item is one call of the tool as the MCP boundary makes it: its arguments validated with the boundary's own
messages, the tool's prepare step, then the ledger (an item judged identically before is served from it, counted as
cached; a new judgment is recorded with its evaluation_id). Items run one after another: the configured model
serves one process, and the engine already spreads one call's work within its limiter.

An item that fails (invalid arguments, a refusal, a model error) becomes a row with its error: the run goes on.
Each row is handed to `on_row` as soon as it is judged, so a run stopped half-way keeps what it judged.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ValidationError

from gavel.server.ledger_calls import new_evaluation_id, through_ledger
from gavel.server.logging import get_logger
from gavel.tools import assessment, candidates, rag, refine
from gavel.tools.common import ToolResult
from gavel.tools.deps import Later, ToolDeps, steps
from gavel.tools.errors import GavelError, caller_errors, leaves
from gavel.tools.evaluation.dataset import DataItem
from gavel.tools.evaluation.figures import headline
from gavel.tools.ledger import Ledger

log = get_logger("gavel.eval")

OnRow = Callable[[dict[str, Any]], Awaitable[None]]


@dataclass(frozen=True)
class EvalTool:
    """A tool as `gavel eval` runs it: the same models and implementation the server publishes
    (gavel.server.tool_registry.TOOLS; a test keeps them equal). Its own table, not that one: the registry imports
    the MCP SDK, a second of every run's start that a rerun served from the ledger would mostly be."""

    name: str
    request_model: type[BaseModel]
    result_model: type[ToolResult]
    impl: Callable[[Any, ToolDeps], Awaitable[Any]]


EVAL_TOOLS: dict[str, EvalTool] = {
    tool.name: tool
    for tool in (
        EvalTool("evaluate_assessment", assessment.EvaluateAssessmentRequest, assessment.EvaluationResult,
                 assessment.evaluate_assessment),
        EvalTool("refine_until_pass", refine.RefineUntilPassRequest, refine.RefinementResult, refine.refine_until_pass),
        EvalTool("judge_rag_answer", rag.JudgeRagAnswerRequest, rag.RagJudgment,
                 Later("gavel.tools.rag.orchestration", "judge_rag_answer")),
        EvalTool("judge_rag_answers", rag.JudgeRagAnswersRequest, rag.RagBatchResult,
                 Later("gavel.tools.rag.orchestration", "judge_rag_answers")),
        EvalTool("score_candidates", candidates.ScoreCandidatesRequest, candidates.ScoreCandidatesResult,
                 Later("gavel.tools.candidates.orchestration", "score_candidates")),
    )
}  # fmt: skip


async def judge_item(spec: EvalTool, item: DataItem, deps: ToolDeps, ledger: Ledger | None) -> dict[str, Any]:
    """One item's results.jsonl row: its result and evaluation_id, or its error."""
    started = time.perf_counter()
    row: dict[str, Any] = {"id": item.id, "line": item.line}
    if item.extra:
        row["extra"] = item.extra
    if item.error is not None:
        return row | _error("unreadable", item.error, started)
    try:
        request = spec.request_model.model_validate(item.arguments)
    except ValidationError as exc:
        # The boundary's wording, so an item is refused as the same call over MCP would be. It imports the SDK:
        # only a run with an invalid item pays for that.
        from gavel.server.arguments import format_validation_error

        return row | _error("invalid", format_validation_error(exc, spec.request_model), started)
    try:
        if ledger is None:
            result, structured = await spec.impl(request, deps), None
        else:
            tool = steps(spec.impl)
            prepared = await tool.prepare(request, deps)
            result, structured = await through_ledger(
                ledger, tool=spec.name, prepared=prepared, result_model=spec.result_model,
                evaluation_id=new_evaluation_id(), run=lambda tracked: tool.run(prepared, tracked), deps=deps,
            )  # fmt: skip
    except GavelError as exc:
        return row | _error("refused", str(exc), started)
    except BaseExceptionGroup as group:
        # Concurrent work that failed only with errors written for the caller: refused with them, as at the boundary.
        errors = caller_errors(group)
        if not errors:
            log.exception("an item failed unexpectedly", item=item.id)
            return row | _error("failed", _describe(group), started)
        return row | _error("refused", "; ".join(dict.fromkeys(str(error) for error in errors)), started)
    except Exception as exc:  # one item's failure is that item's row; the traceback goes to the log
        log.exception("an item failed unexpectedly", item=item.id)
        return row | _error("failed", _describe(exc), started)
    if structured is None:
        structured = result.model_dump(mode="json", by_alias=True)
    line = headline(spec.name, {"result": structured})
    return row | {
        "evaluation_id": getattr(result, "evaluation_id", None),
        "cached": bool(getattr(result, "cached", False)),
        "score": line.score,
        "verdict": line.verdict,
        "seconds": round(time.perf_counter() - started, 3),
        "result": structured,
    }


def _describe(exc: BaseException) -> str:
    """An unexpected failure in one line: each distinct error behind it (a group's leaves), type and message."""
    return "; ".join(dict.fromkeys(f"{type(leaf).__name__}: {leaf}" for leaf in leaves(exc)))


def _error(kind: str, message: str, started: float) -> dict[str, Any]:
    return {
        "evaluation_id": None, "error_kind": kind, "error": message, "score": None, "verdict": "error",
        "seconds": round(time.perf_counter() - started, 3),
    }  # fmt: skip


async def run_items(
    spec: EvalTool, items: list[DataItem], deps: ToolDeps, ledger: Ledger | None, on_row: OnRow
) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for item in items:
        rows.append(await judge_item(spec, item, deps, ledger))
        await on_row(rows[-1])
    return rows
