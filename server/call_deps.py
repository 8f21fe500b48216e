"""How each tool call gets its `ToolDeps`: `make_deps_factory`, called once at start-up by `gavel serve`.

The engine (the backend provider, the judge) is imported at the first call that needs a model: a start and a
tools/list never do.
"""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING, Any

from mcp.server.mcpserver import Context
from pydantic import BaseModel

from gavel.server.client_sampling import client_can_sample, replay_active, sampling_backend_for
from gavel.server.settings import Settings
from gavel.tools.deps import ToolDeps
from gavel.tools.rubric_registry import RubricRegistry

if TYPE_CHECKING:
    from gavel.tools.engine.backend import Backend
    from gavel.tools.engine.fitness import FitnessSource
    from gavel.tools.engine.judge import Judge
    from gavel.tools.engine.memo import MemoBackend
    from gavel.tools.engine.progress import Progress, ProgressFn
    from gavel.tools.engine.provider import BackendProvider


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
        from gavel.server.logging import structlog_ready
        from gavel.tools.engine.provider import BackendProvider

        structlog_ready()  # the engine logs through structlog

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
