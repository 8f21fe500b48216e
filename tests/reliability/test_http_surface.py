"""The HTTP surface, beyond tests/server: loopback by default, the bearer check in constant time on every
request, Origin checks against DNS rebinding on both transports, and the token kept out of debug logs and
`gavel config --json`, whichever way it was given.
"""

from __future__ import annotations

import contextlib
import hmac
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import httpx2
import mcp
import pytest
from mcp.client.streamable_http import streamable_http_client
from mcp.server.mcpserver import MCPServer

from gavel.server import auth
from gavel.server.cli.main import build_parser, main
from gavel.server.http_defaults import DEFAULT_HOST
from gavel.server.transports import HttpOptions, build_http_app
from tests.reliability.support import result_text
from tests.reliability.tally import TALLY
from tests.support.processes import http_server, run_gavel, stop

TOKEN = "reliability-token-9c1e77d2"
PORT = 8765


def test_http_binds_loopback_unless_told_otherwise() -> None:
    args = build_parser().parse_args(["serve", "--transport", "streamable-http"])
    assert args.host == DEFAULT_HOST == "127.0.0.1"
    assert HttpOptions().host == "127.0.0.1"
    assert auth.is_loopback(args.host)


async def _request(app: Any, path: str = "/mcp", server: MCPServer[Any] | None = None, **kwargs: Any) -> httpx.Response:
    """POST to the ASGI app in process; with `server`, its streamable-HTTP session manager runs meanwhile (the
    Host/Origin checks live inside it)."""
    transport = httpx.ASGITransport(app=app)
    async with contextlib.AsyncExitStack() as stack:
        if server is not None:
            await stack.enter_async_context(server.session_manager.run())
        client = await stack.enter_async_context(
            httpx.AsyncClient(transport=transport, base_url=f"http://127.0.0.1:{PORT}")
        )
        return await client.post(path, **kwargs)


PING = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
ACCEPT = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


@pytest.mark.parametrize(
    "wrong",
    [
        pytest.param("Bearer nope", id="wrong-token"),
        pytest.param(f"Basic {TOKEN}", id="right-token-wrong-scheme"),
        pytest.param(f"Bearer {TOKEN[:-1]}", id="token-prefix"),
        pytest.param(f"Bearer {TOKEN}", id="right-token"),
    ],
)
async def test_every_bearer_check_goes_through_hmac_compare_digest(monkeypatch: pytest.MonkeyPatch, wrong: str) -> None:
    compared: list[tuple[bytes, bytes]] = []
    original = hmac.compare_digest

    def recording(a: bytes, b: bytes) -> bool:
        compared.append((a, b))
        return original(a, b)

    monkeypatch.setattr(auth.hmac, "compare_digest", recording)
    server: MCPServer[Any] = MCPServer("surface")
    app = build_http_app(server, HttpOptions(auth_token=TOKEN, port=PORT))
    await _request(app, server=server, json=PING, headers={**ACCEPT, "authorization": wrong})
    assert len(compared) == 1, "exactly one constant-time comparison per request, whatever the header"
    assert compared[0][1] == TOKEN.encode()


@pytest.mark.parametrize("transport", ["streamable-http", "sse"])
@pytest.mark.parametrize(
    ("headers", "status"),
    [
        pytest.param({"origin": "http://evil.example"}, 403, id="foreign-origin"),
        pytest.param({"origin": f"http://evil.example:{PORT}"}, 403, id="foreign-origin-on-the-port"),
        pytest.param({"origin": "null"}, 403, id="null-origin"),
        pytest.param({"host": f"evil.example:{PORT}"}, 421, id="foreign-host"),
        pytest.param({"host": f"127.0.0.1.evil.example:{PORT}"}, 421, id="host-prefixed-with-loopback"),
    ],
)
async def test_dns_rebinding_requests_are_refused_on_both_transports(
    transport: str, headers: dict[str, str], status: int
) -> None:
    server: MCPServer[Any] = MCPServer("surface")
    app = build_http_app(server, HttpOptions(transport=transport, port=PORT))  # type: ignore[arg-type]
    if transport == "streamable-http":
        response = await _request(app, server=server, json=PING, headers={**ACCEPT, **headers})
    else:
        path = "/messages/?session_id=00000000000000000000000000000000"
        response = await _request(app, path, json=PING, headers={**ACCEPT, **headers})
    TALLY["http surface: rebinding requests refused"] += 1
    assert response.status_code == status


