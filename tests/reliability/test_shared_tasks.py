"""MCP tasks beyond one machine: two `gavel serve --transport streamable-http --stateless` processes on different
ports, one PostgreSQL ledger (a real server the suite starts), one scripted Ollama model server on 127.0.0.1.

A task created through the first instance runs there; its finished result is fetched from the second, and a cancel
sent to the second stops a task the first is running (the first notices at its next heartbeat)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import anyio
import mcp
import psycopg
import pytest

from gavel.server.tasks import BEAT_S
from tests.support import tasks_client as tc
from tests.support.ollama_server import OllamaTestServer
from tests.support.processes import http_server, stop
from tests.support.replies import reply_for_schema

pytestmark = pytest.mark.slow

MODEL = "judge-model:latest"
LOOP = {"draft": "Low mood.", "source": "Patient: low mood for three weeks.", "max_iterations": 2}
MODEL_LATENCY_S = 0.05


class SlowWorstModel:
    """Scores every metric at the bottom (a refinement never passes), a little slowly, and writes a new version each
    time; counts the calls per draft."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.bodies: list[str] = []

    def __call__(self, body: dict[str, Any]) -> str:
        time.sleep(MODEL_LATENCY_S)
        with self.lock:
            self.bodies.append(json.dumps(body.get("messages", [])))
            version = len(self.bodies)
        schema = body["format"] if isinstance(body.get("format"), dict) else None
        return reply_for_schema(schema, "min", text=f"Low mood for three weeks, revised ({version}).")

    def calls_mentioning(self, text: str) -> int:
        with self.lock:
            return sum(text in body for body in self.bodies)


def client(base_url: str) -> mcp.Client:
    return mcp.Client(f"{base_url}/mcp", extensions=[tc.TasksClient()], read_timeout_seconds=30)


async def test_a_task_run_by_one_instance_is_answered_and_cancelled_through_another(
    postgres_url: str, clean_env: dict[str, str], free_port: Callable[[], int], tmp_path: Path
) -> None:
    model = SlowWorstModel()
    marker = "A second draft, to be cancelled."
    with OllamaTestServer(model, models=[MODEL]) as ollama, ExitStack() as stack:
        env = {**clean_env, "GAVEL_BACKEND": "ollama", "GAVEL_OLLAMA_HOST": ollama.url, "GAVEL_JUDGE_MODEL": MODEL,
               "GAVEL_TIMEOUT_S": "30", "GAVEL_LOG_LEVEL": "INFO", "GAVEL_LEDGER_URL": postgres_url}  # fmt: skip
        env.pop("GAVEL_LEDGER_PATH")
        first, second = (
            stack.enter_context(
                http_server(["--transport", "streamable-http", "--stateless"], env, free_port(), tmp_path)
            )
            for _ in range(2)
        )
        with anyio.fail_after(120):
            async with client(first.base_url) as runner, client(second.base_url) as other:
                await runner.list_tools()
                started = time.monotonic()
                handle = await tc.handle(runner, "refine_until_pass", LOOP)
                waited = time.monotonic() - started
                assert isinstance(handle, tc.CreateTaskResult), handle
                finished = (await tc.poll(runner.session, handle.task_id, interval_s=0.2))[-1]
                fetched = await tc.get(other.session, handle.task_id)

                t0 = time.monotonic()
                doomed = await tc.handle(runner, "refine_until_pass", {**LOOP, "draft": marker, "max_iterations": 20})
                doomed_waited = time.monotonic() - t0
                assert isinstance(doomed, tc.CreateTaskResult), doomed
                while model.calls_mentioning(marker) < 3:  # noqa: ASYNC110 - the model server signals nothing
                    await anyio.sleep(0.05)
                await tc.cancel(other.session, doomed.task_id)
                at_cancel = model.calls_mentioning(marker)
                # The runner learns of the cancel at its next heartbeat; then its model calls stop.
                stopped_at = await tc.settled(lambda: model.calls_mentioning(marker), quiet_s=BEAT_S + 1.0)
                seen_by_runner = await tc.get(runner.session, doomed.task_id)
        codes = [stop(first.process), stop(second.process)]

    # The first call of a fresh process also opens the ledger's connection pool and brings its schema up to date.
    assert waited < 5.0 and doomed_waited < 1.0, f"the handles took {waited:.2f} s and {doomed_waited:.2f} s"
    assert finished["status"] == "completed" and finished["result"]["isError"] is False
    assert {k: v for k, v in fetched.items() if k != "_meta"} == {k: v for k, v in finished.items() if k != "_meta"}
    assert seen_by_runner["status"] == "cancelled"
    assert stopped_at - at_cancel < 60, "the cancelled refinement ran on (20 iterations are some 100 model calls)"
    assert "task no longer working in the store; stopping it" in first.stderr(), "the runner never noticed the cancel"
    assert codes == [0, 0], first.stderr() + second.stderr()
    with psycopg.connect(postgres_url) as conn:
        statuses = dict(conn.execute("SELECT id, status FROM tasks").fetchall())
    assert statuses == {handle.task_id: "completed", doomed.task_id: "cancelled"}
