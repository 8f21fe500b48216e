"""The evaluation ledger: every judgment recorded, and an identical request served from it.

The parts: `rows` (the row, times, JSON and hashes; no database), `schema` (tables, migrations, connection
wrappers), `store` (SQLite or PostgreSQL connections), `reads` (history, show, export) and `ledger` (`Ledger`:
what to write, what to serve, the memory in front).
"""

from typing import TYPE_CHECKING, Any

from gavel.tools.ledger.rows import (
    RECENT_LIMIT,
    Entry,
    LedgerStatus,
    canonical_hash,
    headline_of,
    parse_since,
    timestamp,
    to_json,
    utc_now,
)

if TYPE_CHECKING:
    from gavel.tools.ledger.ledger import Ledger


def __getattr__(name: str) -> Any:
    # `Ledger` (and SQLite under it) is imported at its first use: a server's start only names the ledger's file.
    if name == "Ledger":
        from gavel.tools.ledger.ledger import Ledger

        return Ledger
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "RECENT_LIMIT",
    "Entry",
    "Ledger",
    "LedgerStatus",
    "canonical_hash",
    "headline_of",
    "parse_since",
    "timestamp",
    "to_json",
    "utc_now",
]
