"""What a tool implementation receives besides its request: the contract between `server/` and `tools/`.

Every tool is `async def tool(request: XRequest, deps: ToolDeps) -> XResult`. The server builds the
request from the flat MCP arguments, builds `ToolDeps` for the call, and translates `GavelError` into
`ToolError` once, at the boundary.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from gavel.tools.engine.config import Limits
from gavel.tools.rubrics import RubricRegistry

if TYPE_CHECKING:
    from gavel.tools.engine.judge import Judge

# progress(progress, total, message): reported to the client when it sent a progress token.
ProgressFn = Callable[[float, float | None, str | None], Awaitable[None]]
JudgeFactory = Callable[[], Awaitable["Judge"]]


async def _no_progress(progress: float, total: float | None, message: str | None) -> None:
    return None


@dataclass
class ToolDeps:
    registry: RubricRegistry
    limits: Limits
    # The judge is resolved lazily: the deterministic path of score_candidates must work with no model.
    judge_factory: JudgeFactory
    progress: ProgressFn = _no_progress
    # Who rewrites in refine_until_pass when generator="sampling": the client's model. None when the
    # client cannot sample.
    sampling_judge_factory: JudgeFactory | None = None

    async def judge(self) -> Judge:
        return await self.judge_factory()


RequestT = TypeVar("RequestT")
# A tool's check (see `gavel.server.boundary.ToolSpec.check`): refuses a bad request, says whether a model is needed.
Check = Callable[[RequestT, ToolDeps], Awaitable[bool]]


def always_judges(prepare: Callable[[RequestT, ToolDeps], Any]) -> Check[RequestT]:
    """The check of a tool that always asks for a model: `prepare` raises the request's refusal, if any."""

    async def check(request: RequestT, deps: ToolDeps) -> bool:
        prepare(request, deps)
        return True

    return check
