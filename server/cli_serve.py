"""`gavel serve` (the MCP server) and `gavel demo` (every tool once, through a real MCP session)."""

from __future__ import annotations

import argparse

from gavel.server.cli_common import EXIT_OK, Subcommands, add_command, fail, load_registry, port
from gavel.server.http_defaults import DEFAULT_HOST, DEFAULT_PORT, TRANSPORTS
from gavel.server.settings import Settings
from gavel.tools.errors import RubricFileError


def add_commands(commands: Subcommands, parent: argparse.ArgumentParser) -> None:
    serve = add_command(
        commands,
        "serve",
        _serve,
        parent,
        help="run the MCP server (stdio by default)",
        description="Run the MCP server. stdio by default; --transport sse or streamable-http listens on HTTP.",
    )
    serve.add_argument("--transport", choices=TRANSPORTS, default="stdio", help="default: stdio")
    serve.add_argument(
        "--host",
        default=DEFAULT_HOST,
        help=f"HTTP bind address (default {DEFAULT_HOST}); anything but loopback needs an auth token",
    )
    serve.add_argument("--port", type=port, default=DEFAULT_PORT, help=f"HTTP port (default {DEFAULT_PORT})")
    serve.add_argument(
        "--auth-token",
        metavar="TOKEN",
        help="HTTP bearer token clients must send "
        "(GAVEL_AUTH_TOKEN; prefer the variable: flags show in the process list)",
    )
    serve.add_argument(
        "--stateless",
        action="store_true",
        help="streamable-http without sessions: every "
        "request stands alone (no server-to-client requests such as sampling)",
    )
    serve.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="HOST[:PORT]",
        help="an extra Host header value to accept (DNS-rebinding protection), e.g. the machine's name; repeatable",
    )
    add_command(
        commands,
        "demo",
        _demo,
        parent,
        help="run every tool once through a real MCP session",
        description="Start 'gavel serve' over stdio and call every tool through a real MCP client session.",
    )


def _serve(settings: Settings, args: argparse.Namespace) -> int:
    from gavel.server.auth import BindRefused, check_bind
    from gavel.server.logging import configure_logging

    token = settings.auth_token.get_secret_value() if settings.auth_token else None
    configure_logging(settings.log_level, secrets=[token] if token else ())
    if args.stateless and args.transport != "streamable-http":
        return fail("--stateless applies to --transport streamable-http only")
    # Checked before the SDK and the engine are even imported: a refused start is immediate.
    try:
        if args.transport != "stdio":
            check_bind(args.host, token)
        registry = load_registry(settings)
    except (BindRefused, RubricFileError) as exc:
        return fail(str(exc))

    from gavel.server.app import build_server
    from gavel.server.tool_registry import make_deps_factory
    from gavel.server.transports import HttpOptions, run_http, run_stdio

    deps_factory = make_deps_factory(settings, registry)
    # The factory may own model backends (HTTP clients, a loaded model) to close on the way out.
    on_shutdown = getattr(deps_factory, "aclose", None)
    server = build_server(settings, registry, deps_factory)
    if args.transport == "stdio":
        run_stdio(server, on_shutdown=on_shutdown)
        return EXIT_OK
    options = HttpOptions(
        transport=args.transport,
        host=args.host,
        port=args.port,
        auth_token=token,
        stateless=args.stateless,
        allowed_hosts=tuple(args.allow_host),
        on_shutdown=on_shutdown,
    )
    try:
        run_http(server, options)
    except BindRefused as exc:
        return fail(str(exc))
    return EXIT_OK


def _demo(settings: Settings, args: argparse.Namespace) -> int:
    from gavel.server.demo import main as demo_main

    return demo_main(settings)
