"""What a tool implementation receives besides its request: the contract between `server/` and `tools/`.

Every tool is `async def tool(request: XRequest, deps: ToolDeps) -> XResult`. The server builds the
request from the flat MCP arguments, builds `ToolDeps` for the call, and translates `GavelError` into
`ToolError` once, at the boundary.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar, cast

from gavel.tools.common import Limits
from gavel.tools.engine.progress import Progress, ProgressFn, no_progress
from gavel.tools.rubrics import RubricRegistry

if TYPE_CHECKING:
    from pydantic import BaseModel

    from gavel.tools.common import ToolResult
    from gavel.tools.engine.judge import Judge
    from gavel.tools.ledger import Ledger

JudgeFactory = Callable[[], Awaitable["Judge"]]
# A tool implementation: `impl(request, deps) -> result`.
Impl = Callable[[Any, "ToolDeps"], Awaitable[Any]]
# judge(tool, request, result_model, impl, deps): `impl`'s result, judged as a call of its own through the ledger.
JudgeThroughLedger = Callable[[str, "BaseModel", "type[ToolResult]", Impl, "ToolDeps"], Awaitable[Any]]


@dataclass
class ToolDeps:
    registry: RubricRegistry
    limits: Limits
    # The judge is resolved lazily: the deterministic path of score_candidates must work with no model.
    judge_factory: JudgeFactory
    # The call's progress: a plain callback from the server, kept as a `Progress` (see __setattr__).
    progress: ProgressFn = no_progress
    # Who rewrites in refine_until_pass when generator="sampling": the client's model. None when the
    # client cannot sample.
    sampling_judge_factory: JudgeFactory | None = None
    # The evaluation ledger, for a tool that reads or writes it itself (calibrate_judge); None when it is off.
    # Judging tools never see it: the server records and serves their judgments around them.
    ledger: Ledger | None = None
    # How such a tool has another tool judge (see `gavel.server.boundary.uncalibrated_calls`); None: run directly.
    judge_through_ledger: JudgeThroughLedger | None = None

    def __setattr__(self, name: str, value: Any) -> None:
        # Every report of the call goes through one Progress, so the tool's steps and the engine's ticks form one
        # increasing sequence; a copy (dataclasses.replace) shares it.
        if name == "progress" and not isinstance(value, Progress):
            value = Progress(value)
        super().__setattr__(name, value)

    async def judge(self) -> Judge:
        """The call's judge, reporting its progress to the client. Resolving it may take a while (probing the
        backends, the ledger's lookup): a heartbeat goes out meanwhile."""
        progress = cast(Progress, self.progress)
        judge = await progress.waiting(self.judge_factory, lambda: "preparing the judge")
        judge.progress = progress
        return judge

    async def sampling_judge(self) -> Judge:
        """The client's model as a writer (refine_until_pass, generator="sampling"); the caller checked that
        `sampling_judge_factory` is set."""
        if self.sampling_judge_factory is None:
            raise RuntimeError("sampling_judge() called for a client that cannot be sampled")
        judge = await self.sampling_judge_factory()
        judge.progress = cast(Progress, self.progress)
        return judge


RequestT = TypeVar("RequestT")
# A tool's check (see `gavel.server.boundary.ToolSpec.check`): refuses a bad request, says whether a model is needed.
Check = Callable[[RequestT, ToolDeps], Awaitable[bool]]


def always_judges(prepare: Callable[[RequestT, ToolDeps], Any]) -> Check[RequestT]:
    """The check of a tool that always asks for a model: `prepare` raises the request's refusal, if any."""

    async def check(request: RequestT, deps: ToolDeps) -> bool:
        prepare(request, deps)
        return True

    return check
