"""The client side of the MCP tasks extension (`io.modelcontextprotocol/tasks`), as a client application would write
it on the SDK's client extension interface: it declares the extension on every request, takes a task handle as a
`tools/call` result, and sends `tasks/get`, `tasks/update` and `tasks/cancel` (with `Mcp-Name` set to the task id).

`TasksClient` finishes a handed-back task by polling it (what `Client.call_tool` then returns is the final result);
`handle`, `get` and `cancel` drive a task step by step.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any, Literal

import anyio
from mcp import Client
from mcp.client.extension import ClaimContext, ClientExtension, ResultClaim
from mcp.client.session import ClientSession
from mcp_types import CallToolResult, Request, RequestParams, Result
from pydantic import ConfigDict, Field, TypeAdapter

TASKS_EXTENSION = "io.modelcontextprotocol/tasks"
RAW = TypeAdapter(dict[str, Any])


class CreateTaskResult(Result):
    """The handle a server answers `tools/call` with."""

    model_config = ConfigDict(extra="allow")

    result_type: Literal["task"]
    task_id: str
    status: str
    status_message: str | None = None
    created_at: str
    last_updated_at: str
    ttl_ms: int | None
    poll_interval_ms: int | None = None


class TaskIdParams(RequestParams):
    task_id: str


class UpdateParams(TaskIdParams):
    input_responses: dict[str, Any] = Field(default_factory=dict)


class GetTaskRequest(Request[TaskIdParams, Literal["tasks/get"]]):
    method: Literal["tasks/get"] = "tasks/get"
    name_param = "taskId"


class CancelTaskRequest(Request[TaskIdParams, Literal["tasks/cancel"]]):
    method: Literal["tasks/cancel"] = "tasks/cancel"
    name_param = "taskId"


class UpdateTaskRequest(Request[UpdateParams, Literal["tasks/update"]]):
    method: Literal["tasks/update"] = "tasks/update"
    name_param = "taskId"


async def get(session: ClientSession, task_id: str) -> dict[str, Any]:
    """`tasks/get`, its result as sent."""
    return await session.send_request(GetTaskRequest(params=TaskIdParams(task_id=task_id)), RAW)


async def cancel(session: ClientSession, task_id: str) -> dict[str, Any]:
    return await session.send_request(CancelTaskRequest(params=TaskIdParams(task_id=task_id)), RAW)


async def update(session: ClientSession, task_id: str, responses: dict[str, Any]) -> dict[str, Any]:
    request = UpdateTaskRequest(params=UpdateParams(task_id=task_id, input_responses=responses))
    return await session.send_request(request, RAW)


async def poll(session: ClientSession, task_id: str, *, interval_s: float = 0.05) -> list[dict[str, Any]]:
    """`tasks/get` until the task is in a terminal state; every answer, the last one terminal."""
    answers = [await get(session, task_id)]
    while answers[-1]["status"] not in ("completed", "failed", "cancelled"):
        await anyio.sleep(interval_s)
        answers.append(await get(session, task_id))
    return answers


async def settled(count: Callable[[], int], *, quiet_s: float = 1.0, timeout_s: float = 60.0) -> int:
    """`count()` once it has not changed for `quiet_s` (e.g. a model's calls after a cancel); fails after
    `timeout_s` of changes."""
    with anyio.fail_after(timeout_s):
        last, since = count(), time.monotonic()
        while time.monotonic() - since < quiet_s:
            await anyio.sleep(0.05)
            if (now := count()) != last:
                last, since = now, time.monotonic()
    return last


async def handle(client: Client, tool: str, arguments: dict[str, Any]) -> CreateTaskResult | CallToolResult:
    """`tools/call` as sent: the task handle when the server made a task, else the tool's result."""
    return await client.session.call_tool(tool, arguments, allow_claimed=True)  # type: ignore[return-value]


async def _finish(handle: CreateTaskResult, ctx: ClaimContext) -> CallToolResult:
    final = (await poll(ctx.session, handle.task_id))[-1]
    if final["status"] != "completed":
        raise RuntimeError(f"task {handle.task_id} ended {final['status']}: {final.get('error')}")
    return CallToolResult.model_validate(final["result"])


class TasksClient(ClientExtension):
    identifier = TASKS_EXTENSION

    def claims(self) -> Sequence[ResultClaim[Any]]:
        return [ResultClaim(result_type="task", model=CreateTaskResult, resolve=_finish)]
