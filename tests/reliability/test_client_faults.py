"""Client faults: a cancelled call, a client that goes away mid-call (stdio EOF, a killed client, a dropped HTTP
connection), a flood of concurrent calls, and SIGTERM/SIGINT on the HTTP server while a call is in flight.

In-memory tests use the scripted model with a latency; process tests run `gavel serve` with
GAVEL_BACKEND=ollama against the Ollama-API test server in this process, whose model takes its time.
"""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import anyio
import httpx
import mcp
import pytest

from tests.reliability.support import check_result, perfect_model, result_text, scripted_server
from tests.reliability.tally import FULL, TALLY
from tests.support.ollama_server import OllamaTestServer
from tests.support.processes import GAVEL, STOP_TIMEOUT_S, RunningServer, http_server
from tests.support.replies import reply_for_schema

MODEL = "judge-model:latest"
SHUTDOWN_BOUND_S = 12.0  # the server's graceful shutdown (5 s) plus start-up noise on a loaded machine
CLIENT_TIMEOUT_S = 30.0
TWO_METRICS = {"assessment": "Low mood for three weeks.", "metrics": ["specificity", "completeness"]}
DETERMINISTIC = {"candidates": [{"id": "a", "q": 1.0}, {"id": "b", "q": 2.0}], "weights": {"q": 1}}
INIT_PARAMS = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw-test", "version": "0"}}


# -- in memory: cancellation and a flood ------------------------------------------------------------------------


async def _wait_for(condition: Callable[[], bool], timeout_s: float) -> None:
    # Polling: the conditions are counters in the scripted backend and the test server, which signal nothing.
    with anyio.fail_after(timeout_s):
        while not condition():  # noqa: ASYNC110
            await anyio.sleep(0.01)


async def test_cancelling_a_long_call_releases_the_model_call_promptly() -> None:
    backend = perfect_model(latency_s=30.0)
    server, _ = scripted_server(backend)
    async with mcp.Client(server) as client:
        async with anyio.create_task_group() as tg:
            tg.start_soon(client.call_tool, "evaluate_assessment", {"assessment": "Low mood."})
            await _wait_for(lambda: backend.in_flight > 0, 5.0)
            started = time.monotonic()
            tg.cancel_scope.cancel()
        await _wait_for(lambda: backend.in_flight == 0, 2.0)
        released_after = time.monotonic() - started
        requests = len(backend.requests)
        await anyio.sleep(0.3)
        assert len(backend.requests) == requests, "the cancelled call kept calling the model"
        backend.latency_s = 0.0
        after = await client.call_tool("evaluate_assessment", {"assessment": "Low mood."})
    TALLY["client faults: cancelled calls released"] += 1
    assert released_after < 2.0
    assert after.is_error is False, result_text(after)


FLOOD_CALLS = 1000 if FULL else 200
FLOOD_SESSIONS = 10


async def test_a_flood_of_concurrent_calls_is_served_within_the_limiter_and_the_server_stays_healthy() -> None:
    backend = perfect_model(latency_s=0.002)
    server, deps = scripted_server(backend, overrides={"max_concurrency": 4})
    calls: list[tuple[str, dict[str, Any]]] = []
    for i in range(FLOOD_CALLS // 4):
        calls += [
            ("evaluate_assessment", {"assessment": f"Text {i}.", "metrics": ["specificity"]}),
            ("score_candidates", DETERMINISTIC),
            ("judge_rag_answer", {"question": "Who?", "answer": f"Ada [1] {i}.", "sources": [{"content": "Ada."}],
                                  "evaluation_context": "DIAGNOSTIC"}),
            ("evaluate_assessment", {"assessment": f"Text {i}.", "samples": 0}),  # refused: samples
        ]  # fmt: skip
    outcomes: list[str] = []
    started = time.monotonic()

    async def session(share: list[tuple[str, dict[str, Any]]]) -> None:
        async with mcp.Client(server) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}

            async def one(name: str, arguments: dict[str, Any]) -> None:
                result = await client.call_tool(name, arguments)
                outcomes.append(check_result(tools[name], result))

            async with anyio.create_task_group() as tg:
                for name, arguments in share:
                    tg.start_soon(one, name, arguments)

    with anyio.fail_after(120):
        async with anyio.create_task_group() as tg:
            for index in range(FLOOD_SESSIONS):
                tg.start_soon(session, calls[index::FLOOD_SESSIONS])
    TALLY["client faults: flood calls (concurrent, in memory)"] += len(outcomes)
    TALLY["client faults: flood wall time, s"] = round(time.monotonic() - started, 1)
    assert len(outcomes) == len(calls)
    assert outcomes.count("error") == len(calls) // 4, "only the calls with samples=0 are refused"
    assert backend.max_in_flight <= deps.settings.max_concurrency
    async with mcp.Client(server) as client:
        assert (await client.call_tool("score_candidates", DETERMINISTIC)).is_error is False


