"""Where the tools are registered on the server, and how each call gets its `ToolDeps`.

`gavel.server.app.build_server` calls `register_all_tools`; `gavel.server.cli` calls `make_deps_factory`
once at start-up. The descriptions are what an agent's model reads to decide when to call a tool, so
they say what the tool does, when to use it, and the limits that apply.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from functools import cached_property
from typing import TYPE_CHECKING, Any

from mcp.server.mcpserver import Context, MCPServer
from pydantic import BaseModel

from gavel.server.boundary import DepsFactory, RequestT, ResultT, ToolSpec, publish
from gavel.server.client_sampling import client_can_sample, replay_active, sampling_backend_for
from gavel.server.settings import Settings
from gavel.tools import assessment, candidates, rag, refine
from gavel.tools.calibration import models as calibration
from gavel.tools.common import Limits
from gavel.tools.deps import Later, ProgressFn, Tool, ToolDeps
from gavel.tools.rubrics import RubricRegistry

if TYPE_CHECKING:
    from gavel.tools.engine.backend import Backend
    from gavel.tools.engine.fitness import FitnessSource
    from gavel.tools.engine.judge import Judge
    from gavel.tools.engine.memo import MemoBackend
    from gavel.tools.engine.progress import Progress
    from gavel.tools.engine.provider import BackendProvider

# How each configured limit is stated to the agent's model, and which tools state which: only those they apply.
_LIMIT_PHRASES: dict[str, Callable[[Limits], str]] = {
    "max_text_chars": lambda limits: f"{limits.max_text_chars:,} characters per text field",
    "max_sources": lambda limits: f"{limits.max_sources} sources",
    "max_batch": lambda limits: f"{limits.max_batch} answers",
    "max_candidates": lambda limits: f"{limits.max_candidates:,} candidates",
    "max_samples": lambda limits: f"samples 1-{limits.max_samples}",
    "max_iterations": lambda limits: f"{limits.max_iterations} iterations",
}
_LIMITS_OF = {
    "evaluate_assessment": ("max_text_chars", "max_samples"),
    "refine_until_pass": ("max_text_chars", "max_samples", "max_iterations"),
    "judge_rag_answer": ("max_text_chars", "max_sources", "max_samples"),
    "judge_rag_answers": ("max_text_chars", "max_sources", "max_batch", "max_samples"),
    "score_candidates": ("max_candidates", "max_text_chars", "max_samples"),
}


def limits_note(limits: Limits, tool: str) -> str:
    stated = [_LIMIT_PHRASES[name](limits) for name in _LIMITS_OF.get(tool, ())]
    return f"Limits: {', '.join([*stated, f'{limits.call_deadline_s:g} s per call'])}."


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
        "Score a text against a rubric's metrics with a local judge model, optionally against its source: a "
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
            "pass or the iterations run out (without a draft, one is written first). Returns the final and best "
            "texts and every iteration."
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
        "(0-1), overall score, grounding, a verdict (approved, needs_improvement, rejected, unscored) and "
        "what to fix. Text aimed at the judge is flagged.",
        rag.JudgeRagAnswerRequest,
        rag.RagJudgment,
        RAG_ANSWER,
    ),
    _judging(
        "judge_rag_answers",
        "Judge and rank several answers to one question",
        "Judge several answers to one question against the same passages and rank them, naming the best "
        "approved one. Each gets judge_rag_answer's judgment.",
        rag.JudgeRagAnswersRequest,
        rag.RagBatchResult,
        RAG_ANSWERS,
        task_when=_always,
    ),
    _judging(
        "score_candidates",
        "Score and select among candidates",
        "Choose top_k among candidates (tracks, hits, patches, ideas): weighted scores from their numbers, "
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
        keeps_records=True,
        task_when=_always,
    ),
)


def register_all_tools(server: MCPServer[Any], deps_factory: DepsFactory, limits: Limits | None = None) -> None:
    limits = limits or Settings().limits()
    # Sampling on the 2026-07-28 protocol needs to know, per call, whether the client's model will be used.
    uses_sampling = deps_factory.uses_sampling if isinstance(deps_factory, GavelDeps) else None
    for spec in TOOLS:
        # calibrate_judge states no limits: it takes no text of the caller's, and each item has its own deadline.
        if spec.name in _LIMITS_OF:
            spec = replace(spec, description=f"{spec.description} {limits_note(limits, spec.name)}")
        publish(server, spec, deps_factory, uses_sampling)


class GavelDeps:
    """Builds each call's `ToolDeps` from the process's one backend provider."""

    def __init__(self, settings: Settings, registry: RubricRegistry) -> None:
        self.settings = settings
        self.registry = registry
        self.limits = settings.limits()
        # Read now, so a bad engine setting is refused at start; the provider it configures is built at first use.
        self._engine_config = settings.engine_config()
        self._memo: MemoBackend | None = None

    @cached_property
    def provider(self) -> BackendProvider:
        # The engine is imported here, at the first call that needs it: a start and a tools/list never do.
        from gavel.tools.engine.provider import BackendProvider

        return BackendProvider(self._engine_config)

    def _memoized(self, backend: Backend) -> Backend:
        if self._memo is None or self._memo.inner is not backend:
            from gavel.tools.engine.memo import MemoBackend

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

        async def judge(*, progress: Progress, fitness: FitnessSource | None) -> Judge:
            # Replays of a 2026-07-28 sampling call re-run the tool: the server model's answers are reused.
            memo = self._memoized if replay_active() else None
            return await provider.judge(sampling=sampling, progress=progress, fitness=fitness, wrap=memo)

        sampling_judge = None
        if sampling is not None:

            async def sampling_judge(*, progress: Progress, fitness: FitnessSource | None) -> Judge:
                from gavel.tools.engine.judge import Judge

                return Judge(
                    sampling, provider.config, provider.limiter, strategy="joint", progress=progress, fitness=fitness
                )

        return ToolDeps(
            registry=self.registry,
            limits=self.limits,
            judge_factory=judge,
            progress=progress,
            sampling_judge_factory=sampling_judge,
        )

    async def aclose(self) -> None:
        if "provider" in self.__dict__:  # never built: no call needed a model
            await self.provider.aclose()


def make_deps_factory(settings: Settings, registry: RubricRegistry) -> GavelDeps:
    return GavelDeps(settings, registry)
