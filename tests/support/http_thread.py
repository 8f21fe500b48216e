"""A Gavel server on a real Streamable HTTP endpoint (uvicorn, a socket on 127.0.0.1), run in a thread of the test
process so its model can be the scripted backend. Every wait is bounded."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import uvicorn
from mcp.server.mcpserver import MCPServer

from gavel.server.transports import HttpOptions, build_http_app
from tests.support.processes import port_is_open

START_TIMEOUT_S = 20.0
STOP_TIMEOUT_S = 10.0


@contextmanager
def serving(server: MCPServer[Any], port: int, *, stateless: bool = True) -> Iterator[str]:
    """Serve `server` over Streamable HTTP on `port`; yields the endpoint's URL."""
    options = HttpOptions(transport="streamable-http", port=port, stateless=stateless)
    config = uvicorn.Config(
        build_http_app(server, options), host="127.0.0.1", port=port, log_config=None, lifespan="on"
    )
    runner = uvicorn.Server(config)
    thread = threading.Thread(target=runner.run, name=f"uvicorn-{port}", daemon=True)
    thread.start()
    deadline = time.monotonic() + START_TIMEOUT_S
    while not (runner.started and port_is_open(port)):
        if not thread.is_alive() or time.monotonic() > deadline:
            raise AssertionError(f"the test server on {port} did not start")
        time.sleep(0.02)
    try:
        yield options.url
    finally:
        runner.should_exit = True
        thread.join(STOP_TIMEOUT_S)
        # A server thread left running would serve, and log, into the tests after this one.
        if thread.is_alive():
            raise AssertionError(f"the test server on {port} did not stop within {STOP_TIMEOUT_S:g} s")
