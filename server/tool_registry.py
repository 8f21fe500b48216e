"""Where the tools are registered on the server, and how each call gets its `ToolDeps`.

`gavel.server.app.build_server` calls `register_all_tools`; `gavel.server.cli` calls `make_deps_factory`
once at start-up. The descriptions are what an agent's model reads to decide when to call a tool, so
they say what the tool does, when to use it, and the limits that apply.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from pydantic import BaseModel

from gavel.server.boundary import DepsFactory, ToolSpec, judging_annotations, publish
from gavel.server.sampling import client_can_sample, replay_active, sampling_backend_for
from gavel.server.settings import Settings
from gavel.tools import assessment, candidates, rag, refine
from gavel.tools.deps import ProgressFn, ToolDeps
from gavel.tools.engine.backend import Backend
from gavel.tools.engine.config import Limits
from gavel.tools.engine.judge import Judge
from gavel.tools.engine.memo import MemoBackend
from gavel.tools.engine.select import BackendProvider
from gavel.tools.rubrics import RubricRegistry


def _limits_note(limits: Limits) -> str:
    return (
        f"Limits: each text field at most {limits.max_text_chars:,} characters, at most {limits.max_sources} "
        f"sources, {limits.max_batch} answers per batch, {limits.max_candidates:,} candidates, samples 1-"
        f"{limits.max_samples}, at most {limits.max_iterations} iterations of refine_until_pass. All model work of "
        f"one call ends after {limits.call_deadline_s:g} s (GAVEL_CALL_DEADLINE_S), and once a model call has timed "
        "out the rest of the call is unscored with the reason instead of waiting again."
    )


# The tools, in the order clients list them.
TOOLS: tuple[ToolSpec[Any, Any], ...] = (
    ToolSpec(
        name="evaluate_assessment",
        title="Evaluate a text against a rubric",
        description=(
            "Score a text (an assessment, a summary, a report) against a rubric's metrics with a local judge "
            "model, optionally comparing it with the source it was written from. Returns one score per metric "
            "with the judge's reasoning, the average, the low metrics and whether every metric passes. A metric "
            "the judge could not score is reported as 'unscored' (passed is then null), never guessed. Use it to "
            "check your own or another model's output before you hand it on. Rubrics: read rubric://index."
        ),
        request_model=assessment.EvaluateAssessmentRequest,
        result_model=assessment.EvaluationResult,
        impl=assessment.evaluate_assessment,
        check=assessment.check_evaluation,
        idempotent=True,
    ),
    ToolSpec(
        name="refine_until_pass",
        title="Improve a text until it passes a rubric",
        description=(
            "Judge a draft against a rubric, give the writer feedback on the low metrics, revise, and judge "
            "again, until every metric reaches the threshold or the iteration budget ends. Without a draft, a "
            "first version is written from the task and source. The rewriting model is the server's "
            "(generator='server') or yours through MCP sampling (generator='sampling'). Returns the final and the "
            "best text with their evaluations, why the loop stopped, and every iteration. Sends a progress "
            "notification per iteration."
        ),
        request_model=refine.RefineUntilPassRequest,
        result_model=refine.RefinementResult,
        impl=refine.refine_until_pass,
    ),
    ToolSpec(
        name="judge_rag_answer",
        title="Judge a RAG answer against its sources",
        description=(
            "Judge an answer produced from retrieved passages: relevance, completeness, accuracy (faithfulness "
            "to the passages), source attribution and coherence on 0-1, an overall score computed by Gavel, "
            "whether the answer cites sources and is grounded, a verdict (approved / needs_improvement / "
            "rejected, or unscored when the judge could not decide) and a diagnosis of what to fix (the answer, "
            "or the retrieval upstream). evaluation_context: RAG (default), TOOLS (passages are tool outputs) or "
            "DIAGNOSTIC (no retrieval; sources are not expected). Text in the answer or passages that tries to "
            "instruct the judge is flagged."
        ),
        request_model=rag.JudgeRagAnswerRequest,
        result_model=rag.RagJudgment,
        impl=rag.judge_rag_answer,
        check=rag.check_rag_answer,
        idempotent=True,
    ),
    ToolSpec(
        name="judge_rag_answers",
        title="Judge and rank several answers to one question",
        description=(
            "Judge several agents' answers to the same question against the same passages, concurrently, and "
            "rank them by overall score (unscored last), naming the best approved answer. Each answer gets the "
            "full judge_rag_answer judgment; one answer's failure does not lose the others. Sends a progress "
            "notification per judged answer."
        ),
        request_model=rag.JudgeRagAnswersRequest,
        result_model=rag.RagBatchResult,
        impl=rag.judge_rag_answers,
        check=rag.check_rag_answers,
        idempotent=True,
        annotations=judging_annotations(idempotent=True, title="Judge and rank several answers"),
    ),
    ToolSpec(
        name="score_candidates",
        title="Score and select among candidates",
        description=(
            "Choose among candidates (tracks, search hits, patches, plans, ideas): weighted multi-criteria "
            "scoring from the numbers the candidates carry, diversity-aware top-k selection (e.g. two genres and "
            "two eras among the picks), an explanation per pick and a reasoning log. Deterministic and instant "
            "when every weighted criterion is given as a number. With a rubric (e.g. idea-quality), criteria a "
            "candidate has no number for are scored by the judge from its text; accept_threshold rejects weak "
            "candidates with reasons, and accepted picks get key points."
        ),
        request_model=candidates.ScoreCandidatesRequest,
        result_model=candidates.ScoreCandidatesResult,
        impl=candidates.score_candidates,
        check=candidates.check_candidates,
        idempotent=True,
    ),
)


def register_all_tools(server: MCPServer[Any], deps_factory: DepsFactory, limits: Limits | None = None) -> None:
    note = _limits_note(limits or Limits())
    # Sampling on the 2026-07-28 protocol needs to know, per call, whether the client's model will be used.
    uses_sampling = deps_factory.uses_sampling if isinstance(deps_factory, GavelDeps) else None
    for spec in TOOLS:
        publish(server, replace(spec, description=f"{spec.description} {note}"), deps_factory, uses_sampling)


class GavelDeps:
    """Builds each call's `ToolDeps` from the process's one backend provider."""

    def __init__(self, settings: Settings, registry: RubricRegistry) -> None:
        self.settings = settings
        self.registry = registry
        self.limits = settings.limits()
        self.provider = BackendProvider(settings.engine_config())
        self._memo: MemoBackend | None = None

    def _memoized(self, backend: Backend) -> Backend:
        if self._memo is None or self._memo.inner is not backend:
            self._memo = MemoBackend(backend)
        return self._memo

    async def uses_sampling(self, ctx: Context[Any, Any], request: BaseModel) -> bool:
        """Whether this call would sample the client (decides whether the 2026-07-28 replay slots run)."""
        if getattr(request, "generator", None) == "sampling":
            return True
        return await self.provider.would_use(client_can_sample=client_can_sample(ctx)) == "sampling"

    def __call__(self, ctx: Context[Any, Any], progress: ProgressFn) -> ToolDeps:
        sampling = sampling_backend_for(ctx, self.settings.timeout_s)
        provider = self.provider

        async def judge() -> Judge:
            judge = await provider.judge(sampling=sampling)
            if replay_active() and judge.backend.name != "sampling":
                # Replays of a 2026-07-28 sampling call re-run the tool: the server model's answers are reused.
                judge.backend = self._memoized(judge.backend)
            return judge

        sampling_judge = None
        if sampling is not None:

            async def sampling_judge() -> Judge:
                return Judge(sampling, provider.config, provider.limiter, strategy="joint")

        return ToolDeps(
            registry=self.registry,
            limits=self.limits,
            judge_factory=judge,
            progress=progress,
            sampling_judge_factory=sampling_judge,
        )

    async def aclose(self) -> None:
        await self.provider.aclose()


def make_deps_factory(settings: Settings, registry: RubricRegistry) -> GavelDeps:
    return GavelDeps(settings, registry)
