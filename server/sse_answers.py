"""SSE: a POSTed frame the SDK cannot read is answered on its session's event stream.

Over SSE a client POSTs each frame and hears every answer on the event stream it opened. For a frame it cannot read
(a lone surrogate, nesting 300 deep, an id of the wrong type) the SDK answers the POST with a bare 400 "Could not
parse message", or 202, and puts nothing on the stream, so the client waits for its request's answer until its own
timeout. stdio and Streamable HTTP answer such a frame with the JSON-RPC error for the sender's id (`wire.py`); this
puts that same error on the session's stream, once the SDK has handled the POST (so its session, credential and
Host checks still decide whether the POST was the session's at all).
"""

from __future__ import annotations

import re
from urllib.parse import parse_qs
from uuid import UUID

import anyio
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from gavel.server.logging import get_logger
from gavel.server.wire import off_loop, replaying, unreadable_body

log = get_logger("gavel.wire")

# The SDK's first event names the session: "event: endpoint\r\ndata: /messages/?session_id=<hex>".
_ENDPOINT_SESSION = re.compile(rb"session_id=([0-9a-fA-F-]{32,36})")


def _session(value: str | bytes | None) -> str | None:
    if value is None:
        return None
    try:
        return UUID(hex=value.decode() if isinstance(value, bytes) else value).hex
    except ValueError:
        return None


class AnswerUnreadableSse:
    """ASGI middleware around the SDK's SSE app (`sse_path` streams, `message_path` takes POSTed frames)."""

    def __init__(self, app: ASGIApp, *, sse_path: str, message_path: str) -> None:
        self.app = app
        self.sse_path = sse_path
        self.message_path = message_path
        # Each open stream's `send`, and the lock that keeps an injected event from interleaving with the SDK's.
        self._streams: dict[str, tuple[Send, anyio.Lock]] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope.get("method") == "GET" and scope.get("path") == self.sse_path:
            await self._stream(scope, receive, send)
        elif scope["type"] == "http" and scope.get("method") == "POST" and scope.get("path") == self.message_path:
            await self._post(scope, receive, send)
        else:
            await self.app(scope, receive, send)

    async def _stream(self, scope: Scope, receive: Receive, send: Send) -> None:
        lock = anyio.Lock()
        session: str | None = None

        async def locked(message: Message) -> None:
            nonlocal session
            async with lock:
                await send(message)
            if session is None and message["type"] == "http.response.body":
                found = _ENDPOINT_SESSION.search(message.get("body", b""))
                if found is not None and (session := _session(found.group(1))) is not None:
                    self._streams[session] = (send, lock)

        try:
            await self.app(scope, receive, locked)
        finally:
            if session is not None:
                self._streams.pop(session, None)

    async def _post(self, scope: Scope, receive: Receive, send: Send) -> None:
        first = await receive()
        whole = first["type"] == "http.request" and not first.get("more_body", False)
        body: bytes = first.get("body", b"") if whole else b""
        status = 0

        async def watched(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        await self.app(scope, replaying(first, receive), watched)
        # 400: the SDK could not parse the frame; 202: it took a frame no handler answers (an id of the wrong type).
        # Anything else (no such session, another credential's, a refused Host) is the SDK's answer alone.
        if status not in (400, 202) or not body:
            return
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        stream = self._streams.get(_session((query.get("session_id") or [None])[0]) or "")
        if stream is None:
            return
        unreadable = await off_loop(unreadable_body, body)
        if unreadable is None:
            return
        payload = unreadable.reply().model_dump_json(by_alias=True, exclude_unset=True).encode()
        out, lock = stream
        log.info("answered an unreadable request on its event stream", id=unreadable.id, code=unreadable.code,
                 why=unreadable.message)  # fmt: skip
        try:
            async with lock:
                await out({"type": "http.response.body", "body": b"event: message\r\ndata: " + payload + b"\r\n\r\n",
                           "more_body": True})  # fmt: skip
        except OSError:  # the stream closed meanwhile: nobody is left to answer
            return
