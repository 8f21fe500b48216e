"""Where the evaluation ledger's rows live: a SQLite file, or a PostgreSQL database shared by many instances.

`Ledger` (tools/ledger/ledger.py) holds all the logic (what to write, what to serve, the memory in front, the
background writer, "a broken ledger never breaks a judgment"); a `Store` gives it connections and says
which failures are for good. The schema, the migrations and the connection wrappers both stores use are in
tools/ledger/schema.py.

SQLite: one connection per store, under a lock (WAL, `synchronous=NORMAL`, a busy timeout,
writes in `BEGIN IMMEDIATE`). PostgreSQL: a `psycopg_pool.ConnectionPool` of autocommit connections, writes
in explicit transactions (committed, with PostgreSQL's default synchronous commit, before `record` returns),
migrations under a transaction-scoped advisory lock so two instances starting together migrate once.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Protocol

from gavel.tools.distribution import install_hint
from gavel.tools.ledger.schema import (
    BUSY_TIMEOUT_S,
    Conn,
    Dialect,
    LedgerError,
    PostgresConn,
    SqliteConn,
    busy,
    connect,
    migrate,
    schema_version,
)
from gavel.tools.urls import redact_url

# PostgreSQL: waiting for a pooled connection, and for a new one to connect.
PG_POOL_TIMEOUT_S = 10.0
PG_CONNECT_TIMEOUT_S = 5
PG_POOL_MAX = 8


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


# -- stores ------------------------------------------------------------------------------------------------


class Store(Protocol):
    dialect: Dialect
    # What messages and `gavel config` show: the file, or the URL with its password masked.
    location: str
    # The exceptions that mean "the ledger failed" (anything else is a bug and propagates).
    errors: tuple[type[BaseException], ...]

    def session(self, *, create: bool) -> contextlib.AbstractContextManager[Conn | None]:
        """A connection for one operation; None when there is no ledger yet and `create` is False."""
        ...

    def permanent(self, exc: BaseException, *, opening: bool) -> bool:
        """Whether nothing later would succeed either (the store then gives up for this process)."""
        ...

    def discard(self) -> None:
        """Drop the connection(s) after a permanent failure."""
        ...

    def outage(self, exc: BaseException) -> bool:
        """Whether `exc` says the database server does not answer (then the ledger rests a while)."""
        ...

    @property
    def opened(self) -> bool: ...

    def missing(self) -> str | None:
        """Why the ledger cannot exist here (checked without creating it), or None."""
        ...

    def exists(self) -> bool: ...

    def writable(self) -> bool: ...

    def close(self) -> None: ...


# The first bytes of every SQLite database file.
SQLITE_HEADER = b"SQLite format 3\x00"


def not_a_database(path: Path) -> str | None:
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


class SqliteStore:
    dialect: Dialect = "sqlite"
    errors: tuple[type[BaseException], ...] = (sqlite3.Error, OSError, LedgerError)

    def __init__(self, path: Path, *, busy_timeout_s: float = BUSY_TIMEOUT_S) -> None:
        self.path = Path(path)
        self.location = str(self.path)
        self.busy_timeout_s = busy_timeout_s
        self._conn: sqlite3.Connection | None = None
        # The file the connection opened (device, inode): one replaced or deleted under it is noticed.
        self._identity: tuple[int, int] | None = None
        # A descriptor of the file kept open as long as the connection, to read its header: opening and closing
        # the file again at every check released this process's POSIX locks on it (closing any descriptor of a
        # file drops them all), so a second process's writes interleaved with this one's and rows were lost.
        self._header_fd: int | None = None
        self._lock = threading.Lock()
        # Whether this thread's last session had to open the connection (decided under the lock).
        self._local = threading.local()

    @contextlib.contextmanager
    def session(self, *, create: bool) -> Iterator[Conn | None]:
        with self._lock:
            self._local.opening = self._conn is None
            if self._conn is None:
                if not create and not self.path.exists():
                    yield None
                    return
                if create:
                    self.path.parent.mkdir(parents=True, exist_ok=True)
                self._conn = connect(self.path, busy_timeout_s=self.busy_timeout_s)
                self._header_fd = os.open(self.path, os.O_RDONLY)
                stat = os.fstat(self._header_fd)
                self._identity = (stat.st_dev, stat.st_ino)
            else:
                self._check_file()
            yield SqliteConn(self._conn)

    def _check_file(self) -> None:
        """Raise when the file at the path is no longer the database this connection writes.

        SQLite keeps writing to a file deleted or replaced under an open connection, and to one overwritten in
        place through its write-ahead log: every write succeeds, and the rows land where nobody can read them
        (`gavel show` finds nothing). Checked at every use: a stat and a 16-byte read.
        """
        try:
            stat = os.stat(self.path)
            assert self._header_fd is not None
            header = os.pread(self._header_fd, len(SQLITE_HEADER), 0)
        except FileNotFoundError:
            raise LedgerError("the ledger file was deleted while the server was using it") from None
        if (stat.st_dev, stat.st_ino) != self._identity:
            raise LedgerError("the ledger file was replaced by another file while the server was using it")
        if header != SQLITE_HEADER:
            raise LedgerError("the ledger file was overwritten while the server was using it (not a database now)")

    def permanent(self, exc: BaseException, *, opening: bool) -> bool:
        # Opening failed, or the file turned out not to be a database (a plain DatabaseError: "file is not a
        # database", "disk image is malformed"): nothing later would succeed either. A lock timeout, a full
        # disk or a constraint failure concerns this write only. So does a lock still held when opening gave up
        # (schema.connect tries again until the busy timeout): the next operation opens the file again.
        if busy(exc):
            return False
        opening = getattr(self._local, "opening", opening)
        return opening or type(exc) is sqlite3.DatabaseError or isinstance(exc, LedgerError)

    @property
    def opened(self) -> bool:
        return self._conn is not None

    def outage(self, exc: BaseException) -> bool:
        return False

    def discard(self) -> None:
        with self._lock:  # not while another thread's operation is using the connection
            if self._conn is not None:
                with contextlib.suppress(sqlite3.Error):
                    self._conn.close()
                self._conn = None
            self._close_header_fd()

    def _close_header_fd(self) -> None:
        # After the connection: SQLite holds no lock of this connection's any more when the descriptor goes.
        if self._header_fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._header_fd)
            self._header_fd = None

    def missing(self) -> str | None:
        if self.path.is_dir():
            return "is a directory"
        return not_a_database(self.path) if self.path.exists() else _creatable(self.path)

    def exists(self) -> bool:
        return self.path.exists()

    def writable(self) -> bool:
        return os.access(self.path, os.W_OK)

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
            self._close_header_fd()


class PostgresStore:
    """A PostgreSQL ledger through a psycopg 3 connection pool (the `postgres` extra)."""

    dialect: Dialect = "postgres"

    def __init__(self, url: str, *, pool_max: int = PG_POOL_MAX, timeout_s: float = PG_POOL_TIMEOUT_S) -> None:
        self.url = url
        self.location = redact_url(url)
        self.timeout_s = timeout_s
        self.pool_max = pool_max
        self._missing_driver: str | None = None
        self._pool: Any = None
        self._pool_lock = threading.Lock()
        self._migrated = False
        try:
            import psycopg
            import psycopg_pool
        except ImportError as exc:
            # Reported as a ledger failure at first use, like any other: the server still judges.
            self._missing_driver = (
                f"GAVEL_LEDGER_URL needs psycopg 3 and psycopg_pool ({exc}); "
                f"install them with {install_hint('postgres')}"
            )
            self.errors: tuple[type[BaseException], ...] = (LedgerError,)
            return
        self._psycopg = psycopg
        self._pool_module = psycopg_pool
        self.errors = (psycopg.Error, psycopg_pool.PoolTimeout, OSError, LedgerError)

    @property
    def missing_driver(self) -> str | None:
        """What to install when the `postgres` extra is missing; None when it is installed."""
        return self._missing_driver

    def _get_pool(self) -> Any:
        if self._missing_driver is not None:
            raise LedgerError(self._missing_driver)
        with self._pool_lock:
            if self._pool is None:
                pool = self._pool_module.ConnectionPool(
                    self.url,
                    min_size=1,
                    max_size=self.pool_max,
                    kwargs={"autocommit": True, "connect_timeout": PG_CONNECT_TIMEOUT_S},
                    timeout=self.timeout_s,
                    open=False,
                    name="gavel-ledger",
                )
                pool.open(wait=False)
                self._pool = pool
            return self._pool

    @property
    def opened(self) -> bool:
        return self._migrated

    @contextlib.contextmanager
    def session(self, *, create: bool) -> Iterator[Conn | None]:
        with self._get_pool().connection() as raw:
            conn = PostgresConn(raw)
            if not self._migrated:
                if not create and schema_version(conn) == 0:
                    yield None  # an empty database: reading it creates nothing
                    return
                migrate(conn)
                self._migrated = True
            yield conn

    def permanent(self, exc: BaseException, *, opening: bool) -> bool:
        # A server that is down or restarting comes back: only a schema this Gavel cannot use is for good.
        return isinstance(exc, LedgerError)

    def outage(self, exc: BaseException) -> bool:
        if self._missing_driver is not None:
            return False
        return isinstance(exc, self._pool_module.PoolTimeout | self._psycopg.OperationalError)

    def discard(self) -> None:
        self.close()

    def missing(self) -> str | None:
        return None

    def exists(self) -> bool:
        return True

    def writable(self) -> bool:
        return True

    def close(self) -> None:
        with self._pool_lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.close(timeout=self.timeout_s)
