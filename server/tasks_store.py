"""Where MCP tasks live: the evaluation ledger's `tasks` table (schema v4), so any instance sharing the ledger (one
SQLite file, or one PostgreSQL database behind several stateless instances) answers for a task another one runs;
in memory when the ledger is off (`GAVEL_LEDGER_PATH=off`), where only this process knows its tasks.

A task is one row. The instance running it keeps `heartbeat_at` fresh and reads back at each beat whether the task
is still `working`: a cancel sent to any instance is a conditional update of the row, and the runner sees it at its
next beat. Every change of status is conditional on the row still being `working`, so the first terminal state
written wins (a cancel racing a completion leaves one of them, never a mix).

All methods block (a database round trip): the runtime calls them through `anyio.to_thread`.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Literal, Protocol

if TYPE_CHECKING:
    from gavel.tools.ledger import Ledger
    from gavel.tools.ledger.schema import Conn

TaskStatus = Literal["working", "input_required", "completed", "failed", "cancelled"]
TERMINAL: frozenset[str] = frozenset({"completed", "failed", "cancelled"})
# Tasks the memory store keeps at most, the finished ones dropped oldest first.
MEMORY_KEEP = 1000

_COLUMNS = (
    "id, tool, evaluation_id, status, status_message, created_at, updated_at, heartbeat_at, ttl_ms, "
    "poll_interval_ms, result_json, error_json"
)


@dataclass(frozen=True)
class TaskRow:
    id: str
    tool: str
    evaluation_id: str
    status: str
    status_message: str | None
    created_at: str
    updated_at: str
    heartbeat_at: str
    ttl_ms: int | None
    poll_interval_ms: int
    # The CallToolResult as JSON once completed; the JSON-RPC error object once failed.
    result_json: str | None = None
    error_json: str | None = None

    def values(self) -> tuple[Any, ...]:
        return (
            self.id, self.tool, self.evaluation_id, self.status, self.status_message, self.created_at,
            self.updated_at, self.heartbeat_at, self.ttl_ms, self.poll_interval_ms, self.result_json, self.error_json,
        )  # fmt: skip


class Unavailable(Exception):
    """The store cannot answer now (the ledger failed); `str()` says why."""


class TaskStore(Protocol):
    """Rows of tasks. `where` says where they live, for messages; a method that cannot reach the store raises
    `Unavailable` (reads) or returns False (writes)."""

    where: str

    def create(self, row: TaskRow) -> bool: ...

    def get(self, task_id: str) -> TaskRow | None: ...

    def note(self, task_id: str, message: str, now: str) -> bool | None:
        """Set the status message of a working task, as a heartbeat; whether it is still working (None: the store
        did not answer)."""
        ...

    def beat(self, task_id: str, now: str) -> bool | None:
        """Refresh the heartbeat; whether the task is still working (None: the store did not answer)."""
        ...

    def finish(
        self, task_id: str, status: str, message: str | None, now: str, *, result: str | None = None,
        error: str | None = None,
    ) -> bool:  # fmt: skip
        """Move a working task to `status`; False when it was no longer working (or the store failed)."""
        ...


class LedgerTaskStore:
    """Tasks in the ledger's `tasks` table, through `Ledger.run` (a failure is logged there and reported here)."""

    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger
        self.where = f"the evaluation ledger ({ledger.path})"

    def create(self, row: TaskRow) -> bool:
        def write(conn: Conn) -> bool:
            with conn.transaction():
                conn.execute(f"INSERT INTO tasks ({_COLUMNS}) VALUES ({', '.join('?' * 12)})", row.values())
            return True

        return bool(self.ledger.run("create_task", write))

    def get(self, task_id: str) -> TaskRow | None:
        def read(conn: Conn) -> tuple[TaskRow | None]:
            if not conn.has_table("tasks"):
                return (None,)
            found = conn.execute(f"SELECT {_COLUMNS} FROM tasks WHERE id = ?", (task_id,)).fetchone()
            return (TaskRow(*found) if found is not None else None,)

        answer = self.ledger.run("get_task", read, create=False)
        if answer is None:
            if self.ledger.failure is not None:
                raise Unavailable(f"the evaluation ledger at {self.ledger.path} is unavailable: {self.ledger.failure}")
            return None  # no ledger created yet: no task either
        return answer[0]

    def _update(self, what: str, sql: str, args: tuple[Any, ...]) -> bool | None:
        def write(conn: Conn) -> bool:
            with conn.transaction():
                return bool(conn.execute(sql, args).rowcount)

        return self.ledger.run(what, write)

    def note(self, task_id: str, message: str, now: str) -> bool | None:
        sql = (
            "UPDATE tasks SET status_message = ?, updated_at = ?, heartbeat_at = ? WHERE id = ? AND status = 'working'"
        )
        return self._update("note_task", sql, (message, now, now, task_id))

    def beat(self, task_id: str, now: str) -> bool | None:
        return self._update("beat_task", "UPDATE tasks SET heartbeat_at = ? WHERE id = ? AND status = 'working'",
                            (now, task_id))  # fmt: skip

    def finish(
        self, task_id: str, status: str, message: str | None, now: str, *, result: str | None = None,
        error: str | None = None,
    ) -> bool:  # fmt: skip
        sql = (
            "UPDATE tasks SET status = ?, status_message = ?, updated_at = ?, heartbeat_at = ?, result_json = ?, "
            "error_json = ? WHERE id = ? AND status = 'working'"
        )
        return bool(self._update("finish_task", sql, (status, message, now, now, result, error, task_id)))


class MemoryTaskStore:
    """Tasks in this process only: the store when the ledger is off. The oldest finished ones are forgotten past
    `keep` (a result may be large, and nothing else would ever drop it)."""

    where = "this server process (the ledger is off)"

    def __init__(self, keep: int = MEMORY_KEEP) -> None:
        self.keep = keep
        self._rows: dict[str, TaskRow] = {}
        self._lock = threading.Lock()

    def create(self, row: TaskRow) -> bool:
        with self._lock:
            self._rows[row.id] = row
            finished = [key for key, kept in self._rows.items() if kept.status in TERMINAL]  # oldest first
            for key in finished[: max(0, len(self._rows) - self.keep)]:
                del self._rows[key]
        return True

    def get(self, task_id: str) -> TaskRow | None:
        with self._lock:
            return self._rows.get(task_id)

    def _change(self, task_id: str, **changes: Any) -> bool:
        with self._lock:
            row = self._rows.get(task_id)
            if row is None or row.status != "working":
                return False
            self._rows[task_id] = replace(row, **changes)
            return True

    def note(self, task_id: str, message: str, now: str) -> bool | None:
        return self._change(task_id, status_message=message, updated_at=now, heartbeat_at=now)

    def beat(self, task_id: str, now: str) -> bool | None:
        return self._change(task_id, heartbeat_at=now)

    def finish(
        self, task_id: str, status: str, message: str | None, now: str, *, result: str | None = None,
        error: str | None = None,
    ) -> bool:  # fmt: skip
        return self._change(
            task_id, status=status, status_message=message, updated_at=now, heartbeat_at=now, result_json=result,
            error_json=error,
        )  # fmt: skip
