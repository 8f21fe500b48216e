"""The tool calls in flight on a server, so that shutdown and a departed client can end them cleanly.

Every boundary tool call runs inside `admit(server)`: a cancel scope the server can reach from outside the
call. Two things use it:

- shutdown (`close_gate`): new calls are refused, the calls in flight get a grace period to finish, and
  then they are cancelled. Each one still answers its client with an ordinary error result ("the server is
  shutting down"), so the HTTP server's own graceful shutdown never has to kill a request mid-response.
- a stateless HTTP request whose client went away (`Lifeline`): its result can never be delivered, so
  the model work behind it is cancelled instead of running on for nobody.
"""

from __future__ import annotations

import contextvars
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from gavel.server.logging import get_logger

log = get_logger("gavel.inflight")

SHUTTING_DOWN = "the server is shutting down; this call was not completed, call it again once the server is back"
CLIENT_GONE = "the client disconnected before the result could be delivered"


class Lifeline:
    """The calls started by one HTTP request, cancelled when its client disconnects."""

    def __init__(self) -> None:
        self.gone = False
        self._scopes: set[anyio.CancelScope] = set()

    def hold(self, scope: anyio.CancelScope) -> None:
        self._scopes.add(scope)

    def release(self, scope: anyio.CancelScope) -> None:
        self._scopes.discard(scope)

    def cut(self) -> None:
        self.gone = True
        for scope in list(self._scopes):
            scope.cancel()


# Set by the HTTP layer for the duration of one request; the tasks that serve it inherit it.
_LIFELINE: contextvars.ContextVar[Lifeline | None] = contextvars.ContextVar("gavel_lifeline", default=None)


@contextmanager
def lifeline() -> Iterator[Lifeline]:
    line = Lifeline()
    token = _LIFELINE.set(line)
    try:
        yield line
    finally:
        _LIFELINE.reset(token)


@contextmanager
def detached() -> Iterator[None]:
    """Run work that outlives the request that started it (an MCP task): the request's client leaving does not
    end it; shutdown still does (it runs inside `admit` like any call)."""
    token = _LIFELINE.set(None)
    try:
        yield
    finally:
        _LIFELINE.reset(token)


class Gate:
    """One server's calls in flight, and whether it still admits new ones; kept on the server (`BoundaryServer`)."""

    def __init__(self) -> None:
        self.closed = False
        self.scopes: set[anyio.CancelScope] = set()
        # Made by `close_gate` (inside the running loop); set when the last call in flight has ended.
        self.drained: anyio.Event | None = None

    def leave(self, scope: anyio.CancelScope) -> None:
        self.scopes.discard(scope)
        if not self.scopes and self.drained is not None:
            self.drained.set()


def _gate(server: MCPServer[Any]) -> Gate:
    """The server's own gate; a server that keeps none (not built by gavel.server.app) has a fresh one each
    time: nothing of it is in flight, and shutdown cannot reach its calls."""
    gate = getattr(server, "gate", None)
    return gate if isinstance(gate, Gate) else Gate()


@contextmanager
def admit(server: MCPServer[Any]) -> Iterator[None]:
    """Run one call's work where shutdown and a departed client can cancel it; either ends as a `ToolError`."""
    gate = _gate(server)
    line = _LIFELINE.get()
    if gate.closed:
        raise ToolError(SHUTTING_DOWN)
    if line is not None and line.gone:
        raise ToolError(CLIENT_GONE)
    with anyio.CancelScope() as scope:
        gate.scopes.add(scope)
        if line is not None:
            line.hold(scope)
        try:
            yield
        finally:
            gate.leave(scope)
            if line is not None:
                line.release(scope)
    if scope.cancelled_caught:
        reason = SHUTTING_DOWN if gate.closed else CLIENT_GONE
        log.info("tool call stopped", reason=reason)
        raise ToolError(reason)


def in_flight(server: MCPServer[Any]) -> int:
    return len(_gate(server).scopes)


async def close_gate(server: MCPServer[Any], grace_s: float) -> int:
    """Refuse new calls, give those in flight `grace_s` to finish, then cancel the rest. Returns how many."""
    gate = _gate(server)
    gate.closed = True
    if gate.scopes:
        gate.drained = anyio.Event()
        with anyio.move_on_after(grace_s):
            await gate.drained.wait()
    cancelled = len(gate.scopes)
    for scope in list(gate.scopes):
        scope.cancel()
    return cancelled
