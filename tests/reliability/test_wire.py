"""Hostile frames on the wire: what no SDK client would send, written straight to `gavel serve`'s stdin.

Broken JSON, nesting far beyond any parser's comfort, NaN and Infinity literals, lone-surrogate escapes, a
multi-megabyte line, and well-formed requests with the wrong shapes. The server must answer what it can with
JSON-RPC errors, never print anything but JSON-RPC on stdout, keep serving (a ping afterwards is answered),
and exit 0 on EOF.
"""

from __future__ import annotations

import json
import queue
import subprocess
import threading
from pathlib import Path
from typing import Any

import pytest

from tests.reliability.tally import TALLY
from tests.support.processes import GAVEL, STOP_TIMEOUT_S

pytestmark = pytest.mark.slow

READ_TIMEOUT_S = 30.0
INIT = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "hostile", "version": "0"}}


def _line(message: dict[str, Any]) -> bytes:
    return (json.dumps(message) + "\n").encode()


def _deep(depth: int) -> str:
    return "[" * depth + "]" * depth


def _call(message_id: int, arguments_json: str, name: str = "evaluate_assessment") -> bytes:
    return (
        f'{{"jsonrpc": "2.0", "id": {message_id}, "method": "tools/call", '
        f'"params": {{"name": "{name}", "arguments": {arguments_json}}}}}\n'
    ).encode()


# What the server is expected to do with each frame:
#   "error"   a JSON-RPC error, or a tool result with isError
#   "reply"   any reply (the frame is valid: a null byte in judged text is neutralized, then judged)
#   "none"    no reply is possible: the frame carries no usable id (an error to id null may come)
# The SDK's stdio reader drops the frames its parser refuses (a lone surrogate, nesting beyond 200 levels, a
# wrong shape); Gavel answers them itself (gavel.server.wire), so those are "error" rows too.
HOSTILE: list[tuple[str, bytes, int | None, str]] = [
    ("not JSON", b"{this is not json\n", None, "none"),
    ("a JSON array of garbage", b"[1, 2, 3]\n", None, "none"),
    ("a bare string", b'"hello"\n', None, "none"),
    ("an empty object", b"{}\n", None, "none"),
    ("nested 100,000 deep", (_deep(100_000) + "\n").encode(), None, "none"),
    ("nested 100,000 deep inside the arguments", _call(10, '{"assessment": ' + _deep(100_000) + "}"), 10, "error"),
    ("NaN and Infinity literals", _call(11, '{"assessment": NaN, "samples": Infinity}'), 11, "error"),
    ("a lone surrogate escape", _call(12, '{"assessment": "x \\ud800 y"}'), 12, "error"),
    ("a null byte escape", _call(13, '{"assessment": "x \\u0000 y"}'), 13, "reply"),
    ("a 2 MB argument", _call(14, json.dumps({"assessment": "x" * 2_000_000})), 14, "error"),
    ("arguments that are a list", _call(15, "[1, 2]"), 15, "error"),
    ("arguments that are a string", _call(16, '"assessment"'), 16, "error"),
    ("an unknown tool", _call(17, "{}", name="rm_rf"), 17, "error"),
    ("params that are a number", _line({"jsonrpc": "2.0", "id": 18, "method": "tools/call", "params": 5}), 18,
     "error"),
    ("a lone surrogate in a key", _call(21, '{"\\udc00x": "y"}'), 21, "error"),
    ("nested 198 deep inside the arguments", _call(22, '{"assessment": ' + '{"a": ' * 198 + "1" + "}" * 199), 22,
     "error"),
    ("an unknown method", _line({"jsonrpc": "2.0", "id": 19, "method": "gavel/shell", "params": {}}), 19, "error"),
    ("a huge id", _line({"jsonrpc": "2.0", "id": 10**40, "method": "ping"}), None, "none"),
    ("invalid UTF-8", b'{"jsonrpc": "2.0", "id": 20, "method": "ping", "x": "\xff\xfe"}\n', 20, "reply"),
]  # fmt: skip


def _reader(stream: Any, sink: queue.Queue[bytes | None]) -> None:
    for line in iter(stream.readline, b""):
        sink.put(line)
    sink.put(None)


def test_hostile_frames_get_errors_and_the_server_keeps_serving_and_exits_0_on_eof(
    clean_env: dict[str, str], tmp_path: Path
) -> None:
    stderr_path = tmp_path / "stderr.log"
    # A model backend at a closed port: a frame that is valid input is judged, and fails fast, unscored.
    env = {**clean_env, "GAVEL_BACKEND": "ollama", "GAVEL_TIMEOUT_S": "5", "GAVEL_LEDGER_PATH": "off"}
    with stderr_path.open("wb") as stderr:
        process = subprocess.Popen(
            [*GAVEL, "serve"], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr
        )
    assert process.stdin is not None and process.stdout is not None
    lines: queue.Queue[bytes | None] = queue.Queue()
    threading.Thread(target=_reader, args=(process.stdout, lines), daemon=True).start()
    replies: dict[Any, dict[str, Any]] = {}

    def until(message_id: int) -> dict[str, Any]:
        while message_id not in replies:
            line = lines.get(timeout=READ_TIMEOUT_S)
            assert line is not None, f"stdout closed; stderr:\n{stderr_path.read_text(errors='replace')[-3000:]}"
            message = json.loads(line)  # stdout carries JSON-RPC only
            assert message.get("jsonrpc") == "2.0", line[:200]
            replies[message.get("id")] = message
        return replies[message_id]

    try:
        process.stdin.write(_line({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INIT}))
        process.stdin.write(_line({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        process.stdin.flush()
        assert "result" in until(1)
        for index, (_, frame, _, _) in enumerate(HOSTILE):
            process.stdin.write(frame)
            # A ping after each frame: the server is still reading and answering.
            process.stdin.write(_line({"jsonrpc": "2.0", "id": 1000 + index, "method": "ping"}))
            process.stdin.flush()
            assert "result" in until(1000 + index), HOSTILE[index][0]
        for description, _, message_id, expected in HOSTILE:
            if message_id is not None:
                reply = until(message_id)
                assert "Traceback" not in json.dumps(reply), description
                if expected == "error":
                    is_error = "error" in reply or reply.get("result", {}).get("isError") is True
                    assert is_error, f"{description}: {reply}"
                    TALLY["wire: hostile frames answered with an error"] += 1
        TALLY["wire: hostile frames sent"] += len(HOSTILE)
        process.stdin.close()
        assert process.wait(timeout=STOP_TIMEOUT_S) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=STOP_TIMEOUT_S)
