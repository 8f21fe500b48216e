"""The `io.modelcontextprotocol/tasks` extension (SEP-2663) on the SDK's extension interface (SEP-2133).

It adds `tasks/get`, `tasks/update` and `tasks/cancel`, and wraps `tools/call`: when the client declared the
extension on the request (2026-07-28 and later: the per-request `_meta` capabilities), the call carries a
`TaskIntent` down to the boundary (`gavel.server.boundary`), which validates the arguments as for any call and,
for a tool that runs as a task (`ToolSpec.task_when`), starts one instead of running it; the interceptor then answers
with the task's handle. A client that did not opt in, an older protocol, a tool or request that is quick, or a call
that would sample the client's model get the tool's result in the reply, as without the extension.

The tasks runtime (`gavel.server.tasks`) runs the work and keeps the tasks; this module is only the MCP surface.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.extension import Extension, MethodBinding
from mcp.server.mcpserver.server import require_client_extension
from mcp.shared.exceptions import MCPError
from mcp.shared.inbound import MCP_NAME_HEADER, decode_header_value
from mcp_types import HEADER_MISMATCH, CallToolRequestParams, RequestParams
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import ConfigDict, Field

from gavel.server.tasks import TaskRuntime, Work

TASKS_EXTENSION = "io.modelcontextprotocol/tasks"

# The extension exists from the 2026-07-28 protocol on: earlier ones have no per-request capabilities, and the SDK
# delivers no extension result shape (a task handle) on them.
_TASK_VERSIONS = frozenset(MODERN_PROTOCOL_VERSIONS)


class TaskParams(RequestParams):
    """`tasks/get` and `tasks/cancel`: the task's id."""

    model_config = ConfigDict(populate_by_name=True)

    task_id: str = Field(alias="taskId")


class UpdateTaskParams(TaskParams):
    """`tasks/update`: responses to a task's input requests (Gavel's tasks never ask for input)."""

    input_responses: dict[str, Any] = Field(default_factory=dict, alias="inputResponses")


class TaskIntent:
    """A `tools/call` the client let run as a task: the boundary starts the task, the interceptor answers with it."""

    def __init__(self, runtime: TaskRuntime) -> None:
        self.runtime = runtime
        self.created: dict[str, Any] | None = None

    async def start(self, tool: str, evaluation_id: str, work: Work) -> bool:
        """Start `work` as a task; False when none could be made (the caller then runs the call itself)."""
        self.created = await self.runtime.start(tool, evaluation_id, work)
        return self.created is not None


_intent: ContextVar[TaskIntent | None] = ContextVar("gavel_task_intent", default=None)


def task_intent() -> TaskIntent | None:
    """The intent of the `tools/call` being handled, when its client opted into tasks."""
    return _intent.get()


@contextmanager
def _intending(intent: TaskIntent) -> Iterator[None]:
    token = _intent.set(intent)
    try:
        yield
    finally:
        _intent.reset(token)


def opted_in(ctx: ServerRequestContext[Any, Any]) -> bool:
    """Whether this request declared the tasks extension (in its own `_meta`, on a protocol that has them)."""
    if ctx.protocol_version not in _TASK_VERSIONS:
        return False
    capabilities = ctx.session.client_capabilities
    extensions = capabilities.extensions if capabilities is not None else None
    return bool(extensions) and TASKS_EXTENSION in extensions  # type: ignore[operator]


def _check_route(ctx: ServerRequestContext[Any, Any], task_id: str) -> None:
    """The `Mcp-Name` header of a `tasks/*` request over HTTP names the task the body names (routers go by it)."""
    headers = getattr(ctx.request, "headers", None)
    header = headers.get(MCP_NAME_HEADER) if headers is not None else None
    if header is not None and decode_header_value(header) != task_id:
        raise MCPError(code=HEADER_MISMATCH, message=f"{MCP_NAME_HEADER} header does not match the request's taskId")


class TasksExtension(Extension):
    identifier = TASKS_EXTENSION

    def __init__(self, runtime: TaskRuntime) -> None:
        self.runtime = runtime

    def methods(self) -> Sequence[MethodBinding]:
        return [
            MethodBinding("tasks/get", TaskParams, self._get, protocol_versions=_TASK_VERSIONS),
            MethodBinding("tasks/update", UpdateTaskParams, self._update, protocol_versions=_TASK_VERSIONS),
            MethodBinding("tasks/cancel", TaskParams, self._cancel, protocol_versions=_TASK_VERSIONS),
        ]

    def _admit(self, ctx: ServerRequestContext[Any, Any], params: TaskParams) -> None:
        # A client that did not declare the extension on this request gets -32021 (the extension's rule).
        require_client_extension(ctx, TASKS_EXTENSION)
        _check_route(ctx, params.task_id)

    async def _get(self, ctx: ServerRequestContext[Any, Any], params: TaskParams) -> dict[str, Any]:
        self._admit(ctx, params)
        return await self.runtime.get(params.task_id)

    async def _update(self, ctx: ServerRequestContext[Any, Any], params: UpdateTaskParams) -> dict[str, Any]:
        # No task of Gavel's asks for input, so there is never a response to take: the task must exist, and any
        # responses are ignored as the extension says of keys that are not outstanding.
        self._admit(ctx, params)
        await self.runtime.get(params.task_id)
        return {"resultType": "complete"}

    async def _cancel(self, ctx: ServerRequestContext[Any, Any], params: TaskParams) -> dict[str, Any]:
        self._admit(ctx, params)
        return await self.runtime.cancel(params.task_id)

    async def intercept_tool_call(
        self, params: CallToolRequestParams, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        if not opted_in(ctx) or not self.runtime.can_start:
            return await call_next(ctx)
        intent = TaskIntent(self.runtime)
        with _intending(intent):
            answer = await call_next(ctx)
        return intent.created if intent.created is not None else answer
