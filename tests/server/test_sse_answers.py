"""Over SSE a frame the SDK cannot read is answered on the session's event stream, as stdio and Streamable HTTP
answer it: a real `gavel serve --transport sse`, a raw event stream, raw POSTs."""

from __future__ import annotations

import json
import queue
import threading
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from tests.support.processes import http_server

pytestmark = pytest.mark.slow

WAIT_S = 10.0
CLIENT = {"name": "t", "version": "0"}
INITIALIZE = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": CLIENT}}  # fmt: skip
UNREADABLE = [
    pytest.param(b'{"jsonrpc": "2.0", "id": 21, "method": "tools/call", "params": {"name": "judge_rag_answer", '
                 b'"arguments": {"question": "q\\ud800?", "answer": "a", "sources": ["s"]}}}', 21, "surrogate",
                 id="a-lone-surrogate"),
    pytest.param(b'{"jsonrpc": "2.0", "id": 1.5, "method": "ping"}', None, "not 1.5", id="an-id-of-the-wrong-type"),
    pytest.param(b'{"jsonrpc": "2.0", "id": 23, "method": "ping", "params": {"x": ' + b"[" * 300 + b"]" * 300 + b"}}",
                 23, "nested", id="nested-300-deep"),
]  # fmt: skip


def _listen(url: str, events: queue.Queue[dict[str, object] | str]) -> None:
    try:
        with httpx.stream("GET", url, timeout=None) as response:
            for line in response.iter_lines():
                if line.startswith("data: /"):
                    events.put(line[len("data: ") :])
                elif line.startswith("data: {"):
                    events.put(json.loads(line[len("data: ") :]))
    except httpx.HTTPError:
        pass  # the server stopping at the end of the test closes the stream


def _next(events: queue.Queue[dict[str, object] | str]) -> dict[str, object] | str:
    return events.get(timeout=WAIT_S)


@pytest.mark.parametrize(("frame", "answered_id", "says"), UNREADABLE)
def test_an_unreadable_frame_is_answered_on_the_event_stream_with_its_own_id(
    frame: bytes, answered_id: int | None, says: str,
    clean_env: dict[str, str], free_port: Callable[[], int], tmp_path: Path,
) -> None:  # fmt: skip
    with http_server(["--transport", "sse"], clean_env, free_port(), tmp_path) as server:
        events: queue.Queue[dict[str, object] | str] = queue.Queue()
        threading.Thread(target=_listen, args=(f"{server.base_url}/sse", events), daemon=True).start()
        endpoint = _next(events)
        assert isinstance(endpoint, str)
        httpx.post(f"{server.base_url}{endpoint}", json=INITIALIZE, timeout=WAIT_S)
        assert isinstance(_next(events), dict)  # the initialize result
        httpx.post(f"{server.base_url}{endpoint}", content=frame, headers={"Content-Type": "application/json"},
                   timeout=WAIT_S)  # fmt: skip
        answer = _next(events)
        # And the session goes on serving.
        httpx.post(f"{server.base_url}{endpoint}", json={"jsonrpc": "2.0", "id": 99, "method": "ping"}, timeout=WAIT_S)
        pong = _next(events)
    assert isinstance(answer, dict) and answer["id"] == answered_id
    assert says in json.dumps(answer["error"])
    assert isinstance(pong, dict) and pong["id"] == 99 and "result" in pong
