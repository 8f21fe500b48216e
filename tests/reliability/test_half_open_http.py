"""Connections that open and never finish their headers cannot hold the HTTP server: a real `gavel serve`
with the usual soft limit of 1,024 open files (and with a hard one of 1,024 too), 1,100 such connections on
127.0.0.1, and an authorized client."""

from __future__ import annotations

import resource
import socket
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import httpx2
import mcp
import pytest
from mcp.client.streamable_http import streamable_http_client

from tests.reliability.tally import TALLY
from tests.support.processes import http_server

TOKEN = "half-open-token-51c2e0"
HALF_OPEN = 1_100
FD_LIMIT = 1_024
ANSWER_BOUND_S = 2.0
LOG_BOUND_BYTES = 1_000_000
PARTIAL = b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Never-Ends: "


@contextmanager
def half_open(port: int, count: int) -> Iterator[int]:
    """`count` connections that each send part of a request's headers and then nothing; yields how many
    connected (the server may have closed some of them since)."""
    with ExitStack() as stack:
        opened = 0
        for _ in range(count):
            sock = stack.enter_context(socket.socket())
            sock.settimeout(3.0)
            try:
                sock.connect(("127.0.0.1", port))
                sock.sendall(PARTIAL)
                opened += 1
            except OSError:
                continue
        yield opened


def _limits(hard_too: bool) -> tuple[int, int]:
    """(soft, hard) for the server; skips when this machine cannot give this process room for the sockets."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    needed = HALF_OPEN + 200
    if soft < needed:
        if hard != resource.RLIM_INFINITY and hard < needed:
            pytest.skip(f"this test opens {HALF_OPEN} sockets; the open-file limit here is {hard}")
        resource.setrlimit(resource.RLIMIT_NOFILE, (needed, hard))
    return (FD_LIMIT, FD_LIMIT) if hard_too else (FD_LIMIT, hard)


@pytest.mark.slow
@pytest.mark.parametrize("hard_too", [pytest.param(False, id="soft-limit-1024"), pytest.param(True, id="hard-1024")])
async def test_1100_half_open_connections_do_not_stop_an_authorized_request(
    clean_env: dict[str, str], free_port: Callable[[], int], tmp_path: Path, hard_too: bool
) -> None:
    env = {**clean_env, "GAVEL_AUTH_TOKEN": TOKEN, "GAVEL_LOG_LEVEL": "INFO"}
    port = free_port()
    limits = _limits(hard_too)
    with (
        http_server(["--transport", "streamable-http"], env, port, tmp_path, fd_limits=limits) as server,
        half_open(port, HALF_OPEN) as opened,
    ):
        started = time.monotonic()
        async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {TOKEN}"}, timeout=10) as http:
            transport = streamable_http_client(f"{server.base_url}/mcp", http_client=http)
            async with mcp.Client(transport, read_timeout_seconds=10) as client:
                tools = await client.list_tools()
        answered_s = time.monotonic() - started
        log_bytes = len(server.stderr().encode())
    TALLY[f"http: authorized session beside {opened:,} half-open connections, s"] = answered_s
    assert opened >= HALF_OPEN * 0.9, f"only {opened} of {HALF_OPEN} connections opened"
    assert tools.tools
    assert answered_s < ANSWER_BOUND_S
    assert log_bytes < LOG_BOUND_BYTES
