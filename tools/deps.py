"""What a tool implementation receives besides its request: the contract between `server/` and `tools/`.

Every tool is `async def tool(request: XRequest, deps: ToolDeps) -> XResult`; a judging tool is a `Tool`, that
call as two steps, `prepare` then `run`, so the server can look up the ledger between them. The server builds the
request from the flat MCP arguments, builds `ToolDeps` for the call, and translates `GavelError` into
`ToolError` once, at the boundary.
"""

from __future__ import annotations

import importlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar, cast

from gavel.tools.common import Limits
from gavel.tools.rubric_registry import RubricRegistry
from gavel.tools.rubrics import Rubric

if TYPE_CHECKING:
    from pydantic import BaseModel

    from gavel.tools.common import ToolResult
    from gavel.tools.engine.fitness import FitnessSource
    from gavel.tools.engine.judge import Judge
    from gavel.tools.engine.progress import Progress, ProgressFn
    from gavel.tools.ledger import Ledger


class JudgeFactory(Protocol):
    """Builds a call's judge whole: `progress` is the call's, `fitness` where its calibration is found (None: none).
    Nothing is assigned to a judge after it is built."""

    def __call__(self, *, progress: Progress, fitness: FitnessSource | None) -> Awaitable[Judge]: ...


# A tool implementation: `impl(request, deps) -> result`.
Impl = Callable[[Any, "ToolDeps"], Awaitable[Any]]
# judge(tool, request, result_model, impl, deps): `impl`'s result, judged as a call of its own through the ledger.
JudgeThroughLedger = Callable[[str, "BaseModel", "type[ToolResult]", Impl, "ToolDeps"], Awaitable[Any]]


def _no_progress() -> ProgressFn:
    # The engine's progress (and its logging) is imported when a call's deps are made, not when a server imports this
    # module at start.
    from gavel.tools.engine.progress import no_progress

    return no_progress


@dataclass
class ToolDeps:
    registry: RubricRegistry
    limits: Limits
    # The judge is resolved lazily: the deterministic path of score_candidates must work with no model.
    judge_factory: JudgeFactory
    # The call's progress: a plain callback from the server, kept as a `Progress` (see __setattr__).
    progress: ProgressFn = field(default_factory=_no_progress)
    # Who rewrites in refine_until_pass when generator="sampling": the client's model. None when the
    # client cannot sample.
    sampling_judge_factory: JudgeFactory | None = None
    # The evaluation ledger, for a tool that reads or writes it itself (calibrate_judge); None when it is off.
    # Judging tools never see it: the server records and serves their judgments around them.
    ledger: Ledger | None = None
    # How such a tool has another tool judge (see `gavel.server.ledger_calls.uncalibrated_calls`); None: run directly.
    judge_through_ledger: JudgeThroughLedger | None = None
    # Where the call's judge finds its calibration (the ledger, set by the server); None: no calibration shapes it.
    fitness: FitnessSource | None = None

    def __setattr__(self, name: str, value: Any) -> None:
        # Every report of the call goes through one Progress, so the tool's steps and the engine's ticks form one
        # increasing sequence; a copy (dataclasses.replace) shares it.
        if name == "progress":
            from gavel.tools.engine.progress import Progress

            if not isinstance(value, Progress):
                value = Progress(value)
        super().__setattr__(name, value)

    async def judge(self) -> Judge:
        """The call's judge, reporting its progress to the client. Resolving it may take a while (probing the
        backends, the ledger's lookup): a heartbeat goes out meanwhile."""
        progress = cast("Progress", self.progress)
        return await progress.waiting(
            lambda: self.judge_factory(progress=progress, fitness=self.fitness), lambda: "preparing the judge"
        )

    async def sampling_judge(self) -> Judge:
        """The client's model as a writer (refine_until_pass, generator="sampling"); the caller checked that
        `sampling_judge_factory` is set."""
        if self.sampling_judge_factory is None:
            raise RuntimeError("sampling_judge() called for a client that cannot be sampled")
        return await self.sampling_judge_factory(progress=cast("Progress", self.progress), fitness=None)


RequestT = TypeVar("RequestT")
PreparedT = TypeVar("PreparedT", bound="Prepared")
ResultT = TypeVar("ResultT")


class Prepared(Protocol):
    """What a tool's prepare step made of one request, each check done once: the server's ledger lookup and the
    tool's run both read it, and neither checks the request again."""

    @property
    def request(self) -> Any: ...

    @property
    def needs_model(self) -> bool:
        """Whether the run will ask for a model (score_candidates' deterministic path does not)."""

    @property
    def rubric(self) -> Rubric | None:
        """The rubric the call judges with, resolved; None: it judges with none."""

    @property
    def rubric_from_registry(self) -> bool:
        """Whether `rubric` is a registered one (not the request's custom_rubric)."""

    @property
    def model(self) -> str | None:
        """The request's model override."""


class FromRequest:
    """`Prepared`'s model and rubric origin, read off a request that has `model` and `custom_rubric` fields."""

    request: Any

    @property
    def rubric_from_registry(self) -> bool:
        return self.request.custom_rubric is None

    @property
    def model(self) -> str | None:
        return self.request.model


@dataclass(frozen=True)
class Unprepared:
    """A request to a tool that has no prepare step: it checks the request as it runs, and may ask for a model."""

    request: Any
    needs_model: bool = True
    rubric: Rubric | None = None
    rubric_from_registry: bool = True
    model: str | None = None


@dataclass(frozen=True)
class Tool(Generic[RequestT, PreparedT, ResultT]):
    """A tool as its two steps. `prepare` refuses a bad request (raising its GavelError) before any model is resolved
    and returns what it prepared; `run` judges that. Called with a request, it does both, for direct callers."""

    prepare: Callable[[RequestT, ToolDeps], Awaitable[PreparedT]]
    run: Callable[[PreparedT, ToolDeps], Awaitable[ResultT]]

    async def __call__(self, request: RequestT, deps: ToolDeps) -> ResultT:
        return await self.run(await self.prepare(request, deps), deps)


@dataclass(frozen=True)
class Later:
    """A tool named by where it lives, imported at its first call. A server lists its tools from their request and
    result models alone; the code under them (the engine, the guards) was most of what a start imported."""

    module: str
    name: str

    def load(self) -> Callable[[Any, ToolDeps], Awaitable[Any]]:
        return cast(Callable[[Any, ToolDeps], Awaitable[Any]], getattr(importlib.import_module(self.module), self.name))

    async def __call__(self, request: Any, deps: ToolDeps) -> Any:
        return await self.load()(request, deps)


def steps(impl: Callable[[Any, ToolDeps], Awaitable[Any]]) -> Tool[Any, Any, Any]:
    """`impl` as its two steps; a plain implementation's prepare step prepares nothing."""
    if isinstance(impl, Later):
        impl = impl.load()
    if isinstance(impl, Tool):
        return impl

    async def prepare(request: Any, deps: ToolDeps) -> Unprepared:
        return Unprepared(request)

    async def run(prepared: Unprepared, deps: ToolDeps) -> Any:
        return await impl(prepared.request, deps)

    return Tool(prepare, run)
