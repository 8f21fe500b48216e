"""The evaluation ledger's readers (`gavel history`, `show`, `export`, the evaluation:// resources): a mixin of
`Ledger` (tools/ledger/ledger.py), which supplies `_run` (a connection, any failure logged and turned into None).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, TypeVar

import anyio

from gavel.tools.ledger.rows import COLUMNS, RECENT_LIMIT, record_of
from gavel.tools.ledger.schema import Conn

T = TypeVar("T")

# How many rows `export` fetches per round trip: bounded memory on a large ledger.
EXPORT_BATCH = 500


class LedgerReads:
    """Reading recorded judgments; every method returns nothing (None, []) when the ledger cannot be used."""

    if TYPE_CHECKING:  # supplied by Ledger

        def _run(self, what: str, fn: Callable[[Conn], T], *, create: bool = True) -> T | None: ...

    def get(self, evaluation_id: str) -> dict[str, Any] | None:
        """The full record: request (or null), result, provenance, usage, and the ids of its items."""

        def read(conn: Conn) -> dict[str, Any] | None:
            row = conn.execute(f"SELECT {COLUMNS} FROM evaluations WHERE id = ?", (evaluation_id,)).fetchone()
            if row is None:
                return None
            items = [r[0] for r in conn.execute(
                "SELECT id FROM evaluations WHERE parent_id = ? ORDER BY rowid", (evaluation_id,))]  # fmt: skip
            return record_of(row, items)

        return self._run("get", read, create=False)

    def find(self, prefix: str, limit: int = 2) -> list[str]:
        """Ids starting with `prefix` (for a person typing a short id)."""
        pattern = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"

        def read(conn: Conn) -> list[str]:
            rows = conn.execute(
                "SELECT id FROM evaluations WHERE id LIKE ? ESCAPE '\\' ORDER BY rowid LIMIT ?", (pattern, limit)
            )
            return [r[0] for r in rows]

        return self._run("find", read, create=False) or []

    def recent(self, limit: int = RECENT_LIMIT, tool: str | None = None) -> list[dict[str, Any]]:
        """The latest top-level evaluations, newest first: id, tool, time, cached, headline."""

        def read(conn: Conn) -> list[dict[str, Any]]:
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
        last_rowid = 0
        while True:

            def read(conn: Conn, after: int = last_rowid) -> list[tuple[Any, ...]]:
                return conn.execute(
                    f"SELECT rowid, {COLUMNS} FROM evaluations WHERE rowid > ? AND created_at >= ? "
                    "ORDER BY rowid LIMIT ?",
                    (after, since or "", EXPORT_BATCH),
                ).fetchall()

            rows = self._run("export", read, create=False) or []
            for row in rows:
                yield record_of(row[1:], None)
            if len(rows) < EXPORT_BATCH:
                return
            last_rowid = rows[-1][0]

    def count(self, *, calls_only: bool = False) -> int | None:
        """Every row, or with `calls_only` the top-level calls (no batch items or refinement iterations)."""
        where = " WHERE parent_id IS NULL" if calls_only else ""

        def read(conn: Conn) -> int:
            return int(conn.execute(f"SELECT COUNT(*) FROM evaluations{where}").fetchone()[0])

        return self._run("count", read, create=False)

    async def aget(self, evaluation_id: str) -> dict[str, Any] | None:
        return await anyio.to_thread.run_sync(self.get, evaluation_id)

    async def arecent(self, limit: int = RECENT_LIMIT, tool: str | None = None) -> list[dict[str, Any]]:
        return await anyio.to_thread.run_sync(self.recent, limit, tool)
