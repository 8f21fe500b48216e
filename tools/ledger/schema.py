"""The evaluation ledger's schema and connections, shared by both stores (tools/ledger/store.py).

Both stores run the same SQL, written with `?` placeholders (the PostgreSQL connection turns them into `%s`),
and the same schema migrations: the only dialect differences are two tokens in the migrations ({rowid}:
SQLite's implicit rowid, a generated identity column in PostgreSQL; {real}: a double) and how a table's
existence is asked. Migrations run under a transaction-scoped advisory lock on PostgreSQL, so two instances
starting together migrate once.
"""

from __future__ import annotations

import contextlib
import sqlite3
import time
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal, Protocol

SCHEMA_VERSION = 4
BUSY_TIMEOUT_S = 10.0
OPEN_RETRY_S = 0.05  # between two tries to open a file another connection holds locked

# Any constant: the key of the advisory lock that serializes migrations across instances.
_MIGRATION_LOCK = 0x6A76656C  # "gavel"-ish

Dialect = Literal["sqlite", "postgres"]

_TOKENS: dict[Dialect, dict[str, str]] = {
    "sqlite": {"rowid": "", "real": "REAL"},
    "postgres": {"rowid": "rowid BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE, ", "real": "DOUBLE PRECISION"},
}

# Forward migrations, applied in order inside one write transaction; never edit a shipped step, add one. Every
# step only adds (tables, columns, indexes): instances sharing one ledger are upgraded one at a time, and an
# older one must keep writing after a newer one migrated. So a column keeps its first name: `source_id` is what
# the code calls `served_from`, the judgment a cached row was served from.
# The SQLite rendering of every step is exactly the SQL shipped before PostgreSQL support.
MIGRATIONS: tuple[tuple[int, tuple[str, ...]], ...] = (
    (
        1,
        (
            """CREATE TABLE evaluations (
                {rowid}id TEXT PRIMARY KEY,
                tool TEXT NOT NULL,
                created_at TEXT NOT NULL,
                duration_ms {real} NOT NULL,
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
    (
        # Judge fitness (tools/calibration/records.py): one row per calibration run, keyed by what decides a verdict
        # (backend, model digest, readout, prompt template hash), the report kept whole as JSON.
        3,
        (
            """CREATE TABLE calibrations (
                {rowid}id TEXT PRIMARY KEY,
                fitness_key TEXT NOT NULL,
                set_name TEXT NOT NULL,
                created_at TEXT NOT NULL,
                complete INTEGER NOT NULL,
                report_json TEXT NOT NULL
            )""",
            "CREATE INDEX calibrations_key ON calibrations (fitness_key, created_at)",
        ),
    ),
    (
        # MCP tasks (server/tasks_store.py): a long tool call that runs on after its request returned, polled by
        # id from any instance sharing the ledger. The result is kept as the client is sent it (a CallToolResult);
        # the judgment itself is the evaluations row `evaluation_id`, recorded as for any call.
        4,
        (
            """CREATE TABLE tasks (
                {rowid}id TEXT PRIMARY KEY,
                tool TEXT NOT NULL,
                evaluation_id TEXT NOT NULL,
                status TEXT NOT NULL,
                status_message TEXT,
                created_at TEXT NOT NULL,
                updated_at TEXT NOT NULL,
                heartbeat_at TEXT NOT NULL,
                ttl_ms INTEGER,
                poll_interval_ms INTEGER NOT NULL,
                result_json TEXT,
                error_json TEXT
            )""",
        ),
    ),
)


class LedgerError(Exception):
    """The ledger cannot be used as a ledger (e.g. written by a newer Gavel). Never reaches a client."""


def render(statement: str, dialect: Dialect) -> str:
    return statement.format(**_TOKENS[dialect])


# -- connections -------------------------------------------------------------------------------------------


class Conn(Protocol):
    """One database connection as the ledger's logic uses it."""

    dialect: Dialect

    def execute(self, sql: str, args: Sequence[Any] = ()) -> Any: ...

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None: ...

    def transaction(self) -> contextlib.AbstractContextManager[None]: ...

    def has_table(self, name: str) -> bool: ...


class SqliteConn:
    dialect: Dialect = "sqlite"

    def __init__(self, raw: sqlite3.Connection) -> None:
        self.raw = raw

    def execute(self, sql: str, args: Sequence[Any] = ()) -> Any:
        return self.raw.execute(sql, tuple(args))

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        self.raw.executemany(sql, rows)

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        # IMMEDIATE: take the write lock up front, so a writer never has to upgrade a read lock (refused at once).
        self.raw.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                self.raw.execute("ROLLBACK")
            raise
        self.raw.execute("COMMIT")

    def has_table(self, name: str) -> bool:
        found = self.raw.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)).fetchone()
        return found is not None


class PostgresConn:
    dialect: Dialect = "postgres"

    def __init__(self, raw: Any) -> None:
        self.raw = raw  # a psycopg.Connection in autocommit mode

    def execute(self, sql: str, args: Sequence[Any] = ()) -> Any:
        return self.raw.execute(sql.replace("?", "%s"), tuple(args))

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        with self.raw.cursor() as cursor:
            cursor.executemany(sql.replace("?", "%s"), rows)

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        with self.raw.transaction():
            yield

    def has_table(self, name: str) -> bool:
        return self.raw.execute("SELECT to_regclass(%s)", (name,)).fetchone()[0] is not None


def as_conn(conn: Conn | sqlite3.Connection) -> Conn:
    return SqliteConn(conn) if isinstance(conn, sqlite3.Connection) else conn


# -- schema ------------------------------------------------------------------------------------------------


def schema_version(conn: Conn | sqlite3.Connection) -> int:
    conn = as_conn(conn)
    if not conn.has_table("schema_version"):
        return 0
    (version,) = conn.execute("SELECT COALESCE(MAX(version), 0) FROM schema_version").fetchone()
    return int(version)


def _too_new(found: int, where: str) -> LedgerError:
    return LedgerError(
        f"the ledger's schema is v{found}, written by a newer Gavel (this one knows up to v{SCHEMA_VERSION}); "
        f"upgrade Gavel or point {where} at another ledger"
    )


def migrate(conn: Conn | sqlite3.Connection, *, target: int = SCHEMA_VERSION) -> int:
    """Bring the schema forward to `target`; returns the version it found. Safe against a concurrent migrator."""
    conn = as_conn(conn)
    where = "GAVEL_LEDGER_PATH" if conn.dialect == "sqlite" else "GAVEL_LEDGER_URL"
    found = schema_version(conn)
    if found > SCHEMA_VERSION:
        raise _too_new(found, where)
    if found >= target:
        return found
    with conn.transaction():
        if conn.dialect == "postgres":
            conn.execute("SELECT pg_advisory_xact_lock(?)", (_MIGRATION_LOCK,))
        conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)"
        )
        current = schema_version(conn)  # another process may have migrated while this one waited for the lock
        if current > SCHEMA_VERSION:
            raise _too_new(current, where)
        for version, statements in MIGRATIONS:
            if current < version <= target:
                for statement in statements:
                    conn.execute(render(statement, conn.dialect))
                conn.execute(
                    "INSERT INTO schema_version (version, applied_at) VALUES (?, ?)",
                    (version, datetime.now(UTC).isoformat(timespec="microseconds")),
                )
    return found


