"""Starting and stopping real `gavel` processes for end-to-end tests. Every wait is bounded."""

from __future__ import annotations

import json
import resource
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from tests.conftest import PYTHON, REPO_ROOT

GAVEL = [PYTHON, "-m", "gavel.server"]
START_TIMEOUT_S = 20.0
STOP_TIMEOUT_S = 10.0


@dataclass
class RunningServer:
    process: subprocess.Popen[bytes]
    port: int
    stderr_path: Path

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stderr(self) -> str:
        return self.stderr_path.read_text(encoding="utf-8", errors="replace")


def run_gavel(args: Sequence[str], env: dict[str, str], timeout_s: float = 20.0) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*GAVEL, *args], env=env, capture_output=True, text=True, timeout=timeout_s, stdin=subprocess.DEVNULL
    )


def port_is_open(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.settimeout(0.2)
        return sock.connect_ex(("127.0.0.1", port)) == 0


def _wait_until_listening(process: subprocess.Popen[bytes], port: int, stderr_path: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(
                f"gavel exited with {process.returncode} before listening:\n{stderr_path.read_text(errors='replace')}"
            )
        if port_is_open(port):
            return
        time.sleep(0.05)
    raise AssertionError(f"gavel did not listen on {port} within {START_TIMEOUT_S:g}s")


def stop(process: subprocess.Popen[bytes], sig: signal.Signals = signal.SIGTERM) -> int:
    """Signal the process and wait for it; kill it if it does not stop in time. Returns its exit code."""
    if process.poll() is None:
        process.send_signal(sig)
        try:
            process.wait(timeout=STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=STOP_TIMEOUT_S)
            raise AssertionError(f"gavel ignored {sig.name} for {STOP_TIMEOUT_S:g}s and was killed") from None
    return process.returncode


@contextmanager
def http_server(
    args: Sequence[str], env: dict[str, str], port: int, workdir: Path, *, fd_limits: tuple[int, int] | None = None
) -> Iterator[RunningServer]:
    """`gavel serve` on `port`; `fd_limits` sets its (soft, hard) open-file limits."""
    stderr_path = workdir / f"gavel-{port}.stderr"

    def limit_descriptors() -> None:
        if fd_limits is not None:
            resource.setrlimit(resource.RLIMIT_NOFILE, fd_limits)

    with stderr_path.open("wb") as stderr:
        process = subprocess.Popen(
            [*GAVEL, "serve", "--port", str(port), *args],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
            preexec_fn=limit_descriptors if fd_limits is not None else None,
        )
    try:
        _wait_until_listening(process, port, stderr_path)
        yield RunningServer(process, port, stderr_path)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=STOP_TIMEOUT_S)


_LIST_INIT = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "tests", "version": "0"}}
_LIST_FRAMES = (
    {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": _LIST_INIT},
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
)


def tools_list_over_stdio(argv: Sequence[str], env: dict[str, str]) -> tuple[bytes | None, bytes, int]:
    """Start a stdio server (`argv`), initialize it and list its tools with raw frames, then close stdin (EOF stops
    it): (the raw tools/list reply line or None, everything on stderr, the exit code). A start that never answers
    is killed after 120 s instead of hanging the test."""
    process = subprocess.Popen(
        list(argv), cwd=REPO_ROOT, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    watchdog = threading.Timer(120, process.kill)
    watchdog.start()
    try:
        assert process.stdin is not None and process.stdout is not None and process.stderr is not None
        process.stdin.write(b"".join(json.dumps(frame).encode() + b"\n" for frame in _LIST_FRAMES))
        process.stdin.flush()
        lines = iter(process.stdout.readline, b"")
        line = next((line for line in lines if json.loads(line).get("id") == 2), None)
        process.stdin.close()
        stderr = process.stderr.read()
        process.wait()
    finally:
        watchdog.cancel()
    return (None if line is None else line.rstrip(b"\n")), stderr, process.returncode
