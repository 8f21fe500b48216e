"""HTTP connections that never finish their request cannot hold the server.

uvicorn (h11) has no timeout for reading a request's headers or body: its keep-alive timer runs only between
requests, and any byte received cancels it. A client that opens connections and sends half a header keeps
each one, and its file descriptor, forever; about a thousand of them exhaust the process's descriptors, the
listening socket can no longer accept, and an authorized request waits with the rest. uvicorn's
`limit_concurrency` does not help here: it counts those connections too, so at the limit it answers the
authorized request with 503.

So each connection is uvicorn's own h11 protocol with a deadline per phase: its headers within
`HEADER_TIMEOUT_S` of connecting (or of its previous response, on a kept-alive connection), its body within
`BODY_TIMEOUT_S` of its headers. Once a request is in, no deadline applies (a tool call may run long). The
connections are capped below the descriptor limit; a new connection at the cap displaces the oldest one
still waiting for its headers, and is refused only when every connection holds a request. Closures are
reported in one log line per `REPORT_INTERVAL_S`, never one per connection.
"""

from __future__ import annotations

import asyncio
import resource
from collections import Counter
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from gavel.server.http_defaults import (
    BODY_TIMEOUT_S,
    FD_RESERVE,
    HEADER_TIMEOUT_S,
    MAX_BACKLOG,
    MAX_CONNECTIONS,
    MAX_DESCRIPTORS,
    REPORT_INTERVAL_S,
)
from gavel.server.logging import get_logger

log = get_logger("gavel.transport")

_REFUSAL = b"HTTP/1.1 503 Service Unavailable\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"


def descriptor_limit() -> int:
    """This process's limit on open file descriptors, first raised to the hard limit where that is higher.

    The soft limit is often 1,024 for the sake of programs that use select(); asyncio uses epoll, and raising
    the soft limit up to the hard one needs no privilege (Go's runtime does the same at start-up). The guard
    below holds whatever the limit is; a higher one only leaves more room.
    """
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = MAX_DESCRIPTORS if hard == resource.RLIM_INFINITY else min(hard, MAX_DESCRIPTORS)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
            soft = wanted
        except (OSError, ValueError):
            pass
    return soft if soft != resource.RLIM_INFINITY else MAX_DESCRIPTORS


def connection_budget(fd_limit: int) -> tuple[int, int]:
    """(connection cap, listen backlog) for a descriptor limit.

    The backlog is how many connections the kernel queues before it drops new ones (a client then waits a
    second to retry), and asyncio accepts up to that many in one go before any is looked at: so the cap plus
    one backlog plus what the process holds otherwise (log, ledger, model connections) must fit the limit.
    """
    room = fd_limit - FD_RESERVE
    backlog = max(16, min(MAX_BACKLOG, room // 2))
    cap = max(16, min(MAX_CONNECTIONS, room - backlog))
    return cap, backlog


class ConnectionGuard:
    """What the connections of one server share: the cap, who waits for headers (oldest first), the tally."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.open: set[GuardedH11Protocol] = set()
        self.waiting: dict[GuardedH11Protocol, None] = {}  # insertion order: oldest first
        self.closed: Counter[str] = Counter()
        self._report: asyncio.TimerHandle | None = None

    def admit(self, connection: GuardedH11Protocol) -> bool:
        """Make room for a new connection; False when every open connection holds a request."""
        if len(self.open) >= self.cap:
            oldest = next(iter(self.waiting), None)
            if oldest is None:
                self.note("refused_at_cap")
                return False
            oldest.drop("displaced_at_cap")
        self.open.add(connection)
        return True

    def forget(self, connection: GuardedH11Protocol) -> None:
        self.open.discard(connection)
        self.waiting.pop(connection, None)

    def note(self, reason: str) -> None:
        self.closed[reason] += 1
        if self._report is None:
            self._report = asyncio.get_running_loop().call_later(REPORT_INTERVAL_S, self.report)

    def report(self) -> None:
        self._report = None
        if self.closed:
            log.warning(
                "closed HTTP connections that did not send a whole request in time",
                **dict(self.closed), open=len(self.open), cap=self.cap, within_s=REPORT_INTERVAL_S,
            )  # fmt: skip
            self.closed.clear()


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with the deadlines and the cap above (`guard` is set per server)."""

    guard: ConnectionGuard

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._deadline: asyncio.TimerHandle | None = None
        self._phase: str | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if not self.guard.admit(self):
            transport.write(_REFUSAL)
            transport.close()
            return
        self._follow()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._follow()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._follow()

    def connection_lost(self, exc: Exception | None) -> None:
        self._arm(None)
        self.guard.forget(self)
        super().connection_lost(exc)

    def drop(self, reason: str) -> None:
        """Close this connection now, for `reason` (counted in the report)."""
        self._arm(None)
        self.guard.forget(self)
        self.guard.note(reason)
        if not self.transport.is_closing():
            self.transport.close()

    def _follow(self) -> None:
        """Set the deadline for the phase the client's side of the connection is in."""
        if self.transport.is_closing():
            return
        state = self.conn.their_state
        if state is h11.IDLE:
            # On a kept-alive connection uvicorn's keep-alive timer also runs until the first byte comes.
            self.guard.waiting.setdefault(self, None)
            if self._phase != "header_timeout":
                self._arm("header_timeout", HEADER_TIMEOUT_S)
        elif state is h11.SEND_BODY:
            self.guard.waiting.pop(self, None)
            if self._phase != "body_timeout":
                self._arm("body_timeout", BODY_TIMEOUT_S)
        else:
            self.guard.waiting.pop(self, None)
            self._arm(None)

    def _arm(self, phase: str | None, after_s: float = 0.0) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None
        self._phase = phase
        if phase is not None:
            self._deadline = self.loop.call_later(after_s, self.drop, phase)


def guarded_protocol(guard: ConnectionGuard) -> type[GuardedH11Protocol]:
    """The protocol class uvicorn instantiates per connection, bound to this server's guard."""
    return type("GuardedH11Protocol", (GuardedH11Protocol,), {"guard": guard})
