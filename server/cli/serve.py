"""`gavel serve` (the MCP server) and `gavel demo` (every tool once, through a real MCP session)."""

from __future__ import annotations

import argparse

from gavel.server.cli.console import EXIT_OK, fail, load_registry
from gavel.server.settings import Settings
from gavel.tools.errors import RubricFileError


def serve(settings: Settings, args: argparse.Namespace) -> int:
    from gavel.server.auth import BindRefused, check_bind
    from gavel.server.logging import configure_logging

    token = settings.auth_token.get_secret_value() if settings.auth_token else None
    # On stdio structlog is configured at its first use (a start writes one line, rendered without it).
    configure_logging(settings.log_level, secrets=[token] if token else (), defer_structlog=args.transport == "stdio")
    if args.stateless and args.transport != "streamable-http":
        return fail("--stateless applies to --transport streamable-http only")
    # Checked before the SDK and the engine are even imported: a refused start is immediate.
    try:
        if args.transport != "stdio":
            check_bind(args.host, token)
        # A broken rubric file is skipped, listed in rubric://index and refused by id: the rest keeps serving.
        registry = load_registry(settings, skip_broken=True)
    except (BindRefused, RubricFileError) as exc:
        return fail(str(exc))

    from gavel.server.app import build_server
    from gavel.server.call_deps import make_deps_factory
    from gavel.server.transports import HttpOptions, run_http, run_stdio

    deps_factory = make_deps_factory(settings, registry)
    # The factory may own model backends (HTTP clients, a loaded model) to close on the way out.
    on_shutdown = getattr(deps_factory, "aclose", None)
    server = build_server(settings, registry, deps_factory)
    if settings.ledger_url is not None:  # only a ledger in PostgreSQL needs a driver (and is made at start for it)
        _warn_missing_driver(server)
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


def _warn_missing_driver(server: object) -> None:
    """GAVEL_LEDGER_URL without the `postgres` extra: the server judges, records nothing, and says so once here
    (and in every judging call's reply)."""
    missing = getattr(getattr(getattr(server, "ledger", None), "store", None), "missing_driver", None)
    if missing is not None:
        from gavel.server.logging import get_logger

        get_logger("gavel.ledger").warning("the evaluation ledger is unavailable", error=missing)


def demo(settings: Settings, args: argparse.Namespace) -> int:
    from gavel.server.cli.demo import main as demo_main

    return demo_main(settings)
