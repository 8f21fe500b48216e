"""The embedded backend opens no network port and keeps llama.cpp's own log lines off Gavel's stderr.

The parameter test needs no model. The end-to-end test is `real_model`: `gavel serve` over stdio on the
embedded default, one tool call through a real MCP client, then the server process's sockets (from /proc)
and its stderr are inspected.
"""

from __future__ import annotations

import json
import logging
import os
import stat
import sys
from pathlib import Path
from types import SimpleNamespace

import anyio
import mcp
import pytest
from mcp import StdioServerParameters
from mcp.client.stdio import stdio_client

from gavel.tools.engine.embedded import LLAMA_SILENT, LLAMA_VERBOSE, LOGGER_NAME, EmbeddedBackend, embedded_available
from tests.conftest import PYTHON
from tests.server.ledger_helpers import evaluate_args

CALL_TIMEOUT_S = 600.0


async def test_llama_cpp_gets_a_private_unix_socket_an_api_key_no_cors_and_no_log_lines() -> None:
    backend = EmbeddedBackend(Path("/nonexistent.gguf"))
    params = SimpleNamespace()
    backend._isolate(params)
    (socket_path,) = params.hostnames
    folder = Path(socket_path).parent
    assert socket_path.endswith(".sock") and folder.name.startswith("gavel-llama-")
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert len(params.api_keys[0]) >= 32 and params.cors_origins == "" and params.ui is False
    assert params.verbosity == LLAMA_SILENT

    # At DEBUG, llama.cpp's own lines are let through to diagnose a model that will not load.
    logger = logging.getLogger(LOGGER_NAME)
    previous = logger.level
    logger.setLevel(logging.DEBUG)  # setLevel (not the attribute) clears the logger's cache, both ways
    try:
        backend._isolate(params)
    finally:
        logger.setLevel(previous)
    assert params.verbosity == LLAMA_VERBOSE
    assert params.hostnames == [socket_path]  # one folder per backend

    await backend.aclose()
    assert not folder.exists()


def _socket_inodes(pid: int) -> set[str]:
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:  # closed since the listing
            continue
        if target.startswith("socket:["):
            inodes.add(target[len("socket:[") : -1])
    return inodes


def _inet_sockets(pid: int, inodes: set[str]) -> list[str]:
    """The process's TCP and UDP sockets (IPv4 and IPv6), as the kernel lists them."""
    found = []
    for table in ("tcp", "tcp6", "udp", "udp6"):
        for line in Path(f"/proc/{pid}/net/{table}").read_text().splitlines()[1:]:
            fields = line.split()
            if fields[9] in inodes:
                found.append(f"{table} {fields[1]} state {fields[3]}")
    return found


def _unix_listeners(pid: int, inodes: set[str]) -> list[str]:
    paths = []
    for line in Path(f"/proc/{pid}/net/unix").read_text().splitlines()[1:]:
        fields = line.split()
        if len(fields) >= 8 and fields[6] in inodes:
            paths.append(fields[7])
    return paths


@pytest.mark.real_model
@pytest.mark.skipif(not embedded_available(), reason="the embedded extra is not installed")
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads the process's sockets from /proc")
async def test_a_judgment_on_the_embedded_model_opens_no_port_and_logs_only_json_lines(
    clean_env: dict[str, str], tmp_path: Path
) -> None:
    pidfile, errpath = tmp_path / "serve.pid", tmp_path / "stderr.log"
    env = {**clean_env, "GAVEL_BACKEND": "embedded", "GAVEL_LOG_LEVEL": "INFO"}
    # `exec` keeps the pid the shell wrote: the server's own process.
    script = f'echo $$ > "{pidfile}"; exec "{PYTHON}" -m gavel.server serve'
    params = StdioServerParameters(command="/bin/sh", args=["-c", script], env=env)
    with errpath.open("w") as errlog:
        async with mcp.Client(stdio_client(params, errlog=errlog), read_timeout_seconds=CALL_TIMEOUT_S) as client:
            with anyio.fail_after(CALL_TIMEOUT_S):
                result = await client.call_tool("evaluate_assessment", evaluate_args())
            assert not result.is_error, result.content
            pid = int(pidfile.read_text())
            inodes = _socket_inodes(pid)
            inet, unix = _inet_sockets(pid, inodes), _unix_listeners(pid, inodes)

    assert inet == [], "the server holds network sockets"
    assert any("/gavel-llama-" in path and path.endswith("/llama.sock") for path in unix), unix
    lines = [line for line in errpath.read_text(encoding="utf-8").splitlines() if line.strip()]
    records = []
    for line in lines:
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError:
            pytest.fail(f"a stderr line is not JSON: {line!r}")
    events = {record.get("event") for record in records}
    assert "loaded embedded model" in events
    assert all(record.get("level") in {"info", "warning", "error"} for record in records)