# -- processes: a model that takes its time ---------------------------------------------------------------------


@dataclass
class SlowModel:
    """The Ollama test server's model: answers every chat after `delay_s` (or when released)."""

    delay_s: float = 2.0
    chats: list[float] = field(default_factory=list)
    release: threading.Event = field(default_factory=threading.Event)

    def __call__(self, body: dict[str, Any]) -> str:
        self.chats.append(time.monotonic())
        self.release.wait(self.delay_s)
        schema = body.get("format") if isinstance(body.get("format"), dict) else None
        return reply_for_schema(schema, "max")

    def reset(self, delay_s: float) -> None:
        self.release.set()  # let any request a previous test left hanging finish now
        self.delay_s, self.chats, self.release = delay_s, [], threading.Event()


@pytest.fixture(scope="module")
def ollama() -> Iterator[OllamaTestServer]:
    with OllamaTestServer(SlowModel(), models=[MODEL]) as server:
        yield server
        model = server.responder
        assert isinstance(model, SlowModel)
        model.release.set()


@pytest.fixture
def model(ollama: OllamaTestServer) -> Iterator[SlowModel]:
    slow = ollama.responder
    assert isinstance(slow, SlowModel)
    slow.reset(delay_s=1.0)
    yield slow
    slow.release.set()


@pytest.fixture(scope="module")
def gavel_env(clean_env: dict[str, str], ollama: OllamaTestServer) -> dict[str, str]:
    return {
        **clean_env,
        "GAVEL_BACKEND": "ollama",
        "GAVEL_OLLAMA_HOST": ollama.url,
        "GAVEL_JUDGE_MODEL": MODEL,
        "GAVEL_MAX_CONCURRENCY": "1",
        "GAVEL_TIMEOUT_S": "30",
        "GAVEL_LEDGER_PATH": "off",
    }


def _wait_until(condition: Callable[[], bool], timeout_s: float, what: str) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, f"timed out after {timeout_s:g}s waiting for {what}"
        time.sleep(0.02)


def _rpc(message_id: int | None, method: str, params: dict[str, Any] | None = None) -> bytes:
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if message_id is not None:
        message["id"] = message_id
    if params is not None:
        message["params"] = params
    return (json.dumps(message) + "\n").encode()


# -- stdio ------------------------------------------------------------------------------------------------------


def _stdio_mid_call(env: dict[str, str], model: SlowModel, tmp_path: Path) -> tuple[subprocess.Popen[bytes], Path]:
    stderr_path = tmp_path / "stdio.stderr"
    with stderr_path.open("wb") as stderr:
        process = subprocess.Popen(
            [*GAVEL, "serve"], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr
        )
    assert process.stdin is not None
    process.stdin.write(_rpc(1, "initialize", INIT_PARAMS))
    process.stdin.write(_rpc(None, "notifications/initialized"))
    process.stdin.write(_rpc(2, "tools/call", {"name": "evaluate_assessment", "arguments": TWO_METRICS}))
    process.stdin.flush()
    _wait_until(lambda: bool(model.chats), 30.0, "the call to reach the model")
    return process, stderr_path


def _finish(process: subprocess.Popen[bytes], bound_s: float) -> tuple[int, float]:
    started = time.monotonic()
    try:
        code = process.wait(timeout=bound_s)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=STOP_TIMEOUT_S)
        raise AssertionError(f"the server did not exit within {bound_s:g}s and was killed") from None
    return code, time.monotonic() - started


def test_stdio_eof_in_the_middle_of_a_call_exits_0_promptly_and_stops_calling_the_model(
    gavel_env: dict[str, str], model: SlowModel, tmp_path: Path
) -> None:
    process, stderr_path = _stdio_mid_call(gavel_env, model, tmp_path)
    assert process.stdin is not None
    process.stdin.close()
    code, took = _finish(process, SHUTDOWN_BOUND_S)
    TALLY["client faults: stdio disconnects mid-call"] += 1
    assert code == 0, stderr_path.read_text(errors="replace")
    assert took < SHUTDOWN_BOUND_S
    time.sleep(model.delay_s + 0.5)
    assert len(model.chats) == 1, "the second metric was still judged after the client left"
    assert "Traceback" not in stderr_path.read_text(errors="replace")


def test_a_stdio_client_killed_in_the_middle_of_a_call_ends_the_server_with_0_and_no_traceback(
    gavel_env: dict[str, str], model: SlowModel, tmp_path: Path
) -> None:
    process, stderr_path = _stdio_mid_call(gavel_env, model, tmp_path)
    assert process.stdin is not None and process.stdout is not None
    process.stdin.close()
    process.stdout.close()
    code, _ = _finish(process, SHUTDOWN_BOUND_S)
    stderr = stderr_path.read_text(errors="replace")
    assert (code, "Traceback" in stderr) == (0, False), stderr[-2000:]


