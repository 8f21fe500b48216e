"""Who may bind where, the bearer-token check, DNS-rebinding settings and the body cap, in-process over ASGI."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from mcp.server.mcpserver import MCPServer
from starlette.types import Receive, Scope, Send

from gavel.server.auth import BearerAuthMiddleware, BindRefused, check_bind, is_loopback
from gavel.server.transports import HttpOptions, build_http_app, transport_security

TOKEN = "s3cret-token-value"


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        pytest.param("127.0.0.1", True, id="ipv4-loopback"),
        pytest.param("127.0.0.2", True, id="ipv4-loopback-range"),
        pytest.param("::1", True, id="ipv6-loopback"),
        pytest.param("[::1]", True, id="ipv6-loopback-bracketed"),
        pytest.param("localhost", True, id="localhost"),
        pytest.param("0.0.0.0", False, id="ipv4-any"),
        pytest.param("::", False, id="ipv6-any"),
        pytest.param("192.168.1.10", False, id="lan-address"),
        pytest.param("gavel.example.com", False, id="a-name-counts-as-public"),
    ],
)
def test_only_loopback_addresses_count_as_loopback(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback


def test_binding_beyond_loopback_without_a_token_is_refused_with_what_to_do() -> None:
    with pytest.raises(BindRefused, match="GAVEL_AUTH_TOKEN"):
        check_bind("0.0.0.0", None)


@pytest.mark.parametrize(
    ("host", "token"),
    [
        pytest.param("127.0.0.1", None, id="loopback-without-token"),
        pytest.param("0.0.0.0", TOKEN, id="any-address-with-token"),
    ],
)
def test_bind_is_allowed_on_loopback_or_with_a_token(host: str, token: str | None) -> None:
    check_bind(host, token)


async def _ok_app(scope: Scope, receive: Receive, send: Send) -> None:
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]})
    await send({"type": "http.response.body", "body": b"ok"})


async def _post(app: Any, path: str = "/mcp", **kwargs: Any) -> httpx.Response:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8765") as client:
        return await client.post(path, **kwargs)


@pytest.mark.parametrize(
    "headers",
    [
        pytest.param({}, id="no-authorization-header"),
        pytest.param({"Authorization": "Bearer wrong-token"}, id="wrong-token"),
        pytest.param({"Authorization": f"Basic {TOKEN}"}, id="right-token-wrong-scheme"),
        pytest.param({"Authorization": f"Bearer {TOKEN}x"}, id="token-with-extra-character"),
        pytest.param({"Authorization": "Bearer"}, id="scheme-without-token"),
    ],
)
async def test_request_without_the_right_bearer_token_gets_401(headers: dict[str, str]) -> None:
    response = await _post(BearerAuthMiddleware(_ok_app, TOKEN), headers=headers)
    assert response.status_code == 401
    assert response.headers["www-authenticate"].startswith("Bearer")


@pytest.mark.parametrize(
    "value",
    [pytest.param(f"Bearer {TOKEN}", id="canonical"), pytest.param(f"bearer {TOKEN}", id="lower-case-scheme")],
)
async def test_request_with_the_right_bearer_token_reaches_the_app(value: str) -> None:
    response = await _post(BearerAuthMiddleware(_ok_app, TOKEN), headers={"Authorization": value})
    assert (response.status_code, response.text) == (200, "ok")


async def test_rejection_never_echoes_the_token() -> None:
    response = await _post(BearerAuthMiddleware(_ok_app, TOKEN), headers={"Authorization": "Bearer guess"})
    assert TOKEN not in response.text and "guess" not in response.text


def test_dns_rebinding_protection_allows_the_bound_address_and_loopback_names_on_the_port() -> None:
    security = transport_security("127.0.0.1", 8765)
    assert security.enable_dns_rebinding_protection is True
    for host in ("127.0.0.1:8765", "localhost:8765", "[::1]:8765"):
        assert host in security.allowed_hosts
    assert "http://localhost:8765" in security.allowed_origins
    assert "evil.example:8765" not in security.allowed_hosts


def test_extra_allowed_host_gets_the_bound_port_unless_it_names_one() -> None:
    security = transport_security("0.0.0.0", 9000, ["judge.lan", "judge.lan:443"])
    assert {"judge.lan", "judge.lan:9000", "judge.lan:443"} <= set(security.allowed_hosts)


@pytest.fixture
def bare_server() -> MCPServer[Any]:
    return MCPServer("gavel-test")


@pytest.mark.parametrize("transport", [pytest.param("streamable-http"), pytest.param("sse")])
async def test_request_body_over_the_cap_gets_413(bare_server: MCPServer[Any], transport: str) -> None:
    app = build_http_app(bare_server, HttpOptions(transport=transport, max_body_bytes=1024))  # type: ignore[arg-type]
    path = "/mcp" if transport == "streamable-http" else "/messages/?session_id=0"
    response = await _post(app, path, content=b"x" * 2048, headers={"content-type": "application/json"})
    assert response.status_code == 413


async def test_streamed_body_without_content_length_over_the_cap_gets_413(bare_server: MCPServer[Any]) -> None:
    async def chunks() -> AsyncIterator[bytes]:
        for _ in range(8):
            yield b"x" * 512

    app = build_http_app(bare_server, HttpOptions(max_body_bytes=1024))
    response = await _post(app, content=chunks(), headers={"content-type": "application/json"})
    assert response.status_code == 413


async def test_auth_is_checked_before_the_body_is_read(bare_server: MCPServer[Any]) -> None:
    app = build_http_app(bare_server, HttpOptions(auth_token=TOKEN, max_body_bytes=1024))
    response = await _post(app, content=b"x" * 2048)
    assert response.status_code == 401


def test_http_options_never_show_the_token_in_their_repr() -> None:
    assert TOKEN not in repr(HttpOptions(auth_token=TOKEN))
