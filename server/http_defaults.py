"""The transports and their HTTP defaults, importable without loading the MCP SDK (the CLI's help needs them)."""

from __future__ import annotations

from typing import Literal

TransportName = Literal["stdio", "sse", "streamable-http"]
TRANSPORTS: tuple[TransportName, ...] = ("stdio", "sse", "streamable-http")

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
MAX_BODY_BYTES = 4 * 1024 * 1024
SHUTDOWN_TIMEOUT_S = 5.0

# Shedding connections that never finish a request (server/connections.py). A real client sends its headers
# in the same instant it connects and a 4 MB body in well under a second on any link an MCP client uses, so
# these bounds only ever close connections that are stalled or hostile.
HEADER_TIMEOUT_S = 10.0
BODY_TIMEOUT_S = 30.0
# uvicorn's own: an idle kept-alive connection is closed after this (its default, stated here).
KEEP_ALIVE_S = 5
# h11's cap on a request's header block while it is incomplete (its default, stated here): 16 KiB.
MAX_HEADER_BYTES = 16 * 1024
# At most this many connections at once, and fewer when the descriptor limit is low: room is kept for one
# accept batch (the listen backlog, at most MAX_BACKLOG, uvicorn's default) and FD_RESERVE descriptors of the
# process's own. The soft descriptor limit is raised to the hard one, up to MAX_DESCRIPTORS.
MAX_CONNECTIONS = 1000
MAX_BACKLOG = 2048
FD_RESERVE = 64
MAX_DESCRIPTORS = 65536
# Connections closed by these rules are counted and logged once per interval, not once each.
REPORT_INTERVAL_S = 10.0
