"""`gavel serve` as a real process over stdio, SSE and Streamable HTTP, with real MCP clients."""

from __future__ import annotations

import json
import queue
import signal
import socket
import subprocess
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import httpx2
import mcp
import pytest
from mcp import StdioServerParameters
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client
from mcp_types import TextResourceContents

from tests.conftest import PYTHON
from tests.support.processes import (
    GAVEL,
    STOP_TIMEOUT_S,
    RunningServer,
    http_server,
    port_is_open,
    run_gavel,
    stop,
)

pytestmark = pytest.mark.slow

TOKEN = "e2e-token-4f9a1c"
CLIENT_TIMEOUT_S = 20.0


async def _answers_lists_and_reads(client: mcp.Client) -> None:
    tools = (await client.list_tools()).tools
    assert tools, "the server lists no tools"
    assert all(tool.input_schema.get("type") == "object" for tool in tools)
    uris = {str(r.uri) for r in (await client.list_resources()).resources}
    assert {"rubric://index", "rubric://clinical-assessment"} <= uris


async def test_gavel_serve_over_stdio_answers_initialize_lists_and_reads(clean_env: dict[str, str]) -> None:
    params = StdioServerParameters(command=PYTHON, args=["-m", "gavel.server", "serve"], env=clean_env)
    async with mcp.Client(params, read_timeout_seconds=CLIENT_TIMEOUT_S) as client:
        assert client.server_info is not None and client.server_info.name == "gavel"
        await _answers_lists_and_reads(client)
        read = await client.read_resource("rubric://clinical-assessment")
        prompts = (await client.list_prompts()).prompts
    assert isinstance(read.contents[0], TextResourceContents)
    assert json.loads(read.contents[0].text)["id"] == "clinical-assessment"
    assert "evaluate-assessment" in {p.name for p in prompts}


def _rpc(message_id: int | None, method: str, params: dict[str, Any] | None = None) -> bytes:
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if message_id is not None:
        message["id"] = message_id
    if params is not None:
        message["params"] = params
    return (json.dumps(message) + "\n").encode()


def _read_lines(stream: Any, sink: queue.Queue[bytes | None]) -> None:
    for line in iter(stream.readline, b""):
        sink.put(line)
    sink.put(None)


def test_stdout_carries_only_json_rpc_messages_and_logs_go_to_stderr(clean_env: dict[str, str], tmp_path: Path) -> None:
    env = {**clean_env, "GAVEL_LOG_LEVEL": "DEBUG"}
    stderr_path = tmp_path / "stderr.log"
    with stderr_path.open("wb") as stderr:
        process = subprocess.Popen(
            [*GAVEL, "serve"], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr
        )
    assert process.stdin is not None and process.stdout is not None
    lines: queue.Queue[bytes | None] = queue.Queue()
    threading.Thread(target=_read_lines, args=(process.stdout, lines), daemon=True).start()
    try:
        initialize = {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "raw-test", "version": "0"},
        }
        process.stdin.write(_rpc(1, "initialize", initialize))
        process.stdin.write(_rpc(None, "notifications/initialized"))
        process.stdin.write(_rpc(2, "tools/list", {}))
        process.stdin.write(_rpc(3, "resources/read", {"uri": "rubric://clinical-assessment"}))
        process.stdin.write(_rpc(4, "prompts/list", {}))
        # A call the server refuses before any model is involved: it logs, and must still only log to stderr.
        process.stdin.write(_rpc(5, "tools/call", {"name": "evaluate_assessment", "arguments": {}}))
        process.stdin.flush()

        stdout_lines: list[bytes] = []
        answered: set[int] = set()
        while answered != {1, 2, 3, 4, 5}:
            line = lines.get(timeout=CLIENT_TIMEOUT_S)
            assert line is not None, f"stdout closed early; stderr:\n{stderr_path.read_text(errors='replace')}"
            stdout_lines.append(line)
            message = json.loads(line)
            if "id" in message:
                answered.add(message["id"])

        process.stdin.close()
        assert process.wait(timeout=STOP_TIMEOUT_S) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=STOP_TIMEOUT_S)

    while (rest := lines.get(timeout=STOP_TIMEOUT_S)) is not None:
        stdout_lines.append(rest)
    for line in stdout_lines:
        message = json.loads(line)
        assert message["jsonrpc"] == "2.0", line
        assert {"result", "error", "method"} & set(message), line
    log_lines = [json.loads(line) for line in stderr_path.read_text().splitlines() if line.startswith("{")]
    assert any(line.get("event") == "serving" for line in log_lines)


