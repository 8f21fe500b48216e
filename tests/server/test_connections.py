"""Connections that do not finish their request are closed, and their number is capped: a real uvicorn
server with the guarded protocol, on 127.0.0.1, driven over raw sockets."""

from __future__ import annotations

import asyncio
import io
import json
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
import uvicorn
from starlette.types import Receive, Scope, Send

from gavel.server import connections
from gavel.server.connections import ConnectionGuard, connection_budget, guarded_protocol

SHORT_S = 0.3
HOLD_S = 1.0  # how long /hold takes to answer: several deadlines
WAIT_S = 3.0


async def _app(scope: Scope, receive: Receive, send: Send) -> None:
    """Reads the whole body, then answers how many bytes it got; holds the response while the path is /hold."""
    if scope["type"] != "http":
        return
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return
        size += len(message.get("body", b""))
        if not message.get("more_body", False):
            break
    if scope["path"] == "/hold":
        await asyncio.sleep(HOLD_S)
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"8")]})
    await send({"type": "http.response.body", "body": f"{size:8d}".encode()})


@asynccontextmanager
async def serving(cap: int = 100) -> AsyncIterator[int]:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    config = uvicorn.Config(_app, log_config=None, lifespan="off", http=guarded_protocol(ConnectionGuard(cap)))
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started:  # noqa: ASYNC110 - uvicorn exposes a flag, no event
        await asyncio.sleep(0.01)
    try:
        yield sock.getsockname()[1]
    finally:
        server.should_exit = True
        await asyncio.wait_for(task, WAIT_S * 3)


@pytest.fixture(autouse=True)
def short_deadlines(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(connections, "HEADER_TIMEOUT_S", SHORT_S)
    monkeypatch.setattr(connections, "BODY_TIMEOUT_S", SHORT_S)


async def _open(port: int, data: bytes) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(data)
    await writer.drain()
    return reader, writer


async def _closed_by_server(reader: asyncio.StreamReader) -> bytes:
    """Everything the server sent before it closed; fails if it keeps the connection open."""
    return await asyncio.wait_for(reader.read(), WAIT_S)


REQUEST = b"POST / HTTP/1.1\r\nhost: x\r\ncontent-length: 2\r\n\r\nhi"


async def test_a_connection_that_never_finishes_its_headers_is_closed() -> None:
    async with serving() as port:
        reader, _ = await _open(port, b"POST / HTTP/1.1\r\nhost: x\r\nx-slow: ")
        assert await _closed_by_server(reader) == b""


async def test_a_connection_that_never_finishes_its_body_is_closed() -> None:
    async with serving() as port:
        reader, _ = await _open(port, b"POST / HTTP/1.1\r\nhost: x\r\ncontent-length: 100\r\n\r\nonly ten b")
        assert await _closed_by_server(reader) == b""


async def test_a_kept_alive_connection_that_starts_a_request_and_stalls_is_closed() -> None:
    async with serving() as port:
        reader, writer = await _open(port, REQUEST)
        assert (await asyncio.wait_for(reader.readuntil(b"       2"), WAIT_S)).startswith(b"HTTP/1.1 200")
        writer.write(b"POST / HTTP/1.1\r\nho")
        assert await _closed_by_server(reader) == b""


async def test_a_request_in_progress_has_no_deadline() -> None:
    async with serving() as port:
        reader, _ = await _open(
            port, b"POST /hold HTTP/1.1\r\nhost: x\r\ncontent-length: 2\r\nconnection: close\r\n\r\nhi"
        )
        assert (await asyncio.wait_for(reader.read(), WAIT_S * 3)).startswith(b"HTTP/1.1 200")


async def test_at_the_cap_a_new_connection_displaces_the_oldest_one_still_sending_headers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(connections, "HEADER_TIMEOUT_S", WAIT_S * 10)
    async with serving(cap=4) as port:
        stalled = [await _open(port, b"GET / HTTP/1.1\r\nho") for _ in range(4)]
        reader, _ = await _open(port, REQUEST)
        assert (await asyncio.wait_for(reader.readuntil(b"       2"), WAIT_S)).startswith(b"HTTP/1.1 200")
        assert await _closed_by_server(stalled[0][0]) == b""
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(stalled[1][0].read(), SHORT_S)


async def test_at_the_cap_with_every_connection_holding_a_request_a_new_one_is_refused_with_503() -> None:
    async with serving(cap=2) as port:
        holding = [await _open(port, b"POST /hold HTTP/1.1\r\nhost: x\r\ncontent-length: 0\r\n\r\n") for _ in range(2)]
        await asyncio.sleep(0.1)
        reader, _ = await _open(port, REQUEST)
        assert (await _closed_by_server(reader)).startswith(b"HTTP/1.1 503")
        assert all(not writer.is_closing() for _, writer in holding)


@pytest.mark.parametrize(("limit", "cap", "backlog"), [(1024, 480, 480), (4096, 1000, 2016), (65536, 1000, 2048)])
def test_the_cap_leaves_room_for_one_accept_batch_and_the_process_own_descriptors(
    limit: int, cap: int, backlog: int
) -> None:
    assert connection_budget(limit) == (cap, backlog)


async def test_closed_connections_are_reported_in_one_line_per_interval(
    log_stream: io.StringIO, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(connections, "REPORT_INTERVAL_S", SHORT_S * 2)
    async with serving() as port:
        stalled = [await _open(port, b"GET / HTTP/1.1\r\nho") for _ in range(20)]
        for reader, _ in stalled:
            assert await _closed_by_server(reader) == b""
        await asyncio.sleep(SHORT_S * 2)
    lines = [json.loads(line) for line in log_stream.getvalue().splitlines()]
    reports = [line for line in lines if line["event"].startswith("closed HTTP connections")]
    assert len(reports) == 1 and reports[0]["header_timeout"] == 20
