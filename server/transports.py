"""Running the server: stdio (the default), SSE, or Streamable HTTP under uvicorn.

stdio: the SDK moves fd 1 to stderr while it serves, so stray output from libraries cannot corrupt the
JSON-RPC stream; EOF on stdin, SIGINT or SIGTERM end the process with exit code 0.

HTTP: the ASGI app is wrapped, outermost first, in the bearer-token check (when a token is set), a
request-body cap (413), and the SDK's own Host/Origin checks against DNS rebinding. Below it, connections
that do not finish their request in time are closed and their number is capped (server/connections.py).
uvicorn logs through our stderr logging; SIGINT/SIGTERM stop it gracefully within a bounded time.
"""

from __future__ import annotations

import logging
import os
import signal
import socket
import sys
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import FrameType
from typing import Any, Literal

import anyio
import uvicorn
from mcp.server.mcpserver import MCPServer
from mcp.server.transport_security import RequestBodyLimitMiddleware, TransportSecuritySettings
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from gavel.server.auth import BearerAuthMiddleware, BindRefused, check_bind, is_loopback
from gavel.server.http_defaults import (
    DEFAULT_HOST,
    DEFAULT_PORT,
    KEEP_ALIVE_S,
    MAX_BODY_BYTES,
    MAX_HEADER_BYTES,
    SHUTDOWN_TIMEOUT_S,
)
from gavel.server.inflight import close_gate, lifeline
from gavel.server.logging import get_logger
from gavel.server.sse_answers import AnswerUnreadableSse
from gavel.server.stdio_session import run_stdio_answering
from gavel.server.wire import AnswerUnreadableHttp

log = get_logger("gavel.transport")

STREAMABLE_HTTP_PATH = "/mcp"
SSE_PATH = "/sse"
SSE_MESSAGE_PATH = "/messages/"

_LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")

# Process-wide clean-up (closing model backends), run inside the serving event loop as it stops.
ShutdownHook = Callable[[], Awaitable[None]]


@dataclass(frozen=True)
class HttpOptions:
    transport: Literal["sse", "streamable-http"] = "streamable-http"
    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    # Kept out of repr so logging the options can never print the token.
    auth_token: str | None = field(default=None, repr=False)
    # Streamable HTTP only: no session state between requests (each request stands alone).
    stateless: bool = False
    # Extra Host header values clients may use (e.g. the machine's name when bound to 0.0.0.0).
    allowed_hosts: tuple[str, ...] = ()
    max_body_bytes: int = MAX_BODY_BYTES
    shutdown_timeout_s: float = SHUTDOWN_TIMEOUT_S
    on_shutdown: ShutdownHook | None = None

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host and not self.host.startswith("[") else self.host
        path = SSE_PATH if self.transport == "sse" else STREAMABLE_HTTP_PATH
        return f"http://{host}:{self.port}{path}"


def transport_security(host: str, port: int, extra_hosts: Sequence[str] = ()) -> TransportSecuritySettings:
    """DNS-rebinding protection: only these Host/Origin values are served.

    The bound address and the loopback names are always allowed, on the bound port; `extra_hosts` may be
    'name' (any port is not implied: the bound port is added) or 'name:port'.
    """
    bound = f"[{host}]" if ":" in host and not host.startswith("[") else host
    names = dict.fromkeys([bound, *_LOOPBACK_NAMES])
    hosts: list[str] = []
    for name in names:
        hosts += [f"{name}:{port}", name]
    for extra in extra_hosts:
        extra = extra.strip()
        if not extra:
            continue
        hosts.append(extra)
        if not extra.endswith("]") and ":" not in extra.rsplit("]", 1)[-1]:
            hosts.append(f"{extra}:{port}")
    hosts = list(dict.fromkeys(hosts))
    origins = [f"{scheme}://{h}" for h in hosts for scheme in ("http", "https")]
    return TransportSecuritySettings(enable_dns_rebinding_protection=True, allowed_hosts=hosts, allowed_origins=origins)