@pytest.fixture(scope="module")
def streamable_server(
    clean_env: dict[str, str], free_port: Callable[[], int], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[RunningServer]:
    """One Streamable HTTP server for the tests that only send it requests (starting one costs seconds)."""
    with http_server(["--transport", "streamable-http"], clean_env, free_port(), tmp_path_factory.mktemp("s")) as s:
        yield s


@pytest.fixture(scope="module")
def authenticated_server(
    clean_env: dict[str, str], free_port: Callable[[], int], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[RunningServer]:
    env = {**clean_env, "GAVEL_AUTH_TOKEN": TOKEN}
    with http_server(["--transport", "streamable-http"], env, free_port(), tmp_path_factory.mktemp("a")) as s:
        yield s


async def test_streamable_http_answers_lists_and_reads(streamable_server: RunningServer) -> None:
    async with mcp.Client(f"{streamable_server.base_url}/mcp", read_timeout_seconds=CLIENT_TIMEOUT_S) as client:
        await _answers_lists_and_reads(client)


async def test_stateless_streamable_http_answers_lists_and_reads(
    clean_env: dict[str, str], free_port: Callable[[], int], tmp_path: Path
) -> None:
    port = free_port()
    with http_server(["--transport", "streamable-http", "--stateless"], clean_env, port, tmp_path) as server:
        async with mcp.Client(f"{server.base_url}/mcp", read_timeout_seconds=CLIENT_TIMEOUT_S) as client:
            await _answers_lists_and_reads(client)


async def test_sse_answers_lists_and_reads(
    clean_env: dict[str, str], free_port: Callable[[], int], tmp_path: Path
) -> None:
    port = free_port()
    with http_server(["--transport", "sse"], clean_env, port, tmp_path) as server:
        transport = sse_client(f"{server.base_url}/sse", timeout=CLIENT_TIMEOUT_S)
        async with mcp.Client(transport, read_timeout_seconds=CLIENT_TIMEOUT_S) as client:
            await _answers_lists_and_reads(client)


@pytest.mark.parametrize(
    "headers",
    [pytest.param({}, id="no-token"), pytest.param({"Authorization": "Bearer not-the-token"}, id="wrong-token")],
)
def test_http_with_an_auth_token_answers_401_without_the_right_bearer(
    authenticated_server: RunningServer, headers: dict[str, str]
) -> None:
    response = httpx.post(
        f"{authenticated_server.base_url}/mcp",
        json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
        headers=headers,
        timeout=10,
    )
    assert response.status_code == 401


async def test_http_with_an_auth_token_serves_a_client_sending_the_right_bearer(
    authenticated_server: RunningServer,
) -> None:
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {TOKEN}"}, timeout=CLIENT_TIMEOUT_S) as http:
        transport = streamable_http_client(f"{authenticated_server.base_url}/mcp", http_client=http)
        async with mcp.Client(transport, read_timeout_seconds=CLIENT_TIMEOUT_S) as client:
            await _answers_lists_and_reads(client)


def test_auth_token_never_appears_in_the_server_log(authenticated_server: RunningServer) -> None:
    httpx.post(f"{authenticated_server.base_url}/mcp", headers={"Authorization": f"Bearer {TOKEN}x"}, timeout=10)
    httpx.post(f"{authenticated_server.base_url}/mcp", headers={"Authorization": f"Bearer {TOKEN}"}, timeout=10)
    assert TOKEN not in authenticated_server.stderr()


def test_binding_beyond_loopback_without_a_token_exits_2_and_never_binds(
    clean_env: dict[str, str], free_port: Callable[[], int]
) -> None:
    port = free_port()
    result = run_gavel(["serve", "--transport", "streamable-http", "--host", "0.0.0.0", "--port", str(port)], clean_env)
    assert result.returncode == 2
    assert "refusing to listen on 0.0.0.0 without an auth token" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert not port_is_open(port)


def test_a_port_in_use_exits_2_naming_the_port_before_serving(
    clean_env: dict[str, str], free_port: Callable[[], int]
) -> None:
    port = free_port()
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", port))
        taken.listen()
        result = run_gavel(["serve", "--transport", "streamable-http", "--port", str(port)], clean_env)
    assert result.returncode == 2
    assert f"cannot listen on 127.0.0.1:{port}" in result.stderr and "choose another --port" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_request_body_over_4_mib_gets_413(streamable_server: RunningServer) -> None:
    body = b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"pad": "' + b"x" * (4 * 1024 * 1024) + b'"}}'
    response = httpx.post(
        f"{streamable_server.base_url}/mcp",
        content=body,
        headers={"content-type": "application/json", "accept": "application/json, text/event-stream"},
        timeout=10,
    )
    assert response.status_code == 413


def test_foreign_host_header_is_refused_against_dns_rebinding(streamable_server: RunningServer) -> None:
    response = httpx.post(
        f"{streamable_server.base_url}/mcp",
        json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
        headers={"host": f"attacker.example:{streamable_server.port}", "accept": "application/json, text/event-stream"},
        timeout=10,
    )
    assert response.status_code == 421


def _hold_sse_stream(url: str, opened: threading.Event) -> None:
    try:
        with httpx.stream("GET", url, timeout=STOP_TIMEOUT_S * 2) as response:
            opened.set()
            for _ in response.iter_lines():
                pass
    except httpx.HTTPError:
        pass  # the server closing the stream on shutdown is the point


def test_http_server_with_a_client_connected_stops_on_sigterm_promptly_and_cleanly(
    clean_env: dict[str, str], free_port: Callable[[], int], tmp_path: Path
) -> None:
    with http_server(["--transport", "sse"], clean_env, free_port(), tmp_path) as server:
        opened = threading.Event()
        threading.Thread(target=_hold_sse_stream, args=(f"{server.base_url}/sse", opened), daemon=True).start()
        assert opened.wait(timeout=CLIENT_TIMEOUT_S)
        code = stop(server.process, signal.SIGTERM)
        log = [json.loads(line) for line in server.stderr().splitlines() if line.startswith("{")]
    assert code == 0
    assert [line["event"] for line in log if line["level"] in ("error", "critical")] == []
    assert log[-1]["event"] == "stopped"


def test_stdio_server_exits_0_on_sigterm_while_the_client_keeps_stdin_open(clean_env: dict[str, str]) -> None:
    process = subprocess.Popen(
        [*GAVEL, "serve"], env=clean_env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    try:
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(_rpc(1, "ping"))
        process.stdin.flush()
        assert json.loads(process.stdout.readline())["id"] == 1  # serving, and stdin stays open
        assert stop(process, signal.SIGTERM) == 0
    finally:
        if process.poll() is None:
            process.kill()
        process.communicate(timeout=STOP_TIMEOUT_S)
