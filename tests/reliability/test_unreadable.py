"""Frames the SDK's JSON reader refuses (a lone surrogate escape, nesting beyond 200 levels) get a JSON-RPC error
for their own id that names the problem, over stdio and Streamable HTTP alike, within a bound. The SDK's stdio
reader dropped them, and the client waited forever."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp_types import INVALID_PARAMS

from tests.reliability.raw_stdio import call_line, raw_stdio
from tests.reliability.tally import TALLY
from tests.support.processes import RunningServer, http_server

pytestmark = pytest.mark.slow

SURROGATE = '{"assessment": "abc \\ud800 def"}'
DEEP = '{"assessment": "ok", "rubric": ' + '{"a": ' * 198 + "1" + "}" * 198 + "}"
ANSWER_BOUND_S = 10.0


def _check(reply: dict[str, Any], message_id: int, *named: str) -> None:
    assert reply["id"] == message_id and reply["error"]["code"] == INVALID_PARAMS, reply
    for words in named:
        assert words in reply["error"]["message"], reply
    TALLY["wire: unreadable requests answered with their own id"] += 1


def test_a_lone_surrogate_over_stdio_gets_invalid_params_naming_the_field(
    clean_env: dict[str, str], tmp_path: Path
) -> None:
    with raw_stdio(clean_env, tmp_path) as client:
        client.send(call_line(5, "evaluate_assessment", SURROGATE))
        _check(client.answer(5, ANSWER_BOUND_S), 5, "params.arguments.assessment", "surrogate")


def test_arguments_nested_198_deep_over_stdio_get_invalid_params_naming_the_depth(
    clean_env: dict[str, str], tmp_path: Path
) -> None:
    with raw_stdio(clean_env, tmp_path) as client:
        client.send(call_line(6, "evaluate_assessment", DEEP))
        _check(client.answer(6, ANSWER_BOUND_S), 6, "params.arguments.rubric", "nested 201 levels")


def _post(server: RunningServer, body: bytes, session: str | None = None) -> httpx.Response:
    headers = {"accept": "application/json, text/event-stream", "content-type": "application/json",
               "mcp-protocol-version": "2025-06-18", **({"mcp-session-id": session} if session else {})}  # fmt: skip
    return httpx.post(f"{server.base_url}/mcp", content=body, headers=headers, timeout=ANSWER_BOUND_S)


@pytest.mark.parametrize(
    ("arguments", "named"),
    [(SURROGATE, ("params.arguments.assessment", "surrogate")), (DEEP, ("params.arguments.rubric", "nested"))],
    ids=["surrogate", "deep"],
)
def test_unreadable_requests_over_streamable_http_get_the_error_for_their_own_id(
    clean_env: dict[str, str], tmp_path: Path, free_port: Callable[[], int], arguments: str, named: tuple[str, ...]
) -> None:
    init = b'{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", ' \
           b'"capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}}'  # fmt: skip
    with http_server(["--transport", "streamable-http"], clean_env, free_port(), tmp_path) as server:
        session = _post(server, init).headers.get("mcp-session-id")
        response = _post(server, call_line(7, "evaluate_assessment", arguments), session)
    assert response.status_code == 400
    _check(response.json(), 7, *named)
