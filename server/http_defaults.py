"""The transports and their HTTP defaults, importable without loading the MCP SDK (the CLI's help needs them)."""

from __future__ import annotations

from typing import Literal

TransportName = Literal["stdio", "sse", "streamable-http"]
TRANSPORTS: tuple[TransportName, ...] = ("stdio", "sse", "streamable-http")

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
MAX_BODY_BYTES = 4 * 1024 * 1024
SHUTDOWN_TIMEOUT_S = 5.0