def build_http_app(server: MCPServer[Any], options: HttpOptions) -> ASGIApp:
    """The ASGI app for `options.transport`, wrapped in the auth check and the body cap."""
    security = transport_security(options.host, options.port, options.allowed_hosts)
    inner: ASGIApp
    if options.transport == "sse":
        sse = server.sse_app(
            sse_path=SSE_PATH,
            message_path=SSE_MESSAGE_PATH,
            max_request_body_size=options.max_body_bytes,
            transport_security=security,
            host=options.host,
        )
        # Inside the body cap, as for Streamable HTTP below.
        inner = _OneResponseOnly(AnswerUnreadableSse(sse, sse_path=SSE_PATH, message_path=SSE_MESSAGE_PATH))
    else:
        inner = server.streamable_http_app(
            streamable_http_path=STREAMABLE_HTTP_PATH,
            stateless_http=options.stateless,
            max_request_body_size=options.max_body_bytes,
            transport_security=security,
            host=options.host,
        )
        if options.stateless:
            inner = _CancelOnDisconnect(inner)
        # Inside the body cap: the body it reads is already bounded.
        inner = AnswerUnreadableHttp(inner)
    app: ASGIApp = RequestBodyLimitMiddleware(inner, options.max_body_bytes)
    if options.auth_token and options.auth_token.strip():
        app = BearerAuthMiddleware(app, options.auth_token)
    if options.on_shutdown is not None:
        app = _ShutdownHookMiddleware(app, options.on_shutdown)
    return app


class _HttpMiddleware:
    """An ASGI wrapper that acts on HTTP requests and passes everything else (lifespan) straight through."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        await self.handle(scope, receive, send)

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        raise NotImplementedError


class _OneResponseOnly(_HttpMiddleware):
    """Turns a second response on a request into the end of the first.

    The SDK's SSE endpoint sends an empty response after its event stream ends. When shutdown cut the
    stream, that second `http.response.start` arrives while the first response is still open, and uvicorn
    logs an error with a traceback for what is a normal disconnect; closing the first response instead is
    what the endpoint means.
    """

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        started = completed = dropping = False

        async def send_once(message: Message) -> None:
            nonlocal started, completed, dropping
            if message["type"] == "http.response.start":
                if started:
                    dropping = True
                    if not completed:
                        completed = True
                        await send({"type": "http.response.body", "body": b"", "more_body": False})
                    return
                started = True
            elif message["type"] == "http.response.body":
                if dropping:
                    return
                completed = not message.get("more_body", False)
            await send(message)

        await self.app(scope, receive, send_once)


class _CancelOnDisconnect(_HttpMiddleware):
    """Stateless mode: a client that disconnects takes its calls with it.

    A stateless request has no session to resume, so a result whose connection is gone can never be
    delivered. Nothing in the SDK reads the request's channel once the body is in, so a watcher does,
    and the disconnect cancels the request's calls. (Stateful sessions may resume, so there the spec
    has the server carry on.)
    """

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        with lifeline() as line:
            gone = anyio.Event()
            watching = False
            disconnect: Message = {"type": "http.disconnect"}

            async def watch() -> None:
                nonlocal disconnect
                # After the body, the only message left on the channel is the disconnect.
                disconnect = await receive()
                line.cut()
                gone.set()

            async with anyio.create_task_group() as tg:

                async def watched_receive() -> Message:
                    nonlocal watching
                    if watching:
                        await gone.wait()
                        return disconnect
                    message = await receive()
                    if message["type"] == "http.disconnect":
                        line.cut()
                    elif not message.get("more_body", False):
                        watching = True
                        tg.start_soon(watch)
                    return message

                await self.app(scope, watched_receive, send)
                tg.cancel_scope.cancel()


class _GracefulServer(uvicorn.Server):
    """uvicorn, but the tool calls in flight are finished or ended as error results before it stops.

    Left to itself, uvicorn cancels a request that outlives its graceful window, logs that at error level
    with a traceback, and the client gets HTTP 500. Instead, new calls are refused at once, those in
    flight get half the window to finish, and the rest are cancelled so that each answers its client
    with an ordinary error result; uvicorn then finds only finished requests.
    """

    def __init__(self, config: uvicorn.Config, server: MCPServer[Any], grace_s: float) -> None:
        super().__init__(config)
        self._mcp_server = server
        self._grace_s = grace_s

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        cancelled = await close_gate(self._mcp_server, self._grace_s)
        if cancelled:
            log.info("ended calls still in flight at shutdown", calls=cancelled)
        await super().shutdown(sockets)


class _ShutdownHookMiddleware:
    """Runs the hook when uvicorn announces shutdown, before the app's own lifespan shutdown."""

    def __init__(self, app: ASGIApp, hook: ShutdownHook) -> None:
        self.app = app
        self.hook = hook

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "lifespan":
            await self.app(scope, receive, send)
            return

        async def receive_then_hook() -> Message:
            message = await receive()
            if message["type"] == "lifespan.shutdown":
                with anyio.CancelScope(shield=True):
                    await self.hook()
            return message

        await self.app(scope, receive_then_hook, send)


