"""tools/list, byte for byte, as `gavel serve` answers it over stdio: what agents read must not drift by accident.

Start-up work (lazy imports, cheaper registration) must leave the listing alone; a deliberate change to a tool's
name, description or schema updates the snapshot: `python -m tests.server.test_tools_list_snapshot`.
"""

from __future__ import annotations

import json
import os
import subprocess
import threading
from pathlib import Path

from tests.conftest import PYTHON, REPO_ROOT

SNAPSHOT = Path(__file__).with_name("tools_list.jsonl")
INIT = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "snapshot", "version": "0"}}
FRAMES = (
    {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INIT},
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
)


def listed_line(env: dict[str, str]) -> bytes:
    """The raw JSON-RPC line that answers tools/list; stdin stays open until it is read (EOF stops the server)."""
    process = subprocess.Popen(
        [PYTHON, "-m", "gavel.server", "serve"], cwd=REPO_ROOT, env=env,
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    watchdog = threading.Timer(120, process.kill)  # a start that never answers fails instead of hanging
    watchdog.start()
    try:
        assert process.stdin is not None and process.stdout is not None and process.stderr is not None
        process.stdin.write(b"".join(json.dumps(frame).encode() + b"\n" for frame in FRAMES))
        process.stdin.flush()
        lines = iter(process.stdout.readline, b"")
        line = next((line for line in lines if json.loads(line).get("id") == 2), None)
        process.stdin.close()
        stderr = process.stderr.read()
        process.wait()
    finally:
        watchdog.cancel()
    assert line is not None and process.returncode == 0, stderr[-2000:]
    return line.rstrip(b"\n")


def test_tools_list_is_byte_identical_to_the_snapshot(clean_env: dict[str, str]) -> None:
    assert listed_line(clean_env) == SNAPSHOT.read_bytes().rstrip(b"\n")


if __name__ == "__main__":
    env = {k: v for k, v in os.environ.items() if not k.startswith("GAVEL_") and k != "OLLAMA_HOST"}
    env.update({"GAVEL_OLLAMA_HOST": "http://127.0.0.1:9", "GAVEL_LEDGER_PATH": "off", "PYTHONUNBUFFERED": "1"})
    SNAPSHOT.write_bytes(listed_line(env) + b"\n")
