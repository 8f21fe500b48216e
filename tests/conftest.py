"""Fixtures shared by the whole suite: process environments, free ports, servers, and logging kept per test; and
the reliability figures gathered from every pytest-xdist worker into one table."""

from __future__ import annotations

import logging
import os
import socket
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import structlog

from gavel.server import logging as gavel_logging
from tests.reliability import tally
from tests.support.chromium import ensure_chromium
from tests.support.postgres import PostgresServer, PostgresUnavailable
from tests.support.postgres import start as start_postgres

REPO_ROOT = Path(__file__).resolve().parent.parent
# The interpreter running the tests is the project's venv python; subprocesses use the same one.
PYTHON = sys.executable


@pytest.fixture(scope="session")
def clean_env() -> dict[str, str]:
    """This process's environment without any GAVEL_* or OLLAMA_HOST setting, for starting `gavel`.

    Ollama is pointed at a closed port so nothing in a test depends on a model server on this machine.
    Session-scoped: copy it (`{**clean_env, ...}`) to change it.
    """
    env = {k: v for k, v in os.environ.items() if not k.startswith("GAVEL_") and k != "OLLAMA_HOST"}
    env["GAVEL_OLLAMA_HOST"] = f"http://127.0.0.1:{_free_port()}"
    env["PYTHONUNBUFFERED"] = "1"
    # No test writes to the user's real ledger; ledger tests set their own file.
    env["GAVEL_LEDGER_PATH"] = "off"
    return env


def _free_port() -> int:
    # Bind port 0 and let the kernel choose; the port is free again once the socket closes.
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="session")
def free_port() -> Callable[[], int]:
    return _free_port


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """A real PostgreSQL server for the session (started at the first test that needs it); the tests that
    use it are skipped, with the reason, only when none can be started here."""
    try:
        server = start_postgres()
    except PostgresUnavailable as exc:
        pytest.skip(f"no PostgreSQL server can be started: {exc}")
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def postgres_url(postgres_server: PostgresServer) -> str:
    """The URL of a fresh, empty database on the session's server."""
    return postgres_server.create_database()


@pytest.fixture(scope="session")
def chromium() -> Path:
    """Debian's headless chromium (installed first where it is missing and root may apt-get it); the tests that use
    it are skipped, with the reason, only when it cannot be had here."""
    path, reason = ensure_chromium()
    if path is None:
        pytest.skip(f"no chromium for the browser tests: {reason}")
    return path


@pytest.fixture
def restore_logging() -> Iterator[None]:
    """Put the logging configuration back as it was after a test that configures it (`main(argv)` does)."""
    root = logging.getLogger()
    saved_handlers, saved_level = list(root.handlers), root.level
    try:
        yield
    finally:
        for handler in list(root.handlers):
            root.removeHandler(handler)
        for handler in saved_handlers:
            root.addHandler(handler)
        root.setLevel(saved_level)
        structlog.reset_defaults()
        structlog.contextvars.clear_contextvars()
        gavel_logging._deferred = None  # a deferring configuration is undone with the rest


def _own_handlers() -> list[logging.Handler]:
    return [h for h in logging.getLogger().handlers if not type(h).__module__.startswith("_pytest")]


@pytest.fixture(autouse=True)
def _no_leaked_log_handler() -> Iterator[None]:
    """A handler a test leaves on the root logger writes to that test's captured stderr, which pytest closes: a
    later log line from any thread (a server thread's "Terminating session") then fails with "I/O operation on
    closed file". Set up before `restore_logging`, so this checks after it has put things back."""
    before = _own_handlers()
    yield
    leaked = [h for h in _own_handlers() if h not in before]
    assert not leaked, f"the test left {leaked} on the root logger: use the restore_logging fixture"


def pytest_sessionfinish(session: pytest.Session) -> None:
    # A pytest-xdist worker hands the reliability figures it counted to the controller, which prints them.
    worker_output = getattr(session.config, "workeroutput", None)
    if worker_output is not None:
        worker_output[tally.WORKER_OUTPUT_KEY] = dict(tally.TALLY)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: object) -> None:
    tally.merge(getattr(node, "workeroutput", {}).get(tally.WORKER_OUTPUT_KEY, {}))


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    tally.write(terminalreporter)
