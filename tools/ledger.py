"""The evaluation ledger's store: every judgment kept in one SQLite file (stdlib `sqlite3`).

One row per judgment: the tool call (top level), and child rows for what it is made of (the answers of a
batch, the iterations of a refinement loop). A row keeps the request (or only its hash), the full
structured result, provenance, usage, the duration, a one-line headline, and the cache columns: the
request's cache key and whether the judgment may be served again (`servable`). A call answered from the
ledger is a row of its own with `cached = 1`, `source_id` naming the judgment it served and that judgment's
result as recorded, committed before the answer goes out like every other row. (`record_later` still writes
rows in batches on a background thread, for callers that can lose the last quarter second of them.)

A file deleted, replaced or overwritten under the open connection is noticed at the next use (SQLite
would go on writing where nobody can read): the ledger is then unavailable for the rest of the process.

In front of the file, a small in-memory map from cache key to the servable judgments this process has
recorded or served: a judgment never changes once committed, so serving it again from memory (within the
TTL) is exact, and a repeated request then costs no SQLite call at all.

Durability and sharing: WAL journal, `synchronous=NORMAL` (a commit survives the process being killed; a
power cut may lose the last commits), a busy timeout so two server processes sharing the file wait for
each other instead of failing, and writes in `BEGIN IMMEDIATE` transactions so a writer never has to
upgrade a read lock (which SQLite would refuse at once, without waiting). One connection per `Ledger`,
used under a lock from worker threads: the async methods keep every call off the event loop.

A ledger that cannot be used (corrupt file, unwritable path, a schema from a newer Gavel) never fails
the caller: the operation returns nothing, the problem is logged as a warning once, and `failure` says
what is wrong (shown by `gavel config`).
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import json
import os
import sqlite3
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Literal, TypeVar, cast

import anyio
import structlog

log = structlog.get_logger("gavel.ledger")

T = TypeVar("T")

SCHEMA_VERSION = 2
# The first bytes of every SQLite database file.
SQLITE_HEADER = b"SQLite format 3\x00"
BUSY_TIMEOUT_S = 10.0
DEFAULT_TTL_S = 7 * 24 * 3600.0
RECENT_LIMIT = 50
HEADLINE_MAX_CHARS = 300
# How many rows `export` fetches per round trip: bounded memory on a large ledger.
EXPORT_BATCH = 500
# How long a read, `close` or process exit waits for background writes still queued.
FLUSH_TIMEOUT_S = 10.0
# Background rows (cache-hit records) are gathered this long, or up to this many, per transaction.
BATCH_WINDOW_S = 0.25
BATCH_MAX = 256
# Servable judgments kept in memory by cache key (a few KB each).
REMEMBERED_JUDGMENTS = 256

# Forward migrations, applied in order inside one IMMEDIATE transaction; never edit a shipped step, add one.
MIGRATIONS: tuple[tuple[int, tuple[str, ...]], ...] = (
    (
        1,
        (
            """CREATE TABLE evaluations (
                id TEXT PRIMARY KEY,
                tool TEXT NOT NULL,
                created_at TEXT NOT NULL,
                duration_ms REAL NOT NULL,
                request_hash TEXT NOT NULL,
                request_json TEXT,
                result_json TEXT NOT NULL,
                provenance_json TEXT,
                usage_json TEXT,
                cached INTEGER NOT NULL DEFAULT 0,
                headline TEXT NOT NULL DEFAULT ''
            )""",
            "CREATE INDEX evaluations_created ON evaluations (created_at)",
        ),
    ),
    (
        # Child rows (batch items, refinement iterations) and the cache columns.
        2,
        (
            "ALTER TABLE evaluations ADD COLUMN parent_id TEXT",
            "ALTER TABLE evaluations ADD COLUMN cache_key TEXT",
            "ALTER TABLE evaluations ADD COLUMN servable INTEGER NOT NULL DEFAULT 0",
            "ALTER TABLE evaluations ADD COLUMN source_id TEXT",
            "CREATE INDEX evaluations_cache ON evaluations (cache_key, created_at) "
            "WHERE cache_key IS NOT NULL AND servable = 1 AND cached = 0",
            "CREATE INDEX evaluations_parent ON evaluations (parent_id) WHERE parent_id IS NOT NULL",
            "CREATE INDEX evaluations_tool ON evaluations (tool, created_at)",
        ),
    ),
)

_COLUMNS = (
    "id, tool, created_at, duration_ms, request_hash, request_json, result_json, provenance_json, usage_json, "
    "cached, headline, parent_id, cache_key, servable, source_id"
)

_INSERT = f"INSERT INTO evaluations ({_COLUMNS}) VALUES ({', '.join('?' * len(_COLUMNS.split(',')))})"


@dataclass
class _Remembered:
    judgment_id: str
    created: float  # epoch seconds
    result_json: str
    served: Any = None  # what the first memory hit made of it, for the next ones


class LedgerError(Exception):
    """The ledger file cannot be used as a ledger (e.g. written by a newer Gavel). Never reaches a client."""


# -- values ------------------------------------------------------------------------------------------------


def to_json(value: Any) -> str:
    """Compact JSON text that SQLite can store: lone surrogates (which UTF-8 cannot encode) are escaped."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = json.dumps(value, ensure_ascii=True, separators=(",", ":"), default=str)
    return text


