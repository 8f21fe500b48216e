"""HTTP access control: who may bind where, and the bearer-token check.

A Gavel server runs a model on the caller's behalf; on anything but loopback that is an open compute
endpoint, so a non-loopback bind needs a token. The token is compared in constant time and never logged.
"""

from __future__ import annotations

import hmac
import ipaddress
import json

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from gavel.server.logging import get_logger

log = get_logger("gavel.auth")

_LOCAL_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback"})


class BindRefused(Exception):
    """The requested bind address is not allowed with the given options. The message says what to change."""


def is_loopback(host: str) -> bool:
    """True only for addresses that cannot be reached from another machine. Unknown names count as public."""
    name = host.strip().strip("[]").lower()
    if name in _LOCAL_NAMES:
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def check_bind(host: str, auth_token: str | None) -> None:
    """Refuse a non-loopback bind without a token, before anything is bound."""
    if not is_loopback(host) and not (auth_token and auth_token.strip()):
        raise BindRefused(
            f"refusing to listen on {host} without an auth token: anyone who can reach it could run the judge. "
            "Set GAVEL_AUTH_TOKEN (or --auth-token), or bind 127.0.0.1"
        )


class BearerAuthMiddleware:
    """ASGI middleware: HTTP requests must carry `Authorization: Bearer <token>`, else 401."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        if not token.strip():
            raise ValueError("BearerAuthMiddleware needs a non-blank token")
        self.app = app
        self._expected = token.encode("utf-8")

    def _authorized(self, scope: Scope) -> bool:
        header = Headers(scope=scope).get("authorization", "")
        scheme, _, credentials = header.partition(" ")
        # Compare even when the scheme is wrong, so timing does not tell the two failures apart.
        match = hmac.compare_digest(credentials.strip().encode("utf-8"), self._expected)
        return match and scheme.lower() == "bearer"

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or self._authorized(scope):
            await self.app(scope, receive, send)
            return
        client = scope.get("client")
        log.warning(
            "rejected an HTTP request without a valid bearer token",
            path=scope.get("path"),
            client=f"{client[0]}:{client[1]}" if client else None,
        )
        body = json.dumps({"error": "unauthorized", "detail": "send Authorization: Bearer <token>"}).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 401,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    (b"www-authenticate", b'Bearer realm="gavel"'),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})