@contextmanager
def _quiet_signal_exit() -> Iterator[list[int]]:
    """Let uvicorn own SIGINT/SIGTERM, then swallow the signal it re-raises after its graceful shutdown.

    uvicorn re-raises a captured signal to the previous handler once it has stopped; with the default
    handlers that is a KeyboardInterrupt traceback or death by SIGTERM instead of a clean exit.
    """
    received: list[int] = []

    def note(signum: int, frame: FrameType | None) -> None:
        received.append(signum)

    previous = {sig: signal.signal(sig, note) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield received
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _check_free(host: str, port: int) -> None:
    """Refuse, before "serving" is logged, an address this machine cannot listen on: uvicorn would log its own
    error after ours and exit 3, naming neither --port nor --host."""
    try:
        infos = socket.getaddrinfo(host.strip("[]"), port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise BindRefused(f"--host {host}: not an address to listen on ({exc.strerror}); give an IP or a name of "
                          "this machine, e.g. 127.0.0.1") from None  # fmt: skip
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
        try:
            probe.bind(address)
        except OSError as exc:
            raise BindRefused(f"cannot listen on {host}:{port} ({exc.strerror}); choose another --port, or stop "
                              "what is listening there") from None  # fmt: skip


def run_http(server: MCPServer[Any], options: HttpOptions) -> None:
    """Serve over SSE or Streamable HTTP until SIGINT/SIGTERM. Raises `BindRefused` before binding if unsafe."""
    check_bind(options.host, options.auth_token)
    _check_free(options.host, options.port)
    app = build_http_app(server, options)
    # Here, not at the top: h11 and uvicorn's h11 protocol are for HTTP only, and a stdio start never needs them.
    from gavel.server.connections import ConnectionGuard, connection_budget, descriptor_limit, guarded_protocol

    cap, backlog = connection_budget(descriptor_limit())
    config = uvicorn.Config(
        app,
        host=options.host,
        port=options.port,
        # Half-open connections are shed by the guard (server/connections.py); uvicorn's limit_concurrency is
        # not used, as it would count them and answer an authorized request 503.
        http=guarded_protocol(ConnectionGuard(cap)),
        backlog=backlog,
        timeout_keep_alive=KEEP_ALIVE_S,
        h11_max_incomplete_event_size=MAX_HEADER_BYTES,
        # None: uvicorn installs no handlers of its own and logs through ours (stderr).
        log_config=None,
        log_level=None,
        lifespan="on",
        timeout_graceful_shutdown=options.shutdown_timeout_s,
        server_header=False,
        proxy_headers=False,
    )
    log.info(
        "serving",
        transport=options.transport,
        url=options.url,
        stateless=options.stateless if options.transport == "streamable-http" else None,
        auth="bearer" if options.auth_token and options.auth_token.strip() else "none",
        max_connections=cap,
    )
    if not is_loopback(options.host):
        log.info(
            "listening beyond loopback: clients must use an allowed Host header",
            allowed_hosts=transport_security(options.host, options.port, options.allowed_hosts).allowed_hosts,
            hint="add the name clients use with --allow-host",
        )
    with _quiet_signal_exit() as received:
        _GracefulServer(config, server, grace_s=options.shutdown_timeout_s / 2).run()
    if received:
        log.info("stopped", signal=signal.Signals(received[0]).name)


async def _serve_stdio(server: MCPServer[Any], on_shutdown: ShutdownHook | None) -> None:
    async def shutdown() -> None:
        if on_shutdown is None:
            return
        with anyio.CancelScope(shield=True), anyio.move_on_after(SHUTDOWN_TIMEOUT_S):
            await on_shutdown()

    async with anyio.create_task_group() as tg:

        async def stop_on_signal() -> None:
            with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
                async for signum in signals:
                    log.info("stopping", signal=signal.Signals(signum).name)
                    await shutdown()
                    # The SDK reads stdin in a worker thread that no cancellation can interrupt while the
                    # client keeps the pipe open, so a clean return would wait for the client's next line.
                    _exit_now(0)

        tg.start_soon(stop_on_signal)
        log.info("serving", transport="stdio")
        try:
            await run_stdio_answering(server)
        except* (BrokenPipeError, ConnectionResetError):
            # The client died with a call in flight: nobody is left to read its reply. That is the
            # client leaving, not a server failure.
            log.info("the client closed stdout mid-call; stopping")
        else:
            log.info("stdin closed; stopping")
        tg.cancel_scope.cancel()
    await shutdown()


def _exit_now(code: int) -> None:
    for handler in logging.getLogger().handlers:
        handler.flush()
    sys.stderr.flush()
    os._exit(code)


def run_stdio(server: MCPServer[Any], *, on_shutdown: ShutdownHook | None = None) -> None:
    """Serve over stdin/stdout until EOF on stdin or SIGINT/SIGTERM, then run `on_shutdown`."""
    anyio.run(_serve_stdio, server, on_shutdown)