def canonical_hash(value: Any) -> str:
    """sha256 of the canonical JSON of `value`: sorted keys, no whitespace, ASCII only."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True, default=str)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def utc_now() -> datetime:
    return datetime.now(UTC)


def timestamp(moment: datetime) -> str:
    """The one stored time format: UTC, ISO 8601, microseconds, so text order is time order."""
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


def parse_since(text: str) -> str:
    """A date ('2025-06-01', midnight UTC) or an ISO time (naive means UTC) as a stored timestamp."""
    try:
        moment = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(f"{text!r} is not a date (YYYY-MM-DD) or an ISO 8601 time") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return timestamp(moment)


def headline_of(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= HEADLINE_MAX_CHARS else line[: HEADLINE_MAX_CHARS - 3] + "..."


@dataclass(frozen=True)
class Entry:
    """One row to write."""

    id: str
    tool: str
    created_at: str
    duration_ms: float
    request_hash: str
    request_json: str | None
    result_json: str
    provenance_json: str | None
    usage_json: str | None
    headline: str
    cached: bool = False
    parent_id: str | None = None
    cache_key: str | None = None
    servable: bool = False
    source_id: str | None = None

    def row(self) -> tuple[Any, ...]:
        return (
            self.id, self.tool, self.created_at, round(self.duration_ms, 3), self.request_hash, self.request_json,
            self.result_json, self.provenance_json, self.usage_json, int(self.cached), self.headline,
            self.parent_id, self.cache_key, int(self.servable), self.source_id,
        )  # fmt: skip


@dataclass(frozen=True)
class LedgerStatus:
    """What `gavel config` says about the ledger."""

    path: str | None
    state: Literal["off", "ok", "not_created", "unavailable"]
    detail: str | None = None
    evaluations: int | None = None
    schema_version: int | None = None

    def line(self) -> str:
        if self.state == "off":
            return "off (GAVEL_LEDGER_PATH=off): judgments are not recorded and never served from a cache"
        if self.state == "not_created":
            return f"not created yet; the first judgment creates {self.path}"
        if self.state == "unavailable":
            return f"UNAVAILABLE at {self.path}: {self.detail}; the server judges without recording or cache"
        return f"ok, {self.evaluations} evaluation(s) at {self.path} (schema v{self.schema_version})"

    def as_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "state": self.state,
            "detail": self.detail,
            "evaluations": self.evaluations,
            "schema_version": self.schema_version,
            "summary": self.line(),
        }


# -- schema ------------------------------------------------------------------------------------------------


def schema_version(conn: sqlite3.Connection) -> int:
    exists = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'").fetchone()
    if not exists:
        return 0
    (version,) = conn.execute("SELECT COALESCE(MAX(version), 0) FROM schema_version").fetchone()
    return int(version)


def migrate(conn: sqlite3.Connection, *, target: int = SCHEMA_VERSION) -> int:
    """Bring the schema forward to `target`; returns the version it found. Safe against a concurrent migrator."""
    found = schema_version(conn)
    if found > SCHEMA_VERSION:
        raise LedgerError(
            f"the ledger's schema is v{found}, written by a newer Gavel (this one knows up to v{SCHEMA_VERSION}); "
            "upgrade Gavel or point GAVEL_LEDGER_PATH at another file"
        )
    if found >= target:
        return found
    with _write(conn):
        conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)"
        )
        current = schema_version(conn)  # another process may have migrated while this one waited for the lock
        for version, statements in MIGRATIONS:
            if current < version <= target:
                for statement in statements:
                    conn.execute(statement)
                conn.execute(
                    "INSERT INTO schema_version (version, applied_at) VALUES (?, ?)", (version, timestamp(utc_now()))
                )
    return found


@contextlib.contextmanager
def _write(conn: sqlite3.Connection) -> Iterator[None]:
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        with contextlib.suppress(sqlite3.Error):
            conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def connect(path: Path, *, busy_timeout_s: float = BUSY_TIMEOUT_S) -> sqlite3.Connection:
    """An autocommit connection in WAL mode with the busy timeout set; the schema brought up to date."""
    conn = sqlite3.connect(str(path), timeout=busy_timeout_s, isolation_level=None, check_same_thread=False)
    try:
        conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_s * 1000)}")
        (mode,) = conn.execute("PRAGMA journal_mode = WAL").fetchone()
        if str(mode).lower() != "wal":
            raise LedgerError(f"the file system does not support SQLite's WAL journal (journal_mode is {mode})")
        conn.execute("PRAGMA synchronous = NORMAL")
        migrate(conn)
    except BaseException:
        conn.close()
        raise
    return conn


def _creatable(path: Path) -> str | None:
    """Why the ledger file could not be created at `path`, or None when it looks possible."""
    if path.exists():
        return "is a directory" if path.is_dir() else None
    ancestor = path.parent
    while not ancestor.exists():
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        return f"{ancestor} is a file, not a directory"
    if not os.access(ancestor, os.W_OK | os.X_OK):
        return f"{ancestor} is not writable"
    return None


# -- the store ---------------------------------------------------------------------------------------------


class Ledger:
    """The ledger at `path`. Opened at first use; every method is safe to call when it cannot be used."""

    def __init__(
        self,
        path: Path,
        *,
        ttl_s: float = DEFAULT_TTL_S,
        store_inputs: bool = True,
        busy_timeout_s: float = BUSY_TIMEOUT_S,
    ) -> None:
        self.path = Path(path)
        self.ttl_s = ttl_s
        self.store_inputs = store_inputs
        self.busy_timeout_s = busy_timeout_s
        self._conn: sqlite3.Connection | None = None
        # The file the connection opened (device, inode): one replaced or deleted under it is noticed.
        self._identity: tuple[int, int] | None = None
        self._lock = threading.Lock()
        self._failure: str | None = None
        self._warned = False
        # Background writes (cache-hit records): thunks building the rows, written in batches by one daemon
        # thread. `_changed` guards the list and the count, and wakes the writer and whoever flushes.
        self._pending: list[Callable[[], Sequence[Entry]]] = []
        self._unwritten = 0
        self._hurry = False
        self._changed = threading.Condition()
        self._writer: threading.Thread | None = None
        # cache key -> the judgment, most recently used last.
        self._remembered: OrderedDict[str, _Remembered] = OrderedDict()
        self._remembered_lock = threading.Lock()

    @property
    def failure(self) -> str | None:
        """Why this ledger is unusable for the rest of the process, or None."""
        return self._failure

    # -- plumbing ----------------------------------------------------------------------------------

    def _connection(self, *, create: bool) -> sqlite3.Connection | None:
        if self._conn is None:
            if not create and not self.path.exists():
                return None
            if create:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            self._conn = connect(self.path, busy_timeout_s=self.busy_timeout_s)
            stat = os.stat(self.path)
            self._identity = (stat.st_dev, stat.st_ino)
        else:
            self._check_file()
        return self._conn

    def _check_file(self) -> None:
        """Raise when the file at the path is no longer the database this connection writes.

        SQLite keeps writing to a file deleted or replaced under an open connection, and to one overwritten in
        place through its write-ahead log: every write succeeds, and the rows land where nobody can read them
        (`gavel show` finds nothing). Checked at every use: a stat and a 16-byte read.
        """
        try:
            stat = os.stat(self.path)
            with self.path.open("rb") as file:
                header = file.read(len(SQLITE_HEADER))
        except FileNotFoundError:
            raise LedgerError("the ledger file was deleted while the server was using it") from None
        if (stat.st_dev, stat.st_ino) != self._identity:
            raise LedgerError("the ledger file was replaced by another file while the server was using it")
        if header != SQLITE_HEADER:
            raise LedgerError("the ledger file was overwritten while the server was using it (not a database now)")

    def _run(self, what: str, fn: Callable[[sqlite3.Connection], T], *, create: bool = True) -> T | None:
        """Run `fn` on the connection under the lock; any ledger problem is logged and gives None."""
        with self._lock:
            if self._failure is not None:
                return None
            opening = self._conn is None
            try:
                conn = self._connection(create=create)
                return None if conn is None else fn(conn)
            except (sqlite3.Error, OSError, LedgerError) as exc:
                # Opening failed, or the file turned out not to be a database (a plain DatabaseError: "file is
                # not a database", "disk image is malformed"): nothing later would succeed either. A lock
                # timeout, a full disk or a constraint failure concerns this write only.
                permanent = opening or type(exc) is sqlite3.DatabaseError or isinstance(exc, LedgerError)
                self._report(what, exc, permanent=permanent)
                return None

    def _report(self, what: str, exc: BaseException, *, permanent: bool) -> None:
        detail = f"{type(exc).__name__}: {exc}" if isinstance(exc, sqlite3.Error) else str(exc)
        if permanent:
            self._failure = detail
            if self._conn is not None:
                with contextlib.suppress(sqlite3.Error):
                    self._conn.close()
                self._conn = None
        if not self._warned:
            self._warned = True
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
        self.flush()
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    # -- writing -----------------------------------------------------------------------------------

    def record(self, entries: Sequence[Entry]) -> bool:
        """Write the rows in one transaction; True once they are committed."""

        def write(conn: sqlite3.Connection) -> bool:
            with _write(conn):
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

        `serve(source_id, stored_result_json)` gives what the caller returns; None (e.g. the stored result no
        longer validates) is a miss. Read only: recording the cached call is `record_later`'s job.
        """
        if self.ttl_s <= 0:
            return None
        cutoff = self._cutoff()

        def lookup(conn: sqlite3.Connection) -> T | None:
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

    def record_later(self, build: Callable[[], Sequence[Entry]]) -> None:
        """Write the rows `build()` makes on the background thread; never blocks the caller.

        Rows are gathered for up to `BATCH_WINDOW_S` and written in one transaction, so a stream of cache
        hits costs one commit (and one wake-up of the writer) per batch rather than per hit.
        """
        with self._changed:
            self._pending.append(build)
            self._unwritten += 1
            if self._writer is None:
                self._writer = threading.Thread(target=self._write_pending, name="gavel-ledger-writer", daemon=True)
                self._writer.start()
                atexit.register(self.flush)
            # Wake the writer only to open a batch or to end a full one: a wake-up per hit costs more than the hit.
            if len(self._pending) == 1 or len(self._pending) >= BATCH_MAX:
                self._changed.notify_all()

    def _write_pending(self) -> None:
        while True:
            with self._changed:
                self._changed.wait_for(lambda: bool(self._pending))
                self._changed.wait_for(lambda: self._hurry or len(self._pending) >= BATCH_MAX, BATCH_WINDOW_S)
                batch, self._pending, self._hurry = self._pending, [], False
            entries: list[Entry] = []
            for build in batch:
                try:
                    entries.extend(build())
                except Exception:  # logged with its traceback: the writer must outlive one bad row
                    log.exception("evaluation ledger background write failed", path=str(self.path))
            if entries:
                self.record(entries)
            with self._changed:
                self._unwritten -= len(batch)
                self._changed.notify_all()

    def flush(self, timeout_s: float = FLUSH_TIMEOUT_S) -> bool:
        """Write the background rows queued so far now; False if they are not written within the timeout."""
        with self._changed:
            if self._unwritten == 0:
                return True
            self._hurry = True
            self._changed.notify_all()
            return self._changed.wait_for(lambda: self._unwritten == 0, timeout_s)

    async def arecord(self, entries: Sequence[Entry]) -> bool:
        return await anyio.to_thread.run_sync(self.record, entries)

    async def aserve_cached(self, cache_key: str, serve: Callable[[str, str], T | None]) -> T | None:
        return await anyio.to_thread.run_sync(self.serve_cached, cache_key, serve)

    # -- reading -----------------------------------------------------------------------------------

    def get(self, evaluation_id: str) -> dict[str, Any] | None:
        """The full record: request (or null), result, provenance, usage, and the ids of its items."""
        self.flush()

        def read(conn: sqlite3.Connection) -> dict[str, Any] | None:
            row = conn.execute(f"SELECT {_COLUMNS} FROM evaluations WHERE id = ?", (evaluation_id,)).fetchone()
            if row is None:
                return None
            items = [r[0] for r in conn.execute(
                "SELECT id FROM evaluations WHERE parent_id = ? ORDER BY rowid", (evaluation_id,))]  # fmt: skip
            return _record(row, items)

        return self._run("get", read, create=False)

    def find(self, prefix: str, limit: int = 2) -> list[str]:
        """Ids starting with `prefix` (for a person typing a short id)."""
        pattern = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"

        def read(conn: sqlite3.Connection) -> list[str]:
            rows = conn.execute(
                "SELECT id FROM evaluations WHERE id LIKE ? ESCAPE '\\' ORDER BY rowid LIMIT ?", (pattern, limit)
            )
            return [r[0] for r in rows]

        return self._run("find", read, create=False) or []

    def recent(self, limit: int = RECENT_LIMIT, tool: str | None = None) -> list[dict[str, Any]]:
        """The latest top-level evaluations, newest first: id, tool, time, cached, headline."""
        self.flush()

        def read(conn: sqlite3.Connection) -> list[dict[str, Any]]:
            where, args = ("parent_id IS NULL AND tool = ?", (tool, limit)) if tool else ("parent_id IS NULL", (limit,))
            rows = conn.execute(
                f"SELECT id, tool, created_at, cached, headline, duration_ms FROM evaluations WHERE {where} "
                "ORDER BY created_at DESC, rowid DESC LIMIT ?",
                args,
            )
            return [
                {"evaluation_id": r[0], "tool": r[1], "created_at": r[2], "cached": bool(r[3]), "headline": r[4],
                 "duration_ms": r[5]}
                for r in rows
            ]  # fmt: skip

        return self._run("recent", read, create=False) or []

    def export(self, since: str | None = None) -> Iterator[dict[str, Any]]:
        """Every record (items included), oldest first, from `since` (a stored timestamp) on."""
        self.flush()
        last_rowid = 0
        while True:

            def read(conn: sqlite3.Connection, after: int = last_rowid) -> list[tuple[Any, ...]]:
                return conn.execute(
                    f"SELECT rowid, {_COLUMNS} FROM evaluations WHERE rowid > ? AND created_at >= ? "
                    "ORDER BY rowid LIMIT ?",
                    (after, since or "", EXPORT_BATCH),
                ).fetchall()

            rows = self._run("export", read, create=False) or []
            for row in rows:
                yield _record(row[1:], None)
            if len(rows) < EXPORT_BATCH:
                return
            last_rowid = rows[-1][0]

    def count(self) -> int | None:
        self.flush()

        def read(conn: sqlite3.Connection) -> int:
            return int(conn.execute("SELECT COUNT(*) FROM evaluations").fetchone()[0])

        return self._run("count", read, create=False)

    async def aget(self, evaluation_id: str) -> dict[str, Any] | None:
        return await anyio.to_thread.run_sync(self.get, evaluation_id)

    async def arecent(self, limit: int = RECENT_LIMIT, tool: str | None = None) -> list[dict[str, Any]]:
        return await anyio.to_thread.run_sync(self.recent, limit, tool)

    # -- status ------------------------------------------------------------------------------------

    def status(self) -> LedgerStatus:
        """Whether the ledger can be used, checked without creating it."""
        path = str(self.path)
        if self._failure is not None:
            return LedgerStatus(path, "unavailable", self._failure)
        if not self.path.exists():
            why = _creatable(self.path)
            return LedgerStatus(path, "unavailable", why) if why else LedgerStatus(path, "not_created")
        if self.path.is_dir():
            return LedgerStatus(path, "unavailable", "is a directory")
        overwritten = _not_a_database(self.path)
        if overwritten:
            return LedgerStatus(path, "unavailable", overwritten)
        count = self.count()
        if count is None:
            return LedgerStatus(path, "unavailable", self._failure or "cannot be read")
        if not os.access(self.path, os.W_OK):
            return LedgerStatus(path, "unavailable", "the file is read-only", count, SCHEMA_VERSION)
        return LedgerStatus(path, "ok", None, count, SCHEMA_VERSION)