def busy(exc: BaseException) -> bool:
    """SQLITE_BUSY or SQLITE_LOCKED (any extended code): another connection holds the lock, for now."""
    code = getattr(exc, "sqlite_errorcode", None)
    if not isinstance(exc, sqlite3.OperationalError) or code is None:
        return False
    return code & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)


def connect(path: Path, *, busy_timeout_s: float = BUSY_TIMEOUT_S) -> sqlite3.Connection:
    """An autocommit SQLite connection in WAL mode with the busy timeout set; the schema brought up to date.

    Two servers starting on one new file both switch it to WAL and migrate it, and SQLite can refuse one of them
    at once rather than wait out the busy timeout: a lock met here is tried again until that timeout has passed."""
    deadline = time.monotonic() + busy_timeout_s
    while True:
        conn = sqlite3.connect(str(path), timeout=busy_timeout_s, isolation_level=None, check_same_thread=False)
        try:
            conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_s * 1000)}")
            (mode,) = conn.execute("PRAGMA journal_mode = WAL").fetchone()
            if str(mode).lower() != "wal":
                raise LedgerError(f"the file system does not support SQLite's WAL journal (journal_mode is {mode})")
            conn.execute("PRAGMA synchronous = NORMAL")
            migrate(conn)
            return conn
        except BaseException as exc:
            conn.close()
            if not busy(exc) or time.monotonic() >= deadline:
                raise
        time.sleep(OPEN_RETRY_S)
