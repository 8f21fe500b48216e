"""Where MCP tasks are kept: the ledger's `tasks` table (a real SQLite file; PostgreSQL in
tests/reliability/test_shared_tasks.py), or this process's memory when the ledger is off. Two servers on one ledger
file stand for two instances: each answers for the other's tasks, and a cancel sent to either stops the task."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any

import anyio
import mcp
import pytest
import structlog
from mcp.client.subscriptions import ResourceUpdated, listen
from mcp.shared.exceptions import MCPError

from gavel.server import tasks
from gavel.server.tasks import TaskRuntime
from gavel.server.tasks_store import MemoryTaskStore, TaskRow
from gavel.tools.ledger import Ledger, timestamp, utc_now
from tests.reliability.support import scripted_server, worst_model
from tests.support import tasks_client as tc
from tests.support.scripted import ScriptedBackend

LOOP = {"draft": "Low mood.", "source": "Patient: low mood for three weeks.", "max_iterations": 3}


@asynccontextmanager
async def instance(model: ScriptedBackend, ledger_path: Path | str) -> AsyncIterator[mcp.Client]:
    """One Gavel server on the ledger at `ledger_path`, and an opted-in client in process (2026-07-28)."""
    server, _ = scripted_server(model, GAVEL_LEDGER_PATH=str(ledger_path))
    async with mcp.Client(server, extensions=[tc.TasksClient()]) as client:
        yield client
    if server.ledger is not None:
        server.ledger.close()


def rows(path: Path) -> list[tuple[Any, ...]]:
    conn = sqlite3.connect(path)
    try:
        return conn.execute("SELECT id, tool, status, evaluation_id FROM tasks").fetchall()
    finally:
        conn.close()


async def test_a_task_and_its_result_are_kept_in_the_ledger_and_another_instance_returns_them(tmp_path: Path) -> None:
    path = tmp_path / "ledger.db"
    async with instance(worst_model(), path) as first:
        handle = await tc.handle(first, "refine_until_pass", LOOP)
        assert isinstance(handle, tc.CreateTaskResult)
        with anyio.fail_after(60):
            await tc.poll(first.session, handle.task_id)
    async with instance(worst_model(), path) as second:
        final = await tc.get(second.session, handle.task_id)
    ((task_id, tool, status, evaluation_id),) = rows(path)
    assert (task_id, tool, status) == (handle.task_id, "refine_until_pass", "completed")
    assert final["status"] == "completed"
    assert final["result"]["structuredContent"]["evaluation_id"] == evaluation_id
    recorded = Ledger(path).get(evaluation_id)
    assert recorded is not None and recorded["tool"] == "refine_until_pass", "the judgment is recorded as any call's"


async def test_a_cancel_sent_to_another_instance_stops_the_task_where_it_runs(tmp_path: Path) -> None:
    path = tmp_path / "ledger.db"
    model = worst_model(latency_s=0.05)
    async with instance(model, path) as runner, instance(worst_model(), path) as other:
        handle = await tc.handle(runner, "refine_until_pass", {**LOOP, "max_iterations": 20})
        assert isinstance(handle, tc.CreateTaskResult)
        await anyio.sleep(0.3)
        with structlog.testing.capture_logs() as logs:
            await tc.cancel(other.session, handle.task_id)
            at_cancel = len(model.requests)
            # The runner learns of the cancel at its next heartbeat; then its model calls stop.
            stopped_at = await tc.settled(lambda: len(model.requests), quiet_s=tasks.BEAT_S + 1.0)
        seen_by_runner = await tc.get(runner.session, handle.task_id)
    assert seen_by_runner["status"] == "cancelled"
    assert stopped_at - at_cancel < 60, "the cancelled refinement ran on (20 iterations are some 100 model calls)"
    assert any(log["event"] == "task no longer working in the store; stopping it" for log in logs)


async def test_a_task_still_running_when_its_server_stops_is_reported_failed(tmp_path: Path) -> None:
    path = tmp_path / "ledger.db"
    async with instance(worst_model(latency_s=0.05), path) as client:
        handle = await tc.handle(client, "refine_until_pass", {**LOOP, "max_iterations": 20})
        assert isinstance(handle, tc.CreateTaskResult)
        await anyio.sleep(0.3)
    async with instance(worst_model(), path) as later:
        final = await tc.get(later.session, handle.task_id)
    assert final["status"] == "failed"
    assert final["error"]["code"] == -32603 and "stopped before this task finished" in final["error"]["message"]


async def test_with_the_ledger_off_tasks_live_in_the_process_and_an_unknown_id_says_so() -> None:
    async with instance(worst_model(), "off") as client:
        handle = await tc.handle(client, "refine_until_pass", LOOP)
        assert isinstance(handle, tc.CreateTaskResult)
        with anyio.fail_after(60):
            final = (await tc.poll(client.session, handle.task_id))[-1]
        with pytest.raises(MCPError) as unknown:
            await tc.get(client.session, "f" * 32)
    assert final["status"] == "completed"
    assert "the ledger is off" in unknown.value.message


async def test_a_subscriber_is_told_when_a_task_records_its_judgment(tmp_path: Path) -> None:
    async with (
        instance(worst_model(), tmp_path / "ledger.db") as client,
        listen(client.session, resource_subscriptions=["evaluation://recent"]) as events,
    ):
        handle = await tc.handle(client, "refine_until_pass", {**LOOP, "max_iterations": 1})
        assert isinstance(handle, tc.CreateTaskResult)
        with anyio.fail_after(60):
            final = (await tc.poll(client.session, handle.task_id))[-1]
        with anyio.fail_after(5):
            event = await anext(events)
    assert final["result"]["structuredContent"]["evaluation_id"]
    assert event == ResourceUpdated(uri="evaluation://recent")


# -- the runtime's rules, on rows written as another instance would have left them -----------------------------------


def row(task_id: str, *, age_s: float = 0.0, beat_age_s: float = 0.0, status: str = "working") -> TaskRow:
    created = timestamp(utc_now() - timedelta(seconds=age_s))
    beat = timestamp(utc_now() - timedelta(seconds=beat_age_s))
    return TaskRow(task_id, "refine_until_pass", "e1", status, None, created, created, beat, tasks.TTL_MS, 2000)


def runtime_with(*rows: TaskRow) -> TaskRuntime:
    runtime = TaskRuntime(lambda: None)
    store = runtime.store()
    assert isinstance(store, MemoryTaskStore)
    for item in rows:
        store.create(item)
    return runtime


async def test_a_working_task_whose_runner_went_silent_is_reported_failed() -> None:
    runtime = runtime_with(row("silent", beat_age_s=tasks.STALE_S + 5), row("alive", beat_age_s=1))
    silent, alive = await runtime.get("silent"), await runtime.get("alive")
    assert silent["status"] == "failed" and "stopped before it finished" in silent["error"]["message"]
    assert alive["status"] == "working"


async def test_an_expired_task_is_not_served() -> None:
    runtime = runtime_with(row("old", age_s=tasks.TTL_MS / 1000 + 60, status="completed"))
    with pytest.raises(MCPError) as expired:
        await runtime.get("old")
    assert expired.value.code == -32602 and "expired" in expired.value.message


def test_the_first_terminal_state_written_wins() -> None:
    store = MemoryTaskStore()
    store.create(row("t"))
    now = timestamp(utc_now())
    assert store.finish("t", "cancelled", "cancelled by the client", now) is True
    assert store.finish("t", "completed", "done", now, result="{}") is False
    assert store.note("t", "late progress", now) is False
    kept = store.get("t")
    assert kept is not None and (kept.status, kept.result_json) == ("cancelled", None)


def test_the_memory_store_forgets_the_oldest_finished_tasks_past_its_bound() -> None:
    store = MemoryTaskStore(keep=2)
    for name in ("done1", "running", "done2"):
        store.create(row(name))
        if name.startswith("done"):
            store.finish(name, "completed", "done", timestamp(utc_now()), result="{}")
    store.create(row("new"))
    assert [store.get(name) is not None for name in ("done1", "running", "done2", "new")] == [False, True, False, True]