# -- streamable HTTP --------------------------------------------------------------------------------------------


def _serve_http(
    args: list[str], env: dict[str, str], port: int, factory: pytest.TempPathFactory
) -> Iterator[RunningServer]:
    with http_server(["--transport", "streamable-http", *args], env, port, factory.mktemp("http")) as server:
        yield server


@pytest.fixture(scope="module")
def stateful_http(
    gavel_env: dict[str, str], free_port: Callable[[], int], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[RunningServer]:
    yield from _serve_http([], gavel_env, free_port(), tmp_path_factory)


@pytest.fixture(scope="module")
def stateless_http(
    gavel_env: dict[str, str], free_port: Callable[[], int], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[RunningServer]:
    yield from _serve_http(["--stateless"], gavel_env, free_port(), tmp_path_factory)


@pytest.fixture(params=[pytest.param("stateful_http", id="stateful"), pytest.param("stateless_http", id="stateless")])
def http(request: pytest.FixtureRequest) -> RunningServer:
    server: RunningServer = request.getfixturevalue(request.param)
    return server


class RawSession:
    """An MCP session over plain HTTP requests, so a test can drop the connection the way a dead client does."""

    HEADERS: ClassVar[dict[str, str]] = {
        "accept": "application/json, text/event-stream",
        "content-type": "application/json",
    }

    def __init__(self, server: RunningServer) -> None:
        self.url = f"{server.base_url}/mcp"
        self.http = httpx.Client(timeout=CLIENT_TIMEOUT_S)
        reply = self.http.post(self.url, headers=self.HEADERS, json=json.loads(_rpc(1, "initialize", INIT_PARAMS)))
        assert reply.status_code == 200, reply.text
        self.headers = {**self.HEADERS, "mcp-protocol-version": INIT_PARAMS["protocolVersion"]}
        if session_id := reply.headers.get("mcp-session-id"):
            self.headers["mcp-session-id"] = session_id
        self.http.post(self.url, headers=self.headers, json=json.loads(_rpc(None, "notifications/initialized")))
        self.sock: socket.socket | None = None

    def call_in_background(self, name: str, arguments: dict[str, Any]) -> None:
        """Send the call on a raw socket of its own, so `drop` can end the connection the way a dead client does.

        (Closing an httpx client from another thread does not: the socket stays open while a read waits on it.)
        """
        body = _rpc(2, "tools/call", {"name": name, "arguments": arguments})
        url = httpx.URL(self.url)
        head = "".join(f"{k}: {v}\r\n" for k, v in self.headers.items())
        request = (
            f"POST {url.path} HTTP/1.1\r\nhost: {url.host}:{url.port}\r\n{head}content-length: {len(body)}\r\n\r\n"
        ).encode()
        self.sock = socket.create_connection((url.host, url.port or 80), timeout=CLIENT_TIMEOUT_S)
        self.sock.sendall(request + body)

    def drop(self) -> None:
        if self.sock is not None:
            self.sock.shutdown(socket.SHUT_RDWR)
            self.sock.close()
        self.http.close()


async def _healthy(server: RunningServer) -> None:
    async with mcp.Client(f"{server.base_url}/mcp", read_timeout_seconds=CLIENT_TIMEOUT_S) as client:
        assert (await client.list_tools()).tools
        result = await client.call_tool("score_candidates", DETERMINISTIC)
        assert result.is_error is False, result_text(result)


def _ended_calls(server: RunningServer, tool: str = "evaluate_assessment") -> int:
    ended = ("tool call finished", "tool call stopped")
    return sum(1 for line in _log(server) if line.get("event") in ended and line.get("tool") == tool)


async def test_a_dropped_http_connection_mid_call_leaves_the_server_healthy_and_the_call_bounded(
    http: RunningServer, model: SlowModel
) -> None:
    finished = _ended_calls(http)
    session = RawSession(http)
    session.call_in_background("evaluate_assessment", TWO_METRICS)
    await anyio.to_thread.run_sync(_wait_until, lambda: bool(model.chats), 30.0, "the call to reach the model")
    session.drop()
    await _healthy(http)  # while the orphaned call is still waiting on the model
    # Stateful sessions may resume, so the MCP spec has the server carry on; either way the call ends in bounded time.
    await anyio.to_thread.run_sync(
        _wait_until, lambda: _ended_calls(http) > finished, 4 * model.delay_s + 10, "the orphaned call to end"
    )
    TALLY["client faults: HTTP connections dropped mid-call"] += 1
    await _healthy(http)


async def test_a_dropped_stateless_connection_releases_the_work(
    stateless_http: RunningServer, model: SlowModel
) -> None:
    session = RawSession(stateless_http)
    session.call_in_background("evaluate_assessment", TWO_METRICS)
    await anyio.to_thread.run_sync(_wait_until, lambda: bool(model.chats), 30.0, "the call to reach the model")
    session.drop()
    await anyio.sleep(model.delay_s + 1.0)
    assert len(model.chats) == 1, "the second metric was judged for a client that is gone"


async def test_an_http_client_cancelling_its_call_releases_the_work(http: RunningServer, model: SlowModel) -> None:
    async with mcp.Client(f"{http.base_url}/mcp", read_timeout_seconds=CLIENT_TIMEOUT_S) as client:
        async with anyio.create_task_group() as tg:
            tg.start_soon(client.call_tool, "evaluate_assessment", TWO_METRICS)
            await _wait_for(lambda: bool(model.chats), 30.0)
            tg.cancel_scope.cancel()
        await anyio.sleep(model.delay_s + 1.0)
    assert len(model.chats) == 1, "the second metric was judged after the client cancelled"
    await _healthy(http)


# -- SIGTERM / SIGINT with a call in flight ---------------------------------------------------------------------


@dataclass
class InFlight:
    outcome: str | None = None
    ended_at: float | None = None


def _call_in_thread(server: RunningServer) -> tuple[threading.Thread, InFlight]:
    state = InFlight()

    async def run() -> None:
        async with mcp.Client(f"{server.base_url}/mcp", read_timeout_seconds=CLIENT_TIMEOUT_S) as client:
            result = await client.call_tool("evaluate_assessment", TWO_METRICS)
            state.outcome = "error result" if result.is_error else "result"

    def thread_main() -> None:
        try:
            anyio.run(run)
        except BaseException as exc:  # noqa: BLE001 - any way the client's call ends is recorded, none is hidden
            state.outcome = f"client error: {type(exc).__name__}"
        state.ended_at = time.monotonic()

    thread = threading.Thread(target=thread_main, daemon=True)
    thread.start()
    return thread, state


def _log(server: RunningServer) -> list[dict[str, Any]]:
    return [json.loads(line) for line in server.stderr().splitlines() if line.startswith("{")]


def _signal_mid_call(
    args: list[str], sig: signal.Signals, env: dict[str, str], port: int, tmp_path: Path, model: SlowModel
) -> tuple[RunningServer, int, float, InFlight]:
    with http_server(["--transport", "streamable-http", *args], env, port, tmp_path) as server:
        thread, state = _call_in_thread(server)
        _wait_until(lambda: bool(model.chats), 30.0, "the call to reach the model")
        started = time.monotonic()
        server.process.send_signal(sig)
        code, took = _finish(server.process, SHUTDOWN_BOUND_S)
        thread.join(CLIENT_TIMEOUT_S)
        assert state.ended_at is not None, "the client's call never ended"
        assert state.ended_at - started < SHUTDOWN_BOUND_S + 5
    return server, code, took, state


@dataclass
class SignalRun:
    server: RunningServer
    code: int
    took: float
    call: InFlight


@pytest.fixture(scope="module", params=[
    pytest.param(([], signal.SIGTERM), id="stateful-sigterm"),
    pytest.param((["--stateless"], signal.SIGINT), id="stateless-sigint"),
])  # fmt: skip
def signal_run(
    request: pytest.FixtureRequest,
    gavel_env: dict[str, str],
    free_port: Callable[[], int],
    tmp_path_factory: pytest.TempPathFactory,
    ollama: OllamaTestServer,
) -> Iterator[SignalRun]:
    """One server, signalled while a call waits on the model; the tests below read what happened."""
    model = ollama.responder
    assert isinstance(model, SlowModel)
    model.reset(delay_s=60.0)  # the call would outlive any graceful shutdown
    args, sig = request.param
    server, code, took, state = _signal_mid_call(
        args, sig, gavel_env, free_port(), tmp_path_factory.mktemp("sig"), model
    )
    TALLY["client faults: signals with a call in flight"] += 1
    yield SignalRun(server, code, took, state)
    model.release.set()


def test_a_signal_with_a_call_in_flight_stops_the_http_server_with_0_within_a_bound(signal_run: SignalRun) -> None:
    assert signal_run.code == 0, signal_run.server.stderr()[-2000:]
    assert signal_run.took < SHUTDOWN_BOUND_S
    assert _log(signal_run.server)[-1]["event"] == "stopped"


def test_a_call_cut_short_by_a_signal_ends_for_its_client_and_never_looks_complete(signal_run: SignalRun) -> None:
    assert signal_run.call.ended_at is not None
    assert signal_run.call.outcome not in (None, "result")


def test_a_signal_with_a_call_in_flight_logs_no_error(signal_run: SignalRun) -> None:
    errors = [line["event"] for line in _log(signal_run.server) if line.get("level") in ("error", "critical")]
    assert errors == []
