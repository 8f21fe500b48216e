"""What the fake model servers (Ollama's API, OpenAI's) share: a threaded stdlib HTTP server on 127.0.0.1, its
start and bounded stop, and the record of the requests it got. Each server adds its API's handler."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Self

JOIN_TIMEOUT_S = 5.0


@dataclass(frozen=True)
class RecordedRequest:
    method: str
    path: str
    body: Any  # the parsed JSON body, or None for GET / non-JSON bodies
    headers: dict[str, str] = field(default_factory=dict)


class FakeModelServer:
    """A model server's lifecycle: `start` (or `with`) serves on a random port, `stop` refuses connections again.

    A stopped server starts again on the same port, so a test can take the model server down and bring it back.
    """

    def __init__(self) -> None:
        self.requests: list[RecordedRequest] = []
        # Exceptions raised by the responder (or embedder); they are also answered as HTTP 500.
        self.errors: list[BaseException] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._httpd: ModelHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self.port: int = 0

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        raise NotImplementedError

    def start(self) -> Self:
        if self._httpd is not None:
            raise RuntimeError("the test server is already running")
        self._stopping.clear()
        self._httpd = ModelHTTPServer(("127.0.0.1", self.port), self._handler(), owner=self)
        self.port = self._httpd.server_address[1]
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": 0.01},
            name=f"{type(self).__name__}-{self.port}",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving; the port then refuses connections. Every join is bounded."""
        httpd, self._httpd = self._httpd, None
        if httpd is None:
            return
        self._stopping.set()  # wakes handlers sleeping in the "slow" fault
        httpd.shutdown()
        httpd.server_close()
        httpd.close_connections()
        if self._thread is not None:
            self._thread.join(JOIN_TIMEOUT_S)
            self._thread = None
        httpd.join_handlers(JOIN_TIMEOUT_S)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self.requests.append(request)


class ModelHTTPServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address: tuple[str, int], handler: type[BaseHTTPRequestHandler], *, owner: FakeModelServer):
        self.owner = owner
        self._live: set[socket.socket] = set()
        self._handler_threads: set[threading.Thread] = set()
        self._live_lock = threading.Lock()
        super().__init__(address, handler)

    def process_request(self, request: Any, client_address: Any) -> None:
        with self._live_lock:
            self._live.add(request)
        thread = threading.Thread(target=self._serve_one, args=(request, client_address), daemon=True)
        with self._live_lock:
            self._handler_threads.add(thread)
        thread.start()

    def _serve_one(self, request: Any, client_address: Any) -> None:
        try:
            self.process_request_thread(request, client_address)
        finally:
            with self._live_lock:
                self._live.discard(request)
                self._handler_threads.discard(threading.current_thread())

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that timed out and hung up is an expected event in these tests, not a server bug.
        return None

    def close_connections(self) -> None:
        """Unblock handlers waiting on idle keep-alive connections so their threads can end."""
        with self._live_lock:
            live = list(self._live)
        for sock in live:
            with contextlib.suppress(OSError):  # already closed by the peer
                sock.shutdown(socket.SHUT_RDWR)

    def join_handlers(self, timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        with self._live_lock:
            threads = list(self._handler_threads)
        for thread in threads:
            thread.join(max(0.0, deadline - time.monotonic()))
