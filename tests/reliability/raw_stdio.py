"""A raw JSON-RPC client for `gavel serve` over stdio: what no SDK client can send (1e400, NaN, lone surrogates,
deep nesting) is written as bytes, and every read is bounded, so a request the server leaves unanswered fails
the test instead of hanging it."""

from __future__ import annotations

import json
import queue
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tests.support.processes import GAVEL, STOP_TIMEOUT_S

ANSWER_TIMEOUT_S = 20.0
INIT = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}


def call_line(message_id: int, tool: str, arguments_json: str) -> bytes:
    """A tools/call frame whose arguments are written as raw JSON text (so it can hold what json.dumps cannot)."""
    return (
        f'{{"jsonrpc": "2.0", "id": {message_id}, "method": "tools/call", '
        f'"params": {{"name": "{tool}", "arguments": {arguments_json}}}}}\n'
    ).encode()


class RawStdio:
    def __init__(self, process: subprocess.Popen[bytes], stderr_path: Path) -> None:
        self.process = process
        self.stderr_path = stderr_path
        self.replies: dict[Any, dict[str, Any]] = {}
        self._lines: queue.Queue[bytes | None] = queue.Queue()
        # Cleared: stdout is left unread (from the next line on), as by a client that never reads.
        self.reading = threading.Event()
        self.reading.set()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        while self.reading.wait():
            line = self.process.stdout.readline()
            if not line:
                break
            self._lines.put(line)
        self._lines.put(None)

    def send(self, frame: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(frame if frame.endswith(b"\n") else frame + b"\n")
        self.process.stdin.flush()

    def answer(self, message_id: Any, timeout_s: float = ANSWER_TIMEOUT_S) -> dict[str, Any]:
        """The reply to `message_id`; fails (never hangs) when none comes within `timeout_s`."""
        while message_id not in self.replies:
            try:
                line = self._lines.get(timeout=timeout_s)
            except queue.Empty:
                raise AssertionError(f"no answer to request {message_id!r} within {timeout_s} s") from None
            assert line is not None, f"stdout closed; stderr:\n{self.stderr_path.read_text(errors='replace')[-3000:]}"
            message = json.loads(line)  # stdout carries JSON-RPC only
            assert message.get("jsonrpc") == "2.0", line[:200]
            self.replies[message.get("id")] = message
        return self.replies[message_id]

    def request(self, frame: bytes, message_id: Any) -> dict[str, Any]:
        self.send(frame)
        return self.answer(message_id)


@contextmanager
def raw_stdio(env: dict[str, str], tmp_path: Path) -> Iterator[RawStdio]:
    """`gavel serve` over stdio, initialized, with a model backend at a closed port (valid input fails fast)."""
    stderr_path = tmp_path / "stderr.log"
    env = {**env, "GAVEL_BACKEND": "ollama", "OLLAMA_HOST": "http://127.0.0.1:9", "GAVEL_TIMEOUT_S": "5",
           "GAVEL_LEDGER_PATH": "off"}  # fmt: skip
    with stderr_path.open("wb") as stderr:
        process = subprocess.Popen([*GAVEL, "serve"], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                   stderr=stderr)  # fmt: skip
    client = RawStdio(process, stderr_path)
    try:
        client.send(json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": INIT}).encode())
        client.send(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}).encode())
        assert "result" in client.answer(0)
        yield client
        assert process.stdin is not None
        process.stdin.close()
        assert process.wait(timeout=STOP_TIMEOUT_S) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=STOP_TIMEOUT_S)
