"""Long tool calls as MCP tasks (the `io.modelcontextprotocol/tasks` extension, SEP-2663): the runtime.

A call the client let run as a task returns at once with a handle (`CreateTaskResult`); the work runs on in this
process, in a task group held open by the server's lifespan, through the same pipeline as any call (validation,
the ledger's cache and record, the call deadline, shutdown's gate). Its progress reports become the task's status
message; its result, or its JSON-RPC error, is kept with the task for `tasks/get`. Where tasks are kept is
`gavel.server.tasks_store`: in the ledger, so another instance sharing it answers for them.

The wire shapes follow the extension's schema (github.com/modelcontextprotocol/ext-tasks, schema/draft): flat task
fields with `ttlMs` and `pollIntervalMs`, `resultType: "task"` on the handle and `"complete"` on every `tasks/*`
result, the final `result` inlined for a completed task and `error` for a failed one.
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

import anyio
from anyio.abc import TaskGroup
from mcp.server.mcpserver.exceptions import ToolError
from mcp.shared.exceptions import MCPError
from mcp_types import INTERNAL_ERROR, INVALID_PARAMS, CallToolResult, TextContent

from gavel.server.call_outcome import sdk_error_text
from gavel.server.inflight import detached
from gavel.server.logging import get_logger
from gavel.server.tasks_store import LedgerTaskStore, MemoryTaskStore, TaskRow, TaskStore, Unavailable
from gavel.tools.ledger import timestamp, to_json, utc_now

if TYPE_CHECKING:
    from gavel.tools.engine.progress import ProgressFn
    from gavel.tools.ledger import Ledger

log = get_logger("gavel.tasks")

# How long a task is kept for `tasks/get` after it was created.
TTL_MS = 24 * 3600 * 1000
# How often a client is asked to poll: a long judgment takes minutes, its status message changes every few seconds.
POLL_INTERVAL_MS = 2000
# The instance running a task refreshes its heartbeat (and learns of a cancel sent to another instance) this often.
BEAT_S = 2.0
# A working task whose heartbeat is older than this lost the instance that ran it.
STALE_S = 60.0
# Status messages are written at most this often; the last one is written at the next beat.
NOTE_INTERVAL_S = 0.5
# What the final writes of a task stopped by shutdown may take.
FINAL_WRITE_S = 5.0
# A longer status message is cut: it is a line for a person, not a log.
MESSAGE_CHARS = 300

STOPPED = "the server stopped before this task finished; call the tool again"

# What runs as the task: given the task's progress, the call's result; raises ToolError (a tool error result,
# completed) or MCPError (the task failed), like a tool call.
Work = Callable[["ProgressFn"], Awaitable[CallToolResult]]
# How a task ended: (status, status message, result JSON, error JSON).
Outcome = tuple[str, str, str | None, str | None]


def _now() -> str:
    return timestamp(utc_now())


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MESSAGE_CHARS else text[: MESSAGE_CHARS - 3] + "..."


def status_text(value: float, total: float | None, message: str | None) -> str:
    """A progress report as one line: its message, and how far along when the tool counts its steps."""
    done = f"{int(value)} of {total:g} done" if total else None
    if message and done:
        return _short(f"{message} ({done})")
    return _short(message or done or "working")


def task_fields(row: TaskRow) -> dict[str, Any]:
    """The `Task` object of the extension's schema."""
    fields: dict[str, Any] = {
        "taskId": row.id,
        "status": row.status,
        "createdAt": row.created_at,
        "lastUpdatedAt": row.updated_at,
        "ttlMs": row.ttl_ms,
        "pollIntervalMs": row.poll_interval_ms,
    }
    if row.status_message:
        fields["statusMessage"] = row.status_message
    return fields


def created_result(row: TaskRow) -> dict[str, Any]:
    """`CreateTaskResult`: the handle a `tools/call` answers with."""
    return {"resultType": "task", **task_fields(row)}


def detailed_result(row: TaskRow) -> dict[str, Any]:
    """`GetTaskResult`: the task, with its result when completed and its error when failed."""
    detailed = {"resultType": "complete", **task_fields(row)}
    if row.status == "completed" and row.result_json is not None:
        detailed["result"] = json.loads(row.result_json)
    elif row.status == "failed":
        detailed["error"] = json.loads(row.error_json) if row.error_json else {"code": INTERNAL_ERROR, "message": ""}
    return detailed


