"""The stdio session between the SDK's reader and writer and the server: every frame answered, and a bound on
what one client can make the server hold.

Answered: the SDK's stdio reader hands the server a read error in place of a line it cannot parse, and the
server only logs it at debug level; here the line's sender gets its JSON-RPC error (see `wire.diagnose`). A
line whose id no request can have (1.5, true, [1], null) the SDK takes for a notification and never answers;
here it gets invalid request to id null. So that each item can be matched with its line, the wire's stdin is
read through `_Lines`, which keeps each line until the item made from it arrives (the SDK makes exactly one
item per line, in order).

Bounded: a request holds its handler, and its reply, until the reply is written to stdout. A client that sends
and never reads would make the server hold every one of them (3,000 unread requests took 185 MB). At most
`MAX_IN_FLIGHT` requests of the session are held; beyond that a request is answered at once with a busy error.
When the client does not read even those answers, the reader waits on the writer, so the server stops reading
stdin and the client's own writes block.
"""

from __future__ import annotations

import contextlib
import fcntl
import io
import json
import os
from collections import Counter, deque
from collections.abc import AsyncIterator
from types import TracebackType
from typing import Any, Self

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from mcp_types import ErrorData, JSONRPCError, JSONRPCNotification, JSONRPCRequest, JSONRPCResponse

from gavel.server.logging import get_logger
from gavel.server.wire import Unreadable, diagnose, frame_of, off_loop, printable, stray_id

log = get_logger("gavel.wire")

# Requests of one session held at once (being handled, or answered and waiting for stdout). Far above what a
# client pipelines in practice (the model runs GAVEL_MAX_CONCURRENCY calls at once and queues the rest).
MAX_IN_FLIGHT = 128
# JSON-RPC leaves -32000..-32099 to the server; the SDK uses -32000 for a closed connection.
SERVER_BUSY = -32050
BUSY = f"the server is busy: {MAX_IN_FLIGHT} requests of this session are in flight; send more as their replies arrive"


class _Lines:
    """The stdin lines the SDK reads, each kept until the item made from it is received."""

    def __init__(self, stdin: anyio.AsyncFile[str]) -> None:
        self._stdin = aiter(stdin)
        self.pending: deque[str] = deque()

    def __aiter__(self) -> _Lines:
        return self

    async def __anext__(self) -> str:
        line = await anext(self._stdin)
        self.pending.append(line)
        return line


class _InFlight:
    """The ids of the session's requests not yet answered on stdout (a Counter: ids may repeat)."""

    def __init__(self) -> None:
        self.ids: Counter[str] = Counter()

    @property
    def full(self) -> bool:
        return self.ids.total() >= MAX_IN_FLIGHT

    def start(self, request_id: Any) -> None:
        self.ids[str(request_id)] += 1

    def end(self, request_id: Any) -> None:
        key = str(request_id)
        left = self.ids.pop(key, 0) - 1
        if left > 0:
            self.ids[key] = left


class _Wrapping:
    """A stream wrapped around the SDK's own: closing it, or leaving its `async with`, closes the inner one."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc_val: BaseException | None, exc_tb: TracebackType | None
    ) -> bool | None:
        await self.aclose()
        return None


class CountingWriter(_Wrapping):
    """The SDK's write stream; a request leaves the in-flight set once its reply is written."""

    def __init__(self, inner: Any, in_flight: _InFlight) -> None:
        super().__init__(inner)
        self._in_flight = in_flight

    async def send(self, item: SessionMessage, /) -> None:
        await self._inner.send(item)
        message = item.message
        if isinstance(message, JSONRPCResponse | JSONRPCError) and message.id is not None:
            self._in_flight.end(message.id)


class AnsweringReader(_Wrapping):
    """The SDK's stdio read stream, with every unreadable frame answered instead of dropped, and the session's
    requests in flight bounded. Everything else passes through untouched (and the sender's context with it)."""

    def __init__(self, inner: Any, write: Any, lines: deque[str] | None = None, in_flight: _InFlight | None = None):
        super().__init__(inner)
        self._write = write
        self._lines = lines
        self._in_flight = in_flight or _InFlight()

    @property
    def last_context(self) -> Any:
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> SessionMessage | Exception:
        while True:
            item = await self._inner.receive()
            line = self._lines.popleft() if self._lines else None
            if isinstance(item, Exception):
                frame = line if line is not None else frame_of(item)
                if frame is not None and await self._answer_unreadable(frame):
                    continue
                return item
            message = item.message
            if isinstance(message, JSONRPCNotification):
                if line is not None and '"id"' in line and await self._answer_stray_id(line):
                    continue
                if message.method == "notifications/cancelled" and isinstance(message.params, dict):
                    # A cancelled request is never answered: it leaves the in-flight set here.
                    self._in_flight.end(message.params.get("requestId"))
            elif isinstance(message, JSONRPCRequest):
                if self._in_flight.full:
                    log.warning("refused a request: too many in flight", limit=MAX_IN_FLIGHT)
                    await self._reply(JSONRPCError(jsonrpc="2.0", id=message.id, error=ErrorData(
                        code=SERVER_BUSY, message=BUSY)))  # fmt: skip
                    continue
                self._in_flight.start(message.id)
            return item

    async def _answer_unreadable(self, frame: str) -> bool:
        unreadable = await off_loop(diagnose, frame)
        if unreadable is None:
            log.info("ignored an unreadable notification or response", frame=printable(frame))
            return True
        await self._answer(unreadable)
        return True

    async def _answer_stray_id(self, line: str) -> bool:
        unreadable = await off_loop(_stray_id_in, line)
        if unreadable is None:
            return False
        await self._answer(unreadable)
        return True

    async def _answer(self, unreadable: Unreadable) -> None:
        log.info("answered an unreadable request", id=unreadable.id, code=unreadable.code, why=unreadable.message)
        await self._reply(unreadable.reply())

    async def _reply(self, message: JSONRPCError) -> None:
        with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
            await self._write.send(SessionMessage(message))

    def __aiter__(self) -> AnsweringReader:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None


def _stray_id_in(line: str) -> Unreadable | None:
    try:
        return stray_id(json.loads(line))
    except (ValueError, RecursionError):
        return None


@contextlib.asynccontextmanager
async def _claimed_stdin() -> AsyncIterator[_Lines]:
    """The wire's stdin, read from a private descriptor while fd 0 reads the null device (so nothing else in the
    process can take the client's frames), as the SDK does for the stdin it opens itself."""
    private = fcntl.fcntl(0, fcntl.F_DUPFD_CLOEXEC, 3)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    try:
        # closefd=False: the SDK's reading thread may still block on it after the session ends.
        text = io.TextIOWrapper(os.fdopen(private, "rb", closefd=False), encoding="utf-8", errors="replace")
        yield _Lines(anyio.wrap_file(text))
    finally:
        os.dup2(private, 0)


async def run_stdio_answering(server: MCPServer[Any]) -> None:
    """`server.run_stdio_async()`, with every frame answered and requests in flight bounded (see above).

    The SDK offers no hook between its stdio reader and the server, so this does what `run_stdio_async`
    does, through the server's low-level core (a private attribute; the SDK is pinned below 3).
    """
    lowlevel = server._lowlevel_server
    in_flight = _InFlight()
    async with _claimed_stdin() as stdin, stdio_server(stdin=stdin) as (read_stream, write_stream):  # type: ignore[arg-type]
        await lowlevel.run(
            AnsweringReader(read_stream, write_stream, stdin.pending, in_flight),
            CountingWriter(write_stream, in_flight),
            lowlevel.create_initialization_options(),
        )
