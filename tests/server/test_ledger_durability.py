"""The ledger under real `gavel serve` processes (stdio) judging with the Ollama backend against the Ollama-API
test server: a SIGKILL loses no reported judgment, two servers share one file, a corrupt file warns once.

This is the production path end to end: the official `ollama` client over HTTP, the real boundary, the real
SQLite file; only the model's replies are scripted.
"""

from __future__ import annotations

import json
import os
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import mcp
import pytest
from mcp import StdioServerParameters
from mcp.client.stdio import stdio_client

from gavel.tools.ledger import Ledger
from tests.conftest import PYTHON
from tests.server.ledger_helpers import evaluate_args, ollama_valid_reply, rag_args
from tests.support.ollama_server import OllamaTestServer

pytestmark = pytest.mark.slow

MODEL = "test-model:latest"
CALL_TIMEOUT_S = 30.0
HOLD = "HOLD-THIS-CALL"
HOLD_TIMEOUT_S = 30.0
STOP_TIMEOUT_S = 10.0


class Model:
    """The scripted model behind the Ollama API: a valid reply at once, except for requests marked HOLD,
    which wait until released (so a call can be in flight when the server dies)."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.held = threading.Event()

    def __call__(self, body: dict[str, Any]) -> str:
        if any(HOLD in str(m.get("content", "")) for m in body.get("messages") or []):
            self.held.set()
            self.release.wait(HOLD_TIMEOUT_S)
        return ollama_valid_reply(body)


@contextmanager
def ollama(model: Model) -> Iterator[OllamaTestServer]:
    server = OllamaTestServer(responder=model, models=[MODEL])
    with server:
        try:
            yield server
        finally:
            model.release.set()  # free any handler thread still holding a reply


def serve_params(env: dict[str, str], ollama_url: str, ledger: Path, pidfile: Path) -> StdioServerParameters:
    """`gavel serve` over stdio, exactly as a client starts it; `exec` keeps the pid the shell wrote."""
    server_env = {
        **env,
        "GAVEL_BACKEND": "ollama",
        "GAVEL_OLLAMA_HOST": ollama_url,
        "GAVEL_JUDGE_MODEL": MODEL,
        "GAVEL_LEDGER_PATH": str(ledger),
        "GAVEL_MAX_CONCURRENCY": "8",
        "GAVEL_TIMEOUT_S": "20",
    }
    script = f'echo $$ > "{pidfile}"; exec "{PYTHON}" -m gavel.server serve'
    return StdioServerParameters(command="/bin/sh", args=["-c", script], env=server_env)


def read_ledger(path: Path) -> tuple[int, dict[str, dict[str, Any] | None]]:
    store = Ledger(path)
    try:
        rows = list(store.export())
        return len(rows), {row["evaluation_id"]: row for row in rows}
    finally:
        store.close()


async def test_a_server_killed_with_sigkill_keeps_every_judgment_it_reported(
    clean_env: dict[str, str], tmp_path: Path
) -> None:
    ledger, pidfile, model = tmp_path / "ledger.sqlite3", tmp_path / "serve.pid", Model()
    answers = [f"The tower is {300 + i} metres tall [1]." for i in range(6)]
    received: list[dict[str, Any]] = []
    enough = anyio.Event()
    with ollama(model) as srv, (tmp_path / "stderr.log").open("w") as errlog:
        params = serve_params(clean_env, srv.url, ledger, pidfile)
        async with mcp.Client(stdio_client(params, errlog=errlog), read_timeout_seconds=CALL_TIMEOUT_S) as client:

            async def judge(answer: str) -> None:
                result = await client.call_tool("judge_rag_answer", rag_args(answer))
                assert not result.is_error, result.content
                assert result.structured_content is not None
                received.append(result.structured_content)
                if len(received) == 3:
                    enough.set()

            async def held() -> None:
                await client.call_tool("evaluate_assessment", evaluate_args(f"{HOLD}: never completes"))

            async with anyio.create_task_group() as tg:
                tg.start_soon(held)
                for answer in answers:
                    tg.start_soon(judge, answer)
                with anyio.fail_after(CALL_TIMEOUT_S):
                    await enough.wait()
                    assert await anyio.to_thread.run_sync(model.held.wait, CALL_TIMEOUT_S)
                # Mid-batch: three judgments reported, one call held at the model, the rest in flight.
                os.kill(int(pidfile.read_text()), signal.SIGKILL)
                tg.cancel_scope.cancel()

    count, rows = read_ledger(ledger)
    assert len(received) >= 3
    for result in received:
        row = rows.get(result["evaluation_id"])
        assert row is not None, f"judgment {result['evaluation_id']} was reported but is not in the ledger"
        assert row["result"] == result
    assert all(HOLD not in json.dumps(row["request"]) for row in rows.values() if row)
    assert count <= len(answers)


async def test_two_servers_sharing_one_ledger_lose_no_judgment_and_report_no_lock_errors(
    clean_env: dict[str, str], tmp_path: Path
) -> None:
    ledger, model = tmp_path / "ledger.sqlite3", Model()
    per_server = 8
    results: list[dict[str, Any]] = []
    with ollama(model) as srv:
        errlogs = [tmp_path / f"stderr-{name}.log" for name in ("a", "b")]

        async def one_server(index: int) -> None:
            params = serve_params(clean_env, srv.url, ledger, tmp_path / f"serve-{index}.pid")
            with errlogs[index].open("w") as errlog:
                async with mcp.Client(stdio_client(params, errlog=errlog), read_timeout_seconds=CALL_TIMEOUT_S) as c:

                    async def judge(i: int) -> None:
                        result = await c.call_tool("evaluate_assessment", evaluate_args(f"Server {index}, text {i}."))
                        assert not result.is_error, result.content
                        assert result.structured_content is not None
                        results.append(result.structured_content)

                    async with anyio.create_task_group() as tg:
                        for i in range(per_server):
                            tg.start_soon(judge, i)

        with anyio.fail_after(60):
            async with anyio.create_task_group() as tg:
                tg.start_soon(one_server, 0)
                tg.start_soon(one_server, 1)

    count, rows = read_ledger(ledger)
    assert len(results) == 2 * per_server
    assert all(r["evaluation_id"] is not None for r in results), "a judgment was not recorded"
    assert {r["evaluation_id"] for r in results} <= set(rows)
    assert count == 2 * per_server
    for errlog in errlogs:
        text = errlog.read_text()
        assert "database is locked" not in text
        assert "evaluation ledger unavailable" not in text


async def test_a_server_on_a_corrupt_ledger_judges_and_warns_once_on_stderr(
    clean_env: dict[str, str], tmp_path: Path
) -> None:
    ledger, pidfile = tmp_path / "ledger.sqlite3", tmp_path / "serve.pid"
    ledger.write_bytes(b"\x00garbage\xff" * 1000)
    stderr_path = tmp_path / "stderr.log"
    with ollama(Model()) as srv, stderr_path.open("w") as errlog:
        params = serve_params(clean_env, srv.url, ledger, pidfile)
        async with mcp.Client(stdio_client(params, errlog=errlog), read_timeout_seconds=CALL_TIMEOUT_S) as client:
            results = [await client.call_tool("evaluate_assessment", evaluate_args(f"Text {i}.")) for i in range(2)]
    assert all(not r.is_error and r.structured_content for r in results)
    assert all(r.structured_content["evaluation_id"] is None for r in results if r.structured_content)
    warnings = [line for line in stderr_path.read_text().splitlines() if "evaluation ledger unavailable" in line]
    assert len(warnings) == 1, warnings
    assert "not a database" in warnings[0]


async def test_a_server_killed_right_after_a_cache_served_answer_keeps_that_calls_row(
    clean_env: dict[str, str], tmp_path: Path
) -> None:
    ledger, pidfile = tmp_path / "ledger.sqlite3", tmp_path / "serve.pid"
    with ollama(Model()) as srv, (tmp_path / "stderr.log").open("w") as errlog:
        params = serve_params(clean_env, srv.url, ledger, pidfile)
        async with mcp.Client(stdio_client(params, errlog=errlog), read_timeout_seconds=CALL_TIMEOUT_S) as client:
            first = await client.call_tool("judge_rag_answer", rag_args())
            served = await client.call_tool("judge_rag_answer", rag_args())
            os.kill(int(pidfile.read_text()), signal.SIGKILL)
    assert served.structured_content is not None and served.structured_content["cached"] is True
    _, rows = read_ledger(ledger)
    served_rows = [row for row in rows.values() if row and row["cached"]]
    assert first.structured_content is not None
    assert [row["served_from"] for row in served_rows] == [first.structured_content["evaluation_id"]]