async def test_a_loopback_origin_on_the_bound_port_is_served() -> None:
    server: MCPServer[Any] = MCPServer("surface")
    app = build_http_app(server, HttpOptions(port=PORT))
    response = await _request(app, server=server, json=PING, headers={**ACCEPT, "origin": f"http://localhost:{PORT}"})
    assert response.status_code not in (401, 403, 413, 421)


@pytest.mark.usefixtures("restore_logging")
def test_gavel_config_json_never_shows_the_token(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("GAVEL_AUTH_TOKEN", TOKEN)
    monkeypatch.setenv("GAVEL_OLLAMA_HOST", "http://127.0.0.1:9")  # a closed port: the probe fails fast
    code = main(["config", "--json"])
    captured = capsys.readouterr()
    assert code == 0
    assert TOKEN not in captured.out + captured.err
    assert json.loads(captured.out)["settings"]["auth_token"] == "****"


@pytest.mark.slow
@pytest.mark.parametrize("given", [pytest.param("flag", id="token-as-flag"), pytest.param("env", id="token-in-env")])
async def test_the_token_never_reaches_the_log_even_at_debug(
    clean_env: dict[str, str], free_port: Callable[[], int], tmp_path: Path, given: str
) -> None:
    env = {**clean_env, "GAVEL_LOG_LEVEL": "DEBUG", "GAVEL_LEDGER_PATH": "off"}
    args = ["--transport", "streamable-http"]
    if given == "flag":
        args += ["--auth-token", TOKEN]
    else:
        env["GAVEL_AUTH_TOKEN"] = TOKEN
    with http_server(args, env, free_port(), tmp_path) as server:
        url = f"{server.base_url}/mcp"
        async with httpx.AsyncClient(timeout=10) as raw:
            for header in (f"Bearer {TOKEN}x", f"Basic {TOKEN}", f"bearer {TOKEN}", TOKEN):
                await raw.post(url, json=PING, headers={**ACCEPT, "authorization": header})
        async with (
            httpx2.AsyncClient(headers={"Authorization": f"Bearer {TOKEN}"}, timeout=30) as http,
            mcp.Client(streamable_http_client(url, http_client=http), read_timeout_seconds=30) as client,
        ):
            refused = await client.call_tool("evaluate_assessment", {"assessment": "x", "samples": 0})
            judged = await client.call_tool("score_candidates", {"candidates": [{"q": 1}], "weights": {"q": 1}})
        assert refused.is_error is True and judged.is_error is False, result_text(judged)
        code = stop(server.process)
        log = server.stderr()
    assert code == 0
    assert '"level": "debug"' in log, "the server really logged at DEBUG"
    assert TOKEN not in log


@pytest.mark.parametrize("blank", [" ", "   \t", "\n"])
def test_a_whitespace_only_token_counts_as_none_and_a_bind_beyond_loopback_is_refused(
    clean_env: dict[str, str], blank: str
) -> None:
    env = {**clean_env, "GAVEL_AUTH_TOKEN": blank}
    # The old code bound (and served until the run's timeout); the refusal comes before anything is bound.
    refused = run_gavel(["serve", "--transport", "streamable-http", "--host", "0.0.0.0", "--port", "8799"], env, 10.0)
    assert refused.returncode == 2 and "without an auth token" in refused.stderr
    config = json.loads(run_gavel(["config", "--json"], env).stdout)
    assert config["settings"]["auth_token"] is None