def _error_json(code: int, message: str) -> str:
    return to_json({"code": code, "message": message})


def _age_s(stamp: str) -> float:
    return (utc_now() - datetime.fromisoformat(stamp)).total_seconds()


class _Notes:
    """The task's progress fn: each report becomes its status message, written by the task's beat (`_beat`) at most
    every NOTE_INTERVAL_S. The work never waits for the store: a ledger another process held locked made each
    report wait out SQLite's busy timeout (10 s), and a 60-candidate task that took 8 s had not ended after 240 s."""

    def __init__(self, store: TaskStore, task_id: str) -> None:
        self.store, self.task_id = store, task_id
        self.pending: str | None = None
        self.written_at = -float("inf")

    async def __call__(self, value: float, total: float | None, message: str | None) -> None:
        self.pending = status_text(value, total, message)

    def due(self) -> bool:
        """Whether the beat writes now: a report is pending, or the last write is a heartbeat old."""
        return self.pending is not None or time.monotonic() - self.written_at >= BEAT_S

    async def write(self) -> bool | None:
        """Write the pending message (a heartbeat when there is none); whether the task is still working."""
        message, self.pending = self.pending, None
        self.written_at = time.monotonic()
        if message is None:
            return await anyio.to_thread.run_sync(self.store.beat, self.task_id, _now())
        return await anyio.to_thread.run_sync(self.store.note, self.task_id, message, _now())