def _not_a_database(path: Path) -> str | None:
    """Why the file at `path` is not a ledger one can read (overwritten, emptied), or None."""
    try:
        with path.open("rb") as file:
            header = file.read(len(SQLITE_HEADER))
    except OSError as exc:
        return f"cannot be read: {exc}"
    if header == SQLITE_HEADER:
        return None
    if not header:
        return "the file is empty (was it overwritten?); move it away and Gavel creates a new ledger"
    return "the file is not a database (was it overwritten?); move it away and Gavel creates a new ledger"


def _record(row: Sequence[Any], items: list[str] | None) -> dict[str, Any]:
    (eid, tool, created_at, duration_ms, request_hash, request_json, result_json, provenance_json, usage_json,
     cached, headline, parent_id, _cache_key, _servable, source_id) = row  # fmt: skip
    record: dict[str, Any] = {
        "evaluation_id": eid,
        "tool": tool,
        "created_at": created_at,
        "duration_ms": duration_ms,
        "cached": bool(cached),
        "source_id": source_id,
        "parent_id": parent_id,
        "headline": headline,
        "request_hash": request_hash,
        "request": json.loads(request_json) if request_json is not None else None,
        "result": json.loads(result_json),
        "provenance": json.loads(provenance_json) if provenance_json is not None else None,
        "usage": json.loads(usage_json) if usage_json is not None else None,
    }
    if items is not None:
        record["items"] = items
    return record
