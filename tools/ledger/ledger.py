"""The evaluation ledger: every judgment kept in one SQLite file (stdlib `sqlite3`), or in a PostgreSQL
database that several Gavel instances share (`GAVEL_LEDGER_URL`; see tools/ledger/store.py for both stores).

One row per judgment: the tool call (top level), and child rows for what it is made of (the answers of a
batch, the iterations of a refinement loop). A row keeps the request (or only its hash), the full
structured result, provenance, usage, the duration, a one-line headline, and the cache columns: the
request's cache key and whether the judgment may be served again (`servable`). A call answered from the
ledger is a row of its own with `cached = 1`, `served_from` (column `source_id`) naming the judgment it served
and that judgment's result as recorded, committed before the answer goes out like every other row.

A file deleted, replaced or overwritten under the open connection is noticed at the next use (SQLite
would go on writing where nobody can read): the ledger is then unavailable for the rest of the process.

In front of the file, a small in-memory map from cache key to the servable judgments this process has
recorded or served: a judgment never changes once committed, so serving it again from memory (within the
TTL) is exact, and a repeated request then costs no database call at all. (With PostgreSQL, what another
instance recorded is found in the database, then remembered here too.)

Durability and sharing (SQLite): WAL journal, `synchronous=NORMAL` (a commit survives the process being killed; a
power cut may lose the last commits), a busy timeout so two server processes sharing the file wait for
each other instead of failing, and writes in `BEGIN IMMEDIATE` transactions so a writer never has to
upgrade a read lock (which SQLite would refuse at once, without waiting). One connection per `Ledger`,
used under a lock from worker threads: the async methods keep every call off the event loop.

PostgreSQL: a connection pool, each write one transaction committed before `record` returns, so the same
promise holds: a judgment is recorded before the client hears it.

A ledger that cannot be used (corrupt file, unwritable path, a schema from a newer Gavel, a database server
that does not answer: then it is left alone for `OUTAGE_S` before being tried again) never fails
the caller: the operation returns nothing, the problem is logged as a warning once, and `failure` says
what is wrong (shown by `gavel config`).
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, TypeVar, cast

import anyio
import structlog

from gavel.tools.ledger.reads import LedgerReads
from gavel.tools.ledger.rows import COLUMNS, Entry, LedgerStatus, timestamp, utc_now
from gavel.tools.ledger.schema import BUSY_TIMEOUT_S, SCHEMA_VERSION, Conn, LedgerError
from gavel.tools.ledger.store import SqliteStore, Store

log = structlog.get_logger("gavel.ledger")

T = TypeVar("T")

DEFAULT_TTL_S = 7 * 24 * 3600.0
# Servable judgments kept in memory by cache key (a few KB each).
REMEMBERED_JUDGMENTS = 256
# After a database server failed to answer (PostgreSQL down or restarting), the ledger is left alone this
# long: judgments go on unrecorded instead of each waiting for the connection timeout.
OUTAGE_S = 30.0

_INSERT = f"INSERT INTO evaluations ({COLUMNS}) VALUES ({', '.join('?' * len(COLUMNS.split(',')))})"


@dataclass
class _Remembered:
    judgment_id: str
    created: float  # epoch seconds
    result_json: str
    served: Any = None  # what the first memory hit made of it, for the next ones


# -- the store ---------------------------------------------------------------------------------------------


class Ledger(LedgerReads):
    """The ledger at `path` (a SQLite file) or in `store` (e.g. PostgreSQL). Opened at first use; every
    method is safe to call when it cannot be used."""

    def __init__(
        self,
        path: Path | str | None = None,
        *,
        store: Store | None = None,
        ttl_s: float = DEFAULT_TTL_S,
        store_inputs: bool = True,
        busy_timeout_s: float = BUSY_TIMEOUT_S,
    ) -> None:
        if store is None:
            if path is None:
                raise ValueError("a Ledger needs a path or a store")
            store = SqliteStore(Path(path), busy_timeout_s=busy_timeout_s)
        self.store: Store = store
        # Where it is, for messages: the file, or the database URL with its password masked.
        self.path: Path | str = store.path if isinstance(store, SqliteStore) else store.location
        self.ttl_s = ttl_s
        self.store_inputs = store_inputs
        self._failure: str | None = None
        self._outage: str | None = None
        self._outage_until = 0.0
        self._warned = False
        self._report_lock = threading.Lock()
        # cache key -> the judgment, most recently used last.
        self._remembered: OrderedDict[str, _Remembered] = OrderedDict()
        self._remembered_lock = threading.Lock()

    @property
    def failure(self) -> str | None:
        """Why this ledger is unusable: for the rest of the process, or (a database server that does not
        answer) for the next few seconds. None when it is usable."""
        if self._failure is not None:
            return self._failure
        if self._outage is not None and time.monotonic() < self._outage_until:
            return self._outage
        return None

    # -- plumbing ----------------------------------------------------------------------------------

    def _run(self, what: str, fn: Callable[[Conn], T], *, create: bool = True) -> T | None:
        """Run `fn` on a connection of the store; any ledger problem is logged and gives None."""
        if self.failure is not None:
            return None
        opening = not self.store.opened
        try:
            with self.store.session(create=create) as conn:
                return None if conn is None else fn(conn)
        except self.store.errors as exc:
            self._report(what, exc, permanent=self.store.permanent(exc, opening=opening))
            return None

    def _report(self, what: str, exc: BaseException, *, permanent: bool) -> None:
        detail = f"{type(exc).__name__}: {exc}" if not isinstance(exc, OSError | LedgerError) else str(exc)
        detail = " ".join(detail.split())
        with self._report_lock:
            if permanent:
                self._failure = detail
                self.store.discard()
            elif self.store.outage(exc):
                self._outage, self._outage_until = detail, time.monotonic() + OUTAGE_S
            first, self._warned = not self._warned, True
        if first or self.store.outage(exc):
            log.warning(
                "evaluation ledger unavailable; judging continues without recording or cache",
                path=str(self.path),
                operation=what,
                error=detail,
                permanent=permanent,
            )
        else:
            log.debug("evaluation ledger operation failed", path=str(self.path), operation=what, error=detail)

    def close(self) -> None:
        self.store.close()

    # -- writing -----------------------------------------------------------------------------------

    def record(self, entries: Sequence[Entry]) -> bool:
        """Write the rows in one transaction; True once they are committed."""

        def write(conn: Conn) -> bool:
            with conn.transaction():
                conn.executemany(_INSERT, [entry.row() for entry in entries])
            return True

        written = bool(self._run("record", write))
        if written:
            for entry in entries:
                if entry.cache_key is not None and entry.servable and not entry.cached:
                    self._remember(entry.cache_key, entry.id, entry.created_at, entry.result_json)
        return written

    def _remember(self, cache_key: str, judgment_id: str, created_at: str, result_json: str) -> None:
        created = datetime.fromisoformat(created_at).timestamp()
        with self._remembered_lock:
            self._remembered[cache_key] = _Remembered(judgment_id, created, result_json)
            self._remembered.move_to_end(cache_key)
            while len(self._remembered) > REMEMBERED_JUDGMENTS:
                self._remembered.popitem(last=False)

    def _cutoff(self) -> str:
        return timestamp(utc_now() - timedelta(seconds=self.ttl_s))

    def serve_remembered(self, cache_key: str, serve: Callable[[str, str], T | None]) -> T | None:
        """`serve_cached` from memory only: no file access, so it may run on the event loop.

        What `serve` makes of a judgment is kept and handed to every later hit of the key (the key fixes
        the tool and the result's shape, so it is the same every time): callers must treat it as read-only.
        """
        if self.ttl_s <= 0 or self._failure is not None:
            return None
        with self._remembered_lock:
            found = self._remembered.get(cache_key)
            if found is not None:
                self._remembered.move_to_end(cache_key)
        # Epoch seconds, not formatted times: this runs on every cacheable call.
        if found is None or found.created < time.time() - self.ttl_s:
            return None
        if found.served is None:
            found.served = serve(found.judgment_id, found.result_json)
        return cast("T | None", found.served)

    def serve_cached(self, cache_key: str, serve: Callable[[str, str], T | None]) -> T | None:
        """The newest servable judgment for `cache_key` within the TTL, as `serve` makes it.

        `serve(served_from, stored_result_json)` gives what the caller returns; None (e.g. the stored result no
        longer validates) is a miss. Read only: the caller records the cached call.
        """
        if self.ttl_s <= 0:
            return None
        cutoff = self._cutoff()

        def lookup(conn: Conn) -> T | None:
            row = conn.execute(
                "SELECT id, created_at, result_json FROM evaluations WHERE cache_key = ? AND servable = 1 "
                "AND cached = 0 AND created_at >= ? ORDER BY created_at DESC, rowid DESC LIMIT 1",
                (cache_key, cutoff),
            ).fetchone()
            if row is None:
                return None
            served = serve(row[0], row[2])
            if served is not None:
                self._remember(cache_key, row[0], row[1], row[2])
            return served

        return self._run("serve_cached", lookup)

    async def arecord(self, entries: Sequence[Entry]) -> bool:
        return await anyio.to_thread.run_sync(self.record, entries)

    async def aserve_cached(self, cache_key: str, serve: Callable[[str, str], T | None]) -> T | None:
        return await anyio.to_thread.run_sync(self.serve_cached, cache_key, serve)

    def run(self, what: str, fn: Callable[[Conn], T], *, create: bool = True) -> T | None:
        """`fn` on a connection of the store, for the ledger's other tables (tools/calibration/records.py); None
        when the ledger cannot be used (the problem is logged and `failure` says it)."""
        return self._run(what, fn, create=create)

    # -- status ------------------------------------------------------------------------------------

    def status(self) -> LedgerStatus:
        """Whether the ledger can be used, checked without creating it."""
        path = str(self.path)
        if self.failure is not None:
            return LedgerStatus(path, "unavailable", self.failure)
        why = self.store.missing()
        if why is not None:
            return LedgerStatus(path, "unavailable", why)
        if not self.store.exists():
            return LedgerStatus(path, "not_created")
        count = self.count()
        if count is None:
            if self.failure is not None:
                return LedgerStatus(path, "unavailable", self.failure)
            return LedgerStatus(path, "not_created")  # a database without Gavel's tables yet
        if not self.store.writable():
            return LedgerStatus(path, "unavailable", "the file is read-only", count, SCHEMA_VERSION)
        return LedgerStatus(path, "ok", None, count, SCHEMA_VERSION, self.count(calls_only=True))