class TaskRuntime:
    """Creates, runs, reads and cancels one server's tasks. `ledger_of()` is where they are kept (the server's ledger
    as it is now); with none, they are kept in this process."""

    def __init__(self, ledger_of: Callable[[], Ledger | None]) -> None:
        self._ledger_of = ledger_of
        self._memory = MemoryTaskStore()
        # Task groups of the server's running lifespans (one per process on stdio and HTTP); new tasks go to the last.
        self._groups: list[TaskGroup] = []
        # The tasks running in this process, by id: a cancel reaches them at once.
        self._running: dict[str, anyio.CancelScope] = {}

    def store(self) -> TaskStore:
        ledger = self._ledger_of()
        return LedgerTaskStore(ledger) if ledger is not None else self._memory

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """Hold a task group for the tasks started while the server runs; its end stops those still running."""
        async with anyio.create_task_group() as group:
            self._groups.append(group)
            try:
                yield
            finally:
                self._groups.remove(group)
                group.cancel_scope.cancel()

    @property
    def can_start(self) -> bool:
        return bool(self._groups)

    async def start(self, tool: str, evaluation_id: str, work: Work) -> dict[str, Any] | None:
        """Create a task running `work` and return its handle, once a `tasks/get` for it would find it; None when no
        task can be created (no running lifespan, the ledger failed): the caller then answers the call itself."""
        if not self._groups:
            return None
        now = _now()
        row = TaskRow(
            id=secrets.token_hex(16), tool=tool, evaluation_id=evaluation_id, status="working",
            status_message=f"{tool} started", created_at=now, updated_at=now, heartbeat_at=now, ttl_ms=TTL_MS,
            poll_interval_ms=POLL_INTERVAL_MS,
        )  # fmt: skip
        store = self.store()
        if not await anyio.to_thread.run_sync(store.create, row):
            log.warning("task not created; answering the call directly", tool=tool, where=store.where)
            return None
        if not self._groups:  # the server stopped while the row was written
            await _finish(store, row.id, _failed(STOPPED))
            return None
        scope = anyio.CancelScope()
        self._running[row.id] = scope
        self._groups[-1].start_soon(self._run, store, row, work, scope)
        log.info("task created", task_id=row.id, evaluation_id=evaluation_id)
        return created_result(row)

    async def _run(self, store: TaskStore, row: TaskRow, work: Work, scope: anyio.CancelScope) -> None:
        notes = _Notes(store, row.id)
        started = time.monotonic()
        outcome: Outcome | None = None
        try:
            with detached(), scope:
                async with anyio.create_task_group() as beats:
                    beats.start_soon(self._beat, notes, scope)
                    try:
                        outcome = await _outcome(work, notes, started, row.tool)
                    finally:
                        beats.cancel_scope.cancel()
        except Exception:  # a bug here must not end the server's task group with every other task in it
            log.exception("task failed unexpectedly", task_id=row.id)
            outcome = _failed(f"internal error; see the server log, reference {row.evaluation_id}")
        finally:
            self._running.pop(row.id, None)
            if outcome is None and not scope.cancel_called:
                # Stopped from outside (the server's lifespan ended): say so rather than leave it working.
                with anyio.CancelScope(shield=True), anyio.move_on_after(FINAL_WRITE_S):
                    await _finish(store, row.id, _failed(STOPPED))
        if outcome is None:
            log.info("task cancelled", task_id=row.id)
            return
        written = await _finish(store, row.id, outcome)
        log.info("task finished", task_id=row.id, status=outcome[0], recorded=written,
                 duration_ms=round((time.monotonic() - started) * 1000))  # fmt: skip

    async def _beat(self, notes: _Notes, scope: anyio.CancelScope) -> None:
        notes.written_at = time.monotonic()  # the row was just created
        while True:
            await anyio.sleep(NOTE_INTERVAL_S)
            if notes.due() and await notes.write() is False:
                log.info("task no longer working in the store; stopping it", task_id=notes.task_id)
                scope.cancel()  # cancelled (or marked failed) through another instance
                return

    async def get(self, task_id: str) -> dict[str, Any]:
        return detailed_result(await self._find(task_id, "retrieve"))

    async def cancel(self, task_id: str) -> dict[str, Any]:
        row = await self._find(task_id, "cancel")
        if row.status == "working":
            store = self.store()
            await anyio.to_thread.run_sync(store.finish, row.id, "cancelled", "cancelled by the client", _now())
        scope = self._running.get(task_id)
        if scope is not None:
            scope.cancel()
        return {"resultType": "complete"}

    async def _find(self, task_id: str, action: str) -> TaskRow:
        """The task's row, a working one whose instance stopped marked failed; MCP errors when there is none."""
        store = self.store()
        try:
            row = await anyio.to_thread.run_sync(store.get, task_id)
        except Unavailable as exc:
            raise MCPError(code=INTERNAL_ERROR, message=f"Failed to {action} task: {exc}") from None
        if row is None:
            raise MCPError(
                code=INVALID_PARAMS,
                message=f"Failed to {action} task: no task {task_id!r} in {store.where}; it may have been created by "
                "a server that keeps its tasks elsewhere",
            )
        if row.ttl_ms is not None and _age_s(row.created_at) * 1000 > row.ttl_ms:
            raise MCPError(
                code=INVALID_PARAMS,
                message=f"Failed to {action} task: task {task_id!r} has expired (tasks are kept "
                f"{timedelta(milliseconds=row.ttl_ms)}); call the tool again",
            )
        if row.status == "working" and task_id not in self._running and _age_s(row.heartbeat_at) > STALE_S:
            lost = (
                f"the Gavel instance running this task stopped before it finished (no sign of it for {STALE_S:g} s); "
                "call the tool again"
            )
            await _finish(store, row.id, _failed(lost))
            found = await anyio.to_thread.run_sync(store.get, task_id)
            row = found if found is not None else row
        return row


def _failed(message: str) -> Outcome:
    return "failed", _short(message), None, _error_json(INTERNAL_ERROR, message)


async def _finish(store: TaskStore, task_id: str, outcome: Outcome) -> bool:
    status, message, result, error = outcome
    return await anyio.to_thread.run_sync(
        lambda: store.finish(task_id, status, message, _now(), result=result, error=error)
    )


async def _outcome(work: Work, notes: _Notes, started: float, tool: str) -> Outcome:
    """How running `work` ended, as a call of `tool` would have answered."""
    try:
        result = await work(notes)
    except ToolError as exc:
        # What the SDK answers for a tool error, in its words: a result with isError, so the task completed.
        result = CallToolResult(content=[TextContent(type="text", text=sdk_error_text(tool, exc))], is_error=True)
    except MCPError as exc:
        return "failed", _short(exc.error.message), None, _error_json(exc.error.code, exc.error.message)
    body = result.model_dump(by_alias=True, mode="json", exclude_none=True)
    if result.is_error:
        text = " ".join(c.text for c in result.content if isinstance(c, TextContent))
        return "completed", _short(f"finished with an error: {text}"), to_json(body), None
    return "completed", f"done in {time.monotonic() - started:.1f} s", to_json(body), None
