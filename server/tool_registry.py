"""Gavel's tools as the server registers them: their table (`TOOLS`) and `register_all_tools`.

`gavel.server.app.build_server` registers them through `gavel.server.tool_listing`, which lists them from a stored
listing and registers them at their first use. The descriptions are what an agent's model reads to decide when to
call a tool, so they say what the tool does, when to use it, and the limits that apply.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp_types import ToolAnnotations
from pydantic import BaseModel

from gavel.server.boundary import DepsFactory, RequestT, ResultT, ToolSpec, publish
from gavel.server.call_deps import GavelDeps
from gavel.server.settings import Settings
from gavel.server.tool_limits import described
from gavel.tools import assessment, candidates, rag, refine
from gavel.tools.calibration import models as calibration
from gavel.tools.common import Limits
from gavel.tools.deps import Later, Tool


def _judging(
    name: str,
    title: str,
    description: str,
    request_model: type[RequestT],
    result_model: type[ResultT],
    impl: Tool[RequestT, Any, ResultT],
    *,
    task_when: Callable[[RequestT], bool] | None = None,
) -> ToolSpec[RequestT, ResultT]:
    """A tool that only judges, given in ToolSpec's field order: its request is prepared up front, and it is
    idempotent (a repeated call changes nothing more)."""
    return ToolSpec(name, title, description, request_model, result_model, impl, idempotent=True, task_when=task_when)


# Which calls run as MCP tasks for a client that opted in: those that take minutes on a local model.
def _always(request: BaseModel) -> bool:
    return True


def _with_rubric(request: candidates.ScoreCandidatesRequest) -> bool:
    # Without a rubric every criterion is a number and the selection takes milliseconds.
    return request.rubric is not None or request.custom_rubric is not None


# The tools whose code (and the engine under it) is imported at their first call; `gavel eval` runs the same.
RAG_ANSWER = Later("gavel.tools.rag.orchestration", "judge_rag_answer")
RAG_ANSWERS = Later("gavel.tools.rag.orchestration", "judge_rag_answers")
SCORE_CANDIDATES = Later("gavel.tools.candidates.orchestration", "score_candidates")

# The tools, in the order clients list them.
TOOLS: tuple[ToolSpec[Any, Any], ...] = (
    _judging(
        "evaluate_assessment",
        "Evaluate a text against a rubric",
        "Score a text against a rubric's metrics with a local judge, optionally against its source: a "
        "score and reasoning per metric, the average, the low metrics, whether all pass. Unscorable metrics "
        "are 'unscored', never guessed.",
        assessment.EvaluateAssessmentRequest,
        assessment.EvaluationResult,
        assessment.evaluate_assessment,
    ),
    ToolSpec(
        name="refine_until_pass",
        title="Improve a text until it passes a rubric",
        description=(
            "Judge a draft against a rubric, revise it from feedback on the low metrics and judge again until all "
            "pass or the iterations run out (without a draft, one is written first)."
        ),
        request_model=refine.RefineUntilPassRequest,
        result_model=refine.RefinementResult,
        impl=refine.refine_until_pass,
        task_when=_always,
    ),
    _judging(
        "judge_rag_answer",
        "Judge a RAG answer against its sources",
        "Judge an answer against its passages: relevance, completeness, accuracy, attribution, coherence "
        "(0-1), overall score, grounding, a verdict and what to fix. Text aimed at the judge is flagged.",
        rag.JudgeRagAnswerRequest,
        rag.RagJudgment,
        RAG_ANSWER,
    ),
    _judging(
        "judge_rag_answers",
        "Judge and rank several answers to one question",
        "Judge several answers to one question against the same passages, each as judge_rag_answer does, and "
        "rank them, naming the best approved one.",
        rag.JudgeRagAnswersRequest,
        rag.RagBatchResult,
        RAG_ANSWERS,
        task_when=_always,
    ),
    _judging(
        "score_candidates",
        "Score and select among candidates",
        "Choose top_k among candidates: weighted scores from their numbers, "
        "diverse picks, an explanation each. No model when every weighted criterion is a number; with a "
        "rubric the judge scores the rest from their text.",
        candidates.ScoreCandidatesRequest,
        candidates.ScoreCandidatesResult,
        SCORE_CANDIDATES,
        task_when=_with_rubric,
    ),
    ToolSpec(
        name="calibrate_judge",
        title="Calibrate the judge",
        description=(
            "Measure the judge on a labelled set: balanced accuracy, AUROC (95% CIs). Verdicts then carry it as "
            "judge_fitness. Slow: small limit."
        ),
        request_model=calibration.CalibrateJudgeRequest,
        result_model=calibration.CalibrationReport,
        impl=Later("gavel.tools.calibration.measure", "calibrate_judge"),
        # Not read-only: its calibration shapes later verdicts (judge_fitness, the calibrated cut). Each call adds a
        # calibration, superseding the one before for that judge without deleting it: not destructive, not idempotent.
        annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False),
        keeps_records=True,
        task_when=_always,
    ),
)


def register_all_tools(server: MCPServer[Any], deps_factory: DepsFactory, limits: Limits | None = None) -> None:
    """Gavel's tools, registered now (`gavel.server.tool_listing.register_later` defers this to their first use)."""
    publish_all(server, TOOLS, deps_factory, limits or Settings().limits())


def publish_all(
    server: MCPServer[Any], specs: Sequence[ToolSpec[Any, Any]], deps_factory: DepsFactory, limits: Limits | None
) -> None:
    """Publish `specs`, each description with the limits that apply to it (without, for `limits` None)."""
    # Sampling on the 2026-07-28 protocol needs to know, per call, whether the client's model will be used.
    uses_sampling = deps_factory.uses_sampling if isinstance(deps_factory, GavelDeps) else None
    for spec in specs:
        if limits is not None:
            spec = replace(spec, description=described(spec.name, spec.description, limits))
        publish(server, spec, deps_factory, uses_sampling)
